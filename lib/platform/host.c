/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The host platform's row of the platform table (platform/platform.h): the
 * host targets (host-w64, host-w32), their compile flags and ELF machine
 * (layer: shared; pure).  The backend itself is lib/backend/host/host.c.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "platform.h"

/*
 * Every argument changes the code object, so each is part of the cache key
 * (HR_HOST_ABI_VERSION follows HR_HOST_ABI in kernels/hr-host-abi.h).  A
 * sanitized library (./configure --enable-sanitizers) sanitizes kernels too,
 * at -O1 as AddressSanitizer's documentation advises: a family's sanitized
 * compile at -O2 took 1.5 times as long (binary: 13.2 s against 8.5 s of
 * CPU, 2026-11-28), and make check's sanitized run compiles every family
 * for both wave sizes.
 */
#ifdef HR_HOST_SANITIZE
#define HOST_OPT "-O1", "-fsanitize=address,undefined", "-fno-omit-frame-pointer", \
	"-fno-sanitize-recover=all"
#else
#define HOST_OPT "-O2"
#endif
static const char *const flags_w64[] = {
	"-std=c++17", "-shared", "-fPIC", HOST_OPT, "-fvisibility=hidden",
	"-fno-strict-aliasing", "-Wno-unknown-pragmas", "-DHR_HOST=1",
	"-DHR_HOST_WAVE=64", "-DHR_HOST_ABI_VERSION=1",
	NULL
};
static const char *const flags_w32[] = {
	"-std=c++17", "-shared", "-fPIC", HOST_OPT, "-fvisibility=hidden",
	"-fno-strict-aliasing", "-Wno-unknown-pragmas", "-DHR_HOST=1",
	"-DHR_HOST_WAVE=32", "-DHR_HOST_ABI_VERSION=1",
	NULL
};

/* The wave size of a host target ID (64 or 32), 0 when t is none. */
static unsigned host_wave(const char *t)
{
	if (!t)
		return 0;
	if (strcmp(t, "host-w64") == 0)
		return 64;
	if (strcmp(t, "host-w32") == 0)
		return 32;
	return 0;
}

/*
 * Compiler arguments for a host target, between the compiler and the
 * source: the same list feeds the compile and the cache key (sanitizer
 * flags of a sanitized library build included).
 */
static const char *const *host_flags(const char *target)
{
	switch (host_wave(target)) {
	case 64:
		return flags_w64;
	case 32:
		return flags_w32;
	default:
		return NULL;
	}
}

/* e_machine of the code objects this library can load (its own). */
#if defined(__x86_64__)
#define HOST_EM 62      /* EM_X86_64 */
#elif defined(__aarch64__)
#define HOST_EM 183     /* EM_AARCH64 */
#elif defined(__powerpc64__)
#define HOST_EM 21      /* EM_PPC64 */
#elif defined(__riscv) && __riscv_xlen == 64
#define HOST_EM 243     /* EM_RISCV */
#elif defined(__s390x__)
#define HOST_EM 22      /* EM_S390 */
#elif defined(__loongarch64)
#define HOST_EM 258     /* EM_LOONGARCH */
#else
#define HOST_EM 0       /* unknown: nothing validates, the backend stays unused */
#endif

static bool host_target_ok(const char *t)
{
	return host_wave(t) != 0;
}

/* The two host targets are a fixed pair the grammar already names. */
static bool host_target_known(const char *t)
{
	return host_wave(t) != 0;
}

/* A host code object does not say its wave size: name the CPU only. */
static int host_elf_processor(const struct hr_elf_ident *e, char *buf, size_t n)
{
	int k;

	(void)e;
	k = snprintf(buf, n, "host");
	return k < 0 || (size_t)k >= n ? -ENOSPC : 0;
}

/* Machine and type are the row's (shared/elf.c); e_flags mean nothing here. */
static int host_elf_check(const struct hr_elf_ident *e, const char *target, char *why, size_t n)
{
	(void)e;
	(void)target;
	(void)why;
	(void)n;
	return 0;
}

/* The system C++ compiler: a shared object, the flags fixed by the target
 * (host_flags: no arch argument, no plugin or [compiler] flags). */
static const char *const no_dirs[] = { NULL };
static const struct hr_compiler_facts cxx = {
	.kind = HR_COMPILER_CXX, .name = "cxx", .program = "c++", .search_dirs = no_dirs,
	.source_file = "source.cpp", .output_file = "code.so", .language = "c++",
	.pre = no_dirs, .arch_option = NULL, .post = no_dirs, .object_label = "host",
};

const struct hr_platform_facts hr_platform_host = {
	.id = HR_PLATFORM_HOST, .name = "host", .label = "host", .example = "host-w64", .prefix = "host-",
	.target_ok = host_target_ok, .target_known = host_target_known,
	.wave = host_wave, .compile_flags = host_flags,
	.cc = &cxx, .compiler_need = "is a host target: needs a C++ compiler ([compiler] cxx) on a known CPU",
	.compiler_label = "C++ ([compiler] cxx)",
	.rtc_label = NULL, .source_prelude = true, .elf_machine = HOST_EM,
	.elf_type = 3 /* ET_DYN */, .elf_processor = host_elf_processor, .elf_check = host_elf_check,
	.max_shared = 64u << 10,
	.overridable = false, .opt_in = true,
	/* Both GPUs' limits: what the host runs, either GPU runs. */
	.grid = { { 0x7fffffffu, 65535u, 65535u }, 0xffffffffu },
};
