/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * selftest, conv family (kernels/conv.hip): every kernel against a float64
 * reference written in the other direction where there is one (transposed
 * convolutions and col2im1d scatter each input into the outputs; the
 * kernels gather), on odd shapes with combinations of stride, padding,
 * dilation and output padding, both bilinear corner rules and a scale
 * factor that does not match the sizes, NaN through max_pool2d.  Inputs
 * are uniform in (-1, 1), never 0; "strided" cases store the source (and
 * the convolution kernel) channels-last with a hole after every innermost
 * run, so a kernel that ignores strides reads poison-free but wrong values.
 * Outputs are poisoned with guard bytes after them; every element is
 * compared, the guards must stay poisoned.  Small grids of 64-thread
 * blocks make the grid-stride loops run several rounds.
 *
 * Copies (im2col, im2col1d, max_pool2d, upsample_nearest2d) must be exact;
 * the rest within the dtype's tolerance of |got - ref| / max(1, |ref|).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selftest.h"

enum {
	OP_CONV1D, OP_CONV2D, OP_CONVT1D, OP_CONVT2D, OP_IM2COL1D, OP_COL2IM1D, OP_IM2COL,
	OP_AVGPOOL, OP_MAXPOOL, OP_NEAREST, OP_BILINEAR, N_OPS
};

static const char *const prefixes[N_OPS] = {
	"conv1d_", "conv2d_", "conv_transpose1d_", "conv_transpose2d_", "im2col1d_",
	"col2im1d_", "im2col_", "avg_pool2d_", "max_pool2d_", "upsample_nearest2d_",
	"upsample_bilinear2d_",
};

/*
 * One case.  Input (b, ci, h, w); 1-D ops use w as the length.  kh x kw:
 * the kernel or window (1-D: kw).  sy, sx: the pools' strides along dims[2]
 * and dims[3].  oh x ow: the upsampled size.
 */
struct ccase {
	const char *name;
	size_t b, ci, co, h, w, kh, kw;
	size_t stride, pad, dil, opad, sy, sx, oh, ow;
	double scale_h, scale_w;
	unsigned grid;                  /* blocks of 64 threads (of block threads) */
	bool strided, nan, align, has_scale;
	unsigned block;                 /* 0: 64 */
};

/* name, b ci co h w kh kw, stride pad dil opad sy sx oh ow, sh sw, grid, strided nan align has_scale, block */
static const struct ccase conv1d_cases[] = {
	{ "k3", 2, 3, 5, 1, 37, 1, 3, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3, false, false, false, false, 0 },
	{ "s2p2", 1, 4, 3, 1, 29, 1, 5, 2, 2, 1, 0, 0, 0, 0, 0, 0, 0, 1, true, false, false, false, 0 },
	{ "s3p1d2", 3, 2, 4, 1, 31, 1, 3, 3, 1, 2, 0, 0, 0, 0, 0, 0, 0, 2, true, false, false, false, 0 },
	{ "wide", 1, 1, 2, 1, 7, 1, 7, 1, 3, 1, 0, 0, 0, 0, 0, 0, 0, 5, false, false, false, false, 0 },
};

static const struct ccase conv2d_cases[] = {
	{ "k3p1", 1, 3, 4, 11, 13, 3, 3, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 3, false, false, false, false, 0 },
	{ "s2", 2, 2, 3, 9, 14, 3, 2, 2, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, true, false, false, false, 0 },
	{ "s2p2d2", 1, 3, 2, 12, 10, 3, 3, 2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 1, true, false, false, false, 0 },
	{ "k1", 2, 1, 3, 7, 5, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 4, false, false, false, false, 0 },
	/*
	 * 256-thread blocks: f16/bf16 take the implicit GEMM on the matrix
	 * units (conv2d_mma) where the target has them (the host: MFMA at
	 * wave 64, WMMA at wave 32).  Pixels not a multiple of the 64-row
	 * tile, K = c_in x kh x kw not a multiple of the 32-wide slice, c_out
	 * below and past one 64-channel tile, stride, padding and dilation;
	 * fewer blocks than tiles (the grid-stride over tiles).
	 */
	{ "mma-k3p1", 2, 5, 19, 13, 11, 3, 3, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 2, false, false, false, false, 256 },
	{ "mma-s2d2", 1, 7, 70, 17, 15, 3, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 3, true, false, false, false, 256 },
	{ "mma-k1", 3, 40, 33, 6, 7, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, false, false, false, false, 256 },
};

static const struct ccase convt1d_cases[] = {
	{ "k3", 2, 3, 4, 1, 13, 1, 3, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3, false, false, false, false, 0 },
	{ "s2p1op1", 1, 2, 3, 1, 11, 1, 4, 2, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, true, false, false, false, 0 },
	{ "s3p2d2op2", 2, 3, 2, 1, 9, 1, 3, 3, 2, 2, 2, 0, 0, 0, 0, 0, 0, 2, true, false, false, false, 0 },
};

static const struct ccase convt2d_cases[] = {
	{ "k3", 1, 2, 3, 7, 9, 3, 3, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3, false, false, false, false, 0 },
	{ "s2p1op1", 2, 3, 2, 5, 6, 3, 2, 2, 1, 1, 1, 0, 0, 0, 0, 0, 0, 2, true, false, false, false, 0 },
	{ "s3p1d2op2", 1, 2, 3, 6, 5, 2, 3, 3, 1, 2, 2, 0, 0, 0, 0, 0, 0, 1, true, false, false, false, 0 },
};

static const struct ccase im2col1d_cases[] = {
	{ "k3", 2, 3, 0, 1, 17, 1, 3, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3, false, false, false, false, 0 },
	{ "s2p2", 1, 2, 0, 1, 19, 1, 4, 2, 2, 1, 0, 0, 0, 0, 0, 0, 0, 1, true, false, false, false, 0 },
	{ "s3p1d2", 2, 3, 0, 1, 23, 1, 3, 3, 1, 2, 0, 0, 0, 0, 0, 0, 0, 2, true, false, false, false, 0 },
};

/* col2im1d: src (b, l_in = w, c_out = co, k_size = kw), contiguous. */
static const struct ccase col2im1d_cases[] = {
	{ "s1", 2, 0, 3, 1, 13, 1, 4, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3, false, false, false, false, 0 },
	{ "s2", 1, 0, 2, 1, 11, 1, 5, 2, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, false, false, false, false, 0 },
	{ "s3", 2, 0, 3, 1, 7, 1, 3, 3, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, false, false, false, false, 0 },
	{ "gaps", 1, 0, 2, 1, 9, 1, 2, 4, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, false, false, false, false, 0 },
};

static const struct ccase im2col_cases[] = {
	{ "k3p1", 1, 3, 0, 9, 11, 3, 3, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 3, false, false, false, false, 0 },
	{ "s2", 2, 2, 0, 10, 7, 3, 2, 2, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, true, false, false, false, 0 },
	{ "s2p2d2", 1, 2, 0, 11, 12, 3, 3, 2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 1, true, false, false, false, 0 },
};

static const struct ccase pool_cases[] = {
	{ "k2s2", 2, 3, 0, 11, 13, 2, 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 3, false, false, false, false, 0 },
	{ "k3x2s2x3", 1, 2, 0, 9, 14, 3, 2, 0, 0, 0, 0, 2, 3, 0, 0, 0, 0, 1, true, false, false, false, 0 },
	{ "overlap", 1, 3, 0, 7, 8, 3, 3, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 2, true, false, false, false, 0 },
	{ "nan", 1, 2, 0, 9, 10, 2, 3, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 2, false, true, false, false, 0 },
	/* 8 outputs a row: the kernels' 4-outputs-a-thread path */
	{ "k2s2-row8", 2, 3, 0, 11, 17, 2, 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 2, true, false, false, false, 0 },
};

static const struct ccase nearest_cases[] = {
	{ "up", 1, 3, 0, 5, 7, 0, 0, 0, 0, 0, 0, 0, 0, 11, 13, 0, 0, 3, false, false, false, false, 0 },
	{ "down", 2, 2, 0, 9, 8, 0, 0, 0, 0, 0, 0, 0, 0, 4, 5, 0, 0, 1, true, false, false, false, 0 },
	{ "x2x3", 1, 2, 0, 6, 6, 0, 0, 0, 0, 0, 0, 0, 0, 12, 18, 0, 0, 2, false, false, false, false, 0 },
	{ "row12", 2, 3, 0, 5, 6, 0, 0, 0, 0, 0, 0, 0, 0, 10, 12, 0, 0, 2, true, false, false, false, 0 },
};

static const struct ccase bilinear_cases[] = {
	{ "up", 1, 3, 0, 5, 7, 0, 0, 0, 0, 0, 0, 0, 0, 11, 13, 0, 0, 3, false, false, false, false, 0 },
	{ "up_corners", 1, 3, 0, 5, 7, 0, 0, 0, 0, 0, 0, 0, 0, 11, 13, 0, 0, 2, false, false, true, false, 0 },
	{ "down", 2, 2, 0, 9, 8, 0, 0, 0, 0, 0, 0, 0, 0, 4, 5, 0, 0, 1, true, false, false, false, 0 },
	{ "down_corners", 2, 2, 0, 9, 8, 0, 0, 0, 0, 0, 0, 0, 0, 4, 5, 0, 0, 2, true, false, true, false, 0 },
	/* Factors that do not match the sizes: positions past the image. */
	{ "scale", 1, 2, 0, 4, 6, 0, 0, 0, 0, 0, 0, 0, 0, 9, 11, 2.0, 1.5, 1, false, false, false, true, 0 },
	{ "one_corners", 1, 2, 0, 6, 5, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 1, true, false, true, false, 0 },
	/* 16 outputs a row: the kernel's 4-outputs-a-thread path */
	{ "row16", 2, 3, 0, 5, 7, 0, 0, 0, 0, 0, 0, 0, 0, 11, 16, 0, 0, 2, true, false, false, false, 0 },
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	const struct ccase *cases;
	size_t n;
} op_cases[N_OPS] = {
	[OP_CONV1D] = { conv1d_cases, N_OF(conv1d_cases) },
	[OP_CONV2D] = { conv2d_cases, N_OF(conv2d_cases) },
	[OP_CONVT1D] = { convt1d_cases, N_OF(convt1d_cases) },
	[OP_CONVT2D] = { convt2d_cases, N_OF(convt2d_cases) },
	[OP_IM2COL1D] = { im2col1d_cases, N_OF(im2col1d_cases) },
	[OP_COL2IM1D] = { col2im1d_cases, N_OF(col2im1d_cases) },
	[OP_IM2COL] = { im2col_cases, N_OF(im2col_cases) },
	[OP_AVGPOOL] = { pool_cases, N_OF(pool_cases) - 1 },    /* "nan" is max_pool2d's */
	[OP_MAXPOOL] = { pool_cases, N_OF(pool_cases) },
	[OP_NEAREST] = { nearest_cases, N_OF(nearest_cases) },
	[OP_BILINEAR] = { bilinear_cases, N_OF(bilinear_cases) },
};

/* A host tensor of up to 4 dims, its device copy, and its strides. */
struct tens {
	int nd;
	size_t dims[4], st[4], len;
	uint8_t *host;
	uint64_t dev;
};

/*
 * Contiguous, or (strided) dims stored in the physical order (0, 2, 3, 1)
 * resp. (0, 2, 1) with one unused element after every innermost run.  Every
 * element, holes included, holds a value (NaN now and then with nan).
 */
static int tens_new(struct st_device *d, struct tens *t, enum st_dtype dt, int nd,
                    const size_t *dims, bool strided, bool nan, uint64_t *rng)
{
	static const int plain[4] = { 0, 1, 2, 3 }, cl4[4] = { 0, 2, 3, 1 }, cl3[3] = { 0, 2, 1 };
	const int *perm = !strided ? plain : nd == 4 ? cl4 : cl3;
	size_t acc = 1;
	uint64_t dev = 0;
	int r;

	memset(t, 0, sizeof(*t));
	t->nd = nd;
	for (int k = nd - 1; k >= 0; k--) {
		t->dims[perm[k]] = dims[perm[k]];
		t->st[perm[k]] = acc;
		acc *= dims[perm[k]] + (strided && k == nd - 1);
	}
	t->len = acc;
	t->host = malloc(acc * st_dtype_size(dt));
	if (!t->host)
		return -ENOMEM;
	for (size_t i = 0; i < acc; i++) {
		double v = st_uniform(rng, -1, 1);

		if (nan && st_rand(rng) % 23 == 0)
			v = NAN;
		st_store(dt, t->host, i, st_fv(v));
	}
	r = st_dbuf_new(d, t->host, acc * st_dtype_size(dt), &dev);
	if (r == 0)
		t->dev = dev;
	return r;
}

static void tens_free(struct st_device *d, struct tens *t)
{
	st_dbuf_free(d, t->dev);
	free(t->host);
}

/* Element (i0, i1, i2[, i3]) as double. */
static double tv(enum st_dtype dt, const struct tens *t, size_t i0, size_t i1, size_t i2,
                 size_t i3)
{
	size_t off = i0 * t->st[0] + i1 * t->st[1] + i2 * t->st[2] + (t->nd == 4 ? i3 * t->st[3] : 0);

	return st_load(dt, t->host, off).f;
}

/* Candle's info: dims then strides of each tensor, one after another. */
static void put_info(uint64_t *v, const struct tens *a, const struct tens *b)
{
	size_t n = 0;

	for (int j = 0; j < 2; j++) {
		const struct tens *t = j ? b : a;

		if (!t)
			break;
		for (int k = 0; k < t->nd; k++)
			v[n + (size_t)k] = t->dims[k];
		for (int k = 0; k < t->nd; k++)
			v[n + (size_t)t->nd + (size_t)k] = t->st[k];
		n += 2 * (size_t)t->nd;
	}
}

/* Output length of a convolution / its transpose along one axis. */
static size_t conv_len(size_t n, size_t k, const struct ccase *c)
{
	return (n + 2 * c->pad - c->dil * (k - 1) - 1) / c->stride + 1;
}

static size_t convt_len(size_t n, size_t k, const struct ccase *c)
{
	return (n - 1) * c->stride - 2 * c->pad + c->dil * (k - 1) + c->opad + 1;
}

/* Source position of window tap j for output o, or -1 in the padding. */
static long long tap(size_t o, size_t j, const struct ccase *c, size_t n)
{
	long long p = (long long)(o * c->stride + j * c->dil) - (long long)c->pad;

	return p >= 0 && p < (long long)n ? p : -1;
}

/* PyTorch's source coordinate, clamped to the image; see conv.hip. */
static void bilinear_src(size_t o, size_t in, size_t out, const struct ccase *c, bool has,
                         double factor, size_t *lo, size_t *hi, double *w)
{
	double scale, f;

	if (c->align)
		scale = out > 1 ? (double)(in - 1) / (double)(out - 1) : 0.0;
	else
		scale = has ? 1.0 / factor : (double)in / (double)out;
	f = c->align ? scale * (double)o : scale * ((double)o + 0.5) - 0.5;
	f = fmin(fmax(f, 0.0), (double)(in - 1));
	*lo = (size_t)floor(f);
	*hi = *lo + 1 < in ? *lo + 1 : *lo;
	*w = f - (double)*lo;
}

static size_t nearest_src(size_t o, double scale, size_t n)
{
	double f = (double)o * scale;

	return f >= (double)(n - 1) ? n - 1 : (size_t)f;
}

/*
 * The reference output of case c into want (n elements, contiguous);
 * x the source, k the convolution kernel (or NULL).
 */
static void reference(int op, enum st_dtype dt, const struct ccase *c, const struct tens *x,
                      const struct tens *k, double *want, size_t n)
{
	const size_t b = c->b, ci = c->ci, co = c->co;

	switch (op) {
	case OP_CONV1D: {
		const size_t lo = conv_len(c->w, c->kw, c);

		for (size_t i = 0; i < n; i++) {
			const size_t l = i % lo, o = i / lo % co, bb = i / lo / co;
			double acc = 0;

			for (size_t j = 0; j < c->kw; j++) {
				long long p = tap(l, j, c, c->w);

				for (size_t q = 0; p >= 0 && q < ci; q++)
					acc += tv(dt, x, bb, q, (size_t)p, 0) * tv(dt, k, o, q, j, 0);
			}
			want[i] = acc;
		}
		break;
	}
	case OP_CONV2D: {
		const size_t ho = conv_len(c->h, c->kh, c), wo = conv_len(c->w, c->kw, c);

		for (size_t i = 0; i < n; i++) {
			const size_t xo = i % wo, yo = i / wo % ho, o = i / wo / ho % co;
			const size_t bb = i / wo / ho / co;
			double acc = 0;

			for (size_t p = 0; p < c->kh; p++) {
				for (size_t q = 0; q < c->kw; q++) {
					long long sy = tap(yo, p, c, c->h), sx = tap(xo, q, c, c->w);

					for (size_t r = 0; sy >= 0 && sx >= 0 && r < ci; r++)
						acc += tv(dt, x, bb, r, (size_t)sy, (size_t)sx) *
						       tv(dt, k, o, r, p, q);
				}
			}
			want[i] = acc;
		}
		break;
	}
	case OP_CONVT1D: {
		/* Scatter every input through every tap. */
		const size_t lo = convt_len(c->w, c->kw, c);

		memset(want, 0, n * sizeof(*want));
		for (size_t bb = 0; bb < b; bb++)
			for (size_t r = 0; r < ci; r++)
				for (size_t l = 0; l < c->w; l++)
					for (size_t j = 0; j < c->kw; j++) {
						long long o = (long long)(l * c->stride + j * c->dil) -
						              (long long)c->pad;

						if (o < 0 || o >= (long long)lo)
							continue;
						for (size_t q = 0; q < co; q++)
							want[(bb * co + q) * lo + (size_t)o] +=
								tv(dt, x, bb, r, l, 0) * tv(dt, k, r, q, j, 0);
					}
		break;
	}
	case OP_CONVT2D: {
		const size_t ho = convt_len(c->h, c->kh, c), wo = convt_len(c->w, c->kw, c);

		memset(want, 0, n * sizeof(*want));
		for (size_t bb = 0; bb < b; bb++)
			for (size_t r = 0; r < ci; r++)
				for (size_t y = 0; y < c->h; y++)
					for (size_t xx = 0; xx < c->w; xx++)
						for (size_t p = 0; p < c->kh; p++)
							for (size_t q = 0; q < c->kw; q++) {
								long long oy = (long long)(y * c->stride + p * c->dil) - (long long)c->pad;
								long long ox = (long long)(xx * c->stride + q * c->dil) - (long long)c->pad;

								if (oy < 0 || oy >= (long long)ho || ox < 0 || ox >= (long long)wo)
									continue;
								for (size_t o = 0; o < co; o++)
									want[((bb * co + o) * ho + (size_t)oy) * wo + (size_t)ox] +=
										tv(dt, x, bb, r, y, xx) * tv(dt, k, r, o, p, q);
							}
		break;
	}
	case OP_IM2COL1D: {
		/* dst (b, l_out, c_in, l_k) */
		const size_t lo = conv_len(c->w, c->kw, c);

		for (size_t i = 0; i < n; i++) {
			const size_t j = i % c->kw, r = i / c->kw % ci, l = i / c->kw / ci % lo;
			const size_t bb = i / c->kw / ci / lo;
			long long p = tap(l, j, c, c->w);

			want[i] = p < 0 ? 0.0 : tv(dt, x, bb, r, (size_t)p, 0);
		}
		break;
	}
	case OP_COL2IM1D: {
		/* src (b, l_in, c_out, k) contiguous -> dst (b, c_out, l_out) */
		const size_t lo = (c->w - 1) * c->stride + c->kw;

		memset(want, 0, n * sizeof(*want));
		for (size_t bb = 0; bb < b; bb++)
			for (size_t l = 0; l < c->w; l++)
				for (size_t q = 0; q < co; q++)
					for (size_t j = 0; j < c->kw; j++)
						want[(bb * co + q) * lo + l * c->stride + j] +=
							st_load(dt, x->host, ((bb * c->w + l) * co + q) * c->kw + j).f;
		break;
	}
	case OP_IM2COL: {
		/* dst (b, h_out, w_out, c_in, h_k, w_k) */
		const size_t ho = conv_len(c->h, c->kh, c), wo = conv_len(c->w, c->kw, c);

		for (size_t i = 0; i < n; i++) {
			size_t t = i;
			const size_t q = t % c->kw, p = (t /= c->kw) % c->kh, r = (t /= c->kh) % ci;
			const size_t xo = (t /= ci) % wo, yo = (t /= wo) % ho, bb = t / ho;
			long long sy = tap(yo, p, c, c->h), sx = tap(xo, q, c, c->w);

			want[i] = sy < 0 || sx < 0 ? 0.0 : tv(dt, x, bb, r, (size_t)sy, (size_t)sx);
		}
		break;
	}
	case OP_AVGPOOL:
	case OP_MAXPOOL: {
		const size_t o2 = (c->h - c->kh) / c->sy + 1, o3 = (c->w - c->kw) / c->sx + 1;

		for (size_t i = 0; i < n; i++) {
			const size_t e = i % o3, a = i / o3 % o2, r = i / o3 / o2 % ci;
			const size_t bb = i / o3 / o2 / ci;
			double acc = op == OP_MAXPOOL ? -INFINITY : 0;
			bool nan = false;

			for (size_t p = 0; p < c->kh; p++)
				for (size_t q = 0; q < c->kw; q++) {
					double v = tv(dt, x, bb, r, a * c->sy + p, e * c->sx + q);

					nan |= isnan(v);
					acc = op == OP_MAXPOOL ? fmax(acc, v) : acc + v;
				}
			want[i] = op == OP_MAXPOOL && nan ? NAN :
			          op == OP_MAXPOOL ? acc : acc / (double)(c->kh * c->kw);
		}
		break;
	}
	case OP_NEAREST: {
		/* candle's caller: scale = in / out along dims[2] ("w") and dims[3]. */
		const double s2 = (double)c->h / (double)c->oh, s3 = (double)c->w / (double)c->ow;

		for (size_t i = 0; i < n; i++) {
			const size_t e = i % c->ow, a = i / c->ow % c->oh, r = i / c->ow / c->oh % ci;
			const size_t bb = i / c->ow / c->oh / ci;

			want[i] = tv(dt, x, bb, r, nearest_src(a, s2, c->h), nearest_src(e, s3, c->w));
		}
		break;
	}
	case OP_BILINEAR:
		for (size_t i = 0; i < n; i++) {
			const size_t e = i % c->ow, a = i / c->ow % c->oh, r = i / c->ow / c->oh % ci;
			const size_t bb = i / c->ow / c->oh / ci;
			size_t y0, y1, x0, x1;
			double wy, wx, top, bot;

			bilinear_src(a, c->h, c->oh, c, c->has_scale, c->scale_h, &y0, &y1, &wy);
			bilinear_src(e, c->w, c->ow, c, c->has_scale, c->scale_w, &x0, &x1, &wx);
			top = tv(dt, x, bb, r, y0, x0) * (1 - wx) + tv(dt, x, bb, r, y0, x1) * wx;
			bot = tv(dt, x, bb, r, y1, x0) * (1 - wx) + tv(dt, x, bb, r, y1, x1) * wx;
			want[i] = top * (1 - wy) + bot * wy;
		}
		break;
	}
}

/* Argument storage of one launch. */
struct cargs {
	size_t s[8];
	double f[2];
	bool flag[3];
	struct { uint64_t v[32]; } info;   /* hr_layout, by value */
	uint64_t src, ker, dst;
	void *a[ST_MAX_ARGS + 2];
};

/* Fills the arguments in the kernel's order; returns the output length. */
static size_t set_args(int op, const struct ccase *c, const struct tens *x,
                       const struct tens *k, struct cargs *g)
{
	size_t n = 0, ns = 0, m = 0;

	memset(&g->info, 0, sizeof(g->info));
	put_info(g->info.v, x, k);
	switch (op) {
	case OP_CONV1D:
	case OP_CONVT1D: {
		const size_t lo = op == OP_CONV1D ? conv_len(c->w, c->kw, c) : convt_len(c->w, c->kw, c);

		n = c->b * c->co * lo;
		g->s[ns++] = x->len;            /* src_numel: unused */
		g->s[ns++] = lo;
		g->s[ns++] = c->stride;
		g->s[ns++] = c->pad;
		if (op == OP_CONVT1D)
			g->s[ns++] = c->opad;
		g->s[ns++] = c->dil;
		break;
	}
	case OP_CONV2D:
	case OP_CONVT2D: {
		const bool t = op == OP_CONVT2D;
		const size_t ho = t ? convt_len(c->h, c->kh, c) : conv_len(c->h, c->kh, c);
		const size_t wo = t ? convt_len(c->w, c->kw, c) : conv_len(c->w, c->kw, c);

		n = c->b * c->co * ho * wo;
		g->s[ns++] = x->len;
		g->s[ns++] = wo;
		g->s[ns++] = ho;
		g->s[ns++] = c->stride;
		g->s[ns++] = c->pad;
		if (t)
			g->s[ns++] = c->opad;
		g->s[ns++] = c->dil;
		break;
	}
	case OP_IM2COL1D: {
		const size_t lo = conv_len(c->w, c->kw, c);

		n = c->b * lo * c->ci * c->kw;
		g->s[ns++] = c->b * lo * c->ci;  /* candle's dst_numel: rows of l_k */
		g->s[ns++] = lo;
		g->s[ns++] = c->kw;
		g->s[ns++] = c->stride;
		g->s[ns++] = c->pad;
		g->s[ns++] = c->dil;
		break;
	}
	case OP_COL2IM1D: {
		const size_t lo = (c->w - 1) * c->stride + c->kw;

		n = c->b * c->co * lo;
		g->s[ns++] = n;
		g->s[ns++] = lo;
		g->s[ns++] = c->w;
		g->s[ns++] = c->co;
		g->s[ns++] = c->kw;
		g->s[ns++] = c->stride;
		break;
	}
	case OP_IM2COL: {
		const size_t ho = conv_len(c->h, c->kh, c), wo = conv_len(c->w, c->kw, c);

		n = c->b * ho * wo * c->ci * c->kh * c->kw;
		g->s[ns++] = n;
		g->s[ns++] = ho;
		g->s[ns++] = wo;
		g->s[ns++] = c->kh;
		g->s[ns++] = c->kw;
		g->s[ns++] = c->stride;
		g->s[ns++] = c->pad;
		g->s[ns++] = c->dil;
		break;
	}
	case OP_AVGPOOL:
	case OP_MAXPOOL:
		n = c->b * c->ci * ((c->h - c->kh) / c->sy + 1) * ((c->w - c->kw) / c->sx + 1);
		g->s[ns++] = x->len;
		g->s[ns++] = c->kh;             /* candle's w_k: the dims[2] axis */
		g->s[ns++] = c->kw;
		g->s[ns++] = c->sy;
		g->s[ns++] = c->sx;
		break;
	case OP_NEAREST:
		n = c->b * c->ci * c->oh * c->ow;
		g->s[ns++] = c->oh;             /* candle's w_out: the dims[2] axis */
		g->s[ns++] = c->ow;
		g->f[0] = (double)c->h / (double)c->oh;
		g->f[1] = (double)c->w / (double)c->ow;
		break;
	case OP_BILINEAR:
		n = c->b * c->ci * c->oh * c->ow;
		g->s[ns++] = c->ow;
		g->s[ns++] = c->oh;
		g->flag[0] = c->align;
		g->flag[1] = g->flag[2] = c->has_scale;
		g->f[0] = c->has_scale ? c->scale_h : 0;
		g->f[1] = c->has_scale ? c->scale_w : 0;
		break;
	}
	for (size_t i = 0; i < ns; i++)
		g->a[m++] = &g->s[i];
	if (op == OP_NEAREST) {
		g->a[m++] = &g->f[0];
		g->a[m++] = &g->f[1];
	} else if (op == OP_BILINEAR) {
		g->a[m++] = &g->flag[0];
		g->a[m++] = &g->flag[1];
		g->a[m++] = &g->f[0];
		g->a[m++] = &g->flag[2];
		g->a[m++] = &g->f[1];
	}
	if (op != OP_COL2IM1D)
		g->a[m++] = &g->info;
	g->a[m++] = &g->src;
	if (k)
		g->a[m++] = &g->ker;
	g->a[m] = &g->dst;
	return n;
}

static bool has_kernel(int op)
{
	return op == OP_CONV1D || op == OP_CONV2D || op == OP_CONVT1D || op == OP_CONVT2D;
}

static void run_case(struct st_device *d, const struct st_kernel *k,
                     struct hanzo_rocm_kernel *kh, const struct ccase *c, struct st_result *res)
{
	const enum st_dtype dt = k->in[0];
	const int op = k->op;
	const bool two_d = op == OP_CONV2D || op == OP_CONVT2D || op == OP_IM2COL ||
	                   op >= OP_AVGPOOL;
	uint64_t rng = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)op << 48) ^ ((uint64_t)dt << 40);
	struct tens x, kt;
	struct cargs *g = calloc(1, sizeof(*g));
	double *want = NULL;
	uint8_t *got = NULL;
	size_t n, sz = st_dtype_size(dt), bytes;
	int r;

	memset(&x, 0, sizeof(x));
	memset(&kt, 0, sizeof(kt));
	if (!g) {
		st_fail(res, "out of memory");
		return;
	}
	for (const char *p = c->name; *p; p++)          /* a stream per case */
		rng = (rng ^ (uint8_t)*p) * 1099511628211ULL;
	if (op == OP_COL2IM1D) {
		const size_t dims[4] = { c->b, c->w, c->co, c->kw };

		r = tens_new(d, &x, dt, 4, dims, false, false, &rng);
	} else if (two_d) {
		const size_t dims[4] = { c->b, c->ci, c->h, c->w };

		r = tens_new(d, &x, dt, 4, dims, c->strided, c->nan, &rng);
	} else {
		const size_t dims[3] = { c->b, c->ci, c->w };

		r = tens_new(d, &x, dt, 3, dims, c->strided, c->nan, &rng);
	}
	if (r == 0 && has_kernel(op)) {
		const bool t = op == OP_CONVT1D || op == OP_CONVT2D;
		const size_t d4[4] = { t ? c->ci : c->co, t ? c->co : c->ci, c->kh, c->kw };
		const size_t d3[3] = { t ? c->ci : c->co, t ? c->co : c->ci, c->kw };

		r = tens_new(d, &kt, dt, two_d ? 4 : 3, two_d ? d4 : d3, c->strided, false, &rng);
	}
	if (r < 0) {
		st_fail(res, "inputs: %s", hanzo_rocm_strerror(r));
		goto out;
	}
	n = set_args(op, c, &x, has_kernel(op) ? &kt : NULL, g);
	res->numel = n;
	bytes = n * sz + ST_GUARD_BYTES;
	want = calloc(n ? n : 1, sizeof(*want));
	got = malloc(bytes);
	if (!want || !got || (r = st_dbuf_new(d, NULL, n * sz, &g->dst)) < 0) {
		st_fail(res, "output: %s", hanzo_rocm_strerror(r < 0 ? r : -ENOMEM));
		goto out;
	}
	g->src = x.dev;
	g->ker = kt.dev;
	if (st_launch_sync(d, kh, c->grid, 1, c->block ? c->block : 64, g->a, res) < 0)
		goto out;
	if (st_dbuf_get(d, g->dst, got, bytes) < 0) {
		st_fail(res, "copy back");
		goto out;
	}
	reference(op, dt, c, &x, &kt, want, n);
	res->max_err = 0;
	for (size_t i = 0; i < n && res->ok; i++)
		st_check_float(dt, k->cmp == ST_CMP_EXACT ? 0 : k->tol, i, got, want[i], res);
	st_check_poison(got, n * sz, bytes, res);
out:
	if (g->dst)
		st_dbuf_free(d, g->dst);
	tens_free(d, &x);
	tens_free(d, &kt);
	free(g);
	free(want);
	free(got);
}

static int run(struct st_device *d, const struct st_kernel *k, struct hanzo_rocm_kernel *kh,
               void (*emit)(void *data, const struct st_result *r), void *data)
{
	int failed = 0;

	for (size_t i = 0; i < op_cases[k->op].n; i++) {
		const struct ccase *c = &op_cases[k->op].cases[i];
		struct st_result res;

		if (c->nan && !st_dtype_is_float(k->in[0]))
			continue;
		st_result_start(&res, k, c->name, 0);
		run_case(d, k, kh, c, &res);
		failed += !res.ok;
		emit(data, &res);
	}
	return failed;
}

int st_plan_conv(const char *name, struct st_kernel *k)
{
	for (int op = 0; op < N_OPS; op++) {
		enum st_dtype dt;

		if (!st_name_dtype(name, prefixes[op], &dt) || !st_dtype_is_float(dt))
			continue;
		k->shape = ST_CONV;
		k->op = op;
		k->n_in = 1;
		k->in[0] = dt;
		k->out = dt;
		k->cmp = op == OP_IM2COL1D || op == OP_IM2COL || op == OP_MAXPOOL ||
		         op == OP_NEAREST ? ST_CMP_EXACT : ST_CMP_TOL;
		k->tol = k->cmp == ST_CMP_EXACT ? 0 : st_tolerance(dt);
		k->run = run;
		return 0;
	}
	return -ENOENT;
}
