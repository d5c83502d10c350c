/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the kernel unit's files share and the rest of lib/ does not see
 * (private to lib/kernel/, whose files only include it; the rest includes
 * kernel/kernel.h).  Layer: kernel.
 */
#ifndef HR_KERNEL_INTERNAL_H
#define HR_KERNEL_INTERNAL_H

#include <stddef.h>

#include "kernel.h"

/*
 * The miss path (kernel/compile.c), l as hr_cache_lookup left it on
 * HR_CACHE_MISS: load the family's plugin, build it with the platform's
 * compiler once per context (serialised) and publish it in the user tier;
 * *from is HR_TIER_USER when another process published it meanwhile, else
 * HR_TIER_COMPILED.
 */
int hr_code_object_compile(struct hr_lookup *l, const void **data, size_t *size,
                           enum hr_tier *from);

#endif
