/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * shared/targets.def expanded once, into the one table every reader looks up
 * (shared/targets.h).  Layer: shared (lib/layers); pure.
 */
#include <string.h>

#include "targets.h"
#include "util.h"

static const struct hr_amd_target amd_targets[] = {
#define HR_AMD_TARGET(n, m, sram, xn, rocm, dot4) \
	{ .name = (n), .first_rocm = (rocm), .mach = (m), .sramecc = (sram), \
	  .xnack = (xn), .sdot4 = (dot4) },
#include "targets.def"
#undef HR_AMD_TARGET
};

const struct hr_amd_target *hr_amd_target_find(const char *p, size_t len)
{
	for (size_t i = 0; i < HR_ARRAY_SIZE(amd_targets); i++)
		if (strlen(amd_targets[i].name) == len && memcmp(amd_targets[i].name, p, len) == 0)
			return &amd_targets[i];
	return NULL;
}

const struct hr_amd_target *hr_amd_target_by_mach(unsigned mach)
{
	for (size_t i = 0; i < HR_ARRAY_SIZE(amd_targets); i++)
		if (amd_targets[i].mach == mach)
			return &amd_targets[i];
	return NULL;
}

const struct hr_amd_target *hr_amd_target_at(size_t i)
{
	return i < HR_ARRAY_SIZE(amd_targets) ? &amd_targets[i] : NULL;
}
