/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Known processors (layer: target IDs): whether a well-formed target ID
 * names a processor of lib/util-targets.def, so that the CLI rejects an invented
 * one (gfx9999) as a usage error instead of reporting it skipped.  Kept apart
 * from target.c's grammar: that stays open to processors newer than the
 * table (a detected GPU or a cache entry is never refused for it).  Pure.
 */
#include <string.h>

#include "target.h"
#include "util.h"

static const char *const amd_processors[] = {
#define HR_AMD_TARGET(name, mach, sramecc, xnack, first_rocm, sdot4) name,
#include "util-targets.def"
#undef HR_AMD_TARGET
};

bool hr_target_known(const char *t)
{
	char proc[HR_TARGET_MAX];

	if (!t || hr_target_validate(t) < 0)
		return false;
	/* NVIDIA targets have no table here: the grammar (sm_NN[a]) is the check;
	 * the host targets are a fixed pair the grammar already names. */
	if (hr_target_platform(t) == HR_PLATFORM_NVIDIA ||
	    hr_target_platform(t) == HR_PLATFORM_HOST)
		return true;
	if (hr_target_generic(t, proc, sizeof(proc)) < 0)
		return false;
	for (size_t i = 0; i < HR_ARRAY_SIZE(amd_processors); i++)
		if (strcmp(proc, amd_processors[i]) == 0)
			return true;
	return false;
}

const char *hr_target_known_amd(size_t i)
{
	return i < HR_ARRAY_SIZE(amd_processors) ? amd_processors[i] : NULL;
}
