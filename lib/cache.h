/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The code-object cache (DESIGN §5): keys, the entry file format, validation,
 * atomic publish, tiers (memory → system → site → user → compile on miss).
 * The cache knows nothing about GPUs; kernels know nothing about the cache.
 */
#ifndef HR_CACHE_H
#define HR_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hanzo_rocm;

enum hr_tier { HR_TIER_MEMORY, HR_TIER_SYSTEM, HR_TIER_SITE, HR_TIER_USER, HR_TIER_COMPILED };
const char *hr_tier_name(enum hr_tier t);

struct hr_cache_key {
	uint8_t b[32];
};

/*
 * SHA-256 over length-prefixed fields: format version, family, the source's
 * SHA-256, every compile flag (plugin's then config's), target.
 */
void hr_cache_key_compute(const char *family, const uint8_t source_sha256[32],
                          const char *const *plugin_flags,
                          char *const *config_flags, const char *target,
                          struct hr_cache_key *key);
void hr_sha256(const void *data, size_t size, uint8_t out[32]);
void hr_hex(const uint8_t *b, size_t n, char *out); /* out: 2n+1 bytes */

struct hr_tier_dir {
	enum hr_tier tier;
	char *path;
	bool writable;        /* by this process, per policy and permissions */
};
/* The on-disk tiers in search order (system, site…, user). */
int hr_cache_tiers(struct hanzo_rocm *ctx, struct hr_tier_dir **tiers, size_t *n);
void hr_cache_tiers_free(struct hr_tier_dir *tiers, size_t n);

/* <dir>/<target>/<family>.hrco */
char *hr_entry_path(const char *dir, const char *target, const char *family);

#endif
