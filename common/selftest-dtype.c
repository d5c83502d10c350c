/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * selftest: dtypes on the host (f16/bf16 conversions with the kernels'
 * rounding), element access, the RNG, and the family dispatch.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "selftest.h"

static const struct {
	const char *name;
	size_t size;
} dtypes[ST_NDTYPES] = {
	[ST_F32] = { "f32", 4 }, [ST_F64] = { "f64", 8 }, [ST_F16] = { "f16", 2 },
	[ST_BF16] = { "bf16", 2 }, [ST_U8] = { "u8", 1 }, [ST_U32] = { "u32", 4 },
	[ST_I64] = { "i64", 8 },
};

int st_dtype_parse(const char *s, enum st_dtype *dt)
{
	for (int i = 0; i < ST_NDTYPES; i++) {
		if (strcmp(s, dtypes[i].name) == 0) {
			*dt = (enum st_dtype)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *st_dtype_name(enum st_dtype dt) { return dtypes[dt].name; }
size_t st_dtype_size(enum st_dtype dt) { return dtypes[dt].size; }

bool st_dtype_is_float(enum st_dtype dt)
{
	return dt == ST_F32 || dt == ST_F64 || dt == ST_F16 || dt == ST_BF16;
}

double st_tolerance(enum st_dtype dt)
{
	switch (dt) {
	case ST_F32: return 1e-5;
	case ST_F64: return 1e-12;
	case ST_F16: return 1e-3;
	case ST_BF16: return 1.6e-2;
	default: return 0;
	}
}

static uint32_t f32_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static float bits_f32(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

/* Rounds m >> shift to nearest even (shift >= 1). */
static uint32_t shift_rne(uint32_t m, int shift)
{
	uint32_t h = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);

	if (rem > half || (rem == half && (h & 1)))
		h++;
	return h;
}

uint16_t st_f32_to_f16(float f)
{
	uint32_t x = f32_bits(f), sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
	int e = (int)(ax >> 23) - 127;
	uint32_t h;

	if (ax > 0x7f800000u)                   /* NaN: keep it quiet */
		return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
	if (e > 15)                             /* inf, or too large: inf */
		return (uint16_t)(sign | 0x7c00u);
	if (e >= -14) {
		/* Normal: the carry of rounding may step into the next exponent,
		 * or to inf (0x7c00), which is the right answer either way. */
		h = shift_rne(((uint32_t)(e + 15) << 23) | (ax & 0x7fffffu), 13);
		return (uint16_t)(sign | (h > 0x7c00u ? 0x7c00u : h));
	}
	if (e < -25)                            /* below half the smallest subnormal */
		return (uint16_t)sign;
	/* Subnormal: value in units of 2^-24 is M * 2^(e+1). */
	h = shift_rne((ax & 0x7fffffu) | 0x800000u, -e - 1);
	return (uint16_t)(sign | h);
}

float st_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ffu;

	if (e == 0x1f)
		return bits_f32(sign | 0x7f800000u | (m << 13));
	if (e == 0) {                           /* zero or subnormal: m * 2^-24 */
		float v = ldexpf((float)m, -24);
		return sign ? -v : v;
	}
	return bits_f32(sign | ((e + 112) << 23) | (m << 13));
}

uint16_t st_f32_to_bf16(float f)
{
	uint32_t u = f32_bits(f);

	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((u >> 16) | 0x0040u);
	u += 0x7fffu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

float st_bf16_to_f32(uint16_t b)
{
	return bits_f32((uint32_t)b << 16);
}

struct st_val st_fv(double f)
{
	return (struct st_val){ .f = f, .u = 0 };
}

struct st_val st_iv(int64_t i)
{
	return (struct st_val){ .f = (double)i, .u = (uint64_t)i };
}

struct st_val st_load(enum st_dtype dt, const void *buf, size_t i)
{
	const uint8_t *p = (const uint8_t *)buf + i * dtypes[dt].size;
	struct st_val v = { 0, 0 };
	uint16_t h;
	uint32_t w;
	float f;

	switch (dt) {
	case ST_F32: memcpy(&f, p, 4); v.f = f; break;
	case ST_F64: memcpy(&v.f, p, 8); break;
	case ST_F16: memcpy(&h, p, 2); v.f = st_f16_to_f32(h); break;
	case ST_BF16: memcpy(&h, p, 2); v.f = st_bf16_to_f32(h); break;
	case ST_U8: v.u = *p; v.f = v.u; break;
	case ST_U32: memcpy(&w, p, 4); v.u = w; v.f = w; break;
	case ST_I64: memcpy(&v.u, p, 8); v.f = (double)(int64_t)v.u; break;
	default: break;
	}
	return v;
}

void st_store(enum st_dtype dt, void *buf, size_t i, struct st_val v)
{
	uint8_t *p = (uint8_t *)buf + i * dtypes[dt].size;
	uint16_t h;
	uint32_t w;
	float f;

	switch (dt) {
	case ST_F32: f = (float)v.f; memcpy(p, &f, 4); break;
	case ST_F64: memcpy(p, &v.f, 8); break;
	case ST_F16: h = st_f32_to_f16((float)v.f); memcpy(p, &h, 2); break;
	case ST_BF16: h = st_f32_to_bf16((float)v.f); memcpy(p, &h, 2); break;
	case ST_U8: *p = (uint8_t)v.u; break;
	case ST_U32: w = (uint32_t)v.u; memcpy(p, &w, 4); break;
	case ST_I64: memcpy(p, &v.u, 8); break;
	default: break;
	}
}

uint64_t st_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

double st_uniform(uint64_t *s, double lo, double hi)
{
	double v;

	do
		v = lo + (hi - lo) * (double)(st_rand(s) >> 11) * 0x1.0p-53;
	while (v == 0.0);
	return v;
}

bool st_name_dtype(const char *name, const char *prefix, enum st_dtype *dt)
{
	size_t n = strlen(prefix);

	return strncmp(name, prefix, n) == 0 && st_dtype_parse(name + n, dt) == 0;
}

void st_args(struct st_kernel *k, int n, ...)
{
	va_list ap;

	va_start(ap, n);
	k->n_args = n;
	for (int i = 0; i < n && i < ST_MAX_ARGS; i++)
		k->args[i] = (enum st_arg)va_arg(ap, int);
	va_end(ap);
}

/* The planner of every family, from plugins/families (selftest-families.h). */
static const struct {
	const char *family;
	int (*plan)(const char *name, struct st_kernel *k);
} planners[] = {
#define ST_PLANNER(f) { #f, st_plan_##f },
	ST_FAMILIES(ST_PLANNER)
#undef ST_PLANNER
};

const char *st_family(size_t i)
{
	return i < sizeof(planners) / sizeof(planners[0]) ? planners[i].family : NULL;
}

int st_plan(const char *family, const char *name, struct st_kernel *k)
{
	memset(k, 0, sizeof(*k));
	if (strlen(name) >= sizeof(k->name))
		return -ENAMETOOLONG;
	strcpy(k->name, name);
	for (size_t i = 0; i < sizeof(planners) / sizeof(planners[0]); i++) {
		if (strcmp(planners[i].family, family) == 0) {
			k->family = planners[i].family;
			return planners[i].plan(name, k);
		}
	}
	return -ENOPKG;         /* a family this selftest has no references for */
}
