/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * selftest, sampling family (kernels/sampling.hip).
 *
 * sample_T against a float64 reference of the same definition: the row's
 * order (logit descending, index ascending), min_p, top_k and top_p as
 * prefixes of it, q = exp((x - max) / temperature), and Philox-4x32-10
 * (checked against Random123's published answers first) for the point in
 * the kept mass.  The exact token: every row of the "token" cases has its
 * own filters and seed, and the kernel's token must be the reference's -
 * or, where the point lies within 1e-5 of the kept mass of a boundary
 * between two tokens (the kernel's exp and its 40-bit fixed-point masses
 * round), its neighbour.  The distribution: "chi2" cases draw one token
 * from each of 3000 rows holding the same logits, seed fixed and offset =
 * the row (a fixed set: the test is deterministic), every token must be in
 * the kept set, and Pearson's chi-square of the counts against the exact
 * filtered distribution (bins of expected count < 5 merged) must stay
 * below its 0.999 quantile (Wilson-Hilferty).  Rows of 7, 1000 and 151936
 * columns (the widest with 1 row on the host backend), -inf logits, f16
 * and bf16 ties; guard elements after dst stay poisoned.  The one-pass
 * top-k path (1 < top_k <= 1024): rows in ascending order (its candidate
 * buffer overflows again and again; f16/bf16 round them into runs of
 * ties), long runs of equal logits, all equal, mostly -inf, top_k 2 to
 * 1024 with each other filter; a NaN in a row gives ncols on every path.
 *
 * topk_T exactly (values' bits and indices) against a sort of (value desc,
 * index asc), NaN first; k = 1, k = ncols (7, 1000, 1024), k = 1024, one
 * column, many ties, NaNs, and the same edges as sample_T's: ascending
 * rows, runs, all equal, mostly -inf.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selftest.h"

#define OP_SAMPLE 0
#define OP_TOPK 1

/* Random123's Philox-4x32-10 of counter c and key (k0, k1). */
static void philox4(const uint32_t ctr[4], uint32_t k0, uint32_t k1, uint32_t out[4])
{
	uint32_t c[4] = { ctr[0], ctr[1], ctr[2], ctr[3] };

	for (int i = 0; i < 10; i++) {
		if (i) {
			k0 += 0x9E3779B9u;
			k1 += 0xBB67AE85u;
		}
		const uint64_t p0 = (uint64_t)0xD2511F53u * c[0], p1 = (uint64_t)0xCD9E8D57u * c[2];
		const uint32_t n0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k0, n1 = (uint32_t)p1;
		const uint32_t n2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1, n3 = (uint32_t)p0;

		c[0] = n0;
		c[1] = n1;
		c[2] = n2;
		c[3] = n3;
	}
	memcpy(out, c, sizeof(c));
}

/* The kernels' use: key = seed, counter = (offset, 0). */
static void philox(uint64_t seed, uint64_t offset, uint32_t out[4])
{
	const uint32_t c[4] = { (uint32_t)offset, (uint32_t)(offset >> 32), 0, 0 };

	philox4(c, (uint32_t)seed, (uint32_t)(seed >> 32), out);
}

/* Random123's known answers (kat_vectors, philox4x32 10): counter and key
 * all zeros, and the digits of pi. */
static bool philox_kat(void)
{
	static const uint32_t zero[4], pi[4] = { 0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u };
	uint32_t a[4], b[4];

	philox4(zero, 0, 0, a);
	philox4(pi, 0xa4093822u, 0x299f31d0u, b);
	return a[0] == 0x6627e8d5u && a[1] == 0xe169c58du && a[2] == 0xbc57ac4cu &&
	       a[3] == 0x9b00dbd8u && b[0] == 0xd16cfe09u && b[1] == 0x94fdccebu &&
	       b[2] == 0x5001e420u && b[3] == 0x24126ea1u;
}

struct ord {
	double v;
	uint32_t i;
	bool nan;
};

/* (value desc, index asc), NaN first. */
static int cmp_ord(const void *pa, const void *pb)
{
	const struct ord *a = pa, *b = pb;

	if (a->nan != b->nan)
		return a->nan ? -1 : 1;
	if (!a->nan && a->v != b->v)
		return a->v > b->v ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

struct params {
	float temp, top_p, min_p;
	int32_t top_k;
	uint64_t seed, offset;
};

/* The kept set of one row (keep[j]) and q_j; returns the kept mass. */
static double ref_filter(const double *x, int n, const struct params *p, struct ord *o,
                         bool *keep, double *q)
{
	double m = -INFINITY, t = p->temp, z1 = 0, z = 0, cum = 0;
	int k = p->top_k, cnt = 0;

	if (!(t > 0)) {
		t = 1;
		k = 1;
	}
	for (int j = 0; j < n; j++)
		m = x[j] > m ? x[j] : m;
	for (int j = 0; j < n; j++) {
		q[j] = x[j] == m ? 1.0 : exp((x[j] - m) / t);
		o[j].v = x[j];
		o[j].i = (uint32_t)j;
		o[j].nan = false;
		keep[j] = false;
	}
	qsort(o, (size_t)n, sizeof(*o), cmp_ord);
	/* min_p, then top_k: a prefix of the order */
	for (int r = 0; r < n; r++) {
		const uint32_t j = o[r].i;

		if (p->min_p > 0 && !(q[j] >= (double)p->min_p))
			continue;
		if (k > 0 && k < n && cnt >= k)
			break;
		keep[j] = true;
		cnt++;
		z1 += q[j];
	}
	/* top_p: the shortest prefix of the kept with mass >= top_p * z1 */
	bool done = false;

	for (int r = 0; r < n; r++) {
		const uint32_t j = o[r].i;

		if (!keep[j])
			continue;
		if (done || p->top_p >= 1 || k == 1) {
			if (done)
				keep[j] = false;
			else
				z += q[j];
			continue;
		}
		cum += q[j];
		z += q[j];
		if (cum >= (double)p->top_p * z1)
			done = true;
	}
	return z;
}

static uint32_t rand_u32(uint64_t *s)
{
	return (uint32_t)(st_rand(s) >> 32);
}

/* Fills row logits: roughly normal * scale (ties come from f16/bf16's rounding). */
static void gen_row(enum st_dtype dt, void *buf, size_t base, int n, double scale, uint64_t *rng,
                    bool neg_inf)
{
	for (int j = 0; j < n; j++) {
		double g = 0;

		for (int a = 0; a < 4; a++)
			g += st_uniform(rng, -1, 1);
		st_store(dt, buf, base + (size_t)j, st_fv(g * scale));
		if (neg_inf && rand_u32(rng) % 5 == 0)
			st_store(dt, buf, base + (size_t)j, st_fv(-INFINITY));
	}
}

/* Row patterns for the one-pass top-k's edges: its candidate buffer
 * overflows again and again on ascending rows (f16/bf16 round them into
 * runs of ties), ties everywhere, rows mostly -inf; descending rows (the
 * greedy pass's largest element at the row's head). */
enum pat { PAT_RAND, PAT_TIES, PAT_ASC, PAT_DESC, PAT_RUNS, PAT_EQUAL, PAT_NEGINF };

static double pat_value(enum pat pt, int j, uint64_t *rng)
{
	switch (pt) {
	case PAT_ASC:
		return -100 + j * 0.01;
	case PAT_DESC:
		return 100 - j * 0.01;
	case PAT_RUNS:
		return floor(j / 300.0);
	case PAT_EQUAL:
		return 1.5;
	case PAT_NEGINF:
		return j % 37 ? -INFINITY : st_uniform(rng, -4, 4);
	case PAT_TIES:
		return (double)(rand_u32(rng) % 13) * 0.75 - 4;
	case PAT_RAND:
		break;
	}
	return st_uniform(rng, -8, 8);
}

struct dev {
	uint64_t x, dst, temp, topk, topp, minp, seed, off;
};

static void dev_free(struct st_device *d, struct dev *b)
{
	st_dbuf_free(d, b->x);
	st_dbuf_free(d, b->dst);
	st_dbuf_free(d, b->temp);
	st_dbuf_free(d, b->topk);
	st_dbuf_free(d, b->topp);
	st_dbuf_free(d, b->minp);
	st_dbuf_free(d, b->seed);
	st_dbuf_free(d, b->off);
}

/* Runs sample_T over rows x n logits with per-row params; tokens in tok
 * (rows + 16 guard words, the guard checked). */
static int run_sample(struct st_device *d, struct hanzo_rocm_kernel *kh, enum st_dtype dt,
                      const void *x, int rows, int n, const struct params *p, uint32_t *tok,
                      struct st_result *res)
{
	struct dev b = { 0 };
	float *temp = malloc((size_t)rows * 4), *topp = malloc((size_t)rows * 4),
	      *minp = malloc((size_t)rows * 4);
	int32_t *topk = malloc((size_t)rows * 4);
	uint64_t *seed = malloc((size_t)rows * 8), *off = malloc((size_t)rows * 8);
	void *args[9];
	int r = -1;

	if (!temp || !topp || !minp || !topk || !seed || !off) {
		st_fail(res, "out of memory");
		goto out;
	}
	for (int i = 0; i < rows; i++) {
		temp[i] = p[i].temp;
		topp[i] = p[i].top_p;
		minp[i] = p[i].min_p;
		topk[i] = p[i].top_k;
		seed[i] = p[i].seed;
		off[i] = p[i].offset;
	}
	if (st_dbuf_new(d, x, (size_t)rows * (size_t)n * st_dtype_size(dt), &b.x) < 0 ||
	    st_dbuf_new(d, NULL, (size_t)rows * 4, &b.dst) < 0 ||
	    st_dbuf_new(d, temp, (size_t)rows * 4, &b.temp) < 0 ||
	    st_dbuf_new(d, topk, (size_t)rows * 4, &b.topk) < 0 ||
	    st_dbuf_new(d, topp, (size_t)rows * 4, &b.topp) < 0 ||
	    st_dbuf_new(d, minp, (size_t)rows * 4, &b.minp) < 0 ||
	    st_dbuf_new(d, seed, (size_t)rows * 8, &b.seed) < 0 ||
	    st_dbuf_new(d, off, (size_t)rows * 8, &b.off) < 0) {
		st_fail(res, "device buffers");
		goto out;
	}
	args[0] = &b.x;
	args[1] = &b.dst;
	args[2] = &n;
	args[3] = &b.temp;
	args[4] = &b.topk;
	args[5] = &b.topp;
	args[6] = &b.minp;
	args[7] = &b.seed;
	args[8] = &b.off;
	if (st_launch_work(d, kh, (uint64_t)rows, (uint64_t)n, args, res) < 0)
		goto out;
	if (st_dbuf_get(d, b.dst, tok, (size_t)rows * 4 + 64) < 0) {
		st_fail(res, "copy back");
		goto out;
	}
	st_check_poison(tok, (size_t)rows * 4, (size_t)rows * 4 + 64, res);
	r = 0;
out:
	dev_free(d, &b);
	free(temp);
	free(topp);
	free(minp);
	free(topk);
	free(seed);
	free(off);
	return r;
}

struct tcase {
	const char *name;
	int rows, cols;
	int host_rows;          /* rows on the host backend (0: rows) */
	bool neg_inf;
	enum pat pat;           /* PAT_RAND: gen_row's */
	bool topk;              /* top_k on in every row (topk_params) */
	bool nan;               /* a NaN in every row: the token is cols */
};

static const struct tcase token_cases[] = {
	{ "token7", 8, 7, 0, false, PAT_RAND, false, false },
	{ "token1000", 8, 1000, 0, true, PAT_RAND, false, false },
	{ "token151936", 8, 151936, 2, false, PAT_RAND, false, false },
	{ "token_asc", 4, 20000, 0, false, PAT_ASC, true, false },
	{ "token_runs", 4, 10000, 0, false, PAT_RUNS, true, false },
	{ "token_equal", 4, 3000, 0, false, PAT_EQUAL, true, false },
	{ "token_neginf", 4, 4000, 0, false, PAT_NEGINF, true, false },
	{ "token_nan", 8, 5000, 0, false, PAT_RAND, false, true },
	/* rows 5 and 6 greedy, their starts off every 16-byte boundary (the
	 * greedy pass reads 16-byte packs between a head and a tail), in ties */
	{ "token_asc4099", 8, 4099, 0, false, PAT_ASC, false, false },     /* largest in the tail */
	{ "token_desc4099", 8, 4099, 0, false, PAT_DESC, false, false },   /* ... in the head */
	{ "token_runs20011", 8, 20011, 0, false, PAT_RUNS, false, false },  /* ... past 4 packs a thread */
};

/* Row i's filters where top_k is on: 1024, and with each other filter. */
static struct params topk_params(int i)
{
	static const struct params ps[] = {
		{ 1.0f, 1.0f, 0.0f, 1024, 0, 0 },
		{ 0.8f, 0.9f, 0.0f, 1000, 0, 0 },
		{ 1.0f, 1.0f, 0.05f, 700, 0, 0 },
		{ 1.5f, 0.5f, 0.0f, 2, 0, 0 },
	};
	struct params p = ps[i % 4];

	p.seed = 0x70b0000ULL + (uint64_t)i * 0x9e3779b97f4a7c15ULL;
	p.offset = (uint64_t)i * 5 + 1;
	return p;
}

/* Row i's filters in the token cases: all off, each alone, combined, greedy. */
static struct params token_params(int i)
{
	static const struct params ps[] = {
		{ 1.0f, 1.0f, 0.0f, 0, 0, 0 },
		{ 1.0f, 1.0f, 0.0f, 5, 0, 0 },
		{ 0.7f, 0.8f, 0.0f, 0, 0, 0 },
		{ 1.3f, 1.0f, 0.05f, 0, 0, 0 },
		{ 0.9f, 0.9f, 0.02f, 50, 0, 0 },
		{ 0.0f, 0.5f, 0.0f, 0, 0, 0 },       /* greedy by temperature */
		{ 1.0f, 1.0f, 0.0f, 1, 0, 0 },       /* greedy by top_k */
		{ 2.0f, 0.3f, 0.0f, 3, 0, 0 },
	};
	struct params p = ps[i % 8];

	p.seed = 0x5eed0000ULL + (uint64_t)i * 0x9e3779b97f4a7c15ULL;
	p.offset = (uint64_t)i * 7 + 3;
	return p;
}

static bool on_host(struct st_device *d)
{
	return hanzo_rocm_device_platform(st_device_ctx(d), st_device_index(d)) ==
	       HANZO_ROCM_PLATFORM_HOST;
}

static void token_case(struct st_device *d, const struct st_kernel *k, struct hanzo_rocm_kernel *kh,
                       const struct tcase *c, struct st_result *res)
{
	const enum st_dtype dt = k->in[0];
	const int rows = c->host_rows && on_host(d) ? c->host_rows : c->rows, n = c->cols;
	uint64_t rng = 0x7a3c19d0e5b24f61ULL ^ (uint64_t)n << 20 ^ dt;
	void *x = malloc((size_t)rows * (size_t)n * st_dtype_size(dt));
	double *xv = malloc((size_t)n * sizeof(double)), *q = malloc((size_t)n * sizeof(double));
	struct ord *o = malloc((size_t)n * sizeof(*o));
	bool *keep = malloc((size_t)n);
	struct params *p = malloc((size_t)rows * sizeof(*p));
	uint32_t *tok = malloc((size_t)rows * 4 + 64);

	if (!x || !xv || !q || !o || !keep || !p || !tok) {
		st_fail(res, "out of memory");
		goto out;
	}
	for (int r = 0; r < rows; r++) {
		if (c->pat == PAT_RAND)
			gen_row(dt, x, (size_t)r * n, n, 2.5, &rng, c->neg_inf);
		else
			for (int j = 0; j < n; j++)
				st_store(dt, x, (size_t)r * n + j, st_fv(pat_value(c->pat, j, &rng)));
		if (c->nan)     /* rows of both paths: top_k on (5, 50, 3) and off */
			st_store(dt, x, (size_t)r * n + rand_u32(&rng) % (uint32_t)n, st_fv(NAN));
		p[r] = c->topk ? topk_params(r) : token_params(r);
	}
	if (run_sample(d, kh, dt, x, rows, n, p, tok, res) < 0)
		goto out;
	res->max_err = 0;
	for (int r = 0; r < rows && res->ok; r++) {
		uint32_t u[4];
		double z, point, cum = 0, tol;
		bool ok = false;
		uint32_t want = UINT32_MAX;

		if (c->nan) {   /* the row's maximum is NaN */
			if (tok[r] != (uint32_t)n) {
				res->max_err = INFINITY;
				st_fail(res, "row %d (top_k %d), a NaN in it: token %u, want %d", r,
				        p[r].top_k, tok[r], n);
			}
			continue;
		}
		for (int j = 0; j < n; j++)
			xv[j] = st_load(dt, x, (size_t)r * n + j).f;
		z = ref_filter(xv, n, &p[r], o, keep, q);
		philox(p[r].seed, p[r].offset, u);
		point = z * ((double)u[0] / 4294967296.0);
		tol = 1e-5 * z;
		for (int j = 0; j < n; j++) {
			if (!keep[j])
				continue;
			if (want == UINT32_MAX && cum + q[j] > point)
				want = (uint32_t)j;
			if ((uint32_t)j == tok[r] && cum - tol <= point && point <= cum + q[j] + tol)
				ok = true;
			cum += q[j];
		}
		if (!ok) {
			res->max_err = INFINITY;
			st_fail(res, "row %d (temp %g top_k %d top_p %g min_p %g): token %u, want %u",
			        r, (double)p[r].temp, p[r].top_k, (double)p[r].top_p,
			        (double)p[r].min_p, tok[r], want);
		}
	}
out:
	free(x);
	free(xv);
	free(q);
	free(o);
	free(keep);
	free(p);
	free(tok);
}

struct ccase {
	const char *name;
	int cols;
	struct params p;
};

#define CHI2_ROWS 3000

static const struct ccase chi2_cases[] = {
	{ "chi2_topk", 48, { 1.0f, 1.0f, 0.0f, 12, 0, 0 } },
	{ "chi2_topp_minp", 48, { 0.8f, 0.9f, 0.03f, 0, 0, 0 } },
	{ "chi2_all", 64, { 1.5f, 0.95f, 0.01f, 20, 0, 0 } },
};

static void chi2_case(struct st_device *d, const struct st_kernel *k, struct hanzo_rocm_kernel *kh,
                      const struct ccase *c, struct st_result *res)
{
	const enum st_dtype dt = k->in[0];
	const int rows = CHI2_ROWS, n = c->cols;
	uint64_t rng = 0x2c1b3c6dce9b5f0aULL ^ (uint64_t)n << 24 ^ dt;
	void *x = malloc((size_t)rows * (size_t)n * st_dtype_size(dt));
	double xv[64], q[64], pr[64];
	struct ord o[64];
	bool keep[64];
	long cnt[64] = { 0 };
	struct params *p = malloc((size_t)rows * sizeof(*p));
	uint32_t *tok = malloc((size_t)rows * 4 + 64);
	double z, chi2 = 0, e_acc = 0, o_acc = 0, crit, h;
	int df = -1;

	if (!x || !p || !tok) {
		st_fail(res, "out of memory");
		goto out;
	}
	gen_row(dt, x, 0, n, 1.5, &rng, false);
	for (int r = 0; r < rows; r++) {
		if (r)
			memcpy((char *)x + (size_t)r * n * st_dtype_size(dt), x,
			       (size_t)n * st_dtype_size(dt));
		p[r] = c->p;
		p[r].seed = 0x243f6a8885a308d3ULL;
		p[r].offset = (uint64_t)r;
	}
	if (run_sample(d, kh, dt, x, rows, n, p, tok, res) < 0)
		goto out;
	for (int j = 0; j < n; j++)
		xv[j] = st_load(dt, x, (size_t)j).f;
	z = ref_filter(xv, n, &c->p, o, keep, q);
	for (int r = 0; r < rows; r++) {
		if (tok[r] >= (uint32_t)n || !keep[tok[r]]) {
			st_fail(res, "row %d: token %u is not in the kept set", r, tok[r]);
			goto out;
		}
		cnt[tok[r]]++;
	}
	/* Pearson's chi-square, bins of expected count < 5 merged (in index order) */
	for (int j = 0; j < n; j++) {
		if (!keep[j])
			continue;
		pr[j] = q[j] / z;
		e_acc += pr[j] * rows;
		o_acc += (double)cnt[j];
		if (e_acc >= 5) {
			chi2 += (o_acc - e_acc) * (o_acc - e_acc) / e_acc;
			df++;
			e_acc = o_acc = 0;
		}
	}
	if (e_acc > 0) {        /* the last bins, short of 5: a bin of their own */
		chi2 += (o_acc - e_acc) * (o_acc - e_acc) / e_acc;
		df++;
	}
	if (df < 1)
		df = 1;
	/* the 0.999 quantile, Wilson-Hilferty: z_0.999 = 3.0902 */
	h = 2.0 / (9.0 * df);
	crit = df * pow(1 - h + 3.0902 * sqrt(h), 3);
	res->max_err = chi2;
	res->tol = crit;
	if (!(chi2 <= crit))
		st_fail(res, "chi-square %.2f over %d degrees of freedom exceeds %.2f", chi2, df, crit);
out:
	free(x);
	free(p);
	free(tok);
}

struct kcase {
	const char *name;
	int rows, cols, k;
	int host_rows;
	enum pat pat;
	bool nan;
};

static const struct kcase topk_cases[] = {
	{ "k7of7", 3, 7, 7, 0, PAT_RAND, false },
	{ "k1", 4, 1000, 1, 0, PAT_TIES, false },
	{ "k50", 4, 1000, 50, 0, PAT_RAND, true },
	{ "k1000of1000", 2, 1000, 1000, 0, PAT_TIES, false },
	{ "k1024", 2, 5000, 1024, 0, PAT_TIES, true },
	{ "k64of151936", 4, 151936, 64, 1, PAT_RAND, false },
	{ "k1of1", 2, 1, 1, 0, PAT_RAND, false },
	{ "k1asc", 2, 9000, 1, 0, PAT_ASC, false },
	{ "k100asc", 2, 20000, 100, 0, PAT_ASC, false },
	{ "k1024asc", 2, 20000, 1024, 0, PAT_ASC, true },
	{ "k1024of1024asc", 2, 1024, 1024, 0, PAT_ASC, false },
	{ "k300runs", 2, 10000, 300, 0, PAT_RUNS, false },
	{ "k200equal", 2, 3000, 200, 0, PAT_EQUAL, false },
	{ "k64neginf", 2, 4000, 64, 0, PAT_NEGINF, false },
	{ "k500neginf", 2, 4000, 500, 0, PAT_NEGINF, true },
};

static void topk_case(struct st_device *d, const struct st_kernel *k, struct hanzo_rocm_kernel *kh,
                      const struct kcase *c, struct st_result *res)
{
	const enum st_dtype dt = k->in[0];
	const size_t sz = st_dtype_size(dt);
	const int rows = c->host_rows && on_host(d) ? c->host_rows : c->rows;
	int n = c->cols, kk = c->k;
	uint64_t rng = 0x94d049bb133111ebULL ^ (uint64_t)n << 16 ^ (uint64_t)kk << 40 ^ dt;
	const size_t out = (size_t)rows * (size_t)kk;
	void *x = malloc((size_t)rows * (size_t)n * sz);
	uint8_t *vals = malloc(out * sz + 64);
	uint32_t *idx = malloc(out * 4 + 64);
	struct ord *o = malloc((size_t)n * sizeof(*o));
	uint64_t dx = 0, dv = 0, di = 0;
	void *args[5];

	if (!x || !vals || !idx || !o) {
		st_fail(res, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < (size_t)rows * n; i++) {
		double v = pat_value(c->pat, (int)(i % (size_t)n), &rng);

		if (c->pat == PAT_TIES && v == 0 && rand_u32(&rng) % 2)
			v = -0.0;
		st_store(dt, x, i, st_fv(v));
		if (c->nan && rand_u32(&rng) % 97 == 0)
			st_store(dt, x, i, st_fv(NAN));
	}
	if (st_dbuf_new(d, x, (size_t)rows * n * sz, &dx) < 0 ||
	    st_dbuf_new(d, NULL, out * sz, &dv) < 0 || st_dbuf_new(d, NULL, out * 4, &di) < 0) {
		st_fail(res, "device buffers");
		goto out;
	}
	args[0] = &dx;
	args[1] = &dv;
	args[2] = &di;
	args[3] = &n;
	args[4] = &kk;
	if (st_launch_work(d, kh, (uint64_t)rows, (uint64_t)n, args, res) < 0)
		goto out;
	if (st_dbuf_get(d, dv, vals, out * sz + 64) < 0 || st_dbuf_get(d, di, idx, out * 4 + 64) < 0) {
		st_fail(res, "copy back");
		goto out;
	}
	res->max_err = 0;
	for (int r = 0; r < rows && res->ok; r++) {
		for (int j = 0; j < n; j++) {
			const struct st_val v = st_load(dt, x, (size_t)r * n + j);

			o[j].v = v.f == 0 ? 0.0 : v.f;     /* -0 ties with +0 */
			o[j].i = (uint32_t)j;
			o[j].nan = isnan(v.f);
		}
		qsort(o, (size_t)n, sizeof(*o), cmp_ord);
		for (int i = 0; i < kk; i++) {
			const size_t at = (size_t)r * kk + i;
			const uint32_t want = o[i].i;

			if (idx[at] != want ||
			    memcmp(vals + at * sz, (const uint8_t *)x + ((size_t)r * n + want) * sz, sz) != 0) {
				res->max_err = INFINITY;
				st_fail(res, "row %d place %d: got index %u, want %u%s", r, i, idx[at],
				        want, idx[at] == want ? " (its value's bits differ)" : "");
				break;
			}
		}
	}
	st_check_poison(vals, out * sz, out * sz + 64, res);
	st_check_poison(idx, out * 4, out * 4 + 64, res);
out:
	st_dbuf_free(d, dx);
	st_dbuf_free(d, dv);
	st_dbuf_free(d, di);
	free(x);
	free(vals);
	free(idx);
	free(o);
}

static int run(struct st_device *d, const struct st_kernel *k, struct hanzo_rocm_kernel *kh,
               void (*emit)(void *data, const struct st_result *r), void *data)
{
	struct st_result res;
	int failed = 0;

	if (k->op == OP_TOPK) {
		for (size_t i = 0; i < sizeof(topk_cases) / sizeof(topk_cases[0]); i++) {
			const struct kcase *c = &topk_cases[i];

			st_result_start(&res, k, c->name, (size_t)c->rows * (size_t)c->cols);
			topk_case(d, k, kh, c, &res);
			failed += !res.ok;
			emit(data, &res);
		}
		return failed;
	}
	st_result_start(&res, k, "philox_kat", 4);
	res.max_err = 0;
	if (!philox_kat())
		st_fail(&res, "the reference's Philox-4x32-10 disagrees with Random123's answers");
	failed += !res.ok;
	emit(data, &res);
	for (size_t i = 0; i < sizeof(token_cases) / sizeof(token_cases[0]); i++) {
		const struct tcase *c = &token_cases[i];

		st_result_start(&res, k, c->name, (size_t)c->rows * (size_t)c->cols);
		token_case(d, k, kh, c, &res);
		failed += !res.ok;
		emit(data, &res);
	}
	for (size_t i = 0; i < sizeof(chi2_cases) / sizeof(chi2_cases[0]); i++) {
		const struct ccase *c = &chi2_cases[i];

		st_result_start(&res, k, c->name, (size_t)CHI2_ROWS * (size_t)c->cols);
		chi2_case(d, k, kh, c, &res);
		failed += !res.ok;
		emit(data, &res);
	}
	return failed;
}

int st_plan_sampling(const char *name, struct st_kernel *k)
{
	static const char *const prefixes[2] = { "sample_", "topk_" };

	for (int op = 0; op < 2; op++) {
		enum st_dtype dt;

		if (!st_name_dtype(name, prefixes[op], &dt))
			continue;
		if (dt != ST_F32 && dt != ST_F16 && dt != ST_BF16)
			return -ENOENT;
		k->shape = ST_SAMPLE;
		k->op = op;
		k->n_in = 1;
		k->in[0] = dt;
		k->out = ST_U32;
		k->cmp = ST_CMP_EXACT;
		k->run = run;
		return 0;
	}
	return -ENOENT;
}
