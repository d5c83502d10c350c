/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The NVIDIA platform's row of the platform table (util-platform.h): the
 * target-ID grammar (sm_NN[a|f]), the wave size, the compiler, the ELF
 * machine and the launch limits (layer: util; pure).
 */
#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "util-platform.h"

/* sm_NN or sm_NNN, optionally "a" (arch-specific) or "f" (family). */
static bool nv_target_ok(const char *t)
{
	size_t digits = 0;

	if (strncmp(t, "sm_", 3) != 0)
		return false;
	for (t += 3; isdigit((unsigned char)*t); t++)
		digits++;
	if (digits < 2 || digits > 3)
		return false;
	if (*t == 'a' || *t == 'f')
		t++;
	return *t == '\0';
}

/* No table of NVIDIA processors: the grammar is the check. */
static bool nv_target_known(const char *t)
{
	return nv_target_ok(t);
}

static unsigned nv_wave(const char *t)
{
	(void)t;
	return 32;
}

static const char *const *nv_flags(const char *t)
{
	(void)t;
	return NULL;
}

const struct hr_platform_facts hr_platform_nvidia = {
	.id = HR_PLATFORM_NVIDIA, .name = "nvidia", .label = "NVIDIA", .prefix = "sm_", .example = "sm_90",
	.target_ok = nv_target_ok, .target_known = nv_target_known,
	.wave = nv_wave, .compile_flags = nv_flags,
	.compiler = HR_COMPILER_NVCC, .compiler_need = "is an NVIDIA target: needs nvcc",
	.compiler_label = "nvcc",
	.rtc_label = "NVRTC", .rtc_need = "NVRTC (libnvrtc.so)",
	.elf_machine = 190 /* EM_CUDA */, .max_shared = 48u << 10,
	.overridable = false,
	.grid = { { 0x7fffffffu, 65535u, 65535u }, UINT64_MAX },
};
