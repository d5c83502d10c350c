/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Known processors (layer: target IDs): whether a well-formed target ID
 * names a processor of lib/shared/targets.def, so that the CLI rejects an invented
 * one (gfx9999) as a usage error instead of reporting it skipped.  Kept apart
 * from target.c's grammar: that stays open to processors newer than the
 * table (a detected GPU or a cache entry is never refused for it).  Pure.
 */
#include <string.h>

#include "target.h"
#include "shared/util.h"
#include "shared/targets.h"

bool hr_target_known(const char *t)
{
	if (!t || hr_target_validate(t) < 0)
		return false;
	return hr_platform_of(t)->target_known(t);
}

const char *hr_target_known_amd(size_t i)
{
	const struct hr_amd_target *t = hr_amd_target_at(i);

	return t ? t->name : NULL;
}
