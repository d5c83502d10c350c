/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * selftest, binary family (kernels/binary.hip): b{add,sub,mul,div,maximum,
 * minimum}_T, {eq,ne,lt,le,gt,ge}_T -> u8, silu_mul_T.
 * Floats: double reference within the dtype's tolerance (|d| <= tol *
 * max(1, |ref|)); maximum/minimum and comparisons see some NaN inputs and
 * must propagate / compare them as IEEE says.  Integers: exact, wrapping,
 * x / 0 == 0, INT64_MIN / -1 == INT64_MIN.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "selftest.h"

enum { B_ADD, B_SUB, B_MUL, B_DIV, B_MAX, B_MIN, B_EQ, B_NE, B_LT, B_LE, B_GT, B_GE, B_SILU_MUL };

static const char *const prefixes[] = {
	[B_ADD] = "badd_", [B_SUB] = "bsub_", [B_MUL] = "bmul_", [B_DIV] = "bdiv_",
	[B_MAX] = "bmaximum_", [B_MIN] = "bminimum_", [B_EQ] = "eq_", [B_NE] = "ne_",
	[B_LT] = "lt_", [B_LE] = "le_", [B_GT] = "gt_", [B_GE] = "ge_",
	[B_SILU_MUL] = "silu_mul_",
};

static bool is_cmp(int op)
{
	return op >= B_EQ && op <= B_GE;
}

/* Comparison on a common order: doubles for floats (NaN unordered),
 * signed for i64, unsigned otherwise. */
static struct st_val ref_cmp(const struct st_kernel *k, const struct st_val *in)
{
	int c;                  /* -1, 0, 1; 2 = unordered */

	if (st_dtype_is_float(k->in[0])) {
		double a = in[0].f, b = in[1].f;
		c = (isnan(a) || isnan(b)) ? 2 : (a > b) - (a < b);
	} else if (k->in[0] == ST_I64) {
		int64_t a = (int64_t)in[0].u, b = (int64_t)in[1].u;
		c = (a > b) - (a < b);
	} else {
		c = (in[0].u > in[1].u) - (in[0].u < in[1].u);
	}
	switch (k->op) {
	case B_EQ: return st_iv(c == 0);
	case B_NE: return st_iv(c != 0);
	case B_LT: return st_iv(c == -1);
	case B_LE: return st_iv(c == -1 || c == 0);
	case B_GT: return st_iv(c == 1);
	case B_GE: return st_iv(c == 1 || c == 0);
	}
	return st_iv(-1);
}

static struct st_val ref_float(const struct st_kernel *k, const struct st_val *in)
{
	double a = in[0].f, b = in[1].f;

	if (is_cmp(k->op))
		return ref_cmp(k, in);
	switch (k->op) {
	case B_ADD: return st_fv(a + b);
	case B_SUB: return st_fv(a - b);
	case B_MUL: return st_fv(a * b);
	case B_DIV: return st_fv(a / b);
	case B_MAX: return st_fv(isnan(a) || isnan(b) ? NAN : a > b ? a : b);
	case B_MIN: return st_fv(isnan(a) || isnan(b) ? NAN : a < b ? a : b);
	case B_SILU_MUL: return st_fv(a / (1.0 + exp(-a)) * b);
	}
	return st_fv(NAN);
}

/* Wrapping arithmetic modulo 2^64; the store truncates to the dtype. */
static struct st_val ref_int(const struct st_kernel *k, const struct st_val *in)
{
	uint64_t a = in[0].u, b = in[1].u;
	bool sgn = k->in[0] == ST_I64;

	if (is_cmp(k->op))
		return ref_cmp(k, in);
	switch (k->op) {
	case B_ADD: return st_iv((int64_t)(a + b));
	case B_SUB: return st_iv((int64_t)(a - b));
	case B_MUL: return st_iv((int64_t)(a * b));
	case B_DIV:
		if (b == 0)
			return st_iv(0);
		if (!sgn)
			return st_iv((int64_t)(a / b));
		if ((int64_t)b == -1)
			return st_iv((int64_t)(0 - a));
		return st_iv((int64_t)a / (int64_t)b);
	case B_MAX:
		return st_iv((int64_t)(sgn ? ((int64_t)a > (int64_t)b ? a : b) : (a > b ? a : b)));
	case B_MIN:
		return st_iv((int64_t)(sgn ? ((int64_t)a < (int64_t)b ? a : b) : (a < b ? a : b)));
	}
	return st_iv(0);
}

static struct st_val gen(const struct st_kernel *k, int operand, uint64_t *rng)
{
	enum st_dtype dt = k->in[0];
	uint64_t r = st_rand(rng);

	if (is_cmp(k->op)) {
		/* A few distinct values so that equality happens often. */
		if (st_dtype_is_float(dt) && (r & 31) == 0)
			return st_fv(NAN);
		return st_dtype_is_float(dt) ? st_fv((double)(r % 7) * 0.5 - 1.25)
		                             : st_iv((int64_t)(r % 5) + 1);
	}
	if (!st_dtype_is_float(dt)) {
		if (k->op == B_DIV && operand == 1) {
			/* Some zero divisors and -1 (defined as 0 and wrap). */
			if ((r & 15) == 0)
				return st_iv(0);
			if (dt == ST_I64 && (r & 15) == 1)
				return st_iv(-1);
			if (dt == ST_I64)    /* small divisors give nonzero quotients */
				return st_iv(((int64_t)(r >> 40) - (1 << 23)) | 1);
		}
		if (dt == ST_I64 && (r & 63) == 2)
			return st_iv(INT64_MIN);
		return st_iv((int64_t)(st_rand(rng) | 1));
	}
	if ((k->op == B_MAX || k->op == B_MIN) && (r & 31) == 0)
		return st_fv(NAN);
	if (k->op == B_DIV && operand == 1) {
		double v = st_uniform(rng, 0.1, 10);
		return st_fv(r & 1 ? -v : v);
	}
	return st_fv(st_uniform(rng, -8, 8));
}

int st_plan_binary(const char *name, struct st_kernel *k)
{
	enum st_dtype dt;
	int op = -1;

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		if (st_name_dtype(name, prefixes[i], &dt)) {
			op = (int)i;
			break;
		}
	}
	if (op < 0 || (op == B_SILU_MUL && !st_dtype_is_float(dt)))
		return -ENOENT;
	k->shape = ST_EW;
	k->op = op;
	k->n_in = 2;
	k->in[0] = k->in[1] = dt;
	k->out = is_cmp(op) ? ST_U8 : dt;
	k->gen = gen;
	k->ref = st_dtype_is_float(dt) ? ref_float : ref_int;
	if (st_dtype_is_float(dt) && !is_cmp(op)) {
		k->cmp = ST_CMP_TOL;
		k->tol = st_tolerance(dt);
	} else {
		k->cmp = ST_CMP_EXACT;
	}
	st_args(k, 6, ST_ARG_NUMEL, ST_ARG_NDIMS, ST_ARG_INFO, ST_ARG_IN0, ST_ARG_IN1,
	        ST_ARG_OUT);
	return 0;
}
