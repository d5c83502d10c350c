/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Target IDs (layer: target IDs): validating them (each platform's grammar
 * is its row of the platform table, platform/platform.h), and the conversions
 * from what KFD and HSA_OVERRIDE_GFX_VERSION report.  Pure: no context, no I/O.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target.h"
#include "shared/util.h"
#include "shared/name.h"

/* ---- target IDs ---------------------------------------------------------- */

int hr_target_validate(const char *t)
{
	if (!t || !hr_name_is_valid(t) || strlen(t) >= HR_TARGET_MAX)
		return -EINVAL;
	return hr_platform_of(t) ? 0 : -EINVAL;
}

enum hr_platform hr_target_platform(const char *t)
{
	if (hr_target_validate(t) < 0)
		return HR_PLATFORM_NONE;
	return hr_platform_of(t)->id;
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

