/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The AMD platform's row of the platform table (util-platform.h): the
 * target-ID grammar (gfx… with optional :feature±), the wave size, the
 * compiler, the ELF machine and the launch limits (layer: util; pure).
 * The processors themselves are util-targets.def's rows.
 */
#include <ctype.h>
#include <string.h>

#include "util-platform.h"
#include "util-targets.h"

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
 * util-targets.def knows the processor; generics and others are left to the
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

/* The processor (the ID without its features) is a row of util-targets.def. */
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

const struct hr_platform_facts hr_platform_amd = {
	.id = HR_PLATFORM_AMD, .name = "amd", .label = "AMD", .example = "gfx90a", .prefix = "gfx",
	.target_ok = amd_target_ok, .target_known = amd_target_known,
	.wave = amd_wave, .compile_flags = amd_flags,
	.compiler = HR_COMPILER_HIPCC, .compiler_need = "is an AMD target: needs hipcc",
	.compiler_label = "hipcc", .rtc_label = "hipRTC",
	.rtc_need = "hipRTC (libhiprtc.so.6, libamdhip64.so.5)", .hip_runtime = true,
	.elf_machine = 224 /* EM_AMDGPU */, .max_shared = 64u << 10,
	.overridable = true,
	.grid = { { 0x7fffffffu, 65535u, 65535u }, 0xffffffffu },
};
