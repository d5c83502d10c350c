/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Facts about the host targets (host-w64, host-w32) that the layers below
 * the backends need: the ID grammar, the ELF check and the cache key
 * (layer: util).  The backend itself is lib/backend-host.c.
 */
#include <stddef.h>
#include <string.h>

#include "util-platform-host.h"

/*
 * Every argument changes the code object, so each is part of the cache key
 * (HR_HOST_ABI_VERSION follows HR_HOST_ABI in kernels/hr-host-abi.h).  A
 * sanitized library (./configure --enable-sanitizers) sanitizes kernels too.
 */
static const char *const flags_w64[] = {
	"-std=c++17", "-shared", "-fPIC", "-O2", "-fvisibility=hidden",
	"-fno-strict-aliasing", "-Wno-unknown-pragmas", "-DHR_HOST=1",
	"-DHR_HOST_WAVE=64", "-DHR_HOST_ABI_VERSION=1",
#ifdef HR_HOST_SANITIZE
	"-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-fno-sanitize-recover=all",
#endif
	NULL
};
static const char *const flags_w32[] = {
	"-std=c++17", "-shared", "-fPIC", "-O2", "-fvisibility=hidden",
	"-fno-strict-aliasing", "-Wno-unknown-pragmas", "-DHR_HOST=1",
	"-DHR_HOST_WAVE=32", "-DHR_HOST_ABI_VERSION=1",
#ifdef HR_HOST_SANITIZE
	"-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-fno-sanitize-recover=all",
#endif
	NULL
};

unsigned hr_host_target_wave(const char *t)
{
	if (!t)
		return 0;
	if (strcmp(t, "host-w64") == 0)
		return 64;
	if (strcmp(t, "host-w32") == 0)
		return 32;
	return 0;
}

const char *const *hr_host_compile_flags(const char *target)
{
	switch (hr_host_target_wave(target)) {
	case 64:
		return flags_w64;
	case 32:
		return flags_w32;
	default:
		return NULL;
	}
}

unsigned hr_host_elf_machine(void)
{
#if defined(__x86_64__)
	return 62;      /* EM_X86_64 */
#elif defined(__aarch64__)
	return 183;     /* EM_AARCH64 */
#elif defined(__powerpc64__)
	return 21;      /* EM_PPC64 */
#elif defined(__riscv) && __riscv_xlen == 64
	return 243;     /* EM_RISCV */
#elif defined(__s390x__)
	return 22;      /* EM_S390 */
#elif defined(__loongarch64)
	return 258;     /* EM_LOONGARCH */
#else
	return 0;       /* unknown: nothing validates, the backend stays unused */
#endif
}

