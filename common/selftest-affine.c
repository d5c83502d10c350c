/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * selftest, affine family (kernels/affine.hip): affine_T(numel, num_dims,
 * info, inp, out, mul, add) = inp * mul + add.  Floats within the dtype's
 * tolerance (|d| <= tol * max(1, |ref|); the kernel may fuse the multiply-
 * add), integers exact modulo 2^bits with multipliers that overflow.
 */
#include <errno.h>
#include <string.h>

#include "selftest.h"

static struct st_val ref_float(const struct st_kernel *k, const struct st_val *in)
{
	return st_fv(in[0].f * k->scalar[0].f + k->scalar[1].f);
}

static struct st_val ref_int(const struct st_kernel *k, const struct st_val *in)
{
	return st_iv((int64_t)(in[0].u * k->scalar[0].u + k->scalar[1].u));
}

static struct st_val gen(const struct st_kernel *k, int operand, uint64_t *rng)
{
	(void)operand;
	if (st_dtype_is_float(k->in[0]))
		return st_fv(st_uniform(rng, -100, 100));
	return st_iv((int64_t)(st_rand(rng) | 1));
}

int st_plan_affine(const char *name, struct st_kernel *k)
{
	enum st_dtype dt;

	if (!st_name_dtype(name, "affine_", &dt))
		return -ENOENT;
	k->shape = ST_EW;
	k->n_in = 1;
	k->in[0] = k->out = dt;
	k->n_scalar = 2;
	k->scalar_dt = dt;
	k->gen = gen;
	if (st_dtype_is_float(dt)) {
		k->ref = ref_float;
		k->cmp = ST_CMP_TOL;
		k->tol = st_tolerance(dt);
		k->scalar[0] = st_fv(1.5);
		k->scalar[1] = st_fv(-0.75);
	} else {
		k->ref = ref_int;
		k->cmp = ST_CMP_EXACT;
		/* Multipliers that overflow every width, so wrapping is tested. */
		k->scalar[0] = st_iv(dt == ST_U8 ? 7 : dt == ST_U32 ? 2654435761 :
		                     (int64_t)0x9e3779b97f4a7c15ULL);
		k->scalar[1] = st_iv(dt == ST_U8 ? 200 : 12345);
	}
	st_args(k, 7, ST_ARG_NUMEL, ST_ARG_NDIMS, ST_ARG_INFO, ST_ARG_IN0, ST_ARG_OUT,
	        ST_ARG_SCALAR0, ST_ARG_SCALAR1);
	return 0;
}
