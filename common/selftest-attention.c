/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * selftest, attention family (kernels/attention.hip) against a float64
 * reference built from plain matmul + softmax over the stored (rounded)
 * inputs: every visible key's logit scale * q.k (softcap, ALiBi), the max,
 * the exponentials, the weighted sum of values and the log-sum-exp.
 *
 *   reshape_and_cache_flash_T  random distinct slots, a padding slot (-1)
 *       and one past the cache: the cache image after the kernel equals the
 *       one before with exactly those rows replaced, bit for bit.
 *   paged_attention_combine_T  random partials (one row all -inf, large
 *       LSEs), with and without the LSE output.
 *   paged_attention_dD_T  lengths 1, 7, 257, 300, 4097 and 0 (a row with no
 *       key: 0 and -inf) mixed in one batch; GQA ratios 1, 4, 8; pages of
 *       1, 16 and 256 slots in a shuffled block table over a cache with
 *       spare blocks; window, softcap, ALiBi, scale != 1/sqrt(D); integer
 *       inputs whose logits reach thousands (exact in f32: no overflow, no
 *       NaN); one pass, split-K (grid y) + combine, and the library's own
 *       geometry (launch_work: split on the host backend's few workers);
 *       GQA 4 (the 2-byte fast path) at lengths 1, 15, 17, page-crossing,
 *       more splits than pages, window + ALiBi;
 *       split with no workspace writes nothing.
 *   flash_attn_varlen_dD_T  packed sequences, causal bottom-right with
 *       q shorter than k (and longer: rows that see nothing), full and
 *       two-sided windows, softcap, ALiBi, GQA 1/4/8, padded token strides;
 *       and the LSE of the two halves of the keys merged equals the whole.
 * Outputs and LSE buffers start poisoned (0xff: NaN in every float type),
 * so an element not written fails; guards and row padding must stay
 * poisoned; with lse NULL the LSE buffer is not touched.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selftest.h"

enum { A_CACHE, A_COMBINE, A_DECODE, A_PREFILL };

#define BLOCK 128       /* the kernels' block (attention.list) */
#define QTILE 16        /* query rows per prefill block */
#define LSE_TOL 2e-5

struct opts {
	double scale, softcap;
	const double *slopes;   /* per head, or NULL */
};

/* n values of dtype dt stored at raw and read back into v; integers in
 * [-8, 8] when `integer` (exact in every dtype and in f32 dot products). */
static void fill(enum st_dtype dt, uint8_t *raw, double *v, size_t n, double lo, double hi,
                 bool integer, uint64_t *rng)
{
	for (size_t i = 0; i < n; i++) {
		double x = integer ? trunc(st_uniform(rng, -8.99, 8.99)) : st_uniform(rng, lo, hi);

		st_store(dt, raw, i, st_fv(x));
		v[i] = st_load(dt, raw, i).f;
	}
}

/*
 * The reference of one query row: keys kp[j], values vp[j] (D each) at
 * distance rel[j] from the query's diagonal, j < n; s is scratch of n.
 */
static void ref_attend(size_t D, const double *q, size_t n, const double *const *kp,
                       const double *const *vp, const int64_t *rel, const struct opts *o,
                       double slope, double *s, double *out, double *lse)
{
	double m = -INFINITY, l = 0;

	for (size_t j = 0; j < n; j++) {
		double dot = 0;

		for (size_t e = 0; e < D; e++)
			dot += q[e] * kp[j][e];
		s[j] = dot * o->scale;
		if (o->softcap > 0)
			s[j] = o->softcap * tanh(s[j] / o->softcap);
		s[j] -= slope * fabs((double)rel[j]);
		m = fmax(m, s[j]);
	}
	for (size_t e = 0; e < D; e++)
		out[e] = 0;
	for (size_t j = 0; j < n; j++) {
		double p = exp(s[j] - m);

		l += p;
		for (size_t e = 0; e < D; e++)
			out[e] += p * vp[j][e];
	}
	for (size_t e = 0; e < D; e++)
		out[e] = l > 0 ? out[e] / l : 0;
	*lse = l > 0 ? m + log(l) : -INFINITY;
}

/* Zeroed, never of 0 bytes (every buffer here is read back or checked). */
static void *zalloc(size_t n)
{
	return calloc(1, n ? n : 1);
}

static int kernel_get(struct st_device *d, const char *prefix, enum st_dtype dt,
                      struct hanzo_rocm_kernel **kh)
{
	char name[64];

	snprintf(name, sizeof(name), "%s%s", prefix, st_dtype_name(dt));
	return hanzo_rocm_kernel_get(st_device_ctx(d), st_device_index(d), "attention", name, kh);
}

static double head_scale(double scale, size_t D)
{
	return scale > 0 ? scale : 1 / sqrt((double)D);
}

/* Slopes 2^-(h+1): powers of two, as ALiBi's for 2^k heads (exact in f32). */
static void slopes_of(size_t nh, double *sd, float *sf)
{
	for (size_t h = 0; h < nh; h++)
		sd[h] = sf[h] = ldexpf(1.0f, -(int)(h + 1));
}

/* ---- KV-cache write --------------------------------------------------- */

struct ccase {
	const char *name;
	size_t ntok, nkv, D, bs, nblocks;
};

static const struct ccase ccases[] = {
	{ "page16", 13, 2, 80, 16, 5 },
	{ "page1", 9, 1, 64, 1, 12 },
};

static void run_cache(struct st_device *d, const struct st_kernel *k,
                      struct hanzo_rocm_kernel *kh, const struct ccase *c, struct st_result *res)
{
	const enum st_dtype dt = k->out;
	const size_t sz = st_dtype_size(dt), per = c->nkv * c->D, kstride = per + 8;
	const size_t nslots = c->nblocks * c->bs, ncache = nslots * per;
	uint64_t rng = 0x243f6a8885a308d3ULL ^ c->ntok ^ (uint64_t)dt << 40;
	uint8_t *kr = zalloc(c->ntok * kstride * sz), *vr = zalloc(c->ntok * per * sz);
	uint8_t *kc = zalloc(ncache * sz), *vc = zalloc(ncache * sz);
	uint8_t *gk = zalloc(ncache * sz + ST_GUARD_BYTES), *gv = zalloc(ncache * sz + ST_GUARD_BYTES);
	double *scratch = zalloc(sizeof(double) * (c->ntok * kstride + ncache));
	int64_t *slots = zalloc(sizeof(int64_t) * c->ntok);
	size_t *perm = zalloc(sizeof(size_t) * nslots);
	uint64_t dk = 0, dv = 0, dkc = 0, dvc = 0, ds = 0;
	size_t ntok = c->ntok, nkv = c->nkv, hd = c->D, bs = c->bs, nb = c->nblocks, vstride = per;
	void *args[12];

	if (!kr || !vr || !kc || !vc || !gk || !gv || !scratch || !slots || !perm) {
		st_fail(res, "out of memory");
		goto out;
	}
	fill(dt, kr, scratch, c->ntok * kstride, -2, 2, false, &rng);
	fill(dt, vr, scratch, c->ntok * per, -2, 2, false, &rng);
	fill(dt, kc, scratch, ncache, -2, 2, false, &rng);
	fill(dt, vc, scratch, ncache, -2, 2, false, &rng);
	for (size_t i = 0; i < nslots; i++)
		perm[i] = i;
	for (size_t i = nslots; i > 1; i--) {
		size_t j = st_rand(&rng) % i, t = perm[i - 1];

		perm[i - 1] = perm[j];
		perm[j] = t;
	}
	for (size_t t = 0; t < c->ntok; t++)
		slots[t] = (int64_t)perm[t];
	slots[3] = -1;                          /* padding */
	slots[c->ntok - 2] = (int64_t)nslots;   /* one past the cache */
	if (st_dbuf_new(d, kr, c->ntok * kstride * sz, &dk) < 0 ||
	    st_dbuf_new(d, vr, c->ntok * per * sz, &dv) < 0 ||
	    st_dbuf_new(d, kc, ncache * sz, &dkc) < 0 || st_dbuf_new(d, vc, ncache * sz, &dvc) < 0 ||
	    st_dbuf_new(d, slots, sizeof(int64_t) * c->ntok, &ds) < 0) {
		st_fail(res, "device buffers");
		goto out;
	}
	size_t ks = kstride;
	void *a[] = { &dk, &dv, &dkc, &dvc, &ds, &ntok, &nkv, &hd, &bs, &nb, &ks, &vstride };
	memcpy(args, a, sizeof(a));
	if (st_launch_work(d, kh, c->ntok, per, args, res) < 0)
		goto out;
	if (st_dbuf_get(d, dkc, gk, ncache * sz + ST_GUARD_BYTES) < 0 ||
	    st_dbuf_get(d, dvc, gv, ncache * sz + ST_GUARD_BYTES) < 0) {
		st_fail(res, "copy back");
		goto out;
	}
	/* The expected images: before, with the valid tokens' rows replaced. */
	for (size_t t = 0; t < c->ntok; t++) {
		if (slots[t] < 0 || (size_t)slots[t] >= nslots)
			continue;
		memcpy(kc + (size_t)slots[t] * per * sz, kr + t * kstride * sz, per * sz);
		memcpy(vc + (size_t)slots[t] * per * sz, vr + t * per * sz, per * sz);
	}
	for (size_t i = 0; i < ncache; i++) {
		if (memcmp(kc + i * sz, gk + i * sz, sz) != 0 || memcmp(vc + i * sz, gv + i * sz, sz) != 0) {
			st_fail(res, "cache element %zu (slot %zu) differs", i, i / per);
			break;
		}
	}
	res->max_err = 0;
	st_check_poison(gk, ncache * sz, ncache * sz + ST_GUARD_BYTES, res);
	st_check_poison(gv, ncache * sz, ncache * sz + ST_GUARD_BYTES, res);
out:
	st_dbuf_free(d, dk);
	st_dbuf_free(d, dv);
	st_dbuf_free(d, dkc);
	st_dbuf_free(d, dvc);
	st_dbuf_free(d, ds);
	free(kr);
	free(vr);
	free(kc);
	free(vc);
	free(gk);
	free(gv);
	free(scratch);
	free(slots);
	free(perm);
}

/* ---- combine ------------------------------------------------------------ */

static void run_combine(struct st_device *d, const struct st_kernel *k,
                        struct hanzo_rocm_kernel *kh, bool with_lse, struct st_result *res)
{
	enum { S = 3, ROWS = 5, HD = 72 };
	const enum st_dtype dt = k->out;
	const size_t sz = st_dtype_size(dt), nws = (size_t)S * ROWS * (HD + 1);
	uint64_t rng = 0x452821e638d01377ULL ^ (uint64_t)dt << 40 ^ with_lse;
	float *ws = zalloc(sizeof(float) * nws), lse[ROWS];
	uint8_t *out = zalloc(ROWS * HD * sz + ST_GUARD_BYTES);
	double ref[ROWS * HD], rlse[ROWS];
	uint64_t dws = 0, dout = 0, dlse = 0, plse;
	size_t rows = ROWS, hd = HD, splits = S;

	if (!ws || !out) {
		st_fail(res, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < (size_t)S * ROWS * HD; i++)
		ws[i] = (float)st_uniform(&rng, -3, 3);
	for (size_t s = 0; s < S; s++) {
		for (size_t r = 0; r < ROWS; r++) {
			float *l = &ws[(size_t)S * ROWS * HD + s * ROWS + r];

			*l = (float)st_uniform(&rng, -5, 5) + (r == 1 ? 3000.0f : 0.0f);
			if (r == 2 || (r == 3 && s != 1))
				*l = -INFINITY;         /* row 2: no key in any split */
		}
	}
	for (size_t r = 0; r < ROWS; r++) {
		double m = -INFINITY, l = 0;

		for (size_t s = 0; s < S; s++)
			m = fmax(m, ws[(size_t)S * ROWS * HD + s * ROWS + r]);
		for (size_t e = 0; e < HD; e++)
			ref[r * HD + e] = 0;
		for (size_t s = 0; s < S && m > -INFINITY; s++) {
			double w = exp(ws[(size_t)S * ROWS * HD + s * ROWS + r] - m);

			l += w;
			for (size_t e = 0; e < HD; e++)
				ref[r * HD + e] += w * ws[(s * ROWS + r) * HD + e];
		}
		for (size_t e = 0; e < HD; e++)
			ref[r * HD + e] = l > 0 ? ref[r * HD + e] / l : 0;
		rlse[r] = l > 0 ? m + log(l) : -INFINITY;
	}
	if (st_dbuf_new(d, ws, nws * sizeof(float), &dws) < 0 ||
	    st_dbuf_new(d, NULL, ROWS * HD * sz, &dout) < 0 ||
	    st_dbuf_new(d, NULL, sizeof(lse), &dlse) < 0) {
		st_fail(res, "device buffers");
		goto out;
	}
	plse = with_lse ? dlse : 0;
	void *args[] = { &dout, &plse, &dws, &rows, &hd, &splits };
	if (st_launch_work(d, kh, ROWS, HD, args, res) < 0)
		goto out;
	if (st_dbuf_get(d, dout, out, ROWS * HD * sz + ST_GUARD_BYTES) < 0 ||
	    st_dbuf_get(d, dlse, lse, sizeof(lse)) < 0) {
		st_fail(res, "copy back");
		goto out;
	}
	for (size_t i = 0; i < ROWS * HD; i++)
		st_check_float(dt, k->tol, i, out, ref[i], res);
	st_check_poison(out, ROWS * HD * sz, ROWS * HD * sz + ST_GUARD_BYTES, res);
	if (with_lse) {
		for (size_t r = 0; r < ROWS; r++)
			st_check_float(ST_F32, LSE_TOL, r, lse, rlse[r], res);
	} else {
		st_check_poison(lse, 0, sizeof(lse), res);
	}
out:
	st_dbuf_free(d, dws);
	st_dbuf_free(d, dout);
	st_dbuf_free(d, dlse);
	free(ws);
	free(out);
}

/* ---- paged decode --------------------------------------------------------- */

struct dcase {
	const char *name;
	size_t nseq, nh, nkv, bs;
	double softcap;         /* 0: none */
	double scale;           /* 0: 1/sqrt(D) */
	int32_t lens[3];
	int window;             /* < 0: none */
	unsigned splits;        /* grid y (not with work: the library's) */
	bool alibi, big, lse, work;
	bool no_ws;             /* splits > 1 with ws NULL: must write nothing */
	bool q_odd;             /* q_stride nh x D + 3 (else + 8): rows not 16-byte aligned */
	bool holes;             /* some pages' table entries -1 or past num_blocks: skipped */
};

static const struct dcase dcases[] = {
	/* name, nseq, nh, nkv, bs, softcap, scale, lens, window, splits,
	 * alibi, big, lse, work, no_ws, q_odd, holes */
	{ "len-1-7-257", 3, 4, 4, 16, 0, 0, { 1, 7, 257 }, -1, 1,
	  false, false, true, false, false, false, false },
	{ "gqa4-page1", 2, 8, 2, 1, 0, 0, { 7, 33 }, -1, 1,
	  false, false, false, false, false, false, false },
	{ "gqa8-page256-split3", 3, 8, 1, 256, 0, 0.11, { 257, 1, 300 }, -1, 3,
	  false, false, true, false, false, false, false },
	{ "window-softcap-alibi-split2", 2, 4, 1, 16, 30, 0, { 257, 40 }, 31, 2,
	  true, false, true, false, false, false, false },
	{ "large-logits", 2, 2, 1, 16, 0, 1.0, { 64, 9 }, -1, 1,
	  false, true, true, false, false, false, false },
	{ "empty-seq-split2", 2, 2, 2, 16, 0, 0, { 0, 5 }, -1, 2,
	  true, false, true, false, false, false, false },
	{ "4097-launch-work", 1, 2, 1, 16, 0, 0, { 4097 }, -1, 0,
	  false, false, true, true, false, false, false },
	{ "split2-ws-null", 2, 2, 1, 16, 0, 0, { 7, 20 }, -1, 2,
	  false, false, true, false, true, false, false },
	/* 4096 blocks, GQA 4: the 2-byte fast path, 4 heads a block (3 of 4 return) */
	{ "gqa4-4096-blocks", 2, 32, 8, 16, 0, 0, { 300, 45 }, -1, 64,
	  false, false, true, false, false, false, false },
	/* the fast path's step-aligned chunks: lengths 1, 15, 17 (a page and
	 * one more), more splits than pages (empty splits: LSE -inf) */
	{ "gqa4-len-1-15-17-split5", 3, 8, 2, 16, 0, 0, { 1, 15, 17 }, -1, 5,
	  false, false, true, false, false, false, false },
	{ "gqa4-page-cross-split9", 2, 8, 2, 16, 0, 0, { 300, 33 }, -1, 9,
	  false, false, true, false, false, false, false },
	{ "gqa4-window-alibi-split3", 2, 4, 1, 16, 0, 0, { 100, 17 }, 20, 3,
	  true, false, true, false, false, false, false },
	/* pages of 32 (a wave's tiles 2 pages apart), queries read element
	 * by element */
	{ "gqa4-page32-q-odd-split2", 2, 8, 2, 32, 0, 0, { 100, 47 }, -1, 2,
	  false, false, true, false, false, true, false },
	/* pages of 24 (16-key tiles cross pages), entries of 1 page in 3
	 * invalid: the keys there are skipped, either page of a tile */
	{ "gqa4-page24-holes-split3", 2, 8, 2, 24, 0, 0, { 300, 47 }, -1, 3,
	  false, false, true, false, false, false, true },
};

static void run_decode(struct st_device *d, const struct st_kernel *k,
                       struct hanzo_rocm_kernel *kh, const struct dcase *c, size_t D,
                       struct st_result *res)
{
	const enum st_dtype dt = k->out;
	const size_t sz = st_dtype_size(dt), rows = c->nseq * c->nh, qstride = c->nh * D + (c->q_odd ? 3 : 8);
	uint64_t rng = 0x082efa98ec4e6c89ULL ^ D << 32 ^ (uint64_t)dt << 48 ^ c->nh ^ c->bs << 8;
	size_t maxb = 0, nblocks = 3, maxlen = 1, nkeys = 0;
	struct opts o = { head_scale(c->scale, D), c->softcap, NULL };
	double sd[8];
	float sf[8];
	unsigned splits = c->splits;
	struct hanzo_rocm_kernel *ch = NULL;

	for (size_t s = 0; s < c->nseq; s++) {
		size_t nbs = ((size_t)c->lens[s] + c->bs - 1) / c->bs;

		maxb = nbs + 1 > maxb ? nbs + 1 : maxb;
		nblocks += nbs;
		maxlen = (size_t)c->lens[s] > maxlen ? (size_t)c->lens[s] : maxlen;
	}
	const size_t ncache = nblocks * c->bs * c->nkv * D;
	uint8_t *kr = zalloc(ncache * sz), *vr = zalloc(ncache * sz), *qr = zalloc(c->nseq * qstride * sz);
	uint8_t *out = zalloc(rows * D * sz + ST_GUARD_BYTES);
	double *kv = zalloc(sizeof(double) * ncache), *vv = zalloc(sizeof(double) * ncache);
	double *qv = zalloc(sizeof(double) * c->nseq * qstride), *ref = zalloc(sizeof(double) * rows * D);
	double *rlse = zalloc(sizeof(double) * rows), *scr = zalloc(sizeof(double) * maxlen);
	const double **kp = zalloc(sizeof(double *) * maxlen), **vp = zalloc(sizeof(double *) * maxlen);
	int64_t *rel = zalloc(sizeof(int64_t) * maxlen);
	int32_t *bt = zalloc(sizeof(int32_t) * c->nseq * maxb), *perm = zalloc(sizeof(int32_t) * nblocks);
	float *lse = zalloc(sizeof(float) * rows + ST_GUARD_BYTES);
	uint64_t dq = 0, dk = 0, dv = 0, dbt = 0, dlen = 0, dsl = 0, dout = 0, dlse = 0, dws = 0;

	if (!kr || !vr || !qr || !out || !kv || !vv || !qv || !ref || !rlse || !scr || !kp || !vp ||
	    !rel || !bt || !perm || !lse) {
		st_fail(res, "out of memory");
		goto out;
	}
	fill(dt, kr, kv, ncache, -1, 1, c->big, &rng);
	fill(dt, vr, vv, ncache, -1, 1, false, &rng);
	fill(dt, qr, qv, c->nseq * qstride, -1, 1, c->big, &rng);
	if (c->alibi) {
		slopes_of(c->nh, sd, sf);
		o.slopes = sd;
	}
	/* A shuffled block table over a cache with spare blocks; entries past
	 * a sequence's blocks are out of range (never read), and so is one
	 * page in 3 of a sequence with holes (its keys are skipped). */
	for (size_t b = 0; b < nblocks; b++)
		perm[b] = (int32_t)b;
	for (size_t b = nblocks; b > 1; b--) {
		size_t j = st_rand(&rng) % b;
		int32_t t = perm[b - 1];

		perm[b - 1] = perm[j];
		perm[j] = t;
	}
	for (size_t s = 0, used = 0; s < c->nseq; s++) {
		size_t nbs = ((size_t)c->lens[s] + c->bs - 1) / c->bs;

		for (size_t b = 0; b < maxb; b++)
			bt[s * maxb + b] = b < nbs && !(c->holes && b % 3 == 1) ? perm[used + b] :
			                   (b & 1 ? -1 : (int32_t)nblocks + 7);
		used += nbs;
	}
	for (size_t s = 0; s < c->nseq; s++) {
		const int64_t len = c->lens[s];
		const int64_t lo = c->window >= 0 && len - 1 - c->window > 0 ? len - 1 - c->window : 0;

		for (size_t h = 0; h < c->nh; h++) {
			const size_t kvh = h / (c->nh / c->nkv);

			nkeys = 0;
			for (int64_t j = lo; j < len; j++) {
				const int32_t blk = bt[s * maxb + (size_t)j / c->bs];

				if (blk < 0 || (size_t)blk >= nblocks)
					continue;       /* a hole */
				size_t off = (((size_t)blk * c->bs +
				               (size_t)j % c->bs) * c->nkv + kvh) * D;

				kp[nkeys] = kv + off;
				vp[nkeys] = vv + off;
				rel[nkeys++] = j - (len - 1);
			}
			ref_attend(D, qv + s * qstride + h * D, nkeys, kp, vp, rel, &o,
			           c->alibi ? sd[h] : 0, scr, ref + (s * c->nh + h) * D,
			           &rlse[s * c->nh + h]);
		}
	}
	if (c->work) {
		struct hanzo_rocm_geometry g;
		int r = hanzo_rocm_kernel_geometry(kh, rows, maxlen, &g);

		if (r < 0) {
			st_fail(res, "geometry: %s", hanzo_rocm_strerror(r));
			goto out;
		}
		splits = g.splits;
		/* 2 rows of 4097 keys split on any device (rows < 2 x units). */
		if (g.block[0] != BLOCK || splits < 2) {
			st_fail(res, "geometry: block %u, %u splits (want %d, >= 2)", g.block[0],
			        splits, BLOCK);
			goto out;
		}
	}
	if (st_dbuf_new(d, qr, c->nseq * qstride * sz, &dq) < 0 ||
	    st_dbuf_new(d, kr, ncache * sz, &dk) < 0 || st_dbuf_new(d, vr, ncache * sz, &dv) < 0 ||
	    st_dbuf_new(d, bt, sizeof(int32_t) * c->nseq * maxb, &dbt) < 0 ||
	    st_dbuf_new(d, c->lens, sizeof(int32_t) * c->nseq, &dlen) < 0 ||
	    st_dbuf_new(d, sf, sizeof(sf), &dsl) < 0 ||
	    st_dbuf_new(d, NULL, rows * D * sz, &dout) < 0 ||
	    st_dbuf_new(d, NULL, sizeof(float) * rows, &dlse) < 0 ||
	    (splits > 1 && !c->no_ws &&
	     st_dbuf_new(d, NULL, sizeof(float) * splits * rows * (D + 1), &dws) < 0)) {
		st_fail(res, "device buffers");
		goto out;
	}
	uint64_t plse = c->lse ? dlse : 0, psl = c->alibi ? dsl : 0;
	size_t nseq = c->nseq, nh = c->nh, nkv = c->nkv, bs = c->bs, mb = maxb, nb = nblocks;
	size_t qs = qstride;
	float scale = (float)o.scale, softcap = (float)c->softcap;
	int window = c->window;
	void *args[] = { &dout, &plse, &dws, &dq, &dk, &dv, &dbt, &dlen, &psl, &nseq, &nh, &nkv,
		         &bs, &mb, &nb, &qs, &scale, &softcap, &window };

	if (c->work ? st_launch_work(d, kh, rows, maxlen, args, res) < 0
	            : st_launch_shared(d, kh, (unsigned)rows, splits, BLOCK, 0, args, res) < 0)
		goto out;
	if (c->no_ws) {
		/* Nowhere to put the partials: out and lse stay poisoned. */
		if (st_dbuf_get(d, dout, out, rows * D * sz + ST_GUARD_BYTES) < 0 ||
		    st_dbuf_get(d, dlse, lse, sizeof(float) * rows + ST_GUARD_BYTES) < 0) {
			st_fail(res, "copy back");
			goto out;
		}
		res->max_err = 0;
		st_check_poison(out, 0, rows * D * sz + ST_GUARD_BYTES, res);
		st_check_poison(lse, 0, sizeof(float) * rows + ST_GUARD_BYTES, res);
		goto out;
	}
	if (splits > 1) {
		size_t hd = D, ns = splits, nrows = rows;
		void *cargs[] = { &dout, &plse, &dws, &nrows, &hd, &ns };
		int r = kernel_get(d, "paged_attention_combine_", dt, &ch);

		if (r < 0) {
			st_fail(res, "paged_attention_combine_%s: %s", st_dtype_name(dt),
			        hanzo_rocm_strerror(r));
			goto out;
		}
		if (st_launch_work(d, ch, rows, D, cargs, res) < 0)
			goto out;
	}
	if (st_dbuf_get(d, dout, out, rows * D * sz + ST_GUARD_BYTES) < 0 ||
	    st_dbuf_get(d, dlse, lse, sizeof(float) * rows + ST_GUARD_BYTES) < 0) {
		st_fail(res, "copy back");
		goto out;
	}
	for (size_t i = 0; i < rows * D; i++)
		st_check_float(dt, k->tol, i, out, ref[i], res);
	st_check_poison(out, rows * D * sz, rows * D * sz + ST_GUARD_BYTES, res);
	if (c->lse) {
		for (size_t r = 0; r < rows; r++)
			st_check_float(ST_F32, LSE_TOL, r, lse, rlse[r], res);
		st_check_poison(lse, sizeof(float) * rows, sizeof(float) * rows + ST_GUARD_BYTES, res);
	} else {
		st_check_poison(lse, 0, sizeof(float) * rows + ST_GUARD_BYTES, res);
	}
out:
	st_dbuf_free(d, dq);
	st_dbuf_free(d, dk);
	st_dbuf_free(d, dv);
	st_dbuf_free(d, dbt);
	st_dbuf_free(d, dlen);
	st_dbuf_free(d, dsl);
	st_dbuf_free(d, dout);
	st_dbuf_free(d, dlse);
	st_dbuf_free(d, dws);
	free(kr);
	free(vr);
	free(qr);
	free(out);
	free(kv);
	free(vv);
	free(qv);
	free(ref);
	free(rlse);
	free(scr);
	free(kp);
	free(vp);
	free(rel);
	free(bt);
	free(perm);
	free(lse);
}

/* ---- varlen prefill -------------------------------------------------------- */

struct pcase {
	const char *name;
	size_t batch, nh, nkv;
	double softcap, scale;  /* 0: none, 1/sqrt(D) */
	int32_t lq[3], lk[3];
	int left, right;        /* < 0: unbounded */
	bool causal, alibi, big, lse;
	bool halves;            /* also the two halves of the keys, merged by LSE */
};

static const struct pcase pcases[] = {
	/* name, batch, nh, nkv, softcap, scale, lq, lk, left, right,
	 * causal, alibi, big, lse, halves */
	{ "causal-1-7-33", 3, 2, 2, 0, 0, { 1, 7, 33 }, { 1, 7, 33 }, -1, -1,
	  true, false, false, true, false },
	{ "bottom-right-gqa4", 3, 4, 1, 0, 0, { 7, 1, 20 }, { 40, 17, 257 }, -1, -1,
	  true, false, false, true, false },
	{ "full-gqa8", 1, 8, 1, 0, 0.11, { 17 }, { 23 }, -1, -1,
	  false, false, false, false, false },
	{ "window-softcap-alibi", 2, 4, 2, 20, 0, { 33, 9 }, { 33, 20 }, 5, -1,
	  true, true, false, true, false },
	{ "window-both-sides", 1, 2, 1, 0, 0, { 19 }, { 19 }, 3, 2,
	  false, false, false, true, false },
	{ "masked-rows", 1, 2, 2, 0, 0, { 9 }, { 4 }, -1, -1,
	  true, false, false, true, false },
	{ "large-logits", 1, 2, 1, 0, 1.0, { 16 }, { 16 }, -1, -1,
	  true, false, true, true, false },
	{ "lse-halves", 1, 2, 1, 0, 0, { 7 }, { 40 }, -1, -1,
	  false, false, false, true, true },
};

struct pbufs {
	uint64_t q, k, v, cuq, cuk, sl, out, lse;
};

/* One launch with cu_seqlens_k at dcuk; out and lse copied back. */
static int prefill_launch(struct st_device *d, struct hanzo_rocm_kernel *kh,
                          const struct pcase *c, size_t D, const struct pbufs *b, uint64_t dcuk,
                          size_t maxq, size_t maxk, const struct opts *o, size_t strides[4],
                          uint8_t *out, size_t out_bytes, float *lse, size_t lse_bytes,
                          struct st_result *res)
{
	uint64_t po = b->out, pl = c->lse ? b->lse : 0, pq = b->q, pk = b->k, pv = b->v;
	uint64_t pcq = b->cuq, pck = dcuk, psl = c->alibi ? b->sl : 0;
	size_t batch = c->batch, nh = c->nh, nkv = c->nkv, mq = maxq;
	float scale = (float)o->scale, softcap = (float)c->softcap;
	int causal = c->causal, left = c->left, right = c->right;
	void *args[] = { &po, &pl, &pq, &pk, &pv, &pcq, &pck, &psl, &batch, &nh, &nkv, &mq,
		         &strides[0], &strides[1], &strides[2], &strides[3], &scale, &softcap,
		         &causal, &left, &right };
	const uint64_t blocks = c->batch * c->nh * ((maxq + QTILE - 1) / QTILE);

	(void)D;
	if (st_launch_work(d, kh, blocks, maxk, args, res) < 0)
		return -1;
	if (st_dbuf_get(d, b->out, out, out_bytes) < 0 || st_dbuf_get(d, b->lse, lse, lse_bytes) < 0) {
		st_fail(res, "copy back");
		return -1;
	}
	return 0;
}

static void run_prefill(struct st_device *d, const struct st_kernel *k,
                        struct hanzo_rocm_kernel *kh, const struct pcase *c, size_t D,
                        struct st_result *res)
{
	const enum st_dtype dt = k->out;
	const size_t sz = st_dtype_size(dt);
	/* token strides: q dense, k padded, v dense, out padded (poison kept) */
	size_t strides[4] = { c->nh * D, c->nkv * D + 4, c->nkv * D, c->nh * D + 8 };
	uint64_t rng = 0x3707344a40938222ULL ^ D << 32 ^ (uint64_t)dt << 48 ^ c->nh ^ c->batch << 8;
	int32_t cuq[4] = { 0 }, cuk[4] = { 0 };
	size_t maxq = 0, maxk = 1;
	struct opts o = { head_scale(c->scale, D), c->softcap, NULL };
	double sd[8];
	float sf[8];

	for (size_t b = 0; b < c->batch; b++) {
		cuq[b + 1] = cuq[b] + c->lq[b];
		cuk[b + 1] = cuk[b] + c->lk[b];
		maxq = (size_t)c->lq[b] > maxq ? (size_t)c->lq[b] : maxq;
		maxk = (size_t)c->lk[b] > maxk ? (size_t)c->lk[b] : maxk;
	}
	const size_t tq = (size_t)cuq[c->batch], tk = (size_t)cuk[c->batch], rows = tq * c->nh;
	const size_t nq = tq * strides[0], nk = tk * strides[1], nv = tk * strides[2];
	const size_t nout = tq * strides[3], out_bytes = nout * sz + ST_GUARD_BYTES;
	const size_t lse_bytes = sizeof(float) * rows + ST_GUARD_BYTES;
	uint8_t *qr = zalloc(nq * sz), *kr = zalloc(nk * sz), *vr = zalloc(nv * sz);
	uint8_t *out = zalloc(out_bytes), *out2 = zalloc(out_bytes);
	double *qv = zalloc(sizeof(double) * nq), *kv = zalloc(sizeof(double) * nk);
	double *vv = zalloc(sizeof(double) * nv), *ref = zalloc(sizeof(double) * rows * D);
	double *rlse = zalloc(sizeof(double) * rows), *scr = zalloc(sizeof(double) * maxk);
	const double **kp = zalloc(sizeof(double *) * maxk), **vp = zalloc(sizeof(double *) * maxk);
	int64_t *rel = zalloc(sizeof(int64_t) * maxk);
	float *lse = zalloc(lse_bytes), *lse2 = zalloc(lse_bytes);
	struct pbufs b = { 0 };
	uint64_t dcuk2 = 0;

	if (!qr || !kr || !vr || !out || !out2 || !qv || !kv || !vv || !ref || !rlse || !scr || !kp ||
	    !vp || !rel || !lse || !lse2) {
		st_fail(res, "out of memory");
		goto out;
	}
	fill(dt, qr, qv, nq, -1, 1, c->big, &rng);
	fill(dt, kr, kv, nk, -1, 1, c->big, &rng);
	fill(dt, vr, vv, nv, -1, 1, false, &rng);
	if (c->alibi) {
		slopes_of(c->nh, sd, sf);
		o.slopes = sd;
	}
	for (size_t bi = 0; bi < c->batch; bi++) {
		const int64_t lq = c->lq[bi], lk = c->lk[bi], right = c->causal ? 0 : c->right;

		for (int64_t i = 0; i < lq; i++) {
			const int64_t diag = i + lk - lq;
			int64_t lo = c->left >= 0 ? diag - c->left : 0;
			int64_t hi = right >= 0 ? diag + right : lk - 1;

			lo = lo < 0 ? 0 : lo;
			hi = hi > lk - 1 ? lk - 1 : hi;
			for (size_t h = 0; h < c->nh; h++) {
				const size_t kvh = h / (c->nh / c->nkv), row = (size_t)(cuq[bi] + i) * c->nh + h;
				size_t n = 0;

				for (int64_t j = lo; j <= hi; j++) {
					kp[n] = kv + (size_t)(cuk[bi] + j) * strides[1] + kvh * D;
					vp[n] = vv + (size_t)(cuk[bi] + j) * strides[2] + kvh * D;
					rel[n++] = j - diag;
				}
				ref_attend(D, qv + (size_t)(cuq[bi] + i) * strides[0] + h * D, n, kp, vp,
				           rel, &o, c->alibi ? sd[h] : 0, scr, ref + row * D, &rlse[row]);
			}
		}
	}
	if (st_dbuf_new(d, qr, nq * sz, &b.q) < 0 || st_dbuf_new(d, kr, nk * sz, &b.k) < 0 ||
	    st_dbuf_new(d, vr, nv * sz, &b.v) < 0 || st_dbuf_new(d, cuq, sizeof(cuq), &b.cuq) < 0 ||
	    st_dbuf_new(d, cuk, sizeof(cuk), &b.cuk) < 0 || st_dbuf_new(d, sf, sizeof(sf), &b.sl) < 0 ||
	    st_dbuf_new(d, NULL, nout * sz, &b.out) < 0 ||
	    st_dbuf_new(d, NULL, sizeof(float) * rows, &b.lse) < 0) {
		st_fail(res, "device buffers");
		goto out;
	}
	if (prefill_launch(d, kh, c, D, &b, b.cuk, maxq, maxk, &o, strides, out, out_bytes, lse,
	                   lse_bytes, res) < 0)
		goto out;
	for (size_t t = 0; t < tq; t++) {
		const size_t base = t * strides[3];

		for (size_t e = 0; e < c->nh * D; e++)
			st_check_float(dt, k->tol, base + e, out, ref[t * c->nh * D + e], res);
		st_check_poison(out, (base + c->nh * D) * sz, (base + strides[3]) * sz, res);
	}
	st_check_poison(out, nout * sz, out_bytes, res);
	if (c->lse) {
		for (size_t r = 0; r < rows; r++)
			st_check_float(ST_F32, LSE_TOL, r, lse, rlse[r], res);
		st_check_poison(lse, sizeof(float) * rows, lse_bytes, res);
	} else {
		st_check_poison(lse, 0, lse_bytes, res);
	}
	if (c->halves && res->ok) {
		/* Batch of one, no mask: keys [0, h) then [h, lk) by moving
		 * cu_seqlens_k; merge the two results by their LSE in double. */
		const int32_t half = c->lk[0] / 2, cu1[2] = { 0, half }, cu2[2] = { half, c->lk[0] };
		uint64_t dcu1 = 0;

		if (st_dbuf_new(d, cu1, sizeof(cu1), &dcu1) < 0 ||
		    st_dbuf_new(d, cu2, sizeof(cu2), &dcuk2) < 0) {
			st_dbuf_free(d, dcu1);
			st_fail(res, "device buffers");
			goto out;
		}
		int r1 = prefill_launch(d, kh, c, D, &b, dcu1, maxq, (size_t)half, &o, strides, out,
		                        out_bytes, lse, lse_bytes, res);
		st_dbuf_free(d, dcu1);
		if (r1 < 0 || prefill_launch(d, kh, c, D, &b, dcuk2, maxq, maxk - (size_t)half, &o,
		                             strides, out2, out_bytes, lse2, lse_bytes, res) < 0)
			goto out;
		for (size_t t = 0; t < tq; t++) {
			for (size_t h = 0; h < c->nh; h++) {
				const size_t row = t * c->nh + h;
				const double l1 = lse[row], l2 = lse2[row], m = fmax(l1, l2);
				const double w1 = exp(l1 - m), w2 = exp(l2 - m);
				const float merged = (float)(m + log(w1 + w2));

				for (size_t e = 0; e < D; e++) {
					const size_t at = t * strides[3] + h * D + e;
					const double o1 = st_load(dt, out, at).f, o2 = st_load(dt, out2, at).f;
					const double mo = (w1 * o1 + w2 * o2) / (w1 + w2);

					/* two rounded halves: twice the dtype's tolerance */
					st_check_float(ST_F64, 2 * k->tol, 0, &mo, ref[row * D + e], res);
				}
				st_check_float(ST_F32, LSE_TOL, 0, &merged, rlse[row], res);
			}
		}
	}
out:
	st_dbuf_free(d, b.q);
	st_dbuf_free(d, b.k);
	st_dbuf_free(d, b.v);
	st_dbuf_free(d, b.cuq);
	st_dbuf_free(d, b.cuk);
	st_dbuf_free(d, b.sl);
	st_dbuf_free(d, b.out);
	st_dbuf_free(d, b.lse);
	st_dbuf_free(d, dcuk2);
	free(qr);
	free(kr);
	free(vr);
	free(out);
	free(out2);
	free(qv);
	free(kv);
	free(vv);
	free(ref);
	free(rlse);
	free(scr);
	free(kp);
	free(vp);
	free(rel);
	free(lse);
	free(lse2);
}

/* ---- plan ------------------------------------------------------------------ */

#define OP_D(op) ((size_t)((op) >> 8))

static int run(struct st_device *d, const struct st_kernel *k, struct hanzo_rocm_kernel *kh,
               void (*emit)(void *data, const struct st_result *r), void *data)
{
	struct st_result res;
	int failed = 0;

	switch (k->op & 0xff) {
	case A_CACHE:
		for (size_t i = 0; i < sizeof(ccases) / sizeof(ccases[0]); i++) {
			st_result_start(&res, k, ccases[i].name, ccases[i].ntok * ccases[i].nkv * ccases[i].D);
			run_cache(d, k, kh, &ccases[i], &res);
			failed += !res.ok;
			emit(data, &res);
		}
		break;
	case A_COMBINE:
		for (int with_lse = 1; with_lse >= 0; with_lse--) {
			st_result_start(&res, k, with_lse ? "splits3-lse" : "splits3-nolse", 5 * 72);
			run_combine(d, k, kh, with_lse, &res);
			failed += !res.ok;
			emit(data, &res);
		}
		break;
	case A_DECODE:
		for (size_t i = 0; i < sizeof(dcases) / sizeof(dcases[0]); i++) {
			const struct dcase *c = &dcases[i];

			st_result_start(&res, k, c->name, c->nseq * c->nh * OP_D(k->op));
			run_decode(d, k, kh, c, OP_D(k->op), &res);
			failed += !res.ok;
			emit(data, &res);
		}
		break;
	case A_PREFILL:
		for (size_t i = 0; i < sizeof(pcases) / sizeof(pcases[0]); i++) {
			const struct pcase *c = &pcases[i];
			size_t tq = 0;

			for (size_t b = 0; b < c->batch; b++)
				tq += (size_t)c->lq[b];
			st_result_start(&res, k, c->name, tq * c->nh * OP_D(k->op));
			run_prefill(d, k, kh, c, OP_D(k->op), &res);
			failed += !res.ok;
			emit(data, &res);
		}
		break;
	default:
		break;
	}
	return failed;
}

/* "<prefix><D>_<dtype>" with D one of the family's head dims. */
static bool head_name(const char *name, const char *prefix, size_t *D, enum st_dtype *dt)
{
	static const size_t dims[] = { 64, 80, 96, 128, 256 };
	char p[48];

	for (size_t i = 0; i < sizeof(dims) / sizeof(dims[0]); i++) {
		snprintf(p, sizeof(p), "%s%zu_", prefix, dims[i]);
		if (st_name_dtype(name, p, dt)) {
			*D = dims[i];
			return true;
		}
	}
	return false;
}

int st_plan_attention(const char *name, struct st_kernel *k)
{
	enum st_dtype dt;
	size_t D = 0;
	int op;

	if (st_name_dtype(name, "reshape_and_cache_flash_", &dt))
		op = A_CACHE;
	else if (st_name_dtype(name, "paged_attention_combine_", &dt))
		op = A_COMBINE;
	else if (head_name(name, "paged_attention_d", &D, &dt))
		op = A_DECODE;
	else if (head_name(name, "flash_attn_varlen_d", &D, &dt))
		op = A_PREFILL;
	else
		return -ENOENT;
	if (dt != ST_F32 && dt != ST_F16 && dt != ST_BF16)
		return -ENOENT;
	k->shape = ST_ATTN;
	k->op = op | (int)(D << 8);
	k->n_in = 3;
	k->in[0] = k->in[1] = k->in[2] = k->out = dt;
	k->cmp = ST_CMP_TOL;
	k->tol = st_tolerance(dt);
	k->run = run;
	return 0;
}
