/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the tests on the stand-in CUDA driver t/fakecuda share
 * (t/runtime/test-driver.c, t/devices/test-multi-driver.c; header-only, like
 * t/gpu-test.h): the captured log, a minimal ELF header for the driver's
 * module loader, and the check for what a kernel_get through the affine
 * family needs.
 */
#ifndef HR_FAKE_CUDA_TEST_H
#define HR_FAKE_CUDA_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log-capture.h"
#include "tap.h"

/* An ELF64 little-endian ET_EXEC header for machine (EM_CUDA 190, EM_AMDGPU 224). */
static inline void fake_elf(unsigned char *e, size_t n, unsigned machine)
{
	memset(e, 0, n);
	memcpy(e, "\177ELF\2\1\1", 7);
	e[16] = 2;
	e[18] = machine & 0xff;
	e[19] = machine >> 8;
}

/*
 * kernel_get through the affine family needs $NVCC and $HR_PLUGINS/affine.so
 * (t/runtime/driver.sh, t/devices/multi-driver.sh set them when present): 1 when
 * both are there, else the next n checks are skipped and it returns 0.
 */
static inline int fake_cuda_affine_ready(int n)
{
	const char *nvcc = getenv("NVCC"), *plugins = getenv("HR_PLUGINS");
	char path[4200];

	snprintf(path, sizeof(path), "%s/affine.so", plugins ? plugins : "");
	if (!nvcc || !*nvcc || access(nvcc, X_OK) != 0 || !plugins || access(path, R_OK) != 0) {
		skip(n, "needs nvcc and the affine plugin");
		return 0;
	}
	return 1;
}

#endif
