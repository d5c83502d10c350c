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

/* ---- entries ---------------------------------------------------------- */

/* One cache file: a fixed header then the code object (see cache.c). */
struct hr_entry {
	struct hr_cache_key key;
	char family[65];
	char target[48];
	char compiler[128];     /* toolchain identity that built it */
	uint64_t created;       /* unix seconds */
	const void *payload;    /* the code object, inside data */
	size_t payload_size;
	void *data;             /* the whole file, owned */
	size_t size;
};

/*
 * Read and fully validate an entry: magic, format, sizes, payload checksum,
 * ELF machine and target.  -ENOENT missing; -EBADMSG corrupt or truncated;
 * -ENOEXEC payload is not a code object for the stored target.  A non-NULL
 * expect_key must match the stored key (else -ESTALE).
 */
int hr_entry_read(struct hanzo_rocm *ctx, const char *path,
                  const struct hr_cache_key *expect_key, struct hr_entry *e);
void hr_entry_release(struct hr_entry *e);

/* Publish atomically as <dir>/<target>/<family>.hrco (creating <target>/). */
int hr_entry_write(struct hanzo_rocm *ctx, const char *dir, const char *family,
                   const char *target, const struct hr_cache_key *key,
                   const char *compiler, const void *payload, size_t size);

/*
 * Non-blocking fcntl lock on <dir>/<target>/.<family>.lock, retried until
 * timeout_s; -ETIMEDOUT means "go on without it" (publish is atomic anyway).
 */
int hr_entry_lock(const char *dir, const char *target, const char *family,
                  unsigned timeout_s, int *fd);
void hr_entry_unlock(int fd);

/*
 * The code object of family for target from the first tier that has a valid
 * one (exact target, then its generic processor), compiling on a miss when
 * [cache] compile = auto.  Tiers in skip_mask (1u << enum hr_tier) are
 * passed over: the runtime uses it when a driver refuses bytes from a tier.
 * Bytes are owned by ctx (memory tier) until it is freed.
 */
int hr_code_object_find(struct hanzo_rocm *ctx, const char *family,
                        const char *target, unsigned skip_mask,
                        const void **data, size_t *size, enum hr_tier *from);
