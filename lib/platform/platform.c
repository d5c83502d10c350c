/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The platform table (platform/platform.h): the rows of platform/amd.c,
 * nvidia.c and host.c in one array, the lookups over it and the grid check
 * (layer: shared; pure).
 * Adding a platform is its file and one line here.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "platform.h"
#include "shared/util.h"

static const struct hr_platform_facts *const platforms[] = {
	&hr_platform_amd,
	&hr_platform_nvidia,
	&hr_platform_host,
};

const struct hr_platform_facts *hr_platform_at(size_t i)
{
	return i < HR_ARRAY_SIZE(platforms) ? platforms[i] : NULL;
}

const struct hr_platform_facts *hr_platform_facts(int p)
{
	for (size_t i = 0; i < HR_ARRAY_SIZE(platforms); i++)
		if ((int)platforms[i]->id == p)
			return platforms[i];
	return NULL;
}

const struct hr_platform_facts *hr_platform_of(const char *t)
{
	if (!t)
		return NULL;
	for (size_t i = 0; i < HR_ARRAY_SIZE(platforms); i++)
		if (strncmp(t, platforms[i]->prefix, strlen(platforms[i]->prefix)) == 0 &&
		    platforms[i]->target_ok(t))
			return platforms[i];
	return NULL;
}

const char *const *hr_platform_compile_flags(const char *t)
{
	const struct hr_platform_facts *f = hr_platform_of(t);

	return f ? f->compile_flags(t) : NULL;
}

unsigned hr_platform_cpu_machine(void)
{
	return hr_platform_host.elf_machine;
}

const struct hr_compiler_facts *hr_compiler_facts(enum hr_compiler kind)
{
	for (size_t i = 0; i < HR_ARRAY_SIZE(platforms); i++)
		if (platforms[i]->cc->kind == kind)
			return platforms[i]->cc;
	return NULL;
}

const struct hr_platform_facts *hr_platform_by_elf_machine(unsigned machine)
{
	for (size_t i = 0; machine && i < HR_ARRAY_SIZE(platforms); i++)
		if (platforms[i]->elf_machine == machine)
			return platforms[i];
	return NULL;
}

const struct hr_grid_limits *hr_platform_grid_limits(int p)
{
	const struct hr_platform_facts *f = hr_platform_facts(p);

	return f ? &f->grid : &hr_platform_host.grid;
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
