/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Caller source through the cache tiers (layer: cache): the lookup behind
 * hanzo_rocm_source_code_object and hanzo_rocm_module_get, the user tier's
 * write side for a compile on a miss (lib/kernel/compile.c), and the key
 * `hanzo-rocm precompile --source` writes under (precompile/source.c).
 *
 * Key = hr_cache_key_compute("hanzo-rocm-source:" NAME, SHA-256 of the text
 * compiled, the caller's flags, the configuration's flags, target): length-
 * prefixed, format-versioned.  The entry is <tier>/<target>/<NAME>.<16 hex
 * of the key>.hrco, so sources sharing a name do not evict each other; the
 * compiler identity is stored in the entry (as for families).
 */
#ifndef HR_CACHE_SOURCE_H
#define HR_CACHE_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "source.h"
#include "cache/cache.h"

struct hanzo_rocm;

/* The key of a source for one target, and its entry stem NAME.<16 hex>. */
struct hr_source_key {
	struct hr_cache_key key;
	char entry[HR_SOURCE_NAME_MAX + 18];
};

int hr_source_key(struct hanzo_rocm *ctx, const struct hr_source_spec *s, const char *target,
                  struct hr_source_key *k);

/* What a lookup that missed hands to the compile (lib/kernel/compile.c). */
struct hr_source_lookup {
	struct hanzo_rocm *ctx;
	struct hr_cache *cache;
	const struct hr_source_spec *s;
	const char *target;
	unsigned skip_mask;
	struct hr_source_key key;       /* the exact target's: what a compile publishes */
	struct hr_tier_dir *tiers;
	size_t n_tiers;
};

/*
 * The code object (malloc'd) of s for target from the first tier holding a
 * valid one: exact target, then its generic processor; tiers in skip_mask
 * (1u << enum hr_tier) are passed over (the caller's, when a driver refused
 * the bytes a tier gave).  0 found (*from: the tier); HR_CACHE_MISS when no
 * tier has one (l then holds the key and the tiers for a compile: call
 * hr_source_lookup_release(l) after it; any other return holds nothing);
 * -EINVAL a bad source, name or target; -ENOMEM.  It never compiles: the
 * kernel layer does, on a miss (hr_source_code_object).
 */
int hr_source_lookup(struct hanzo_rocm *ctx, const struct hr_source_spec *s, const char *target,
                     unsigned skip_mask, struct hr_source_lookup *l, void **data, size_t *size,
                     enum hr_tier *from);
void hr_source_lookup_release(struct hr_source_lookup *l);

/* The user tier this process may publish in, or NULL. */
const struct hr_tier_dir *hr_source_user_tier(const struct hr_source_lookup *l);

/*
 * The user tier's entry read again (under its lock, after another process
 * may have built it): 0 (*data malloc'd), -ENOENT or -ENOMEM.
 */
int hr_source_user_entry(const struct hr_source_lookup *l, const struct hr_tier_dir *user,
                         void **data, size_t *size);

/* Publishes a compiled code object in the user tier; a failure is a warning. */
void hr_source_publish(const struct hr_source_lookup *l, const struct hr_tier_dir *user,
                       const char *identity, const void *data, size_t size);

#endif
