/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * selftest, cast family (kernels/cast.hip): cast_<S>_<D>, the 7x7 matrix.
 * The reference implements the documented semantics exactly and results
 * are compared bit for bit (any NaN matches any NaN):
 *  - float -> integer truncates toward zero, saturates, NaN -> 0;
 *  - integer -> integer keeps the low bits;
 *  - integer -> float and f64 -> f32 round to nearest even;
 *  - -> f16/bf16 rounds through float (st_store does the second rounding).
 * Inputs include NaN, +-inf, values past every destination's range, and
 * integers over the whole bit range.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "selftest.h"

/* Saturating truncation of a float value into an integer dtype. */
static struct st_val sat(enum st_dtype d, double x)
{
	double lo = d == ST_I64 ? -9223372036854775808.0 : 0.0;
	double hi = d == ST_U8 ? 256.0 : d == ST_U32 ? 4294967296.0 : 9223372036854775808.0;
	uint64_t max = d == ST_U8 ? 255 : d == ST_U32 ? 4294967295u : (uint64_t)INT64_MAX;
	struct st_val v = { 0, 0 };

	if (isnan(x))
		return v;
	if (x <= lo)
		v.u = d == ST_I64 ? (uint64_t)INT64_MIN : 0;
	else if (x >= hi)
		v.u = max;
	else
		v.u = d == ST_I64 ? (uint64_t)(int64_t)x : (uint64_t)x;
	return v;
}

static struct st_val ref(const struct st_kernel *k, const struct st_val *in)
{
	enum st_dtype s = k->in[0], d = k->out;

	if (st_dtype_is_float(s))
		return st_dtype_is_float(d) ? st_fv(in[0].f) : sat(d, in[0].f);
	if (!st_dtype_is_float(d))
		return (struct st_val){ 0, in[0].u };
	/* Integer source: to f64 directly, to every other float type through
	 * float (st_store then rounds f32 -> f16/bf16, the second rounding). */
	if (s == ST_I64)
		return st_fv(d == ST_F64 ? (double)(int64_t)in[0].u : (double)(float)(int64_t)in[0].u);
	return st_fv(d == ST_F64 ? (double)in[0].u : (double)(float)in[0].u);
}

static struct st_val gen(const struct st_kernel *k, int operand, uint64_t *rng)
{
	static const double scales[] = { 1, 300, 70000, 5e9, 3e19, 1e30 };
	uint64_t r = st_rand(rng);

	(void)operand;
	if (!st_dtype_is_float(k->in[0])) {
		if ((r & 3) == 0)       /* small values, both signs for i64 */
			return st_iv((int64_t)(r >> 32) % 300);
		return st_iv((int64_t)(st_rand(rng) | 1));
	}
	switch (r & 31) {
	case 0: return st_fv(NAN);
	case 1: return st_fv(INFINITY);
	case 2: return st_fv(-INFINITY);
	}
	double s = scales[(r >> 8) % (sizeof(scales) / sizeof(scales[0]))];
	return st_fv(st_uniform(rng, -s, s));
}

int st_plan_cast(const char *name, struct st_kernel *k)
{
	char src[8];
	const char *p;
	enum st_dtype s, d;

	if (strncmp(name, "cast_", 5) != 0 || !(p = strchr(name + 5, '_')) ||
	    (size_t)(p - name - 5) >= sizeof(src))
		return -ENOENT;
	memcpy(src, name + 5, (size_t)(p - name - 5));
	src[p - name - 5] = '\0';
	if (st_dtype_parse(src, &s) < 0 || st_dtype_parse(p + 1, &d) < 0)
		return -ENOENT;
	k->shape = ST_EW;
	k->n_in = 1;
	k->in[0] = s;
	k->out = d;
	k->gen = gen;
	k->ref = ref;
	k->cmp = ST_CMP_EXACT;
	st_args(k, 5, ST_ARG_NUMEL, ST_ARG_NDIMS, ST_ARG_INFO, ST_ARG_IN0, ST_ARG_OUT);
	return 0;
}
