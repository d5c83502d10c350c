/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * selftest, sort family (kernels/sort.hip): asort_{asc,desc}_T (shared
 * memory) and asort_{asc,desc}_wide_T (global scratch), against the host's
 * sort of (value, index) pairs: ties stay in index order in both
 * directions, NaN last ascending and first descending.  Values are drawn
 * from a few distinct numbers so ties are common.  Rows of 1, 769 and 5125
 * columns, rows with NaN (float dtypes), and for the wide kernels one row of
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

struct scase {
	const char *name;
	int rows, cols;
	unsigned block;
	bool nan;
	bool wide_only;
	int host_rows;                  /* rows on the host backend (0: rows) */
};

static const struct scase cases[] = {
	{ "cols1", 3, 1, 64, false, false, 0 },
	{ "cols769", 4, 769, 256, false, false, 0 },
	{ "cols5125", 2, 5125, 1024, false, false, 0 },
	{ "nan", 3, 769, 128, true, false, 0 },
	{ "cols65537", 1, 65537, 1024, false, true, 0 },
	{ "wide32", 32, 151936, 1024, false, true, 1 },
};

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
	const bool asc = (k->op & 1) != 0, wide = (k->op & 2) != 0;
	const int rows = case_rows(d, c);
	const size_t sz = st_dtype_size(dt), n = (size_t)rows * (size_t)c->cols;
	int ncols = c->cols, pad = 1;
	uint64_t rng = 0xbe5466cf34e90c6cULL ^ (uint64_t)c->cols << 8 ^ (uint64_t)k->op << 40 ^ dt;
	uint8_t *x = malloc(n * sz);
	uint32_t *got = malloc((n + 16) * 4);
	struct key *keys = malloc((size_t)c->cols * sizeof(*keys));
	uint64_t dx = 0, dd = 0, dws = 0;
	void *args[5];

	while (pad < ncols)
		pad <<= 1;
	if (!x || !got || !keys) {
		st_fail(res, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		/* 9 distinct values: many ties. */
		int64_t v = (int64_t)(st_rand(&rng) % 9);

		st_store(dt, x, i, st_dtype_is_float(dt) ? st_fv((double)v * 1.5 - 6) : st_iv(v * 7));
		/* -0 ties with +0 (the radix keys map both to one key) */
		if (v == 4 && st_dtype_is_float(dt) && st_rand(&rng) % 2 == 0)
			st_store(dt, x, i, st_fv(-0.0));
		if (c->nan && st_dtype_is_float(dt) && st_rand(&rng) % 50 == 0)
			st_store(dt, x, i, st_fv(NAN));
	}
	if (st_dbuf_new(d, x, n * sz, &dx) < 0 || st_dbuf_new(d, NULL, n * 4, &dd) < 0 ||
	    (wide && st_dbuf_new(d, NULL, (size_t)rows * (size_t)pad * 12, &dws) < 0)) {
		st_fail(res, "device buffers");
		goto out;
	}
	args[0] = &dx;
	args[1] = &dd;
	args[2] = &ncols;
	args[3] = &pad;
	args[4] = &dws;
	if (st_launch_shared(d, kh, (unsigned)rows, 1, c->block, wide ? 0 : (unsigned)pad * 4,
	                     args, res) < 0)
		goto out;
	if (st_dbuf_get(d, dd, got, (n + 16) * 4) < 0) {
		st_fail(res, "copy back");
		goto out;
	}
	res->max_err = 0;
	for (int r = 0; r < rows && res->ok; r++) {
		for (int j = 0; j < c->cols; j++) {
			struct st_val v = st_load(dt, x, (size_t)r * c->cols + j);

			keys[j].v = st_dtype_is_float(dt) ? v.f : (double)v.u;
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
	int failed = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct st_result res;

		if ((cases[i].wide_only && !(k->op & 2)) ||
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
	/* op bit 0: ascending; bit 1: the wide (global scratch) form. */
	static const char *const prefixes[4] = {
		"asort_desc_", "asort_asc_", "asort_desc_wide_", "asort_asc_wide_",
	};

	for (int op = 3; op >= 0; op--) {
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
