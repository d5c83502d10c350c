/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * selftest, unary family (kernels/unary.hip): u<op>_T, uelu_T, upowf_T.
 * Float ops compare with a double reference within the dtype's tolerance
 * (|d| <= tol * max(1, |ref|): the absolute floor keeps results near zero,
 * sin(x) at x ~ pi, from demanding a relative accuracy no float library
 * gives; for |ref| >= 1 it is a relative bound of ~80 f32 ulps, which
 * covers the few-ulp error of expf/tanhf/erff/normcdff).  Integer ops are
 * exact with two's complement wrap.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "selftest.h"

enum {
	U_COPY, U_NEG, U_RECIP, U_EXP, U_LOG, U_SIN, U_COS, U_TANH, U_ERF, U_CEIL,
	U_FLOOR, U_ROUND, U_NORMCDF, U_ABS, U_SQR, U_SQRT, U_GELU, U_GELU_ERF,
	U_RELU, U_SILU, U_SIGN, U_SIGMOID, U_ELU, U_POWF,
};

static const char *const ops[] = {
	[U_COPY] = "copy", [U_NEG] = "neg", [U_RECIP] = "recip", [U_EXP] = "exp",
	[U_LOG] = "log", [U_SIN] = "sin", [U_COS] = "cos", [U_TANH] = "tanh",
	[U_ERF] = "erf", [U_CEIL] = "ceil", [U_FLOOR] = "floor", [U_ROUND] = "round",
	[U_NORMCDF] = "normcdf", [U_ABS] = "abs", [U_SQR] = "sqr", [U_SQRT] = "sqrt",
	[U_GELU] = "gelu", [U_GELU_ERF] = "gelu_erf", [U_RELU] = "relu",
	[U_SILU] = "silu", [U_SIGN] = "sign", [U_SIGMOID] = "sigmoid",
	[U_ELU] = "elu", [U_POWF] = "powf",
};

static double normcdf(double x)
{
	return 0.5 * erfc(-x / sqrt(2.0));
}

static double sigmoid(double x)
{
	return 1.0 / (1.0 + exp(-x));
}

static struct st_val ref_float(const struct st_kernel *k, const struct st_val *in)
{
	double x = in[0].f, p = k->scalar[0].f;

	switch (k->op) {
	case U_COPY: return st_fv(x);
	case U_NEG: return st_fv(-x);
	case U_RECIP: return st_fv(1.0 / x);
	case U_EXP: return st_fv(exp(x));
	case U_LOG: return st_fv(log(x));
	case U_SIN: return st_fv(sin(x));
	case U_COS: return st_fv(cos(x));
	case U_TANH: return st_fv(tanh(x));
	case U_ERF: return st_fv(erf(x));
	case U_CEIL: return st_fv(ceil(x));
	case U_FLOOR: return st_fv(floor(x));
	case U_ROUND: return st_fv(round(x));
	case U_NORMCDF: return st_fv(normcdf(x));
	case U_ABS: return st_fv(fabs(x));
	case U_SQR: return st_fv(x * x);
	case U_SQRT: return st_fv(sqrt(x));
	case U_GELU:
		return st_fv(0.5 * x * (1.0 + tanh(0.79788456080286535588 *
		                                    (x + 0.044715 * x * x * x))));
	case U_GELU_ERF: return st_fv(x * normcdf(x));
	case U_RELU: return st_fv(x > 0 ? x : 0);
	case U_SILU: return st_fv(x * sigmoid(x));
	case U_SIGN: return st_fv((x > 0) - (x < 0));
	case U_SIGMOID: return st_fv(sigmoid(x));
	case U_ELU: return st_fv(x >= 0 ? x : p * expm1(x));
	case U_POWF: return st_fv(pow(x, p));
	}
	return st_fv(NAN);
}

/* Exact integer reference, modulo 2^64, stored (truncated) into T. */
static struct st_val ref_int(const struct st_kernel *k, const struct st_val *in)
{
	uint64_t u = in[0].u;
	int64_t x = (int64_t)u;

	switch (k->op) {
	case U_COPY: return st_iv(x);
	case U_NEG: return st_iv((int64_t)(0 - u));
	case U_ABS: return st_iv(x < 0 ? (int64_t)(0 - u) : x);
	case U_SQR: return st_iv((int64_t)(u * u));
	case U_SIGN: return st_iv((x > 0) - (x < 0));
	}
	return st_iv(0);
}

/* Inputs in the op's domain, never 0, with a fractional part. */
static struct st_val gen(const struct st_kernel *k, int operand, uint64_t *rng)
{
	(void)operand;
	if (!st_dtype_is_float(k->in[0])) {
		uint64_t r = st_rand(rng);

		/* Full range (wraps, INT64_MIN) for i64; every bit pattern for u8/u32. */
		if (k->in[0] == ST_I64 && (r & 63) == 0)
			return st_iv(INT64_MIN);
		return st_iv((int64_t)(r | 1));
	}
	switch (k->op) {
	case U_LOG: case U_SQRT: return st_fv(st_uniform(rng, 0.01, 100));
	case U_POWF: return st_fv(st_uniform(rng, 0.05, 8));
	case U_RECIP: {
		double v = st_uniform(rng, 0.05, 20);
		return st_fv(st_rand(rng) & 1 ? -v : v);
	}
	case U_EXP: return st_fv(st_uniform(rng, -10, 10));
	case U_SQR: return st_fv(st_uniform(rng, -200, 200));
	case U_CEIL: case U_FLOOR: case U_ROUND:
		/* Halves too (x.5 is exact in every float dtype): round()'s ties. */
		if ((st_rand(rng) & 7) == 0)
			return st_fv((double)((int64_t)(st_rand(rng) % 41) - 20) + 0.5);
		return st_fv(st_uniform(rng, -50, 50));
	default: return st_fv(st_uniform(rng, -8, 8));
	}
}

int st_plan_unary(const char *name, struct st_kernel *k)
{
	enum st_dtype dt;
	int op = -1;

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		char prefix[32];

		snprintf(prefix, sizeof(prefix), "u%s_", ops[i]);
		if (st_name_dtype(name, prefix, &dt)) {
			op = (int)i;
			break;
		}
	}
	if (op < 0)
		return -ENOENT;
	/* Integer kernels exist for copy (u8 u32 i64) and neg/abs/sqr/sign (i64). */
	if (!st_dtype_is_float(dt) && op != U_COPY &&
	    !(dt == ST_I64 && (op == U_NEG || op == U_ABS || op == U_SQR || op == U_SIGN)))
		return -ENOENT;
	if (!st_dtype_is_float(dt) && (op == U_ELU || op == U_POWF))
		return -ENOENT;
	k->shape = ST_EW;
	k->op = op;
	k->n_in = 1;
	k->in[0] = k->out = dt;
	k->gen = gen;
	if (st_dtype_is_float(dt)) {
		k->ref = ref_float;
		k->cmp = ST_CMP_TOL;
		k->tol = st_tolerance(dt);
	} else {
		k->ref = ref_int;
		k->cmp = ST_CMP_EXACT;
	}
	if (op == U_ELU || op == U_POWF) {
		k->n_scalar = 1;
		k->scalar_dt = dt;
		k->scalar[0] = st_fv(op == U_ELU ? 0.7 : 1.7);
		st_args(k, 6, ST_ARG_NUMEL, ST_ARG_NDIMS, ST_ARG_INFO, ST_ARG_SCALAR0,
		        ST_ARG_IN0, ST_ARG_OUT);
	} else {
		st_args(k, 5, ST_ARG_NUMEL, ST_ARG_NDIMS, ST_ARG_INFO, ST_ARG_IN0, ST_ARG_OUT);
	}
	return 0;
}
