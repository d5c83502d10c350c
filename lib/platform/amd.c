/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The AMD platform's row of the platform table (platform/platform.h): the
 * target-ID grammar (gfx… with optional :feature±), the wave size, the
 * compiler (hipcc), the ELF machine and its e_flags, and the launch limits
 * (layer: shared; pure).
 * The processors themselves are shared/targets.def's rows.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "platform.h"
#include "shared/targets.h"

/* gfx + 3..4 hex-ish digits (gfx90a, gfx1030) or a generic (gfx9-generic, gfx10-3-generic). */
static bool amd_processor_ok(const char *p, size_t len)
{
	static const char gen[] = "-generic";
	size_t i = 3;

	if (len < 6 || strncmp(p, "gfx", 3) != 0 || !isdigit((unsigned char)p[3]))
		return false;
	if (len > sizeof(gen) - 1 && memcmp(p + len - (sizeof(gen) - 1), gen, sizeof(gen) - 1) == 0) {
		/* gfxN[-M]-generic */
		size_t end = len - (sizeof(gen) - 1);

		for (; i < end; i++)
			if (!isdigit((unsigned char)p[i]) && p[i] != '-')
				return false;
		return p[end - 1] != '-';
	}
	if (len > 7)
		return false;
	for (; i < len; i++)
		if (!isdigit((unsigned char)p[i]) && !(p[i] >= 'a' && p[i] <= 'f'))
			return false;
	return true;
}

/*
 * ":feature+" / ":feature-", each of the two features LLVM's target IDs know
 * (sramecc, xnack) at most once, and only where the processor has it (when
 * shared/targets.def knows the processor; generics and others are left to the
 * compiler).  Anything else would pass here and fail as a compile error.
 */
static bool amd_features_ok(const char *p, size_t plen, const char *f)
{
	const struct hr_amd_target *known = hr_amd_target_find(p, plen);
	bool seen_sramecc = false, seen_xnack = false;
	int has_sramecc = known ? known->sramecc : 1, has_xnack = known ? known->xnack : 1;

	while (*f) {
		bool *seen;
		size_t n;

		if (*f++ != ':')
			return false;
		n = strspn(f, "abcdefghijklmnopqrstuvwxyz0123456789");
		if (n == 7 && strncmp(f, "sramecc", 7) == 0 && has_sramecc)
			seen = &seen_sramecc;
		else if (n == 5 && strncmp(f, "xnack", 5) == 0 && has_xnack)
			seen = &seen_xnack;
		else
			return false;
		if (*seen)
			return false;
		*seen = true;
		f += n;
		if (*f != '+' && *f != '-')
			return false;
		f++;
	}
	return true;
}

static bool amd_target_ok(const char *t)
{
	const char *colon = strchr(t, ':');
	size_t len = colon ? (size_t)(colon - t) : strlen(t);

	if (!amd_processor_ok(t, len))
		return false;
	return !colon || amd_features_ok(t, len, colon);
}

/* The processor (the ID without its features) is a row of shared/targets.def. */
static bool amd_target_known(const char *t)
{
	return hr_amd_target_find(t, strcspn(t, ":")) != NULL;
}

/* RDNA (gfx10 and later) runs wave 32 by default, GCN and CDNA wave 64;
 * KFD's wave_front_size wins when reported. */
static unsigned amd_wave(const char *t)
{
	return strncmp(t, "gfx1", 4) == 0 ? 32 : 64;
}

static const char *const *amd_flags(const char *t)
{
	(void)t;
	return NULL;
}

/*
 * e_machine EM_AMDGPU, the processor in e_flags & EF_AMDGPU_MACH (values from
 * LLVM's include/llvm/BinaryFormat/ELF.h: shared/targets.def), xnack/sramecc
 * in the V4 bits (code object V4, ABI version 2, on).
 */
#define EM_AMDGPU 224
#define ELFOSABI_AMDGPU_HSA 64
#define EF_AMDGPU_MACH 0xffu
#define EF_AMDGPU_XNACK_V4 0x300u
#define EF_AMDGPU_SRAMECC_V4 0xc00u

#define WHY(...) (why && n ? (void)snprintf(why, n, __VA_ARGS__) : (void)0)

static const char *amd_mach_name(uint32_t flags)
{
	const struct hr_amd_target *t = hr_amd_target_by_mach(flags & EF_AMDGPU_MACH);

	return t ? t->name : NULL;
}

static int amd_elf_processor(const struct hr_elf_ident *e, char *buf, size_t n)
{
	const char *name = amd_mach_name(e->flags);
	int k;

	if (!name)
		return -ENOEXEC;
	k = snprintf(buf, n, "%s", name);
	return k < 0 || (size_t)k >= n ? -ENOSPC : 0;
}

/*
 * A feature the target asks for ("xnack+") against the object's V4 setting:
 * "any" and "unsupported" serve both; only an explicit opposite is refused.
 */
static bool amd_feature_ok(const char *target, const char *feature,
                           uint32_t setting, uint32_t on, uint32_t off)
{
	char plus[32], minus[32];

	snprintf(plus, sizeof(plus), ":%s+", feature);
	snprintf(minus, sizeof(minus), ":%s-", feature);
	if (strstr(target, plus) && setting == off)
		return false;
	if (strstr(target, minus) && setting == on)
		return false;
	return true;
}

static int amd_elf_check(const struct hr_elf_ident *e, const char *target, char *why, size_t n)
{
	char want[48];
	const char *have = amd_mach_name(e->flags);
	size_t len = strcspn(target, ":");

	if (len >= sizeof(want)) {
		WHY("AMDGPU code object for target '%s'", target);
		return -ENOEXEC;
	}
	memcpy(want, target, len);
	want[len] = '\0';
	if (!have) {
		WHY("unknown AMDGPU processor 0x%02x in e_flags", e->flags & EF_AMDGPU_MACH);
		return -ENOEXEC;
	}
	if (strcmp(have, want) != 0) {
		WHY("code object is for %s, not %s", have, want);
		return -ENOEXEC;
	}
	if (e->osabi == ELFOSABI_AMDGPU_HSA && e->abiversion >= 2 &&
	    (!amd_feature_ok(target, "xnack", e->flags & EF_AMDGPU_XNACK_V4, 0x300, 0x200) ||
	     !amd_feature_ok(target, "sramecc", e->flags & EF_AMDGPU_SRAMECC_V4, 0xc00, 0x800))) {
		WHY("code object features (e_flags 0x%x) do not match %s", e->flags, target);
		return -ENOEXEC;
	}
	return 0;
}

/* hipcc: a raw device ELF, no bundle (doc/DESIGN.md §5); Debian 12's
 * hipcc 5.2 defaults to -std=c++11. */
static const char *const amd_dirs[] = { "/opt/rocm/bin", NULL };
static const char *const amd_pre[] = { "-std=c++17", "--cuda-device-only", "--no-gpu-bundle-output", NULL };
static const char *const amd_post[] = { "-c", NULL };
static const struct hr_compiler_facts hipcc = {
	.kind = HR_COMPILER_HIPCC, .name = "hipcc", .program = "hipcc", .search_dirs = amd_dirs,
	.source_file = "source.hip", .output_file = "code.o", .language = "hip",
	.pre = amd_pre, .arch_option = "--offload-arch=", .post = amd_post,
	.object_label = "AMDGPU",
};

/* hipRTC: Debian 12/13 carry it in libamdhip64.so.5, sid ships libhiprtc6. */
static const char *const hiprtc_libs[] = {
	"libhiprtc.so.6", "libhiprtc.so.7", "libamdhip64.so.5", "libhiprtc.so", NULL
};
static const char *const hiprtc_options[] = { "-std=c++17", NULL };
static const struct hr_rtc_facts hiprtc = {
	.libs = hiprtc_libs, .prefix = "hiprtc", .code_size_fn = "GetCodeSize", .code_fn = "GetCode",
	.arch_option = "--gpu-architecture=", .options = hiprtc_options, .takes_opt_level = true,
	.preamble = "typedef __SIZE_TYPE__ size_t;\ntypedef __PTRDIFF_TYPE__ ptrdiff_t;\n",
};

const struct hr_platform_facts hr_platform_amd = {
	.id = HR_PLATFORM_AMD, .name = "amd", .label = "AMD", .example = "gfx90a", .prefix = "gfx",
	.target_ok = amd_target_ok, .target_known = amd_target_known,
	.wave = amd_wave, .compile_flags = amd_flags,
	.cc = &hipcc, .compiler_need = "is an AMD target: needs hipcc",
	.compiler_label = "hipcc", .rtc_label = "hipRTC", .rtc = &hiprtc,
	.rtc_need = "hipRTC (libhiprtc.so.6, libamdhip64.so.5)", .hip_runtime = true,
	.elf_machine = EM_AMDGPU, .elf_processor = amd_elf_processor, .elf_check = amd_elf_check,
	.max_shared = 64u << 10,
	.overridable = true,
	.grid = { { 0x7fffffffu, 65535u, 65535u }, 0xffffffffu },
};
