/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers shared by the GPU tests (t/test-gpu-*.c). */
#ifndef HR_GPU_TEST_H
#define HR_GPU_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hanzo-rocm.h"

/* The first device of the library's list, or skip the whole test. */
static inline unsigned gpu_first_device(struct hanzo_rocm *ctx, const char **target)
{
	int n = ctx ? hanzo_rocm_device_count(ctx) : 0;

	if (n <= 0)
		skip_all("no GPU");
	if (hanzo_rocm_device_target(ctx, 0, target) < 0)
		skip_all("no GPU target");
	return 0;
}

/* nvcc: $NVCC from configure, else the usual places (the GPU machine). */
static inline const char *gpu_nvcc(void)
{
	static const char *const cand[] = { "/usr/local/cuda/bin/nvcc", "/usr/bin/nvcc" };
	const char *v = getenv("NVCC");

	if (v && *v && access(v, X_OK) == 0)
		return v;
	for (size_t i = 0; i < sizeof(cand) / sizeof(cand[0]); i++)
		if (access(cand[i], X_OK) == 0)
			return cand[i];
	return NULL;
}

/* Deterministic, never-zero pseudo-random floats in [lo, hi). */
static inline void gpu_fill(float *x, size_t n, uint64_t seed, float lo, float hi)
{
	uint64_t s = seed * 0x9e3779b97f4a7c15ULL + 1;

	for (size_t i = 0; i < n; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		x[i] = lo + (hi - lo) * (float)((s >> 11) * 0x1.0p-53);
		if (x[i] == 0.0f)
			x[i] = 0.5f;
	}
}

/* Max relative error against a double reference (NaN counts as infinite). */
static inline double gpu_max_rel(const float *got, const double *want, size_t n)
{
	double m = 0;

	for (size_t i = 0; i < n; i++) {
		double d = got[i] - want[i], e;

		if (got[i] != got[i])
			return 1e30;
		e = (d < 0 ? -d : d) / (want[i] < 0 ? -want[i] : want[i] > 1e-30 ? want[i] : 1e-30);
		if (e > m)
			m = e;
	}
	return m;
}

#endif
