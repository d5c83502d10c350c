/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * selftest, norm family (kernels/norm.hip): softmax_T, rmsnorm_T,
 * layernorm_T, add_rmsnorm_T, one block per row, and their two-pass form
 * (OP_split_T then OP_apply_T over (row, chunk) blocks; the plans of both
 * run the pair, the apply plan with another chunk count than the split
 * pass), against float64 rows.
 * Cases: 1, 769 (every pointer one element in), 5125 and 152071 columns,
 * 32 rows x 151936 (vocabulary logits; on GPUs only: on the host backend
 * it would multiply the CPU time, and "wide" runs the same code there);
 * chunks that are empty or all -inf (softmax); 1000, 2048 and 4096
 * columns (multiples of the 16-byte pack: the one-pass kernels' cached
 * vector path, and its scalar fallbacks at an odd offset or too long);
 * +-7e9 inputs (+-3e4 for f16, so the residual sum stays finite) that must
 * stay finite; NULL weight and bias;
 * rows of no columns (nothing may be written); softmax rows that start
 * with -inf (masked attention).  Outputs are poisoned, with guard bytes
 * before (offset case) and after.  add_rmsnorm checks both outputs: the
 * stored sum bit for bit, the normalized row within tolerance.  The split
 * scratch (rows x chunks partials) is followed by guard bytes that must
 * stay poisoned.
 *
 * Softmax values are far below 1, where the driver's max(1, |ref|) rule
 * would accept anything: softmax uses |d| <= tol * max(|ref|, smallest
 * normal of the dtype), a relative bar.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selftest.h"

enum { N_SOFTMAX, N_RMS, N_LAYER, N_ADDRMS, N_NOPS };
static const char *const op_names[N_NOPS] = { "softmax", "rmsnorm", "layernorm", "add_rmsnorm" };

enum { V_ONE, V_SPLIT, V_APPLY, V_NVARIANTS };
static const char *const variant_names[V_NVARIANTS] = { "_", "_split_", "_apply_" };

enum { VAL_RAND, VAL_BIG, VAL_MASKED };

struct ncase {
	const char *name, *split_name;
	int rows, cols;
	size_t offset;                  /* elements before every buffer */
	unsigned block;
	int values;
	bool no_weight;
	unsigned splits;                /* chunks per row of the split pass */
	int host_rows;                  /* rows on the host backend (0: rows, -1: none) */
};

/* The vocabulary case: few rows, each far wider than one block reads fast. */
#define WIDE_ROWS 32
#define WIDE_COLS 151936

static const struct ncase cases[] = {
	{ "cols1", "cols1/split", 3, 1, 0, 64, VAL_RAND, false, 4, 0 },
	{ "cols769", "cols769/split", 4, 769, 1, 256, VAL_RAND, false, 4, 0 },
	{ "cols5125", "cols5125/split", 2, 5125, 0, 512, VAL_RAND, false, 7, 0 },
	{ "wide", "wide/split", 2, 152071, 0, 1024, VAL_RAND, false, 16, 0 },
	{ "wide32", "wide32/split", WIDE_ROWS, WIDE_COLS, 0, 1024, VAL_RAND, false, 8, -1 },
	{ "big", "big/split", 3, 769, 0, 128, VAL_BIG, false, 5, 0 },
	{ "bigwide", "bigwide/split", 2, 65537, 0, 256, VAL_BIG, false, 9, 0 },
	{ "noweight", "noweight/split", 3, 769, 0, 192, VAL_RAND, true, 3, 0 },
	{ "nocols", "nocols/split", 3, 0, 0, 64, VAL_RAND, false, 4, 0 },
	/* ncols a multiple of the 16-byte pack: the one-pass kernels' cached
	 * vector path (full, and with idle threads; +-7e9; -inf entries), then
	 * the same sizes at an odd offset and too long for the registers, which
	 * take the scalar loops. */
	{ "cols4096", "cols4096/split", 3, 4096, 0, 512, VAL_RAND, false, 4, 0 },
	{ "cols1000", "cols1000/split", 3, 1000, 0, 256, VAL_RAND, false, 3, 0 },
	{ "big1000", "big1000/split", 3, 1000, 0, 128, VAL_BIG, true, 3, 0 },
	{ "masked1000", "masked1000/split", 3, 1000, 0, 64, VAL_MASKED, false, 5, 0 },
	{ "cols4096odd", "cols4096odd/split", 2, 4096, 1, 512, VAL_RAND, false, 4, 0 },
	{ "cols2048long", "cols2048long/split", 2, 2048, 0, 64, VAL_RAND, false, 4, 0 },
	/* 100 chunks of 8: the first chunk of every row is all -inf. */
	{ "masked", "masked/split", 3, 769, 0, 256, VAL_MASKED, false, 100, 0 },
};

/* Bytes of one partial of the split pass (kernels/norm.list). */
static size_t part_size(const struct st_kernel *k)
{
	size_t c = k->out == ST_F64 ? 8 : 4;

	return k->op == N_SOFTMAX || k->op == N_LAYER ? 2 * c : c;
}

/* The apply plan runs these cases with a chunk count other than the split's. */
static bool apply_case(const struct ncase *c)
{
	return strcmp(c->name, "cols1") == 0 || strcmp(c->name, "wide32") == 0 ||
	       strcmp(c->name, "bigwide") == 0 || strcmp(c->name, "masked") == 0;
}

static int get_kernel(struct st_device *d, const struct st_kernel *k, int variant,
                      struct hanzo_rocm_kernel **kh)
{
	char name[64];

	snprintf(name, sizeof(name), "%s%s%s", op_names[k->op], variant_names[variant],
	         st_dtype_name(k->out));
	return hanzo_rocm_kernel_get(st_device_ctx(d), st_device_index(d), "norm", name, kh);
}

static double smallest_normal(enum st_dtype dt)
{
	return dt == ST_F16 ? 6.103515625e-05 : dt == ST_F64 ? DBL_MIN : FLT_MIN;
}

/* The reference row (y) and, for add_rmsnorm, the stored sum (h). */
static void ref_row(const struct st_kernel *k, const double *x, const double *res,
                    const double *w, const double *b, size_t n, double eps, double *y, double *h)
{
	double acc = 0, mean = 0, m = -INFINITY;

	switch (k->op) {
	case N_SOFTMAX:
		for (size_t j = 0; j < n; j++)
			m = fmax(m, x[j]);
		for (size_t j = 0; j < n; j++)
			acc += exp(x[j] - m);
		for (size_t j = 0; j < n; j++)
			y[j] = exp(x[j] - m) / acc;
		break;
	case N_ADDRMS:
		for (size_t j = 0; j < n; j++) {
			uint8_t raw[8];

			st_store(k->out, raw, 0, st_fv(x[j] + res[j]));
			h[j] = st_load(k->out, raw, 0).f;
		}
		x = h;
		/* fall through */
	case N_RMS:
		for (size_t j = 0; j < n; j++)
			acc += x[j] * x[j];
		acc = 1 / sqrt(acc / (double)n + eps);
		for (size_t j = 0; j < n; j++)
			y[j] = x[j] * acc * (w ? w[j] : 1);
		break;
	case N_LAYER:
		for (size_t j = 0; j < n; j++)
			mean += x[j];
		mean /= (double)n;
		for (size_t j = 0; j < n; j++)
			acc += (x[j] - mean) * (x[j] - mean);
		acc = 1 / sqrt(acc / (double)n + eps);
		for (size_t j = 0; j < n; j++)
			y[j] = (x[j] - mean) * acc * (w ? w[j] : 1) + (b ? b[j] : 0);
		break;
	}
}

/* A host buffer of n values (rounded to dt) and its doubles. */
struct hbuf {
	uint8_t *raw;
	double *v;
};

static int hbuf_fill(struct hbuf *hb, enum st_dtype dt, size_t n, const struct ncase *c,
                     double lo, double hi, uint64_t *rng)
{
	hb->raw = calloc(n ? n : 1, st_dtype_size(dt));
	hb->v = calloc(n ? n : 1, sizeof(double));
	if (!hb->raw || !hb->v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		double x = st_uniform(rng, lo, hi);

		if (c->values == VAL_BIG)
			x = (x < 0 ? -1 : 1) * (dt == ST_F16 ? 3e4 : 7e9) * st_uniform(rng, 0.5, 1);
		st_store(dt, hb->raw, i, st_fv(x));
		hb->v[i] = st_load(dt, hb->raw, i).f;
	}
	return 0;
}

static void hbuf_free(struct hbuf *hb)
{
	free(hb->raw);
	free(hb->v);
}

/* The rows of a case on this device (-1: the case is skipped on the host
 * backend). */
static int case_rows(struct st_device *d, const struct ncase *c)
{
	if (c->host_rows &&
	    hanzo_rocm_device_platform(st_device_ctx(d), st_device_index(d)) == HANZO_ROCM_PLATFORM_HOST)
		return c->host_rows;
	return c->rows;
}

/* The two-pass form: split over (rows, c->splits), apply over (rows,
 * apply_splits); then the scratch's guard bytes must still be poison. */
static int launch_split(struct st_device *d, const struct st_kernel *k, const struct ncase *c,
                        int rows, unsigned apply_splits, void **one_args, struct st_result *res)
{
	struct hanzo_rocm_kernel *ksplit = NULL, *kapply = NULL;
	const size_t wsbytes = (size_t)rows * c->splits * part_size(k);
	uint8_t *guard = NULL;
	uint64_t ws = 0;
	int splits = (int)c->splits, r = -1;
	void *args[8];
	int na = 0;

	/* one_args: the one-pass kernel's (x, [residual,] dst, [residual_out,]
	 * [alpha,] [beta,] ncols, [block_size, eps]). */
	if (get_kernel(d, k, V_SPLIT, &ksplit) < 0 || get_kernel(d, k, V_APPLY, &kapply) < 0) {
		st_fail(res, "kernel_get of the split/apply pair failed");
		return -1;
	}
	if (st_dbuf_new(d, NULL, wsbytes, &ws) < 0 || !(guard = malloc(ST_GUARD_BYTES))) {
		st_fail(res, "device buffers");
		goto out;
	}
	switch (k->op) {
	case N_SOFTMAX:         /* src, ws, ncols */
		args[na++] = one_args[0];
		args[na++] = &ws;
		args[na++] = one_args[2];
		break;
	case N_ADDRMS:          /* x, residual, residual_out, ws, ncols */
		args[na++] = one_args[0];
		args[na++] = one_args[1];
		args[na++] = one_args[3];
		args[na++] = &ws;
		args[na++] = one_args[5];
		break;
	default:                /* x, ws, ncols */
		args[na++] = one_args[0];
		args[na++] = &ws;
		args[na++] = one_args[k->op == N_LAYER ? 4 : 3];
		break;
	}
	if (st_launch_sync(d, ksplit, (unsigned)rows, c->splits, c->block, args, res) < 0)
		goto out;
	na = 0;
	switch (k->op) {
	case N_SOFTMAX:         /* src, dst, ncols, ws, splits */
		args[na++] = one_args[0];
		args[na++] = one_args[1];
		args[na++] = one_args[2];
		break;
	case N_ADDRMS:          /* residual_out, dst, alpha, ncols, eps, ws, splits */
		args[na++] = one_args[3];
		args[na++] = one_args[2];
		args[na++] = one_args[4];
		args[na++] = one_args[5];
		args[na++] = one_args[7];
		break;
	case N_RMS:             /* x, dst, alpha, ncols, eps, ws, splits */
		args[na++] = one_args[0];
		args[na++] = one_args[1];
		args[na++] = one_args[2];
		args[na++] = one_args[3];
		args[na++] = one_args[5];
		break;
	case N_LAYER:           /* x, dst, alpha, beta, ncols, eps, ws, splits */
		args[na++] = one_args[0];
		args[na++] = one_args[1];
		args[na++] = one_args[2];
		args[na++] = one_args[3];
		args[na++] = one_args[4];
		args[na++] = one_args[6];
		break;
	}
	args[na++] = &ws;
	args[na++] = &splits;
	if (st_launch_sync(d, kapply, (unsigned)rows, apply_splits, c->block, args, res) < 0)
		goto out;
	if (st_dbuf_get(d, ws + wsbytes, guard, ST_GUARD_BYTES) < 0) {
		st_fail(res, "copy back");
		goto out;
	}
	st_check_poison(guard, 0, ST_GUARD_BYTES, res);
	r = res->ok ? 0 : -1;
out:
	st_dbuf_free(d, ws);
	free(guard);
	return r;
}

static void run_case(struct st_device *d, const struct st_kernel *k, int variant,
                     struct hanzo_rocm_kernel *kh, const struct ncase *c, struct st_result *res)
{
	const enum st_dtype dt = k->out;
	const int rows = case_rows(d, c);
	const size_t sz = st_dtype_size(dt), n = (size_t)rows * (size_t)c->cols;
	const size_t off = c->offset * sz, bytes = off + n * sz;
	uint64_t rng = 0x243f6a8885a308d3ULL ^ (uint64_t)c->cols << 20 ^ (uint64_t)k->op << 50 ^ dt;
	struct hbuf x = { 0 }, r = { 0 }, w = { 0 }, b = { 0 };
	uint64_t dx = 0, dr = 0, dw = 0, db = 0, dy = 0, dh = 0, px, pr, pw, pb, py, ph;
	uint8_t *img = NULL, *out = NULL, *outh = NULL;
	double *y = NULL, *h = NULL;
	int ncols = c->cols, block_size = (int)c->block;
	float eps = 1e-5f;
	void *args[8];
	int na = 0;

	if (hbuf_fill(&x, dt, n, c, -3, 3, &rng) < 0 || hbuf_fill(&r, dt, n, c, -3, 3, &rng) < 0 ||
	    hbuf_fill(&w, dt, (size_t)c->cols, c, 0.5, 1.5, &rng) < 0 ||
	    hbuf_fill(&b, dt, (size_t)c->cols, c, -1, 1, &rng) < 0 ||
	    !(img = malloc(bytes + 1)) || !(out = malloc(bytes + ST_GUARD_BYTES)) ||
	    !(outh = malloc(bytes + ST_GUARD_BYTES)) ||
	    !(y = calloc(n + 1, sizeof(double))) || !(h = calloc(n + 1, sizeof(double)))) {
		st_fail(res, "out of memory");
		goto out;
	}
	if (c->values == VAL_BIG) {     /* weights stay ordinary */
		for (int j = 0; j < c->cols; j++) {
			st_store(dt, w.raw, (size_t)j, st_fv(1 + 0.25 * sin(j)));
			w.v[j] = st_load(dt, w.raw, (size_t)j).f;
			st_store(dt, b.raw, (size_t)j, st_fv(0.5 * cos(j)));
			b.v[j] = st_load(dt, b.raw, (size_t)j).f;
		}
	}
	if (c->values == VAL_MASKED) {  /* the first 10 columns of every row */
		for (int i = 0; i < rows; i++)
			for (int j = 0; j < 10 && j < c->cols; j++) {
				st_store(dt, x.raw, (size_t)i * c->cols + j, st_fv(-INFINITY));
				x.v[(size_t)i * c->cols + j] = -INFINITY;
			}
	}
	/* Inputs at the case's offset (poison before them). */
	memset(img, 0xff, bytes + 1);
	memcpy(img + off, x.raw, n * sz);
	if (st_dbuf_new(d, img, bytes, &dx) < 0)
		goto dev;
	memcpy(img + off, r.raw, n * sz);
	if (st_dbuf_new(d, img, bytes, &dr) < 0 ||
	    st_dbuf_new(d, w.raw, (size_t)c->cols * sz, &dw) < 0 ||
	    st_dbuf_new(d, b.raw, (size_t)c->cols * sz, &db) < 0 ||
	    st_dbuf_new(d, NULL, bytes, &dy) < 0 || st_dbuf_new(d, NULL, bytes, &dh) < 0)
		goto dev;
	px = dx + off;
	pr = dr + off;
	py = dy + off;
	ph = dh + off;
	pw = c->no_weight ? 0 : dw;
	pb = c->no_weight ? 0 : db;
	args[na++] = &px;
	if (k->op == N_ADDRMS)
		args[na++] = &pr;
	args[na++] = &py;
	if (k->op == N_ADDRMS)
		args[na++] = &ph;
	if (k->op != N_SOFTMAX)
		args[na++] = &pw;
	if (k->op == N_LAYER)
		args[na++] = &pb;
	args[na++] = &ncols;
	if (k->op != N_SOFTMAX) {
		args[na++] = &block_size;
		args[na++] = &eps;
	}
	if (variant == V_ONE ? st_launch_sync(d, kh, (unsigned)rows, 1, c->block, args, res) < 0 :
	    launch_split(d, k, c, rows, variant == V_SPLIT ? c->splits : c->splits / 2 + 3, args,
	                 res) < 0)
		goto out;
	if (st_dbuf_get(d, dy, out, bytes + ST_GUARD_BYTES) < 0 ||
	    st_dbuf_get(d, dh, outh, bytes + ST_GUARD_BYTES) < 0) {
		st_fail(res, "copy back");
		goto out;
	}
	for (int i = 0; i < rows && c->cols > 0; i++) {
		size_t base = (size_t)i * (size_t)c->cols;

		ref_row(k, x.v + base, r.v + base, c->no_weight ? NULL : w.v,
		        c->no_weight ? NULL : b.v, (size_t)c->cols, eps, y + base, h + base);
	}
	for (size_t i = 0; i < n; i++) {
		if (k->op == N_SOFTMAX && !isnan(y[i])) {
			double got = st_load(dt, out + off, i).f;
			double err = fabs(got - y[i]) / fmax(fabs(y[i]), smallest_normal(dt));

			if (isnan(res->max_err) || !(err <= res->max_err))
				res->max_err = err;
			if (!(err <= k->tol))
				st_fail(res, "element %zu: got %.9g, want %.9g", i, got, y[i]);
		} else {
			st_check_float(dt, k->tol, i, out + off, y[i], res);
		}
		if (c->values == VAL_BIG && !isfinite(st_load(dt, out + off, i).f))
			st_fail(res, "element %zu is not finite on +-7e9 inputs", i);
		if (k->op == N_ADDRMS)
			st_check_float(dt, 0, i, outh + off, h[i], res);
	}
	st_check_poison(out, 0, off, res);
	st_check_poison(out, bytes, bytes + ST_GUARD_BYTES, res);
	if (k->op == N_ADDRMS)
		st_check_poison(outh, bytes, bytes + ST_GUARD_BYTES, res);
	else
		st_check_poison(outh, 0, bytes + ST_GUARD_BYTES, res);
	if (n == 0 && isnan(res->max_err))
		res->max_err = 0;
	goto out;
dev:
	st_fail(res, "device buffers");
out:
	st_dbuf_free(d, dx);
	st_dbuf_free(d, dr);
	st_dbuf_free(d, dw);
	st_dbuf_free(d, db);
	st_dbuf_free(d, dy);
	st_dbuf_free(d, dh);
	hbuf_free(&x);
	hbuf_free(&r);
	hbuf_free(&w);
	hbuf_free(&b);
	free(img);
	free(out);
	free(outh);
	free(y);
	free(h);
}

static int run(struct st_device *d, const struct st_kernel *k, struct hanzo_rocm_kernel *kh,
               void (*emit)(void *data, const struct st_result *r), void *data)
{
	int variant = k->op >> 8, failed = 0;
	struct st_kernel kk = *k;

	kk.op &= 0xff;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct ncase *c = &cases[i];
		struct st_result res;

		if ((c->values == VAL_MASKED && kk.op != N_SOFTMAX) || case_rows(d, c) < 0 ||
		    (variant == V_APPLY && !apply_case(c)))
			continue;
		st_result_start(&res, &kk, variant == V_ONE ? c->name : c->split_name,
		                (size_t)case_rows(d, c) * (size_t)c->cols);
		run_case(d, &kk, variant, kh, c, &res);
		failed += !res.ok;
		emit(data, &res);
	}
	return failed;
}

int st_plan_norm(const char *name, struct st_kernel *k)
{
	/* add_rmsnorm_ before rmsnorm_: neither is a prefix of the other, but
	 * keep the longest names first anyway. */
	static const int order[N_NOPS] = { N_ADDRMS, N_LAYER, N_RMS, N_SOFTMAX };

	for (int o = 0; o < N_NOPS * V_NVARIANTS; o++) {
		const int op = order[o / V_NVARIANTS], v = o % V_NVARIANTS;
		char prefix[32];
		enum st_dtype dt;

		snprintf(prefix, sizeof(prefix), "%s%s", op_names[op], variant_names[v]);
		if (!st_name_dtype(name, prefix, &dt) || !st_dtype_is_float(dt))
			continue;
		k->shape = ST_NORM;
		k->op = op | v << 8;
		k->n_in = op == N_ADDRMS ? 2 : 1;
		k->in[0] = k->in[1] = k->out = dt;
		k->cmp = ST_CMP_TOL;
		k->tol = st_tolerance(dt);
		k->run = run;
		return 0;
	}
	return -ENOENT;
}
