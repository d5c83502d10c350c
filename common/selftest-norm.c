/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * selftest, norm family (kernels/norm.hip): softmax_T, rmsnorm_T,
 * layernorm_T, add_rmsnorm_T, one block per row, against float64 rows.
 * Cases: 1, 769 (every pointer one element in), 5125 and 152071 columns;
 * +-7e9 inputs (+-3e4 for f16, so the residual sum stays finite) that must
 * stay finite; NULL weight and bias;
 * rows of no columns (nothing may be written); softmax rows that start
 * with -inf (masked attention).  Outputs are poisoned, with guard bytes
 * before (offset case) and after.  add_rmsnorm checks both outputs: the
 * stored sum bit for bit, the normalized row within tolerance.
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

enum { VAL_RAND, VAL_BIG, VAL_MASKED };

struct ncase {
	const char *name;
	int rows, cols;
	size_t offset;                  /* elements before every buffer */
	unsigned block;
	int values;
	bool no_weight;
};

static const struct ncase cases[] = {
	{ "cols1", 3, 1, 0, 64, VAL_RAND, false },
	{ "cols769", 4, 769, 1, 256, VAL_RAND, false },
	{ "cols5125", 2, 5125, 0, 512, VAL_RAND, false },
	{ "wide", 2, 152071, 0, 1024, VAL_RAND, false },
	{ "big", 3, 769, 0, 128, VAL_BIG, false },
	{ "noweight", 3, 769, 0, 192, VAL_RAND, true },
	{ "nocols", 3, 0, 0, 64, VAL_RAND, false },
	{ "masked", 3, 769, 0, 256, VAL_MASKED, false },
};

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

static void run_case(struct st_device *d, const struct st_kernel *k,
                     struct hanzo_rocm_kernel *kh, const struct ncase *c, struct st_result *res)
{
	const enum st_dtype dt = k->out;
	const size_t sz = st_dtype_size(dt), n = (size_t)c->rows * (size_t)c->cols;
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
		for (int i = 0; i < c->rows; i++)
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
	if (st_launch_sync(d, kh, (unsigned)c->rows, 1, c->block, args, res) < 0)
		goto out;
	if (st_dbuf_get(d, dy, out, bytes + ST_GUARD_BYTES) < 0 ||
	    st_dbuf_get(d, dh, outh, bytes + ST_GUARD_BYTES) < 0) {
		st_fail(res, "copy back");
		goto out;
	}
	for (int i = 0; i < c->rows && c->cols > 0; i++) {
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
	int failed = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct st_result res;

		if (cases[i].values == VAL_MASKED && k->op != N_SOFTMAX)
			continue;
		st_result_start(&res, k, cases[i].name, (size_t)cases[i].rows * (size_t)cases[i].cols);
		run_case(d, k, kh, &cases[i], &res);
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

	for (int o = 0; o < N_NOPS; o++) {
		char prefix[32];
		enum st_dtype dt;

		snprintf(prefix, sizeof(prefix), "%s_", op_names[order[o]]);
		if (!st_name_dtype(name, prefix, &dt) || !st_dtype_is_float(dt))
			continue;
		k->shape = ST_NORM;
		k->op = order[o];
		k->n_in = k->op == N_ADDRMS ? 2 : 1;
		k->in[0] = k->in[1] = k->out = dt;
		k->cmp = ST_CMP_TOL;
		k->tol = st_tolerance(dt);
		k->run = run;
		return 0;
	}
	return -ENOENT;
}
