/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * selftest, ternary family (kernels/ternary.hip): where_<I>_<T>, out =
 * ids != 0 ? t : f, bit-exact.  Ids include values whose low bits are all
 * zero (0x100000000 for i64, 0x80000000 for u32) so a kernel that tests
 * only part of the id fails.
 */
#include <errno.h>
#include <string.h>

#include "selftest.h"

static struct st_val ref(const struct st_kernel *k, const struct st_val *in)
{
	(void)k;
	return in[0].u != 0 ? in[1] : in[2];
}

static struct st_val gen(const struct st_kernel *k, int operand, uint64_t *rng)
{
	enum st_dtype dt = k->in[operand];
	uint64_t r = st_rand(rng);

	if (operand == 0) {
		switch (r % 4) {
		case 0: return st_iv(0);
		case 1: return st_iv(1);
		case 2: return st_iv(dt == ST_I64 ? (int64_t)1 << 32 : dt == ST_U32 ? 0x80000000 : 0x80);
		default: return st_iv(dt == ST_I64 ? -3 : (int64_t)(r >> 8) | 1);
		}
	}
	if (st_dtype_is_float(dt))
		return st_fv(st_uniform(rng, operand == 1 ? 1 : -100, operand == 1 ? 100 : -1));
	return st_iv((int64_t)(r | 1));
}

int st_plan_ternary(const char *name, struct st_kernel *k)
{
	char ids[8];
	const char *p;
	enum st_dtype i, t;

	if (strncmp(name, "where_", 6) != 0 || !(p = strchr(name + 6, '_')) ||
	    (size_t)(p - name - 6) >= sizeof(ids))
		return -ENOENT;
	memcpy(ids, name + 6, (size_t)(p - name - 6));
	ids[p - name - 6] = '\0';
	if (st_dtype_parse(ids, &i) < 0 || st_dtype_parse(p + 1, &t) < 0 ||
	    st_dtype_is_float(i))
		return -ENOENT;
	k->shape = ST_EW;
	k->n_in = 3;
	k->in[0] = i;
	k->in[1] = k->in[2] = k->out = t;
	k->gen = gen;
	k->ref = ref;
	k->cmp = ST_CMP_EXACT;
	st_args(k, 7, ST_ARG_NUMEL, ST_ARG_NDIMS, ST_ARG_INFO, ST_ARG_IN0, ST_ARG_IN1,
	        ST_ARG_IN2, ST_ARG_OUT);
	return 0;
}
