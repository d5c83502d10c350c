/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * selftest, quantized family (kernels/quantized.hip).
 *
 * No Debian release we can reach ships ggml (apt-cache search ggml finds
 * nothing on Debian 12), so the reference here is an independent C
 * rendering of ggml's documented block layouts and of the quantization
 * rules of ggml-quants.c's *_ref functions, written from the layouts
 * block by block (doc/KERNELS.md):
 *   q4_0 18 B {f16 d; u8 qs[16]}          x = (nibble - 8) * d
 *   q4_1 20 B {f16 d, m; u8 qs[16]}       x = nibble * d + m
 *   q5_0 22 B {f16 d; u8 qh[4]; u8 qs[16]}   x = ((qh bit j) << 4 | nibble - 16) * d
 *   q5_1 24 B {f16 d, m; u8 qh[4]; u8 qs[16]} x = ((qh bit j) << 4 | nibble) * d + m
 *   q8_0 34 B {f16 d; i8 qs[32]}          x = q * d
 *   q8_1 36 B {f16 d, s; i8 qs[32]}       x = q * d, s = d * sum(q)
 * where element j < 16 is the low nibble of qs[j], element j + 16 its high
 * nibble, and qh is little-endian.  t/quantized-fixtures.sh checks these
 * layouts against vectors written by a separate Python script.
 *
 * Checks: the dequantizers and get_rows decode reference blocks (and
 * blocks of random bytes) exactly; llama's 0.1 + 2cos(i) vector of 4096
 * values round-trips with llama's error measure sqrt(sum d^2) / n <= 0.002
 * (test-quantize-fns); quantize_q8_1 is byte-exact to the reference
 * (odd kx, padding); the mat-vecs against float64 of the dequantized
 * weights: f32 dequant within 1e-5 of sum |x y|, the q8_1 integer path
 * within 1e-5 of the float64 product with the q8_1-decoded vector, and a
 * mean relative error <= 0.02 against the float vector; outputs outside
 * the written range keep their poison.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selftest.h"

#define QK 32
enum qt { Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q4_K, Q5_K, Q6_K, NQT };
enum op { OP_QUANTIZE, OP_DEQ_F32, OP_DEQ_F16, OP_GET_ROWS, OP_PACK, OP_UNPACK, OP_DMMV, OP_MMVQ };
/* k->op: the op, the format << 4, the mat-vec's columns << 8, and OP_P: the
 * planar layout (the Qp kernels, quantize_q8_1p). */
#define OP_P (1 << 12)

static const char *const qt_names[NQT] = { "q4_0", "q4_1", "q5_0", "q5_1", "q8_0",
                                           "q4_K", "q5_K", "q6_K" };
static const size_t qt_bytes[NQT] = { 18, 20, 22, 24, 34, 144, 176, 210 };
/* Elements a block. */
static size_t qk(enum qt t)
{
	return t >= Q4_K ? 256 : QK;
}
#define Q8_1_BYTES 36

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

/* A byte as the i8 it stores. */
static int i8(uint8_t v)
{
	return v < 128 ? v : v - 256;
}

static float get_f16(const uint8_t *p)
{
	return st_f16_to_f32((uint16_t)(p[0] | p[1] << 8));
}


/* The 6-bit scale and min of sub-block j of q4_K/q5_K's 12 scale bytes:
 * j < 4 in the low 6 bits of bytes j and j + 4; j >= 4 as a nibble of byte
 * j + 4 with its top 2 bits in the top bits of byte j - 4 (scale) or j (min). */
static void k_decode_scale(const uint8_t *s, int j, int *sc, int *m)
{
	if (j < 4) {
		*sc = s[j] & 63;
		*m = s[j + 4] & 63;
	} else {
		*sc = (s[j + 4] & 15) | (s[j - 4] >> 6) << 4;
		*m = (s[j + 4] >> 4) | (s[j] >> 6) << 4;
	}
}

static int clampi(long v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : (int)v;
}

/*
 * A K-quant super-block of 256 values.  Not ggml's quantizer (that one
 * searches scales); a plain min/max one - the layout, not the search, is
 * what the kernels must get right.
 */
static void quantize_k_ref(enum qt t, const float *x, uint8_t *b)
{
	memset(b, 0, qt_bytes[t]);
	if (t == Q6_K) {
		float scale[16], smax = 0;

		for (int s = 0; s < 16; s++) {
			float amax = 0, max = 0;

			for (int l = 0; l < 16; l++) {
				if (fabsf(x[16 * s + l]) > amax) {
					amax = fabsf(x[16 * s + l]);
					max = x[16 * s + l];
				}
			}
			scale[s] = max / -32.0f;
			smax = fmaxf(smax, fabsf(scale[s]));
		}
		const float d = smax / 127.0f;

		put16(b + 208, st_f32_to_f16(d));
		const float df = st_f16_to_f32(st_f32_to_f16(d));

		for (int s = 0; s < 16; s++)
			b[192 + s] = (uint8_t)(int8_t)(d != 0 ? clampi(lroundf(scale[s] / d), -127, 127) : 0);
		for (int j = 0; j < 256; j++) {
			const int h = j / 128, q4 = (j % 128) / 32, l = j % 32;
			const float ds = df * (float)i8(b[192 + j / 16]);
			const int q = ds != 0 ? clampi(lroundf(x[j] / ds) + 32, 0, 63) : 32;

			b[64 * h + 32 * (q4 & 1) + l] |= (uint8_t)(q4 >= 2 ? (q & 15) << 4 : q & 15);
			b[128 + 32 * h + l] |= (uint8_t)((q >> 4) << (2 * q4));
		}
		return;
	}
	const int nmax = t == Q4_K ? 15 : 31, qso = t == Q4_K ? 16 : 48;
	float scale[8], mins[8], smax = 0, mmax = 0;
	int sc[8], m[8];

	for (int s = 0; s < 8; s++) {
		float mn = 0, mx = x[32 * s];

		for (int l = 0; l < 32; l++) {
			mn = fminf(mn, x[32 * s + l]);
			mx = fmaxf(mx, x[32 * s + l]);
		}
		scale[s] = (mx - mn) / (float)nmax;
		mins[s] = -mn;
		smax = fmaxf(smax, scale[s]);
		mmax = fmaxf(mmax, mins[s]);
	}
	const float d = smax / 63.0f, dmin = mmax / 63.0f;

	put16(b, st_f32_to_f16(d));
	put16(b + 2, st_f32_to_f16(dmin));
	const float df = get_f16(b), dminf = get_f16(b + 2);

	for (int s = 0; s < 8; s++) {
		sc[s] = d != 0 ? clampi(lroundf(scale[s] / d), 0, 63) : 0;
		m[s] = dmin != 0 ? clampi(lroundf(mins[s] / dmin), 0, 63) : 0;
	}
	for (int j = 0; j < 4; j++) {
		b[4 + j] = (uint8_t)((sc[j] & 63) | (sc[j + 4] >> 4) << 6);
		b[8 + j] = (uint8_t)((m[j] & 63) | (m[j + 4] >> 4) << 6);
		b[12 + j] = (uint8_t)((sc[j + 4] & 15) | (m[j + 4] & 15) << 4);
	}
	for (int j = 0; j < 256; j++) {
		const int s = j / 32, l = j % 32;
		const float ds = df * (float)sc[s];
		const int q = ds != 0 ? clampi(lroundf((x[j] + dminf * (float)m[s]) / ds), 0, nmax) : 0;

		b[qso + 32 * (j / 64) + l] |= (uint8_t)((s & 1) ? (q & 15) << 4 : q & 15);
		if (t == Q5_K)
			b[16 + l] |= (uint8_t)((q >> 4 & 1) << s);
	}
}

/* Element j of a K-quant super-block, decoded from the layout. */
static double dequant_k_ref(enum qt t, const uint8_t *b, int j)
{
	if (t == Q6_K) {
		const int h = j / 128, q4 = (j % 128) / 32, l = j % 32;
		const uint8_t lo = b[64 * h + 32 * (q4 & 1) + l];
		const int q = (q4 >= 2 ? lo >> 4 : lo & 15) | ((b[128 + 32 * h + l] >> (2 * q4)) & 3) << 4;

		return get_f16(b + 208) * i8(b[192 + j / 16]) * (q - 32);
	}
	const int s = j / 32, l = j % 32;
	const uint8_t lo = b[(t == Q4_K ? 16 : 48) + 32 * (j / 64) + l];
	int sc, m, q = (s & 1) ? lo >> 4 : lo & 15;

	if (t == Q5_K)
		q |= (b[16 + l] >> s & 1) << 4;
	k_decode_scale(b + 4, s, &sc, &m);
	return (double)get_f16(b) * sc * q - (double)get_f16(b + 2) * m;
}

/* ggml-quants.c's reference quantizer of one block of 32 values. */
static void quantize_ref(enum qt t, const float *x, uint8_t *b)
{
	if (t >= Q4_K) {
		quantize_k_ref(t, x, b);
		return;
	}
	float amax = 0, max = 0, mn = x[0], mx = x[0];
	uint32_t qh = 0;

	for (int j = 0; j < QK; j++) {
		if (fabsf(x[j]) > amax) {
			amax = fabsf(x[j]);
			max = x[j];
		}
		mn = fminf(mn, x[j]);
		mx = fmaxf(mx, x[j]);
	}
	switch (t) {
	case Q4_0:
	case Q5_0: {
		const float lv = t == Q4_0 ? -8.0f : -16.0f, off = t == Q4_0 ? 8.5f : 16.5f;
		const int top = t == Q4_0 ? 15 : 31;
		const float d = max / lv, id = d != 0.0f ? 1.0f / d : 0.0f;
		uint8_t *qs = b + (t == Q4_0 ? 2 : 6);

		put16(b, st_f32_to_f16(d));
		for (int j = 0; j < 16; j++) {
			/* ggml truncates through int8_t; the sum is in [0.5, 32.5] here */
			int q0 = (int)(x[j] * id + off), q1 = (int)(x[j + 16] * id + off);

			q0 = q0 < top ? q0 : top;
			q1 = q1 < top ? q1 : top;
			qs[j] = (uint8_t)((q0 & 15) | (q1 & 15) << 4);
			qh |= (uint32_t)(q0 >> 4 & 1) << j | (uint32_t)(q1 >> 4 & 1) << (j + 16);
		}
		break;
	}
	case Q4_1:
	case Q5_1: {
		const float d = (mx - mn) / (t == Q4_1 ? 15.0f : 31.0f);
		const float id = d != 0.0f ? 1.0f / d : 0.0f;
		uint8_t *qs = b + (t == Q4_1 ? 4 : 8);

		put16(b, st_f32_to_f16(d));
		put16(b + 2, st_f32_to_f16(mn));
		for (int j = 0; j < 16; j++) {
			/* ggml's rounding of a value >= 0 (NOLINTs: on purpose) */
			int q0 = (uint8_t)((x[j] - mn) * id + 0.5f); // NOLINT(bugprone-incorrect-roundings)
			int q1 = (uint8_t)((x[j + 16] - mn) * id + 0.5f); // NOLINT(bugprone-incorrect-roundings)

			if (t == Q4_1) {
				q0 = q0 < 15 ? q0 : 15;
				q1 = q1 < 15 ? q1 : 15;
			}
			qs[j] = (uint8_t)((q0 & 15) | (q1 & 15) << 4);
			qh |= (uint32_t)(q0 >> 4 & 1) << j | (uint32_t)(q1 >> 4 & 1) << (j + 16);
		}
		break;
	}
	case Q8_0: {
		const float d = amax / 127.0f, id = d != 0.0f ? 1.0f / d : 0.0f;

		put16(b, st_f32_to_f16(d));
		for (int j = 0; j < QK; j++)
			b[2 + j] = (uint8_t)(int8_t)roundf(x[j] * id);
		break;
	}
	default:
		break;
	}
	if (t == Q5_0 || t == Q5_1) {
		uint8_t *p = b + (t == Q5_0 ? 2 : 4);

		for (int i = 0; i < 4; i++)
			p[i] = (uint8_t)(qh >> (8 * i));
	}
}

/* Element j of a block, decoded from the layout. */
static double dequant_ref(enum qt t, const uint8_t *b, int j)
{
	if (t >= Q4_K)
		return dequant_k_ref(t, b, j);
	const double d = get_f16(b);
	const int qsoff = t == Q4_0 ? 2 : t == Q4_1 ? 4 : t == Q5_0 ? 6 : 8;
	int q = (j < 16 ? b[qsoff + j] & 15 : b[qsoff + j - 16] >> 4);

	if (t == Q5_0 || t == Q5_1) {
		const uint8_t *qh = b + (t == Q5_0 ? 2 : 4);

		q |= (qh[j / 8] >> (j % 8) & 1) << 4;
	}
	switch (t) {
	case Q4_0: return (q - 8) * d;
	case Q5_0: return (q - 16) * d;
	case Q4_1:
	case Q5_1: return q * d + get_f16(b + 2);
	case Q8_0: return (int8_t)b[2 + j] * d;
	default: break;
	}
	return NAN;
}

/* q8_1 reference: d = amax / 127, q = round(x / d) (as x * (1 / d)),
 * s = d * sum(q); values past n are 0. */
static void quantize_q8_1_ref(const float *x, size_t n, size_t npad, uint8_t *y)
{
	for (size_t ib = 0; ib < npad / QK; ib++) {
		uint8_t *b = y + ib * Q8_1_BYTES;
		float v[QK], amax = 0;
		int sum = 0;

		for (int j = 0; j < QK; j++) {
			v[j] = ib * QK + j < n ? x[ib * QK + j] : 0.0f;
			amax = fmaxf(amax, fabsf(v[j]));
		}
		const float d = amax / 127.0f, id = d != 0.0f ? 1.0f / d : 0.0f;

		for (int j = 0; j < QK; j++) {
			int q = (int)roundf(v[j] * id);

			b[4 + j] = (uint8_t)(int8_t)q;
			sum += q;
		}
		put16(b, st_f32_to_f16(d));
		put16(b + 2, st_f32_to_f16(d * (float)sum));
	}
}

/*
 * The planar layout (kernels/quantized.hip, doc/KERNELS.md) of nblk blocks
 * (a multiple of 8) whose fields are sc, qh and qs bytes in that order:
 * groups of 8 blocks, each group [8 qs][8 qh][8 sc].  to: ggml -> planar,
 * else back.  q8_1 (sc 4: d and s, qs 32) gives q8_1p.
 */
static const size_t qt_fields[NQT][3] = { { 2, 0, 16 }, { 4, 0, 16 }, { 2, 4, 16 }, { 4, 4, 16 },
                                          { 2, 0, 32 } };
static const size_t q8_1_fields[3] = { 4, 0, 32 };

static void planar_perm(const size_t *fl, const uint8_t *in, uint8_t *out, size_t nblk, bool to)
{
	const size_t sc = fl[0], qh = fl[1], qs = fl[2], bb = sc + qh + qs;

	for (size_t ib = 0; ib < nblk; ib++) {
		const size_t b = ib % 8, blk = ib * bb, grp = ib / 8 * 8 * bb;
		const size_t f[3][3] = { { 0, grp + 8 * (qs + qh) + b * sc, sc },
		                         { sc, grp + 8 * qs + b * qh, qh },
		                         { sc + qh, grp + b * qs, qs } };

		for (int i = 0; i < 3; i++) {
			if (to)
				memcpy(out + f[i][1], in + blk + f[i][0], f[i][2]);
			else
				memcpy(out + blk + f[i][0], in + f[i][1], f[i][2]);
		}
	}
}

/* A planar copy of nblk blocks; NULL when out of memory. */
static uint8_t *planar_dup(const size_t *fl, const uint8_t *in, size_t nblk)
{
	uint8_t *out = malloc(nblk * (fl[0] + fl[1] + fl[2]) + 1);

	if (out)
		planar_perm(fl, in, out, nblk, true);
	return out;
}

/* n values (a multiple of 32): llama's test vector or uniform in [-1, 1). */
static float *values(size_t n, bool cosine, uint64_t *rng)
{
	float *x = calloc(n, sizeof(*x));      /* calloc: clang-analyzer cannot see the loop fill all n */

	for (size_t i = 0; x && i < n; i++)
		x[i] = cosine ? (float)(0.1 + 2 * cos((double)i)) : (float)st_uniform(rng, -1, 1);
	return x;
}

static uint8_t *quantize_all(enum qt t, const float *x, size_t n)
{
	uint8_t *b = n >= qk(t) ? calloc(n / qk(t), qt_bytes[t]) : NULL;

	for (size_t i = 0; b && i < n / qk(t); i++)
		quantize_ref(t, x + i * qk(t), b + i * qt_bytes[t]);
	return b;
}

struct bufs {
	uint64_t p[4];
};

static void bufs_free(struct st_device *d, struct bufs *b)
{
	for (int i = 0; i < 4; i++)
		st_dbuf_free(d, b->p[i]);
}

/* dequantize_block_Q_T: case 0 the llama vector, case 1 blocks of random
 * bytes with finite scales. */
static void run_deq(struct st_device *d, const struct st_kernel *k, struct hanzo_rocm_kernel *kh,
                    int c, struct st_result *res)
{
	const enum qt t = (enum qt)(k->op >> 4 & 15);
	const bool f16 = (k->op & 15) == OP_DEQ_F16;
	const size_t n = c == 0 ? 4096 : 37 * qk(t), osz = f16 ? 2 : 4, bb = qt_bytes[t], bk = qk(t);
	uint64_t rng = 0x9e3779b97f4a7c15ULL ^ (uint64_t)k->op << 20 ^ (uint64_t)c;
	float *x = values(n, true, &rng);
	uint8_t *blk = x ? quantize_all(t, x, n) : NULL, *got = calloc(1, n * osz + 16);
	struct bufs b = { { 0 } };
	int kk = (int)n;
	double se = 0;
	void *args[3] = { &b.p[0], &b.p[1], &kk };

	if (!blk || !got) {
		st_fail(res, "out of memory");
		goto out;
	}
	if (c == 1) {
		for (size_t i = 0; i < n / bk * bb; i++)
			blk[i] = (uint8_t)st_rand(&rng);
		for (size_t i = 0; i < n / bk; i++) {
			/* finite scales (d, and m or dmin) where the format has them */
			put16(blk + i * bb + (t == Q6_K ? 208 : 0),
			      st_f32_to_f16((float)st_uniform(&rng, -2, 2)));
			if (t == Q4_1 || t == Q5_1 || t == Q4_K || t == Q5_K)
				put16(blk + i * bb + 2, st_f32_to_f16((float)st_uniform(&rng, -3, 3)));
		}
	}
	if (st_dbuf_new(d, blk, n / bk * bb, &b.p[0]) < 0 || st_dbuf_new(d, NULL, n * osz, &b.p[1]) < 0) {
		st_fail(res, "device buffers");
		goto out;
	}
	if (st_launch_work(d, kh, n, 1, args, res) < 0)
		goto out;
	if (st_dbuf_get(d, b.p[1], got, n * osz + 16) < 0) {
		st_fail(res, "copy back");
		goto out;
	}
	for (size_t i = 0; i < n && res->ok; i++) {
		const double want = dequant_ref(t, blk + i / bk * bb, (int)(i % bk));
		/* exact: the f32 value, or its f16 rounding */
		const double w = f16 ? st_f16_to_f32(st_f32_to_f16((float)want)) : (float)want;

		st_check_float(f16 ? ST_F16 : ST_F32, 0, i, got, w, res);
		se += (want - x[i]) * (want - x[i]);
	}
	if (c == 0 && res->ok) {
		/* llama's measure (test-quantize-fns: sqrt(sum d^2) / n) */
		res->max_err = sqrt(se) / (double)n;
		res->tol = 0.002;
		if (res->max_err > 0.002)
			st_fail(res, "round trip error %.6g > 0.002 (RMSE %.6g)", res->max_err,
			        sqrt(se / (double)n));
	}
	st_check_poison(got, n * osz, n * osz + 16, res);
out:
	bufs_free(d, &b);
	free(x);
	free(blk);
	free(got);
}

static void run_quantize(struct st_device *d, struct hanzo_rocm_kernel *kh, int c, bool planar,
                         struct st_result *res)
{
	/* c 2: work of an element a thread, the kernel's 32-lanes-a-block path;
	 * c 3 (q8_1p only): kx_padded not whole groups of 256, nothing written */
	const int rows = c == 0 ? 1 : 3, kx = c == 0 ? 4096 : 750;
	const int kpad = c == 0 ? 4096 : c == 3 ? 800 : 768;
	const size_t n = (size_t)rows * (size_t)kx, ybytes = (size_t)rows * kpad / QK * Q8_1_BYTES;
	uint64_t rng = 0x5851f42d4c957f2dULL ^ (uint64_t)c;
	float *x = values(n + QK, c == 0, &rng);
	uint8_t *want = calloc(1, ybytes), *got = malloc(ybytes + 16);
	struct bufs b = { { 0 } };
	int kx_ = kx, kpad_ = kpad;
	void *args[4] = { &b.p[0], &b.p[1], &kx_, &kpad_ };
	double se = 0;

	if (!x || !want || !got) {
		st_fail(res, "out of memory");
		goto out;
	}
	for (int r = 0; c < 3 && r < rows; r++)
		quantize_q8_1_ref(x + (size_t)r * kx, (size_t)kx, (size_t)kpad,
		                  want + (size_t)r * kpad / QK * Q8_1_BYTES);
	if (planar && c < 3) {
		/* q8_1p: the same blocks, planar (kpad a multiple of 256) */
		uint8_t *p = planar_dup(q8_1_fields, want, ybytes / Q8_1_BYTES);

		if (!p) {
			st_fail(res, "out of memory");
			goto out;
		}
		free(want);
		want = p;
	}
	if (st_dbuf_new(d, x, n * 4, &b.p[0]) < 0 || st_dbuf_new(d, NULL, ybytes, &b.p[1]) < 0) {
		st_fail(res, "device buffers");
		goto out;
	}
	/* elementwise2d: grid y = the rows, x over the q8_1 blocks of a row. */
	if (st_launch_work(d, kh, (uint64_t)rows, (uint64_t)(c >= 2 ? kpad : kpad / QK), args, res) < 0)
		goto out;
	if (st_dbuf_get(d, b.p[1], got, ybytes + 16) < 0) {
		st_fail(res, "copy back");
		goto out;
	}
	if (c == 3) {
		st_check_poison(got, 0, ybytes + 16, res);
		goto out;
	}
	for (size_t i = 0; i < ybytes; i++) {
		if (got[i] != want[i]) {
			st_fail(res, "%s %zu byte %zu: got 0x%02x, want 0x%02x", planar ? "group" : "block",
			        i / (planar ? 8 * Q8_1_BYTES : Q8_1_BYTES),
			        i % (planar ? 8 * Q8_1_BYTES : Q8_1_BYTES), got[i], want[i]);
			break;
		}
	}
	st_check_poison(got, ybytes, ybytes + 16, res);
	if (planar) {
		/* back to ggml's blocks for the round trip below */
		memcpy(want, got, ybytes);
		planar_perm(q8_1_fields, want, got, ybytes / Q8_1_BYTES, false);
	}
	for (int r = 0; r < rows; r++) {
		for (int i = 0; i < kx; i++) {
			const uint8_t *blk = got + ((size_t)r * kpad / QK + (size_t)i / QK) * Q8_1_BYTES;
			const double v = (int8_t)blk[4 + i % QK] * (double)get_f16(blk);
			const double e = v - x[(size_t)r * kx + i];

			se += e * e;
		}
	}
	res->max_err = sqrt(se) / (double)n;
	res->tol = 0.002;
	if (res->max_err > 0.002)
		st_fail(res, "round trip error %.6g > 0.002", res->max_err);
out:
	bufs_free(d, &b);
	free(x);
	free(want);
	free(got);
}

static void run_get_rows(struct st_device *d, const struct st_kernel *k,
                         struct hanzo_rocm_kernel *kh, struct st_result *res)
{
	const enum qt t = (enum qt)(k->op >> 4 & 15);
	const int rows = 7, ncols = t >= Q4_K ? 512 : 96, nids = 5;
	const size_t bb = qt_bytes[t], bk = qk(t), rb = ncols / bk * bb, n = (size_t)nids * ncols;
	const uint32_t ids[5] = { 6, 0, 3, 3, 1 };
	uint64_t rng = 0x2545f4914f6cdd1dULL ^ (uint64_t)k->op;
	float *x = values((size_t)rows * ncols, false, &rng), *got = calloc(1, n * 4 + 16);
	uint8_t *blk = x ? quantize_all(t, x, (size_t)rows * ncols) : NULL;
	struct bufs b = { { 0 } };
	int nc = ncols, ni = nids;
	void *args[5] = { &b.p[0], &b.p[1], &b.p[2], &nc, &ni };

	if (!blk || !got) {
		st_fail(res, "out of memory");
		goto out;
	}
	if (st_dbuf_new(d, blk, rows * rb, &b.p[0]) < 0 || st_dbuf_new(d, ids, sizeof(ids), &b.p[1]) < 0 ||
	    st_dbuf_new(d, NULL, n * 4, &b.p[2]) < 0) {
		st_fail(res, "device buffers");
		goto out;
	}
	if (st_launch_work(d, kh, n, 1, args, res) < 0)
		goto out;
	if (st_dbuf_get(d, b.p[2], got, n * 4 + 16) < 0) {
		st_fail(res, "copy back");
		goto out;
	}
	res->max_err = 0;
	for (size_t i = 0; i < n && res->ok; i++) {
		const uint8_t *row = blk + ids[i / ncols] * rb;
		const size_t c = i % ncols;

		st_check_float(ST_F32, 0, i, got, (float)dequant_ref(t, row + c / bk * bb, (int)(c % bk)),
		               res);
	}
	st_check_poison(got, n * 4, n * 4 + 16, res);
out:
	bufs_free(d, &b);
	free(x);
	free(blk);
	free(got);
}

/*
 * pack_Qp / unpack_Qp: blocks of random bytes (the moves are byte moves,
 * whatever the bytes mean) against planar_perm, byte for byte; case 1 a k
 * that is not whole groups writes nothing.
 */
static void run_pack(struct st_device *d, const struct st_kernel *k, struct hanzo_rocm_kernel *kh,
                     int c, struct st_result *res)
{
	const enum qt t = (enum qt)(k->op >> 4 & 15);
	const bool to = (k->op & 15) == OP_PACK;
	const size_t nblk = 33 * 8, bytes = nblk * qt_bytes[t];
	uint64_t rng = 0x94d049bb133111ebULL ^ (uint64_t)k->op << 4 ^ (uint64_t)c;
	uint8_t *in = malloc(bytes), *want = malloc(bytes + 16), *got = malloc(bytes + 16);
	struct bufs b = { { 0 } };
	int kk = c == 0 ? (int)(nblk * QK) : (int)(nblk * QK) - QK;
	void *args[3] = { &b.p[0], &b.p[1], &kk };

	if (!in || !want || !got) {
		st_fail(res, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < bytes; i++)
		in[i] = (uint8_t)st_rand(&rng);
	planar_perm(qt_fields[t], in, want, nblk, to);
	if (st_dbuf_new(d, in, bytes, &b.p[0]) < 0 || st_dbuf_new(d, NULL, bytes, &b.p[1]) < 0) {
		st_fail(res, "device buffers");
		goto out;
	}
	if (st_launch_work(d, kh, (uint64_t)kk / QK, 1, args, res) < 0)
		goto out;
	if (st_dbuf_get(d, b.p[1], got, bytes + 16) < 0) {
		st_fail(res, "copy back");
		goto out;
	}
	if (c == 1) {
		st_check_poison(got, 0, bytes + 16, res);
		goto out;
	}
	for (size_t i = 0; i < bytes; i++) {
		if (got[i] != want[i]) {
			st_fail(res, "group %zu byte %zu: got 0x%02x, want 0x%02x", i / (8 * qt_bytes[t]),
			        i % (8 * qt_bytes[t]), got[i], want[i]);
			break;
		}
	}
	st_check_poison(got, bytes, bytes + 16, res);
out:
	bufs_free(d, &b);
	free(in);
	free(want);
	free(got);
}

/*
 * The q8_1 path multiplies by the block sum s as stored (f16 of d * sum(q)),
 * ggml's rule, not by d * sum(q) itself: the product of a block then
 * differs from sum x * q * d by this term.
 */
static double s_term(enum qt t, const uint8_t *xb, const uint8_t *yb)
{
	const double dy = get_f16(yb), s = get_f16(yb + 2);
	double sq = 0;

	for (int j = 0; j < QK; j++)
		sq += (int8_t)yb[4 + j];
	switch (t) {
	case Q4_0: return 8 * get_f16(xb) * (dy * sq - s);
	case Q5_0: return 16 * get_f16(xb) * (dy * sq - s);
	case Q4_1:
	case Q5_1: return get_f16(xb + 2) * (s - dy * sq);
	default: break;     /* q8_0 and the K-quants do not use s */
	}
	return 0;
}

/* Mat-vec cases: (rows, ncols, block, grid; 0: a block per row).  Enough
 * rows that the mean relative error is a mean: a handful of random dot
 * products may all be near 0.  A grid smaller than the rows takes the
 * kernels' other mapping (a wave per row, blocks striding over rows). */
static const struct mcase {
	const char *name;
	int rows, ncols;
	unsigned block, grid;
} mcases[] = {
	{ "37x4096", 37, 4096, 256, 0 },
	{ "29x736", 29, 736, 64, 0 },
	{ "13x8448g2", 13, 8448, 128, 2 },
};

static void run_matvec(struct st_device *d, const struct st_kernel *k,
                       struct hanzo_rocm_kernel *kh, const struct mcase *c, struct st_result *res)
{
	const enum qt t = (enum qt)(k->op >> 4 & 15);
	const bool q8 = (k->op & 15) == OP_MMVQ, planar = k->op & OP_P;
	const size_t bk = qk(t), row_bk = planar ? 256 : bk;
	/* ncols a whole number of blocks (the planar layout: of groups): 736
	 * -> 768 for the K-quants and the planar layout */
	const int nb = q8 ? k->op >> 8 & 15 : 1, rows = c->rows;
	const int ncols = (int)((c->ncols + row_bk - 1) / row_bk * row_bk);
	const int npad = (ncols + 511) / 512 * 512, nrows_dst = rows + 3;
	const size_t bb = qt_bytes[t], rb = (size_t)ncols / bk * bb;
	const size_t ybytes = (size_t)nb * npad / QK * Q8_1_BYTES;
	const size_t dn = q8 ? (size_t)nb * nrows_dst : (size_t)rows;
	uint64_t rng = 0xda942042e4dd58b5ULL ^ (uint64_t)k->op << 8 ^ (uint64_t)ncols;
	float *w = values((size_t)rows * ncols, false, &rng), *y = values((size_t)nb * ncols, false, &rng);
	float *got = calloc(1, dn * 4 + 16);
	uint8_t *blk = w ? quantize_all(t, w, (size_t)rows * ncols) : NULL, *yq = calloc(1, ybytes);
	uint8_t *xp = NULL, *yp = NULL;
	struct bufs b = { { 0 } };
	int a_nc = ncols, a_rows = rows, a_npad = npad, a_nd = nrows_dst;
	void *args[7];
	double sum_err = 0, sum_ref = 0;

	if (!blk || !got || !y || !yq) {
		st_fail(res, "out of memory");
		goto out;
	}
	for (int j = 0; j < nb; j++)
		quantize_q8_1_ref(y + (size_t)j * ncols, (size_t)ncols, (size_t)npad,
		                  yq + (size_t)j * npad / QK * Q8_1_BYTES);
	/* the planar kernels get the same blocks planar (rows of whole groups) */
	if (planar && (!(xp = planar_dup(qt_fields[t], blk, (size_t)rows * ncols / QK)) ||
	               !(yp = planar_dup(q8_1_fields, yq, ybytes / Q8_1_BYTES)))) {
		st_fail(res, "out of memory");
		goto out;
	}
	if (st_dbuf_new(d, planar ? xp : blk, rows * rb, &b.p[0]) < 0 ||
	    st_dbuf_new(d, q8 ? (const void *)(planar ? yp : yq) : y, q8 ? ybytes : (size_t)ncols * 4,
	                &b.p[1]) < 0 ||
	    st_dbuf_new(d, NULL, dn * 4, &b.p[2]) < 0) {
		st_fail(res, "device buffers");
		goto out;
	}
	args[0] = &b.p[0];
	args[1] = &b.p[1];
	args[2] = &b.p[2];
	args[3] = &a_nc;
	args[4] = &a_rows;
	args[5] = q8 ? &a_npad : NULL;
	args[6] = &a_nd;
	if (st_launch_sync(d, kh, c->grid ? c->grid : (unsigned)rows, 1, c->block, args, res) < 0)
		goto out;
	if (st_dbuf_get(d, b.p[2], got, dn * 4 + 16) < 0) {
		st_fail(res, "copy back");
		goto out;
	}
	res->max_err = 0;
	for (int j = 0; j < nb && res->ok; j++) {
		for (int r = 0; r < rows && res->ok; r++) {
			const uint8_t *row = blk + (size_t)r * rb;
			const uint8_t *yb = yq + (size_t)j * npad / QK * Q8_1_BYTES;
			double ref = 0, refq = 0, mag = 0;
			const double g = got[q8 ? (size_t)j * nrows_dst + r : (size_t)r];

			for (int i = 0; i < ncols; i++) {
				const double wv = dequant_ref(t, row + (size_t)i / bk * bb, (int)(i % bk));
				const uint8_t *ybk = yb + (size_t)i / QK * Q8_1_BYTES;

				ref += wv * y[(size_t)j * ncols + i];
				refq += wv * (int8_t)ybk[4 + i % QK] * (double)get_f16(ybk);
				mag += fabs(wv * y[(size_t)j * ncols + i]);
				if (i % bk == 0)
					refq += s_term(t, row + (size_t)i / bk * bb, ybk);
			}
			/* f32 accumulation: within 1e-5 of sum |x y| of the product the
			 * kernel computes exactly (float y, or the q8_1-decoded y). */
			const double e = fabs(g - (q8 ? refq : ref)) / mag;

			if (e > res->max_err)
				res->max_err = e;
			if (e > 1e-5)
				st_fail(res, "column %d row %d: got %.9g, want %.9g", j, r, g, q8 ? refq : ref);
			sum_err += fabs(g - ref);
			sum_ref += fabs(ref);
		}
	}
	res->tol = 1e-5;
	if (res->ok && sum_err / sum_ref > 0.02)
		st_fail(res, "mean relative error %.4g > 0.02 against float64", sum_err / sum_ref);
	if (q8) {
		for (int j = 0; j < nb; j++)
			st_check_poison(got, ((size_t)j * nrows_dst + rows) * 4,
			                ((size_t)j + 1) * nrows_dst * 4, res);
	}
	st_check_poison(got, dn * 4, dn * 4 + 16, res);
out:
	bufs_free(d, &b);
	free(w);
	free(y);
	free(got);
	free(blk);
	free(yq);
	free(xp);
	free(yp);
}

static int run(struct st_device *d, const struct st_kernel *k, struct hanzo_rocm_kernel *kh,
               void (*emit)(void *data, const struct st_result *r), void *data)
{
	static const char *const deq_cases[2] = { "cos4096", "randblocks" };
	static const char *const q_cases[4] = { "cos4096", "3x750pad768", "3x750lanes",
	                                        "pad800_not_groups" };
	const int op = k->op & 15;
	int failed = 0;

	static const char *const pack_cases[2] = { "33groups", "k_not_groups" };

	const int ncases = op == OP_QUANTIZE && (k->op & OP_P) ? 4 :
	                   op >= OP_DMMV || op == OP_QUANTIZE ? 3 : 2;

	for (int c = 0; c < ncases; c++) {
		struct st_result res;

		if (op == OP_GET_ROWS && c > 0)
			break;
		st_result_start(&res, k, op == OP_QUANTIZE ? q_cases[c] :
		                op == OP_GET_ROWS ? "7x96ids5" :
		                op == OP_PACK || op == OP_UNPACK ? pack_cases[c] :
		                op >= OP_DMMV ? mcases[c].name : deq_cases[c], 0);
		if (op == OP_QUANTIZE)
			run_quantize(d, kh, c, k->op & OP_P, &res);
		else if (op == OP_PACK || op == OP_UNPACK)
			run_pack(d, k, kh, c, &res);
		else if (op == OP_GET_ROWS)
			run_get_rows(d, k, kh, &res);
		else if (op >= OP_DMMV)
			run_matvec(d, k, kh, &mcases[c], &res);
		else
			run_deq(d, k, kh, c, &res);
		failed += !res.ok;
		emit(data, &res);
	}
	return failed;
}

/* "<prefix>Q<suffix>" with Q one of the formats; -1 otherwise. */
static int name_qt(const char *name, const char *prefix, const char *suffix)
{
	const size_t pl = strlen(prefix);

	if (strncmp(name, prefix, pl) != 0)
		return -1;
	for (int t = 0; t < NQT; t++) {
		const size_t ql = strlen(qt_names[t]);

		if (strncmp(name + pl, qt_names[t], ql) == 0 && strcmp(name + pl + ql, suffix) == 0)
			return t;
	}
	return -1;
}

int st_plan_quantized(const char *name, struct st_kernel *k)
{
	int t, op = -1;

	if (strcmp(name, "quantize_q8_1") == 0 || strcmp(name, "quantize_q8_1p") == 0) {
		t = 0;
		op = OP_QUANTIZE | (name[13] == 'p' ? OP_P : 0);
	} else if ((t = name_qt(name, "pack_", "p")) >= 0 && t <= Q8_0) {
		op = OP_PACK;
	} else if ((t = name_qt(name, "unpack_", "p")) >= 0 && t <= Q8_0) {
		op = OP_UNPACK;
	} else if ((t = name_qt(name, "dequantize_mul_mat_vec_", "p")) >= 0 && t <= Q8_0) {
		op = OP_DMMV | OP_P;
	} else if ((t = name_qt(name, "dequantize_block_", "_f32")) >= 0) {
		op = OP_DEQ_F32;
	} else if ((t = name_qt(name, "dequantize_block_", "_f16")) >= 0) {
		op = OP_DEQ_F16;
	} else if ((t = name_qt(name, "get_rows_", "")) >= 0) {
		op = OP_GET_ROWS;
	} else if ((t = name_qt(name, "dequantize_mul_mat_vec_", "")) >= 0) {
		op = OP_DMMV;
	} else {
		for (int nb = 1; nb <= 8 && op < 0; nb++) {
			char suf[32];

			snprintf(suf, sizeof(suf), "_q8_1_cuda%d", nb);
			if ((t = name_qt(name, "mul_mat_vec_", suf)) >= 0)
				op = OP_MMVQ | nb << 8;
			snprintf(suf, sizeof(suf), "p_q8_1p_cuda%d", nb);
			if (op < 0 && (t = name_qt(name, "mul_mat_vec_", suf)) >= 0 && t <= Q8_0)
				op = OP_MMVQ | nb << 8 | OP_P;
		}
	}
	if (op < 0)
		return -ENOENT;
	k->shape = ST_QUANT;
	k->op = op | t << 4;
	k->n_in = 1;
	k->in[0] = ST_U8;
	k->out = (op & 15) == OP_DEQ_F16 ? ST_F16 :
	         (op & 15) == OP_QUANTIZE || (op & 15) == OP_PACK || (op & 15) == OP_UNPACK ? ST_U8 :
	         ST_F32;
	k->cmp = ST_CMP_TOL;
	k->tol = 0;
	k->run = run;
	return 0;
}
