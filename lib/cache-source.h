/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Caller source through the cache tiers (layer: cache): the lookup behind
 * hanzo_rocm_source_code_object and hanzo_rocm_module_get, and the
 * precompile of `hanzo-rocm precompile --source`.
 *
 * Key = hr_cache_key_compute("hanzo-rocm-source:" NAME, SHA-256 of the text
 * compiled, the caller's flags, the configuration's flags, target): length-
 * prefixed, format-versioned.  The entry is <tier>/<target>/<NAME>.<16 hex
 * of the key>.hrco, so sources sharing a name do not evict each other; the
 * compiler identity is stored in the entry (as for families).
 */
#ifndef HR_CACHE_SOURCE_H
#define HR_CACHE_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "build-source.h"
#include "cache.h"

struct hanzo_rocm;

/*
 * The code object (malloc'd) of s for target from the first tier holding a
 * valid one (exact target, then its generic processor), else compiled once
 * (a per-context mutex, then the user tier's entry lock across processes,
 * then a second look) and published in the user tier.  Tiers in skip_mask
 * (1u << enum hr_tier) are passed over: the caller's when a driver refused
 * the bytes a tier gave (a refused user-tier entry is then replaced by the
 * compile, not served again).  *from: the tier, or HR_TIER_COMPILED.
 * Errors as hr_source_compile; -ENOENT when nothing is cached and [cache]
 * compile = never.
 */
int hr_source_code_object(struct hanzo_rocm *ctx, const struct hr_source_spec *s,
                          const char *target, unsigned skip_mask, void **data,
                          size_t *size, char **diag, enum hr_tier *from);

/*
 * Precompile into dir (a tier root: system, or --output): 1 built, 0 up to
 * date (a valid entry with this key is there and !force), or an error.
 * *size: the code object's bytes.
 */
int hr_source_precompile(struct hanzo_rocm *ctx, const struct hr_source_spec *s,
                         const char *target, const char *dir, bool force,
                         uint64_t *size, char **diag);

#endif
