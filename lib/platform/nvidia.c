/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The NVIDIA platform's row of the platform table (platform/platform.h): the
 * target-ID grammar (sm_NN[a|f]), the wave size, the compiler (nvcc), the
 * ELF machine and its e_flags, and the launch limits (layer: shared; pure).
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "platform.h"

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

/*
 * e_machine EM_CUDA; the sm number sits in e_flags bits 0..7 for the old
 * cubin ABI (OS/ABI 0x33 / 0x29) and in bits 8..15 for the one CUDA 12.8+
 * writes (OS/ABI 0x41, ABI version 8: nvcc 13 -arch=sm_90 gives 0x06005a04).
 */
#define EM_CUDA 190
#define ELFOSABI_CUDA_NEW 0x41

#define WHY(...) (why && n ? (void)snprintf(why, n, __VA_ARGS__) : (void)0)

static unsigned cuda_sm(const struct hr_elf_ident *e)
{
	if (e->osabi == ELFOSABI_CUDA_NEW)
		return (e->flags >> 8) & 0xff;
	return e->flags & 0xff;
}

static int nv_elf_processor(const struct hr_elf_ident *e, char *buf, size_t n)
{
	int k;

	if (cuda_sm(e) < 10)
		return -ENOEXEC;
	k = snprintf(buf, n, "sm_%u", cuda_sm(e));
	return k < 0 || (size_t)k >= n ? -ENOSPC : 0;
}

static int nv_elf_check(const struct hr_elf_ident *e, const char *target, char *why, size_t n)
{
	unsigned want = 0, have = cuda_sm(e);
	const char *p;

	/* sm_90a shares e_flags with sm_90: compare the number only. */
	for (p = target + 3; *p >= '0' && *p <= '9' && want < 10000; p++)
		want = want * 10 + (unsigned)(*p - '0');
	if (have != want) {
		WHY("cubin is for sm_%u, not %s", have, target);
		return -ENOEXEC;
	}
	return 0;
}

/* nvcc: a cubin (doc/DESIGN.md §5). */
static const char *const nv_dirs[] = { "/usr/local/cuda/bin", "/opt/cuda/bin", NULL };
static const char *const nv_pre[] = { "-cubin", NULL };
static const char *const nv_post[] = { NULL };
static const struct hr_compiler_facts nvcc = {
	.kind = HR_COMPILER_NVCC, .name = "nvcc", .program = "nvcc", .search_dirs = nv_dirs,
	.source_file = "source.cu", .output_file = "code.cubin", .language = "cu",
	.pre = nv_pre, .arch_option = "-arch=", .post = nv_post,
	.object_label = "CUDA",
};

/* NVRTC: always optimises and knows no -O. */
static const char *const nvrtc_libs[] = {
	"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so", NULL
};
static const struct hr_rtc_facts nvrtc = {
	.libs = nvrtc_libs, .prefix = "nvrtc", .code_size_fn = "GetCUBINSize", .code_fn = "GetCUBIN",
	.arch_option = "-arch=", .options = nv_post, .takes_opt_level = false, .preamble = "",
};

const struct hr_platform_facts hr_platform_nvidia = {
	.id = HR_PLATFORM_NVIDIA, .name = "nvidia", .label = "NVIDIA", .prefix = "sm_", .example = "sm_90",
	.target_ok = nv_target_ok, .target_known = nv_target_known,
	.wave = nv_wave, .compile_flags = nv_flags,
	.cc = &nvcc, .compiler_need = "is an NVIDIA target: needs nvcc",
	.compiler_label = "nvcc",
	.rtc_label = "NVRTC", .rtc = &nvrtc, .rtc_need = "NVRTC (libnvrtc.so)",
	.elf_machine = EM_CUDA, .elf_processor = nv_elf_processor, .elf_check = nv_elf_check,
	.max_shared = 48u << 10,
	.overridable = false,
	.grid = { { 0x7fffffffu, 65535u, 65535u }, UINT64_MAX },
};
