/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * selftest, sort family (kernels/sort.hip): asort_{asc,desc}_T (shared
 * memory), asort_{asc,desc}_wide_T (global scratch) and
 * asort_{asc,desc}_multi_T (a row over several blocks: every one of its
 * launches, S = cols / 256 blocks a row, 1 to 9, blocks of at most 256
 * threads, so chunks end inside tiles and 65537 columns take 8 tiles a
 * chunk; the cases marked multi, the 32-row vocabulary one on GPUs only),
 * against the host's
 * sort of (value, index) pairs: ties stay in index order in both
 * directions, NaN last ascending and first descending.  Values are drawn
 * from a few distinct numbers so ties are common (FEW), from the type's
 * whole range (SPREAD: every radix digit differs), all equal (EQUAL) or
 * from -inf, +inf, -0, +0 and NaN (SPECIAL).  Rows of 1, 769 and 5125
 * columns, the shared-memory radix form's edges (300 to 4096 columns, 1 to
 * 4 elements a thread, blocks of 128 to 1024 threads, 768 among them),
 * rows with NaN (float dtypes), and for the wide kernels one row of
 * 65537 columns (a 131072-entry network, twice the largest shared-memory
 * row) and 32 rows x 151936 (vocabulary logits; on GPUs only - 1 row on
 * the host backend, whose CPU time it would multiply); the wide form's
 * workspace is 12 bytes a padded column (keys, indices, keys).  Zeros are
 * +0 or -0 (equal: ties in index order).  Every index is compared; guard elements after dst stay poisoned.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selftest.h"

/* The values of a case: FEW, 9 distinct numbers (many ties); SPREAD, the
 * type's whole range (every radix digit differs: f32 of any sign and
 * exponent, integers of all their bits, i64 within +-2^40); EQUAL, one
 * value (every element ties); SPECIAL, floats of -inf, +inf, -0, +0, NaN
 * and a few numbers (integers: FEW). */
enum sgen { FEW, SPREAD, EQUAL, SPECIAL };

struct scase {
	const char *name;
	int rows, cols;
	unsigned block;
	int host_rows;                  /* rows on the host backend (0: rows) */
	enum sgen gen;
	bool nan;
	bool wide_only;
	unsigned char multi;            /* the multi-block kernels: 0 no, 1 yes, 2 on GPUs only */
};

static const struct scase cases[] = {
	{ "cols1", 3, 1, 64, 0, FEW, false, false, 0 },
	{ "cols769", 4, 769, 256, 0, FEW, false, false, 1 },
	{ "cols5125", 2, 5125, 1024, 0, FEW, false, false, 1 },
	{ "nan", 3, 769, 128, 0, FEW, true, false, 1 },
	/* the shared-memory radix form at its edges: 1 to 4 elements a thread
	 * (block sizes other than the launch's own), waves partly past the
	 * row, and the network beside it (8 elements a thread, 8192 columns) */
	{ "spread300", 3, 300, 128, 0, SPREAD, false, false, 0 },
	{ "spread1000", 2, 1000, 1024, 0, SPREAD, false, false, 0 },
	{ "spread1001", 2, 1001, 512, 0, SPREAD, true, false, 0 },
	{ "spread2049", 2, 2049, 1024, 0, SPREAD, true, false, 1 },
	{ "spread4096", 1, 4096, 1024, 0, SPREAD, false, false, 0 },
	{ "spread8191", 1, 8191, 1024, 0, SPREAD, false, false, 0 },
	{ "spread1023b256", 1, 1023, 256, 0, SPREAD, false, false, 0 },
	{ "equal1500", 2, 1500, 768, 0, EQUAL, false, false, 1 },
	{ "special1031", 3, 1031, 1024, 0, SPECIAL, true, false, 1 },
	{ "special257", 2, 257, 128, 0, SPECIAL, true, false, 1 },
	{ "cols65537", 1, 65537, 1024, 0, FEW, false, true, 1 },
	{ "wide32", 32, 151936, 1024, 1, FEW, false, true, 2 },
};

/* One element of case c (float dtypes as doubles, rounded by st_store). */
static struct st_val sort_value(enum st_dtype dt, const struct scase *c, uint64_t *rng)
{
	const bool fl = st_dtype_is_float(dt);
	uint64_t r = st_rand(rng);
	int64_t v = (int64_t)(r % 9);

	switch (c->gen) {
	case EQUAL:
		return fl ? st_fv(-2.5) : st_iv(77);
	case SPREAD:
		if (fl)
			return st_fv(ldexp((double)(r >> 40) / 0x1p24, (int)(r >> 8 & 63) - 32) *
			             (r & 1 ? -1 : 1));
		if (dt == ST_I64)
			return st_iv((int64_t)(r >> 23) - ((int64_t)1 << 40));
		return st_iv((int64_t)(r >> 8));
	case SPECIAL:
		if (fl) {
			static const double sp[] = { -INFINITY, INFINITY, -0.0, 0.0, 1.0, -1.0, 0x1p-20 };

			if (r % 40 == 0)
				return st_fv(NAN);
			return st_fv(sp[(r >> 8) % 7]);
		}
		break;
	case FEW:
		break;
	}
	/* FEW: 9 distinct values: many ties; -0 ties with +0 (the radix keys
	 * map both to one key) */
	if (fl && v == 4 && (r >> 32) % 2 == 0)
		return st_fv(-0.0);
	return fl ? st_fv((double)v * 1.5 - 6) : st_iv(v * 7);
}

/* The rows of a case on this device (fewer on the host backend for the
 * widest case). */
static int case_rows(struct st_device *d, const struct scase *c)
{
	if (c->host_rows &&
	    hanzo_rocm_device_platform(st_device_ctx(d), st_device_index(d)) == HANZO_ROCM_PLATFORM_HOST)
		return c->host_rows;
	return c->rows;
}

/* The order of the kernels; each key carries the direction (qsort_r, which
 * would pass it as context, is not C11). */
struct key {
	double v;
	uint32_t i;
	bool nan, asc;
};

static int cmp_key(const void *pa, const void *pb)
{
	const struct key *a = pa, *b = pb;

	if (a->nan || b->nan) {
		if (a->nan && b->nan)
			return (a->i > b->i) - (a->i < b->i);
		/* NaN last ascending, first descending */
		return (a->nan ? 1 : -1) * (a->asc ? 1 : -1);
	}
	if (a->v != b->v)
		return (a->v < b->v ? -1 : 1) * (a->asc ? 1 : -1);
	return (a->i > b->i) - (a->i < b->i);
}

static void run_case(struct st_device *d, const struct st_kernel *k,
                     struct hanzo_rocm_kernel *kh, const struct scase *c, struct st_result *res)
{
	const enum st_dtype dt = k->in[0];
	const bool asc = (k->op & 1) != 0, wide = (k->op & 2) != 0, multi = (k->op & 4) != 0;
	const int rows = case_rows(d, c);
	/* multi: S blocks a row, 16 u32 of counts each after the row's 3 x pad */
	const unsigned splits = c->cols / 256 < 1 ? 1 : c->cols / 256 > 9 ? 9 : (unsigned)c->cols / 256;
	const unsigned launches = multi ? 2u * (unsigned)st_dtype_size(k->in[0]) * 2u : 1;
	const size_t sz = st_dtype_size(dt), n = (size_t)rows * (size_t)c->cols;
	int ncols = c->cols, pad = 1;
	uint64_t rng = 0xbe5466cf34e90c6cULL ^ (uint64_t)c->cols << 8 ^ (uint64_t)k->op << 40 ^ dt;
	uint8_t *x = malloc(n * sz);
	uint32_t *got = malloc((n + 16) * 4);
	struct key *keys = malloc((size_t)c->cols * sizeof(*keys));
	uint64_t dx = 0, dd = 0, dws = 0;
	int pass = 0;
	void *args[6];

	while (pad < ncols)
		pad <<= 1;
	if (!x || !got || !keys) {
		st_fail(res, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		st_store(dt, x, i, sort_value(dt, c, &rng));
		if (c->nan && st_dtype_is_float(dt) && st_rand(&rng) % 50 == 0)
			st_store(dt, x, i, st_fv(NAN));
	}
	if (st_dbuf_new(d, x, n * sz, &dx) < 0 || st_dbuf_new(d, NULL, n * 4, &dd) < 0 ||
	    ((wide || multi) && st_dbuf_new(d, NULL, (size_t)rows * (size_t)pad * (multi ? 16 : 12),
	                                    &dws) < 0)) {
		st_fail(res, "device buffers");
		goto out;
	}
	args[0] = &dx;
	args[1] = &dd;
	args[2] = &ncols;
	args[3] = &pad;
	args[4] = &dws;
	args[5] = &pass;
	/* multi: 2 launches a 4-bit digit, pass 0, 1, ... */
	for (pass = 0; pass < (int)launches; pass++)
		if (st_launch_shared(d, kh, (unsigned)rows, multi ? splits : 1,
		                     multi && c->block > 256 ? 256 : c->block,
		                     wide || multi ? 0 : (unsigned)pad * 4, args, res) < 0)
			goto out;
	if (st_dbuf_get(d, dd, got, (n + 16) * 4) < 0) {
		st_fail(res, "copy back");
		goto out;
	}
	res->max_err = 0;
	for (int r = 0; r < rows && res->ok; r++) {
		for (int j = 0; j < c->cols; j++) {
			struct st_val v = st_load(dt, x, (size_t)r * c->cols + j);

			keys[j].v = v.f;        /* i64 signed; integers here are exact as doubles */
			keys[j].i = (uint32_t)j;
			keys[j].nan = st_dtype_is_float(dt) && isnan(v.f);
			keys[j].asc = asc;
		}
		qsort(keys, (size_t)c->cols, sizeof(*keys), cmp_key);
		for (int j = 0; j < c->cols; j++) {
			if (got[(size_t)r * c->cols + j] != keys[j].i) {
				res->max_err = INFINITY;
				st_fail(res, "row %d position %d: got index %u, want %u", r, j,
				        got[(size_t)r * c->cols + j], keys[j].i);
				break;
			}
		}
	}
	st_check_poison(got, n * 4, (n + 16) * 4, res);
out:
	st_dbuf_free(d, dx);
	st_dbuf_free(d, dd);
	st_dbuf_free(d, dws);
	free(x);
	free(got);
	free(keys);
}

static int run(struct st_device *d, const struct st_kernel *k, struct hanzo_rocm_kernel *kh,
               void (*emit)(void *data, const struct st_result *r), void *data)
{
	const bool host = hanzo_rocm_device_platform(st_device_ctx(d), st_device_index(d)) ==
	                  HANZO_ROCM_PLATFORM_HOST;
	int failed = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct st_result res;

		if ((cases[i].wide_only && !(k->op & 6)) ||
		    ((k->op & 4) && (!cases[i].multi || (cases[i].multi == 2 && host))) ||
		    (cases[i].nan && !st_dtype_is_float(k->in[0])))
			continue;
		st_result_start(&res, k, cases[i].name,
		                (size_t)case_rows(d, &cases[i]) * (size_t)cases[i].cols);
		run_case(d, k, kh, &cases[i], &res);
		failed += !res.ok;
		emit(data, &res);
	}
	return failed;
}

int st_plan_sort(const char *name, struct st_kernel *k)
{
	/* op bit 0: ascending; bit 1: the wide (global scratch) form; bit 2
	 * the multi-block one (op 4, 5). */
	static const char *const prefixes[6] = {
		"asort_desc_", "asort_asc_", "asort_desc_wide_", "asort_asc_wide_",
		"asort_desc_multi_", "asort_asc_multi_",
	};

	for (int op = 5; op >= 0; op--) {
		enum st_dtype dt;

		if (!st_name_dtype(name, prefixes[op], &dt))
			continue;
		k->shape = ST_SORT;
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
