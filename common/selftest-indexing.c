/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * selftest, indexing family (kernels/indexing.hip): is_I_T, gather_I_T,
 * ia_I_T, s_I_T, sa_I_T.  The reference applies the same rule on the host:
 * ids equal to the largest value of I (candle's padding) or outside the
 * dim give 0 (is, gather) or are skipped (ia, s, sa); duplicates add in
 * source order (ia, sa) or the last one wins (s), and additions round per
 * step in the dtype, so every element is compared bit for bit.  Ids hold
 * duplicates, the sentinel and out-of-range values (for i64 a negative one
 * too); is_ runs contiguous and with a transposed inp and a strided ids
 * view (stride 2: candle ignores the ids' stride).  The whole output buffer
 * is compared, guard elements included: nothing outside the output changes.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selftest.h"

enum { X_IS, X_GATHER, X_IA, X_S, X_SA, X_NOPS };
static const char *const op_names[X_NOPS] = { "is", "gather", "ia", "s", "sa" };

#define LEFT 3
#define RIGHT 5
#define SRC 37                  /* is/gather: inp dim; ia/s/sa: dst dim */
#define IDS 11                  /* is/gather: ids dim; ia/s/sa: src dim */
#define GUARD 16

static uint64_t sentinel(enum st_dtype it)
{
	return it == ST_U8 ? 0xff : it == ST_U32 ? 0xffffffffu : (uint64_t)INT64_MAX;
}

/* Mostly valid ids (with duplicates), some sentinels and out-of-range ids. */
static uint64_t gen_id(enum st_dtype it, size_t dim, uint64_t *rng)
{
	uint64_t r = st_rand(rng) % 16;

	if (r == 0)
		return sentinel(it);
	if (r == 1)
		return dim + st_rand(rng) % 3;          /* just past the end */
	if (r == 2 && it == ST_I64)
		return (uint64_t)-(int64_t)(1 + st_rand(rng) % 5);
	return st_rand(rng) % (dim < 7 ? dim : 7);   /* few distinct: duplicates */
}

static bool id_ok(enum st_dtype it, uint64_t id, size_t dim)
{
	if (id == sentinel(it) || (it == ST_I64 && (int64_t)id < 0))
		return false;
	return id < dim;
}

static struct st_val gen_val(enum st_dtype dt, uint64_t *rng)
{
	if (st_dtype_is_float(dt))
		return st_fv(st_uniform(rng, -100, 100));
	return st_iv((int64_t)(st_rand(rng) | 1));
}

/* a + b stored in dt (float add then rounding, or wrapping). */
static struct st_val add(enum st_dtype dt, struct st_val a, struct st_val b)
{
	uint8_t raw[8];

	if (st_dtype_is_float(dt)) {
		double s = dt == ST_F64 ? a.f + b.f : (double)((float)a.f + (float)b.f);

		st_store(dt, raw, 0, st_fv(s));
	} else {
		st_store(dt, raw, 0, st_iv((int64_t)(a.u + b.u)));
	}
	return st_load(dt, raw, 0);
}

struct xcase {
	const char *name;
	bool strided;                   /* is_: transposed inp, ids stride 2 */
};

static void run_case(struct st_device *d, const struct st_kernel *k,
                     struct hanzo_rocm_kernel *kh, bool strided, size_t rw, size_t nid,
                     struct st_result *res)
{
	const enum st_dtype it = k->in[0], dt = k->out;
	const size_t isz = st_dtype_size(it), sz = st_dtype_size(dt);
	const bool sel = k->op == X_IS || k->op == X_GATHER;
	/* Element counts: is/gather read [L, SRC, R], write [L, nid, R];
	 * ia/s/sa read [L, nid, R] and update [L, SRC, R]. */
	const size_t n_in = LEFT * (sel ? SRC : nid) * rw, n_out = LEFT * (sel ? nid : SRC) * rw;
	const size_t n_ids = k->op == X_IS ? nid * (strided ? 2 : 1) : k->op == X_IA ? nid :
	                     LEFT * nid * rw;
	uint64_t rng = 0x452821e638d01377ULL ^ (uint64_t)k->op << 40 ^ (uint64_t)it << 20 ^ dt ^ strided;
	uint8_t *ids = calloc(n_ids, isz), *inp = calloc(n_in, sz);
	uint8_t *out0 = calloc(n_out + GUARD, sz), *want = calloc(n_out + GUARD, sz);
	uint8_t *got = calloc(n_out + GUARD, sz);
	uint64_t did = 0, din = 0, dout = 0, info[32];
	size_t numel = n_out, ndims = 0, left = LEFT, src = sel ? SRC : nid, idsd = nid;
	size_t dst = SRC, right = rw;
	void *args[10];
	int na = 0;

	if (!ids || !inp || !out0 || !want || !got) {
		st_fail(res, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n_ids; i++)
		st_store(it, ids, i, st_iv((int64_t)gen_id(it, SRC, &rng)));
	for (size_t i = 0; i < n_in; i++)
		st_store(dt, inp, i, gen_val(dt, &rng));
	/* is/gather: the output starts poisoned; ia/s/sa update a random one. */
	memset(out0, 0xff, (n_out + GUARD) * sz);
	if (!sel)
		for (size_t i = 0; i < n_out; i++)
			st_store(dt, out0, i, gen_val(dt, &rng));
	memcpy(want, out0, (n_out + GUARD) * sz);
	memset(info, 0, sizeof(info));
	if (strided) {
		/* inp logical [L, SRC, R] stored as [R][L][SRC]: strides {SRC, 1, L*SRC}. */
		uint8_t *t = calloc(n_in, sz);

		if (!t) {
			st_fail(res, "out of memory");
			goto out;
		}
		ndims = 3;
		info[0] = LEFT, info[1] = SRC, info[2] = rw;
		info[8] = SRC, info[9] = 1, info[10] = LEFT * SRC;
		info[16] = 2;
		for (size_t l = 0; l < LEFT; l++)
			for (size_t s = 0; s < SRC; s++)
				for (size_t r = 0; r < rw; r++)
					memcpy(t + (r * LEFT * SRC + l * SRC + s) * sz,
					       inp + ((l * SRC + s) * rw + r) * sz, sz);
		memcpy(inp, t, n_in * sz);
		free(t);
	}
	/* The reference. */
	for (size_t l = 0; l < LEFT; l++) {
		for (size_t r = 0; r < rw; r++) {
			for (size_t j = 0; j < nid; j++) {
				size_t e = (l * nid + j) * rw + r, idx;
				uint64_t id;

				if (k->op == X_IS)
					idx = strided ? 2 * j : j;
				else
					idx = k->op == X_IA ? j : e;
				id = st_load(it, ids, idx).u;
				if (sel) {
					size_t s = strided ? r * LEFT * SRC + l * SRC + id :
					           (l * SRC + id) * rw + r;

					if (id_ok(it, id, SRC))
						memcpy(want + e * sz, inp + s * sz, sz);
					else
						st_store(dt, want, e, st_iv(0));
				} else if (id_ok(it, id, SRC)) {
					size_t o = (l * SRC + id) * rw + r;

					if (k->op == X_S)
						memcpy(want + o * sz, inp + e * sz, sz);
					else
						st_store(dt, want, o, add(dt, st_load(dt, want, o),
						                          st_load(dt, inp, e)));
				}
			}
		}
	}
	if (st_dbuf_new(d, ids, n_ids * isz, &did) < 0 || st_dbuf_new(d, inp, n_in * sz, &din) < 0 ||
	    st_dbuf_new(d, out0, (n_out + GUARD) * sz, &dout) < 0) {
		st_fail(res, "device buffers");
		goto out;
	}
	switch (k->op) {
	case X_IS:
		args[na++] = &numel;
		args[na++] = &ndims;
		args[na++] = info;
		break;
	case X_GATHER:
		args[na++] = &numel;
		break;
	default:
		break;
	}
	args[na++] = &did;
	if (k->op == X_IA)
		args[na++] = &idsd;
	args[na++] = &din;
	args[na++] = &dout;
	args[na++] = &left;
	args[na++] = &src;
	args[na++] = sel ? &idsd : &dst;
	args[na++] = &right;
	/* Work: output elements (is, gather) or columns (ia, s, sa). */
	if (st_launch_work(d, kh, sel ? numel : (uint64_t)LEFT * rw, 1, args, res) < 0)
		goto out;
	if (st_dbuf_get(d, dout, got, (n_out + GUARD) * sz) < 0) {
		st_fail(res, "copy back");
		goto out;
	}
	res->max_err = 0;
	for (size_t i = 0; i < n_out + GUARD; i++) {
		if (memcmp(got + i * sz, want + i * sz, sz) != 0) {
			double g = st_load(dt, got, i).f, w = st_load(dt, want, i).f;

			if (st_dtype_is_float(dt) && isnan(g) && isnan(w))
				continue;
			res->max_err = INFINITY;
			st_fail(res, "element %zu%s: got %.9g, want %.9g", i,
			        i >= n_out ? " (guard)" : "", g, w);
			break;
		}
	}
out:
	st_dbuf_free(d, did);
	st_dbuf_free(d, din);
	st_dbuf_free(d, dout);
	free(ids);
	free(inp);
	free(out0);
	free(want);
	free(got);
}

static int run(struct st_device *d, const struct st_kernel *k, struct hanzo_rocm_kernel *kh,
               void (*emit)(void *data, const struct st_result *r), void *data)
{
	/* is_: contiguous, strided, and contiguous rows of 16 elements (whole
	 * 16-byte packs for every dtype: the kernel's vector path); gather:
	 * contiguous, and along the last dim with 12 ids a row (4 outputs a
	 * thread: the kernel's vector path) */
	const int ncases = k->op == X_IS ? 3 : k->op == X_GATHER ? 2 : 1;
	int failed = 0;

	for (int c = 0; c < ncases; c++) {
		const bool last = k->op == X_GATHER && c == 1, strided = !last && c == 1;
		const size_t rw = c == 2 ? 16 : last ? 1 : RIGHT, nid = last ? 12 : IDS;
		struct st_result res;

		st_result_start(&res, k, c == 2 ? "contig16" : last ? "last12" : strided ? "strided" :
		                "contig", LEFT * nid * rw);
		run_case(d, k, kh, strided, rw, nid, &res);
		failed += !res.ok;
		emit(data, &res);
	}
	return failed;
}

int st_plan_indexing(const char *name, struct st_kernel *k)
{
	/* Longest prefixes first: "s_" would also match "sa_". */
	static const int order[X_NOPS] = { X_GATHER, X_SA, X_IA, X_IS, X_S };

	for (int o = 0; o < X_NOPS; o++) {
		const char *p = name;
		size_t n = strlen(op_names[order[o]]);
		char ids[8];
		enum st_dtype it, dt;
		const char *u;

		if (strncmp(p, op_names[order[o]], n) != 0 || p[n] != '_')
			continue;
		p += n + 1;
		u = strchr(p, '_');
		if (!u || (size_t)(u - p) >= sizeof(ids))
			continue;
		memcpy(ids, p, (size_t)(u - p));
		ids[u - p] = '\0';
		if (st_dtype_parse(ids, &it) < 0 || (it != ST_U8 && it != ST_U32 && it != ST_I64) ||
		    st_dtype_parse(u + 1, &dt) < 0)
			continue;
		k->shape = ST_INDEX;
		k->op = order[o];
		k->n_in = 2;
		k->in[0] = it;
		k->in[1] = k->out = dt;
		k->cmp = ST_CMP_EXACT;
		k->run = run;
		return 0;
	}
	return -ENOENT;
}
