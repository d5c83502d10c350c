/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Target IDs (layer: target IDs): the grammar of AMD (gfx… with optional
 * :feature±) and NVIDIA (sm_NN[a]) target IDs, and the conversions from what
 * KFD and HSA_OVERRIDE_GFX_VERSION report.  Pure: no context, no I/O.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util-platform-host.h"
#include "target.h"
#include "util.h"
#include "util-targets.h"

/* ---- target IDs ---------------------------------------------------------- */

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

int hr_target_validate(const char *t)
{
	size_t len;
	const char *colon;

	if (!t || !hr_name_is_safe(t) || (len = strlen(t)) >= HR_TARGET_MAX)
		return -EINVAL;
	if (nv_target_ok(t) || hr_host_target_wave(t))
		return 0;
	colon = strchr(t, ':');
	if (!amd_processor_ok(t, colon ? (size_t)(colon - t) : len))
		return -EINVAL;
	return colon && !amd_features_ok(t, (size_t)(colon - t), colon) ? -EINVAL : 0;
}

enum hr_platform hr_target_platform(const char *t)
{
	if (hr_target_validate(t) < 0)
		return HR_PLATFORM_NONE;
	if (hr_host_target_wave(t))
		return HR_PLATFORM_HOST;
	return t[0] == 's' ? HR_PLATFORM_NVIDIA : HR_PLATFORM_AMD;
}

/* ---- the platform table: launch limits ----------------------------------- */

static const struct hr_grid_limits grid_limits[] = {
	[HR_PLATFORM_NVIDIA] = { { 0x7fffffffu, 65535u, 65535u }, UINT64_MAX },
	[HR_PLATFORM_AMD] = { { 0x7fffffffu, 65535u, 65535u }, 0xffffffffu },
	/* Both GPUs' limits: what the host runs, either GPU runs. */
	[HR_PLATFORM_HOST] = { { 0x7fffffffu, 65535u, 65535u }, 0xffffffffu },
};

const struct hr_grid_limits *hr_platform_grid_limits(enum hr_platform p)
{
	if (p != HR_PLATFORM_NVIDIA && p != HR_PLATFORM_AMD)
		p = HR_PLATFORM_HOST;
	return &grid_limits[p];
}

int hr_grid_check(const struct hr_grid_limits *lim, const unsigned grid[3],
                  const unsigned block[3], char *why, size_t why_size)
{
	static const char dim[3] = { 'x', 'y', 'z' };

	for (int i = 0; i < 3; i++) {
		if (grid[i] > lim->blocks[i]) {
			snprintf(why, why_size, "grid %c of %u blocks: the limit is %" PRIu32,
			         dim[i], grid[i], lim->blocks[i]);
			return -E2BIG;
		}
		if ((uint64_t)grid[i] * block[i] > lim->threads) {
			snprintf(why, why_size, "grid %c of %u blocks of %u threads: "
			         "the limit is %" PRIu64 " threads", dim[i], grid[i], block[i],
			         lim->threads);
			return -E2BIG;
		}
	}
	return 0;
}

int hr_target_generic(const char *t, char *buf, size_t n)
{
	size_t len;

	if (hr_target_validate(t) < 0)
		return -EINVAL;
	len = strcspn(t, ":");
	if (len >= n)
		return -ENOSPC;
	memcpy(buf, t, len);
	buf[len] = '\0';
	return 0;
}

/* major, minor and stepping to gfx + major + one hex digit each; the ID scheme has no room for more. */
static int gfx_name(unsigned long major, unsigned long minor,
                    unsigned long step, char *buf, size_t n)
{
	int k;

	if (major < 6 || major > 99 || minor > 15 || step > 15)
		return -EINVAL;
	k = snprintf(buf, n, "gfx%lu%lx%lx", major, minor, step);
	return k < 0 || (size_t)k >= n ? -ENOSPC : 0;
}

int hr_target_from_gfx_version(uint32_t v, char *buf, size_t n)
{
	if (v == 0)
		return -EINVAL;
	return gfx_name(v / 10000, (v / 100) % 100, v % 100, buf, n);
}

int hr_target_from_hsa_override(const char *s, char *buf, size_t n)
{
	unsigned long part[3];
	const char *p = s;

	if (!s)
		return -EINVAL;
	for (int i = 0; i < 3; i++) {
		char *end;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		errno = 0;
		part[i] = strtoul(p, &end, 10);
		if (errno || end - p > 3)
			return -EINVAL;
		p = end;
		if (*p != (i < 2 ? '.' : '\0'))
			return -EINVAL;
		if (i < 2)
			p++;
	}
	return gfx_name(part[0], part[1], part[2], buf, n);
}

