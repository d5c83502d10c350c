/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A code object through the tiers (layer: cache, on top of the entry
 * format, the tiers, the plugins and the toolchain): the lookup behind
 * hanzo_rocm_code_object and the runtime's module loads.
 */
#ifndef HR_CODE_OBJECT_H
#define HR_CODE_OBJECT_H

#include <stddef.h>

#include "cache.h"

struct hanzo_rocm;

/*
 * The code object of family for target from the first tier that has a valid
 * one (exact target, then its generic processor), compiling on a miss when
 * [cache] compile = auto.  Tiers in skip_mask (1u << enum hr_tier) are
 * passed over: the runtime uses it when a driver refuses bytes from a tier
 * (the user tier's refused entry is then moved aside, as a corrupt one).
 * Bytes are owned by ctx (memory tier) until it is freed.  *from is the
 * tier the bytes were read from (also on a later memory hit, so that the
 * caller can skip exactly that tier), or HR_TIER_COMPILED when built now.
 * -EINVAL bad name/target, -ENOENT nothing cached and compile = never (the
 * error names the tiers searched), else the compiler's error.
 */
int hr_code_object_find(struct hanzo_rocm *ctx, const char *family,
                        const char *target, unsigned skip_mask,
                        const void **data, size_t *size, enum hr_tier *from);

#endif
