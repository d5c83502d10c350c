/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * selftest, rope family (kernels/rope.hip): rope_i_T, rope_T, rope_thd_T
 * and the positions-table forms rope_pos_T / rope_i_pos_T, against float64
 * rotations of the stored inputs.  Cases: [b, h, t, d] = [2, 3, 5, 64] with
 * shared cos/sin tables, the same with one table per batch entry
 * (stride_b > 0), d = 2, and every pointer one element in (misaligned).
 * The positions forms run in place on padded q/k rows (q_stride, k_stride
 * larger than the heads) with rot_dim < head_dim and two tokens whose
 * position lies outside the table (-1, max_pos): every byte that must not
 * change - padding, unrotated dims, those tokens, guards - is compared bit
 * for bit; with k NULL only q changes.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selftest.h"

enum { R_I, R_NEOX, R_THD, R_POS, R_IPOS, R_NOPS };
/* Longest names first: "rope_" is a prefix of all of them. */
static const struct { const char *prefix; int op; } names[R_NOPS] = {
	{ "rope_i_pos_", R_IPOS }, { "rope_pos_", R_POS }, { "rope_thd_", R_THD },
	{ "rope_i_", R_I }, { "rope_", R_NEOX },
};

struct tcase {
	const char *name;
	size_t b, h, t, d;
	bool batched;                   /* cos/sin per batch entry */
	size_t offset;                  /* elements before every buffer */
};

static const struct tcase tcases[] = {
	{ "bhtd", 2, 3, 5, 64, false, 0 },
	{ "batched", 2, 3, 5, 64, true, 0 },
	{ "d2", 1, 1, 7, 2, false, 0 },
	{ "offset", 2, 3, 5, 64, false, 1 },
};

/* n values of dtype dt, stored and read back. */
static void fill(enum st_dtype dt, uint8_t *raw, double *v, size_t n, double lo, double hi,
                 uint64_t *rng)
{
	for (size_t i = 0; i < n; i++) {
		st_store(dt, raw, i, st_fv(st_uniform(rng, lo, hi)));
		v[i] = st_load(dt, raw, i).f;
	}
}

/* cos/sin tables [rows, half] of rotary angles pos * 10000^(-i/half). */
static void tables(enum st_dtype dt, uint8_t *craw, uint8_t *sraw, double *c, double *s,
                   size_t rows, size_t half, size_t pos_mod)
{
	for (size_t r = 0; r < rows; r++) {
		for (size_t i = 0; i < half; i++) {
			double a = (double)(r % pos_mod + 1) * pow(10000.0, -(double)i / (double)half);

			st_store(dt, craw, r * half + i, st_fv(cos(a)));
			st_store(dt, sraw, r * half + i, st_fv(sin(a)));
			c[r * half + i] = st_load(dt, craw, r * half + i).f;
			s[r * half + i] = st_load(dt, sraw, r * half + i).f;
		}
	}
}

static void rot(double *y, const double *x, size_t i1, size_t i2, double c, double s)
{
	y[i1] = x[i1] * c - x[i2] * s;
	y[i2] = x[i1] * s + x[i2] * c;
}

static void run_layout(struct st_device *d, const struct st_kernel *k,
                       struct hanzo_rocm_kernel *kh, const struct tcase *c, struct st_result *res)
{
	const enum st_dtype dt = k->out;
	const size_t sz = st_dtype_size(dt), n = c->b * c->h * c->t * c->d, half = c->d / 2;
	const size_t tab = (c->batched ? c->b : 1) * c->t * half, off = c->offset * sz;
	uint64_t rng = 0x13198a2e03707344ULL ^ (uint64_t)k->op << 48 ^ n ^ dt;
	uint8_t *xr = malloc(off + n * sz + 1), *cr = malloc(off + tab * sz + 1);
	uint8_t *sr = malloc(off + tab * sz + 1), *out = malloc(off + n * sz + ST_GUARD_BYTES);
	double *x = calloc(n, sizeof(double)), *y = calloc(n, sizeof(double));
	double *cv = calloc(tab, sizeof(double)), *sv = calloc(tab, sizeof(double));
	uint64_t dx = 0, dc = 0, ds = 0, dy = 0, px, pc, ps, py;
	size_t bh = c->b * c->h, td = c->t * c->d, dd = c->d, stride_b = 0;
	size_t bb = c->b, tt = c->t, hh = c->h;
	void *args[9];
	int na = 0;

	if (!xr || !cr || !sr || !out || !x || !y || !cv || !sv) {
		st_fail(res, "out of memory");
		goto out;
	}
	memset(xr, 0xff, off);
	memset(cr, 0xff, off);
	memset(sr, 0xff, off);
	fill(dt, xr + off, x, n, -2, 2, &rng);
	tables(dt, cr + off, sr + off, cv, sv, tab / half, half, c->t + 3);
	if (c->batched)
		stride_b = k->op == R_THD ? c->t * c->h * c->d : c->h * c->t * c->d;
	/* The reference: element e's pair and table entry by layout. */
	for (size_t p = 0; p < n / 2; p++) {
		size_t i1, i2, t, i, bi;

		if (k->op == R_I) {
			i1 = 2 * p;
			i2 = i1 + 1;
			t = (i1 % td) / c->d;
			i = (i1 % c->d) / 2;
			bi = i1 / (c->h * td);
		} else {
			size_t row = p / half;          /* a row of d elements */

			i = p % half;
			i1 = row * c->d + i;
			i2 = i1 + half;
			/* [b, h, t, d]: t = row % t; [b, t, h, d]: t = (row / h) % t */
			t = k->op == R_THD ? (row / c->h) % c->t : row % c->t;
			bi = row / (c->h * c->t);
		}
		size_t e = (c->batched ? bi * c->t * half : 0) + t * half + i;
		rot(y, x, i1, i2, cv[e], sv[e]);
	}
	if (st_dbuf_new(d, xr, off + n * sz, &dx) < 0 || st_dbuf_new(d, cr, off + tab * sz, &dc) < 0 ||
	    st_dbuf_new(d, sr, off + tab * sz, &ds) < 0 || st_dbuf_new(d, NULL, off + n * sz, &dy) < 0) {
		st_fail(res, "device buffers");
		goto out;
	}
	px = dx + off;
	pc = dc + off;
	ps = ds + off;
	py = dy + off;
	args[na++] = &px;
	args[na++] = &pc;
	args[na++] = &ps;
	args[na++] = &py;
	if (k->op == R_THD) {
		args[na++] = &bb;
		args[na++] = &tt;
		args[na++] = &hh;
		args[na++] = &dd;
	} else {
		args[na++] = &bh;
		args[na++] = &td;
		if (k->op == R_NEOX)
			args[na++] = &dd;
	}
	args[na++] = &stride_b;
	/* Work: rotation pairs (the library's grid; on the host backend a
	 * few blocks, so the grid-stride loops go round several times). */
	if (st_launch_work(d, kh, n / 2, 1, args, res) < 0)
		goto out;
	if (st_dbuf_get(d, dy, out, off + n * sz + ST_GUARD_BYTES) < 0) {
		st_fail(res, "copy back");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		st_check_float(dt, k->tol, i, out + off, y[i], res);
	st_check_poison(out, 0, off, res);
	st_check_poison(out, off + n * sz, off + n * sz + ST_GUARD_BYTES, res);
out:
	st_dbuf_free(d, dx);
	st_dbuf_free(d, dc);
	st_dbuf_free(d, ds);
	st_dbuf_free(d, dy);
	free(xr);
	free(cr);
	free(sr);
	free(out);
	free(x);
	free(y);
	free(cv);
	free(sv);
}

#define NTOK 7
#define NQ 4
#define NK 2
#define HEAD 80
#define ROT 64
#define QSTRIDE (NQ * HEAD + 16)
#define KSTRIDE (NK * HEAD + 8)
#define MAXPOS 32

/* q or k (nheads, stride) after the kernel, from its input v. */
static void ref_heads(const struct st_kernel *k, const double *v, double *y, size_t nheads,
                      size_t stride, const int64_t *pos, const double *cv, const double *sv)
{
	memcpy(y, v, NTOK * stride * sizeof(double));
	for (size_t t = 0; t < NTOK; t++) {
		if (pos[t] < 0 || pos[t] >= MAXPOS)
			continue;
		for (size_t h = 0; h < nheads; h++) {
			size_t base = t * stride + h * HEAD;

			for (size_t i = 0; i < ROT / 2; i++) {
				size_t e = (size_t)pos[t] * (ROT / 2) + i;

				if (k->op == R_IPOS)
					rot(y, v, base + 2 * i, base + 2 * i + 1, cv[e], sv[e]);
				else
					rot(y, v, base + i, base + i + ROT / 2, cv[e], sv[e]);
			}
		}
	}
}

static void run_positions(struct st_device *d, const struct st_kernel *k,
                          struct hanzo_rocm_kernel *kh, bool with_k, struct st_result *res)
{
	static const int64_t pos[NTOK] = { 3, 0, -1, 31, 17, MAXPOS, 3 };
	const enum st_dtype dt = k->out;
	const size_t sz = st_dtype_size(dt), nq = NTOK * QSTRIDE, nk = NTOK * KSTRIDE;
	const size_t tab = MAXPOS * (ROT / 2);
	uint64_t rng = 0xa4093822299f31d0ULL ^ (uint64_t)k->op << 48 ^ dt ^ with_k;
	uint8_t *qr = malloc(nq * sz), *kr = malloc(nk * sz), *cr = malloc(tab * sz);
	uint8_t *sr = malloc(tab * sz), *out = malloc(nq * sz + ST_GUARD_BYTES);
	uint8_t *outk = malloc(nk * sz + ST_GUARD_BYTES);
	double *q = calloc(nq, sizeof(double)), *kv = calloc(nk, sizeof(double));
	double *yq = calloc(nq, sizeof(double)), *yk = calloc(nk, sizeof(double));
	double *cv = calloc(tab, sizeof(double)), *sv = calloc(tab, sizeof(double));
	uint64_t dp = 0, dq = 0, dk = 0, dc = 0, ds = 0, pk;
	size_t ntok = NTOK, nqh = NQ, nkh = NK, head = HEAD, rotd = ROT;
	size_t qs = QSTRIDE, ks = KSTRIDE, maxpos = MAXPOS;
	void *args[13];

	if (!qr || !kr || !cr || !sr || !out || !outk || !q || !kv || !yq || !yk || !cv || !sv) {
		st_fail(res, "out of memory");
		goto out;
	}
	fill(dt, qr, q, nq, -2, 2, &rng);
	fill(dt, kr, kv, nk, -2, 2, &rng);
	tables(dt, cr, sr, cv, sv, MAXPOS, ROT / 2, MAXPOS);
	ref_heads(k, q, yq, NQ, QSTRIDE, pos, cv, sv);
	ref_heads(k, kv, yk, NK, KSTRIDE, pos, cv, sv);
	if (st_dbuf_new(d, pos, sizeof(pos), &dp) < 0 || st_dbuf_new(d, qr, nq * sz, &dq) < 0 ||
	    st_dbuf_new(d, kr, nk * sz, &dk) < 0 || st_dbuf_new(d, cr, tab * sz, &dc) < 0 ||
	    st_dbuf_new(d, sr, tab * sz, &ds) < 0) {
		st_fail(res, "device buffers");
		goto out;
	}
	pk = with_k ? dk : 0;
	args[0] = &dp;
	args[1] = &dq;
	args[2] = &pk;
	args[3] = &dc;
	args[4] = &ds;
	args[5] = &ntok;
	args[6] = &nqh;
	args[7] = &nkh;
	args[8] = &head;
	args[9] = &rotd;
	args[10] = &qs;
	args[11] = &ks;
	args[12] = &maxpos;
	if (st_launch_work(d, kh, (uint64_t)ntok * (nqh + (with_k ? nkh : 0)) * rotd / 2, 1,
	                   args, res) < 0)
		goto out;
	if (st_dbuf_get(d, dq, out, nq * sz + ST_GUARD_BYTES) < 0 ||
	    st_dbuf_get(d, dk, outk, nk * sz + ST_GUARD_BYTES) < 0) {
		st_fail(res, "copy back");
		goto out;
	}
	/* Untouched elements equal their input exactly: the rule is the same
	 * comparison (a rotation by nothing is the identity). */
	for (size_t i = 0; i < nq; i++)
		st_check_float(dt, yq[i] == q[i] ? 0 : k->tol, i, out, yq[i], res);
	for (size_t i = 0; i < nk; i++)
		st_check_float(dt, !with_k || yk[i] == kv[i] ? 0 : k->tol, i, outk,
		               with_k ? yk[i] : kv[i], res);
	st_check_poison(out, nq * sz, nq * sz + ST_GUARD_BYTES, res);
	st_check_poison(outk, nk * sz, nk * sz + ST_GUARD_BYTES, res);
out:
	st_dbuf_free(d, dp);
	st_dbuf_free(d, dq);
	st_dbuf_free(d, dk);
	st_dbuf_free(d, dc);
	st_dbuf_free(d, ds);
	free(qr);
	free(kr);
	free(cr);
	free(sr);
	free(out);
	free(outk);
	free(q);
	free(kv);
	free(yq);
	free(yk);
	free(cv);
	free(sv);
}

static int run(struct st_device *d, const struct st_kernel *k, struct hanzo_rocm_kernel *kh,
               void (*emit)(void *data, const struct st_result *r), void *data)
{
	struct st_result res;
	int failed = 0;

	if (k->op == R_POS || k->op == R_IPOS) {
		for (int with_k = 1; with_k >= 0; with_k--) {
			st_result_start(&res, k, with_k ? "qk" : "knull",
			                NTOK * (QSTRIDE + (with_k ? KSTRIDE : 0)));
			run_positions(d, k, kh, with_k, &res);
			failed += !res.ok;
			emit(data, &res);
		}
		return failed;
	}
	for (size_t i = 0; i < sizeof(tcases) / sizeof(tcases[0]); i++) {
		const struct tcase *c = &tcases[i];

		st_result_start(&res, k, c->name, c->b * c->h * c->t * c->d);
		run_layout(d, k, kh, c, &res);
		failed += !res.ok;
		emit(data, &res);
	}
	return failed;
}

int st_plan_rope(const char *name, struct st_kernel *k)
{
	for (int o = 0; o < R_NOPS; o++) {
		enum st_dtype dt;

		if (!st_name_dtype(name, names[o].prefix, &dt) || !st_dtype_is_float(dt))
			continue;
		k->shape = ST_ROPE;
		k->op = names[o].op;
		k->n_in = 3;
		k->in[0] = k->in[1] = k->in[2] = k->out = dt;
		k->cmp = ST_CMP_TOL;
		k->tol = st_tolerance(dt);
		k->run = run;
		return 0;
	}
	return -ENOENT;
}
