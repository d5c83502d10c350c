/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * selftest, fill family (kernels/fill.hip): fill_T, copy2d_T, const_set_T.
 * The driver checks the whole destination buffer bit for bit: the written
 * region holds the value (or the source rows), everything else still holds
 * the poison (no write outside the region: misaligned starts, row gaps,
 * strided outputs with holes).
 */
#include <errno.h>
#include <string.h>

#include "selftest.h"

static struct st_val gen(const struct st_kernel *k, int operand, uint64_t *rng)
{
	(void)operand;
	if (st_dtype_is_float(k->out))
		return st_fv(st_uniform(rng, -1000, 1000));
	return st_iv((int64_t)(st_rand(rng) | 1));
}

int st_plan_fill(const char *name, struct st_kernel *k)
{
	enum st_dtype dt;

	if (st_name_dtype(name, "fill_", &dt)) {
		k->shape = ST_FILL;
	} else if (st_name_dtype(name, "copy2d_", &dt)) {
		k->shape = ST_COPY2D;
		k->n_in = 1;
	} else if (st_name_dtype(name, "const_set_", &dt)) {
		k->shape = ST_CONST_SET;
	} else {
		return -ENOENT;
	}
	k->in[0] = k->out = dt;
	k->gen = gen;
	k->cmp = ST_CMP_EXACT;
	if (k->shape != ST_COPY2D) {
		/* A value with every byte nonzero and unlike the poison. */
		k->n_scalar = 1;
		k->scalar_dt = dt;
		k->scalar[0] = st_dtype_is_float(dt) ? st_fv(-3.140625)
		                                     : st_iv((int64_t)0x5a5b5c5d5e5f6061LL);
	}
	return 0;
}
