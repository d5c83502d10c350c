/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The host half of `hanzo-rocm selftest`: f16/bf16 conversions (every f16
 * value round-trips, ties go to even, overflow and subnormals), every kernel
 * of every family's list (plugins/families) has a reference, and the references implement
 * the documented semantics (cast saturation and wrap, integer division by
 * zero, NaN propagation).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "selftest.h"

static uint32_t bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static void test_f16(void)
{
	unsigned bad = 0;

	is_int(st_f32_to_f16(1.0f), 0x3c00, "f16: 1.0");
	is_int(st_f32_to_f16(-2.0f), 0xc000, "f16: -2.0");
	is_int(st_f32_to_f16(65504.0f), 0x7bff, "f16: largest finite");
	is_int(st_f32_to_f16(65519.0f), 0x7bff, "f16: 65519 rounds down");
	is_int(st_f32_to_f16(65520.0f), 0x7c00, "f16: 65520 (tie) rounds to inf");
	is_int(st_f32_to_f16(1e10f), 0x7c00, "f16: overflow is inf");
	is_int(st_f32_to_f16(ldexpf(1, -24)), 0x0001, "f16: smallest subnormal");
	is_int(st_f32_to_f16(ldexpf(1, -25)), 0x0000, "f16: half of it ties to 0 (even)");
	is_int(st_f32_to_f16(ldexpf(3, -26)), 0x0001, "f16: 0.75 ulp rounds up");
	is_int(st_f32_to_f16(ldexpf(3, -25)), 0x0002, "f16: 1.5 ulp ties to even (2)");
	is_int(st_f32_to_f16(1.0f + ldexpf(1, -11)), 0x3c00, "f16: 1 + half ulp ties to even");
	is_int(st_f32_to_f16(1.0f + ldexpf(3, -11)), 0x3c02, "f16: 1 + 1.5 ulp ties to even");
	is_int(st_f32_to_f16(ldexpf(1023, -24) + ldexpf(1, -25)), 0x0400,
	       "f16: largest subnormal + half ulp carries into the smallest normal");
	ok((st_f32_to_f16(NAN) & 0x7c00) == 0x7c00 && (st_f32_to_f16(NAN) & 0x3ff),
	   "f16: NaN stays NaN");
	for (uint32_t h = 0; h < 0x10000; h++) {
		float f = st_f16_to_f32((uint16_t)h);
		uint16_t back = st_f32_to_f16(f);

		if (isnan(f) ? !((back & 0x7c00) == 0x7c00 && (back & 0x3ff)) : back != h)
			bad++;
	}
	is_int(bad, 0, "f16: all 65536 values round-trip through f32");
}

static void test_bf16(void)
{
	unsigned bad = 0;

	is_int(st_f32_to_bf16(1.0f), 0x3f80, "bf16: 1.0");
	is_int(st_f32_to_bf16(1.0f + ldexpf(1, -8)), 0x3f80, "bf16: tie to even (down)");
	is_int(st_f32_to_bf16(1.0f + ldexpf(3, -8)), 0x3f82, "bf16: tie to even (up)");
	is_int(st_f32_to_bf16(1.0f + ldexpf(5, -9)), 0x3f81, "bf16: above half rounds up");
	is_int(st_f32_to_bf16(3.4e38f), 0x7f80, "bf16: rounds past the largest finite to inf");
	ok((st_f32_to_bf16(NAN) & 0x7f80) == 0x7f80 && (st_f32_to_bf16(NAN) & 0x7f),
	   "bf16: NaN stays NaN");
	for (uint32_t h = 0; h < 0x10000; h++) {
		float f = st_bf16_to_f32((uint16_t)h);

		if (!isnan(f) && (st_f32_to_bf16(f) != h || bits(f) != h << 16))
			bad++;
	}
	is_int(bad, 0, "bf16: every non-NaN value round-trips");
}

/* The selftest's families are plugins/families' (its planner table is
 * generated from that list), in its order. */
static void test_family_table(void)
{
	char line[256];
	size_t i = 0, bad = 0;
	FILE *fp = fopen(HR_FAMILIES_LIST, "re");

	if (!ok(fp != NULL, "read %s", HR_FAMILIES_LIST))
		return;
	while (fgets(line, sizeof(line), fp)) {
		char *name = strtok(line, "\t \n");

		if (!name || name[0] == '#')
			continue;
		if (!st_family(i) || strcmp(st_family(i), name) != 0) {
			diag("family %zu: the list says %s, the planner table %s", i, name,
			     st_family(i) ? st_family(i) : "(end)");
			bad++;
		}
		i++;
	}
	fclose(fp);
	ok(i > 0 && bad == 0 && st_family(i) == NULL,
	   "the planner table names the %zu families of plugins/families, in order", i);
}

/* Every kernel of kernels/<family>.list has a plan. */
static void test_lists(void)
{
	const char *family;

	for (size_t f = 0; (family = st_family(f)) != NULL; f++) {
		char path[4096], line[4096];
		unsigned n = 0, bad = 0;
		FILE *fp;

		snprintf(path, sizeof(path), "%s/%s.list", HR_KERNELS_DIR, family);
		fp = fopen(path, "re");
		if (!ok(fp != NULL, "read %s", path))
			continue;
		while (fgets(line, sizeof(line), fp)) {
			struct st_kernel k;
			char *name = strtok(line, "\t \n");

			if (!name || name[0] == '#')
				continue;
			n++;
			if (st_plan(family, name, &k) < 0 || (!k.gen && !k.run) ||
			    (k.shape == ST_EW && !k.ref)) {
				diag("%s: no plan for %s", family, name);
				bad++;
			}
		}
		fclose(fp);
		ok(n > 0 && bad == 0, "%s: all %u kernels have a reference", family, n);
	}
}

static struct st_val ref1(const char *family, const char *name, struct st_val a)
{
	struct st_kernel k;
	struct st_val in[3] = { a, a, a };

	if (st_plan(family, name, &k) < 0)
		return st_fv(-12345);
	return k.ref(&k, in);
}

static struct st_val ref2(const char *name, struct st_val a, struct st_val b)
{
	struct st_kernel k;
	struct st_val in[3] = { a, b, b };

	if (st_plan("binary", name, &k) < 0)
		return st_fv(-12345);
	return k.ref(&k, in);
}

/* The reference's value once stored into dtype dt (as the driver compares). */
static uint64_t stored(enum st_dtype dt, struct st_val v)
{
	uint64_t raw = 0;

	st_store(dt, &raw, 0, v);
	return raw;
}

static void test_refs(void)
{
	struct st_kernel k;

	is_int(stored(ST_U8, ref1("cast", "cast_f32_u8", st_fv(300.5))), 255, "cast f32->u8 saturates high");
	is_int(stored(ST_U8, ref1("cast", "cast_f32_u8", st_fv(-7.9))), 0, "cast f32->u8 saturates low");
	is_int(stored(ST_U32, ref1("cast", "cast_f64_u32", st_fv(NAN))), 0, "cast NaN->u32 is 0");
	is_int((int64_t)stored(ST_I64, ref1("cast", "cast_f32_i64", st_fv(-2.9))), -2,
	       "cast f32->i64 truncates toward zero");
	ok(stored(ST_I64, ref1("cast", "cast_f32_i64", st_fv(1e30))) == (uint64_t)INT64_MAX,
	   "cast f32->i64 saturates");
	is_int(stored(ST_U32, ref1("cast", "cast_i64_u32", st_iv(-1))), 4294967295u,
	       "cast i64 -1 -> u32 wraps");
	is_int(stored(ST_U8, ref1("cast", "cast_u32_u8", st_iv(300))), 44, "cast u32 300 -> u8 44");
	/* 2^24 + 1 is not a float: i64 -> f16 rounds through float (twice). */
	is_int(stored(ST_F32, ref1("cast", "cast_i64_f32", st_iv(16777217))), bits(16777216.0f),
	       "cast i64->f32 rounds to nearest even");
	is_int(stored(ST_F16, ref1("cast", "cast_f64_f16", st_fv(1.0 + ldexp(1, -11) + ldexp(1, -40)))),
	       0x3c00, "cast f64->f16 rounds through float (double rounding, as documented)");
	is_int(stored(ST_I64, ref2("bdiv_i64", st_iv(INT64_MIN), st_iv(-1))), (uint64_t)INT64_MIN,
	       "i64 INT64_MIN / -1 wraps");
	is_int(stored(ST_U32, ref2("bdiv_u32", st_iv(7), st_iv(0))), 0, "u32 x / 0 == 0");
	is_int(stored(ST_U8, ref2("bmul_u8", st_iv(200), st_iv(3))), 88, "u8 multiply wraps");
	ok(isnan(ref2("bmaximum_f32", st_fv(1), st_fv(NAN)).f), "maximum propagates NaN (rhs)");
	ok(isnan(ref2("bminimum_f32", st_fv(NAN), st_fv(1)).f), "minimum propagates NaN (lhs)");
	is_int(ref2("ne_f32", st_fv(NAN), st_fv(NAN)).u, 1, "NaN != NaN");
	is_int(ref2("le_f32", st_fv(NAN), st_fv(1)).u, 0, "NaN <= 1 is false");
	is_int(ref2("lt_i64", st_iv(-1), st_iv(1)).u, 1, "i64 compares signed");
	is_int(ref2("lt_u32", st_iv(0xffffffff), st_iv(1)).u, 0, "u32 compares unsigned");
	ok(fabs(ref1("unary", "ugelu_erf_f64", st_fv(1.0)).f - 0.8413447460685429) < 1e-15,
	   "gelu_erf(1) = Phi(1)");
	ok(st_plan("unary", "upowf_f16", &k) == 0 && k.n_scalar == 1 &&
	   k.args[3] == ST_ARG_SCALAR0 && k.args[4] == ST_ARG_IN0, "upowf: parameter before inp");
	ok(st_plan("affine", "affine_u8", &k) == 0 && k.args[5] == ST_ARG_SCALAR0 &&
	   k.args[6] == ST_ARG_SCALAR1, "affine: mul, add after out");
	is_int(stored(ST_U8, k.ref(&k, (struct st_val[3]){ st_iv(100) })), (100 * 7 + 200) % 256,
	       "affine u8 wraps");
	is_int(st_plan("unary", "uexp_u8", &k), -ENOENT, "no plan for a kernel that does not exist");
	is_int(st_plan("nosuchfamily", "im2col_f32", &k), -ENOPKG, "an unknown family is -ENOPKG (skipped, not failed)");
}

int main(void)
{
	test_f16();
	test_bf16();
	test_family_table();
	test_lists();
	test_refs();
	return done_testing();
}
