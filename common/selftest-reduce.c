/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * selftest, reduce family (kernels/reduce.hip): fast_{sum,min,max}_T and
 * fast_arg{min,max}_T, one-pass (fast_OP_T) and two-pass (fast_OP_split_T
 * then fast_OP_finish_T; the plans of both run the pair).  Each case's rows
 * are reduced on the host in double: sums within the dtype's tolerance,
 * min/max exact, indices exact with torch's rules (first NaN wins, ties to
 * the lower index).  Cases: 1, 769 (misaligned start), 5125 and 151936
 * columns, 32 rows x 151936 (vocabulary logits; on GPUs only - 2 rows on the
 * host backend, whose CPU time it would multiply); two reduced dims of a permuted layout; a broadcast input; no
 * rows; NaN in rows; +-7e9 values; small integers everywhere else so ties
 * are common.  Output buffers are poisoned and followed by guard bytes.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selftest.h"

enum { R_SUM, R_MIN, R_MAX, R_ARGMIN, R_ARGMAX, R_NOPS };
enum { V_ONE, V_SPLIT, V_FINISH };
static const char *const op_names[R_NOPS] = { "sum", "min", "max", "argmin", "argmax" };

enum { VAL_RAND, VAL_NAN, VAL_BIG };

struct rcase {
	const char *name;
	size_t rows, el;
	size_t ndims;                   /* 0 = contiguous */
	uint64_t dims[3], strides[3];
	size_t buflen;                  /* input elements (after the offset) */
	size_t offset;                  /* elements before the input */
	unsigned splits;
	int values;
	size_t host_rows;               /* rows on the host backend (0: rows; contiguous only) */
};

#define WIDE_ROWS 32
#define WIDE_COLS 151936

static const struct rcase cases[] = {
	{ "cols1", 37, 1, 0, { 0 }, { 0 }, 37, 0, 4, VAL_RAND, 0 },
	{ "cols769", 5, 769, 0, { 0 }, { 0 }, 5 * 769, 1, 4, VAL_RAND, 0 },
	{ "cols5125", 3, 5125, 0, { 0 }, { 0 }, 3 * 5125, 0, 7, VAL_RAND, 0 },
	{ "wide", 2, 151936, 0, { 0 }, { 0 }, 2 * 151936, 0, 16, VAL_RAND, 0 },
	{ "wide32", WIDE_ROWS, WIDE_COLS, 0, { 0 }, { 0 }, WIDE_ROWS * WIDE_COLS, 0, 8, VAL_RAND, 2 },
	/* [5, 7, 129] stored as [129][5][7]; dims 1 and 2 reduced. */
	{ "twodims", 5, 7 * 129, 3, { 5, 7, 129 }, { 7, 1, 35 }, 5 * 7 * 129, 0, 3, VAL_RAND, 0 },
	{ "bcast", 4, 300, 2, { 4, 300 }, { 0, 1 }, 300, 0, 2, VAL_RAND, 0 },
	{ "norows", 0, 5125, 0, { 0 }, { 0 }, 16, 0, 4, VAL_RAND, 0 },
	{ "nan", 4, 769, 0, { 0 }, { 0 }, 4 * 769, 0, 5, VAL_NAN, 0 },
	{ "big", 3, 5125, 0, { 0 }, { 0 }, 3 * 5125, 0, 4, VAL_BIG, 0 },
	/* Many short rows, one element off 16-byte alignment: a row a wave
	 * (reduce.hip's red_wave_row), 13 blocks striding over them. */
	{ "rows1001", 1001, 65, 0, { 0 }, { 0 }, 1001 * 65, 1, 2, VAL_RAND, 0 },
};

static uint64_t src_offset(const struct rcase *c, uint64_t i)
{
	uint64_t off = 0;

	if (c->ndims == 0)
		return i;
	for (size_t d = c->ndims; d-- > 0;) {
		off += (i % c->dims[d]) * c->strides[d];
		i /= c->dims[d];
	}
	return off;
}

static double gen_value(const struct st_kernel *k, const struct rcase *c, uint64_t *rng)
{
	if (c->values == VAL_BIG)
		return (st_rand(rng) & 1 ? 1 : -1) * (k->in[0] == ST_F16 ? 6e4 : 7e9) *
		       st_uniform(rng, 0.5, 1);
	if (k->op == R_SUM)
		return st_uniform(rng, -1, 1);
	/* Small integers: every dtype holds them exactly, ties are many. */
	return (double)(int)(st_rand(rng) % 9) - 4;
}

/* The reference of one row: value (sum/min/max) or index. */
static struct st_val ref_row(const struct st_kernel *k, const struct rcase *c,
                             const void *src, size_t row)
{
	double acc = k->op == R_SUM ? 0 : k->op == R_MIN || k->op == R_ARGMIN ? INFINITY : -INFINITY;
	uint64_t best = 0;
	bool have_nan = false;

	for (size_t j = 0; j < c->el; j++) {
		double x = st_load(k->in[0], src, c->offset + src_offset(c, row * c->el + j)).f;

		switch (k->op) {
		case R_SUM:
			acc += x;
			break;
		case R_MIN:
		case R_MAX:
			if (isnan(x) || isnan(acc))
				acc = NAN;
			else
				acc = k->op == R_MIN ? fmin(acc, x) : fmax(acc, x);
			break;
		default:
			if (have_nan)
				break;
			if (isnan(x)) {
				have_nan = true;
				best = j;
			} else if (j == 0 || (k->op == R_ARGMIN ? x < acc : x > acc)) {
				acc = x;
				best = j;
			}
			break;
		}
	}
	if (k->op >= R_ARGMIN)
		return st_iv((int64_t)best);
	return st_fv(acc);
}

static size_t part_size(const struct st_kernel *k)
{
	size_t c = k->in[0] == ST_F64 ? 8 : 4;

	return k->op >= R_ARGMIN ? 2 * c : c;
}

static int get_kernel(struct st_device *d, const struct st_kernel *k, const char *variant,
                      struct hanzo_rocm_kernel **kh)
{
	char name[64];

	snprintf(name, sizeof(name), "fast_%s%s_%s", op_names[k->op], variant,
	         st_dtype_name(k->in[0]));
	return hanzo_rocm_kernel_get(st_device_ctx(d), st_device_index(d), "reduce", name, kh);
}

/* The rows of a case on this device (fewer on the host backend for the
 * widest case). */
static size_t case_rows(struct st_device *d, const struct rcase *c)
{
	if (c->host_rows &&
	    hanzo_rocm_device_platform(st_device_ctx(d), st_device_index(d)) == HANZO_ROCM_PLATFORM_HOST)
		return c->host_rows;
	return c->rows;
}

static void run_case(struct st_device *d, const struct st_kernel *k, int variant,
                     struct hanzo_rocm_kernel *kh, const struct rcase *c, struct st_result *res)
{
	const size_t isz = st_dtype_size(k->in[0]), osz = st_dtype_size(k->out);
	size_t numel, el = c->el, ndims = c->ndims, rows = case_rows(d, c), splits = c->splits;
	const size_t ilen = c->offset + (rows == c->rows ? c->buflen : rows * c->el);
	const size_t obytes = rows * osz;
	uint64_t rng = 0x9e3779b97f4a7c15ULL ^ (uint64_t)c->rows * 131 ^ c->el ^ (uint64_t)k->op << 40;
	uint64_t info[32], src = 0, dst = 0, ws = 0;
	struct hanzo_rocm_kernel *ksplit = NULL, *kfinish = NULL;
	uint8_t *host = malloc(ilen * isz), *out = malloc(obytes + ST_GUARD_BYTES);
	void *args[6];
	/* a grid short of the rows: blocks (and waves) stride over them */
	unsigned gx = (unsigned)(rows > 256 ? 13 : rows > 4 ? rows / 2 + 1 : rows);

	numel = rows * el;
	if (!host || !out) {
		st_fail(res, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < ilen; i++)
		st_store(k->in[0], host, i, st_fv(gen_value(k, c, &rng)));
	if (c->values == VAL_NAN) {
		/* Two NaNs in rows 1 and 3 (the first must win), one in row 2. */
		for (size_t r = 1; r < rows; r++) {
			st_store(k->in[0], host, c->offset + r * c->el + c->el / 3, st_fv(NAN));
			if (r != 2)
				st_store(k->in[0], host, c->offset + r * c->el + 2 * c->el / 3, st_fv(NAN));
		}
	}
	memset(info, 0, sizeof(info));
	for (size_t i = 0; i < c->ndims; i++) {
		info[i] = c->dims[i];
		info[8 + i] = c->strides[i];
	}
	if (st_dbuf_new(d, host, ilen * isz, &src) < 0 || st_dbuf_new(d, NULL, obytes, &dst) < 0 ||
	    st_dbuf_new(d, NULL, (rows ? rows : 1) * splits * part_size(k), &ws) < 0) {
		st_fail(res, "device buffers");
		goto out;
	}
	src += c->offset * isz;
	args[0] = &numel;
	args[1] = &el;
	args[2] = &ndims;
	args[3] = info;
	args[4] = &src;
	if (variant == V_ONE) {
		args[5] = &dst;
		if (st_launch_sync(d, kh, gx, 1, 256, args, res) < 0)
			goto out;
	} else {
		if (get_kernel(d, k, "_split", &ksplit) < 0 || get_kernel(d, k, "_finish", &kfinish) < 0) {
			st_fail(res, "kernel_get of the split/finish pair failed");
			goto out;
		}
		args[5] = &ws;
		if (st_launch_sync(d, ksplit, gx, splits, 128, args, res) < 0)
			goto out;
		args[0] = &rows;
		args[1] = &splits;
		args[2] = &ws;
		args[3] = &dst;
		if (st_launch_sync(d, kfinish, 1, 1, 64, args, res) < 0)
			goto out;
	}
	if (st_dbuf_get(d, dst, out, obytes + ST_GUARD_BYTES) < 0) {
		st_fail(res, "copy back");
		goto out;
	}
	for (size_t r = 0; r < rows; r++) {
		struct st_val want = ref_row(k, c, host, r);

		if (k->op >= R_ARGMIN) {
			uint64_t got = st_load(ST_U32, out, r).u;

			if (isnan(res->max_err))
				res->max_err = 0;
			if (got != want.u) {
				res->max_err = INFINITY;
				st_fail(res, "row %zu: got index %llu, want %llu", r,
				        (unsigned long long)got, (unsigned long long)want.u);
			}
		} else if (k->op == R_SUM && c->values == VAL_BIG) {
			/* Sums of +-7e9 may cancel to anything: the bar is the
			 * tolerance relative to the sum of magnitudes. */
			double mag = 0, got = st_load(k->out, out, r).f, err;

			for (size_t j = 0; j < c->el; j++)
				mag += fabs(st_load(k->in[0], host, c->offset + r * c->el + j).f);
			uint8_t raw[8];

			/* A sum beyond the dtype's range (f16) must be its inf. */
			st_store(k->out, raw, 0, want);
			err = isinf(st_load(k->out, raw, 0).f) ?
			      (got == st_load(k->out, raw, 0).f ? 0 : INFINITY) :
			      fabs(got - want.f) / fmax(1.0, mag);
			if (isnan(res->max_err) || !(err <= res->max_err))
				res->max_err = err;
			if (!(err <= k->tol))
				st_fail(res, "row %zu: got %.9g, want %.9g", r, got, want.f);
		} else {
			st_check_float(k->out, k->tol, r, out, want.f, res);
		}
	}
	st_check_poison(out, obytes, obytes + ST_GUARD_BYTES, res);
	if (rows == 0 && isnan(res->max_err))
		res->max_err = 0;
out:
	if (src)
		st_dbuf_free(d, src - c->offset * isz);
	st_dbuf_free(d, dst);
	st_dbuf_free(d, ws);
	free(host);
	free(out);
}

static int run(struct st_device *d, const struct st_kernel *k, struct hanzo_rocm_kernel *kh,
               void (*emit)(void *data, const struct st_result *r), void *data)
{
	static const char *const split_names[] = {
		"cols1/split", "cols769/split", "cols5125/split", "wide/split", "wide32/split",
		"twodims/split",
		"bcast/split", "norows/split", "nan/split", "big/split", "rows1001/split",
	};
	int variant = k->op >> 8, failed = 0;
	struct st_kernel kk = *k;

	kk.op &= 0xff;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct st_result res;

		/* The finish kernel's plan repeats a few split cases only. */
		if (variant == V_FINISH && strcmp(cases[i].name, "cols1") != 0 &&
		    strcmp(cases[i].name, "wide32") != 0 && strcmp(cases[i].name, "nan") != 0)
			continue;
		st_result_start(&res, &kk, variant == V_ONE ? cases[i].name : split_names[i],
		                case_rows(d, &cases[i]) * cases[i].el);
		run_case(d, &kk, variant, kh, &cases[i], &res);
		failed += !res.ok;
		emit(data, &res);
	}
	return failed;
}

int st_plan_reduce(const char *name, struct st_kernel *k)
{
	static const char *const variants[] = { "_", "_split_", "_finish_" };

	for (int op = 0; op < R_NOPS; op++) {
		for (int v = 0; v < 3; v++) {
			char prefix[32];
			enum st_dtype dt;

			snprintf(prefix, sizeof(prefix), "fast_%s%s", op_names[op], variants[v]);
			if (!st_name_dtype(name, prefix, &dt) || !st_dtype_is_float(dt))
				continue;
			k->shape = ST_REDUCE;
			k->op = op | v << 8;
			k->n_in = 1;
			k->in[0] = dt;
			k->out = op >= R_ARGMIN ? ST_U32 : dt;
			k->cmp = op == R_SUM ? ST_CMP_TOL : ST_CMP_EXACT;
			k->tol = op == R_SUM ? st_tolerance(dt) : 0;
			k->run = run;
			return 0;
		}
	}
	return -ENOENT;
}
