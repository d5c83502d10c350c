/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The code-object cache (doc/DESIGN.md §5): keys, the entry file format, validation,
 * atomic publish, tiers (memory → system → site → package → user; a miss
 * goes back to the kernel layer, which compiles and publishes).
 * The cache knows nothing about GPUs; kernels know nothing about the cache.
 * Layer: cache (lib/layers).
 */
#ifndef HR_CACHE_H
#define HR_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "target/target.h"

struct hanzo_rocm;

/*
 * HR_TIER_PACKAGE: HR_PLUGINCACHEDIR, where cache packages install entries
 * (read-only, searched after the site tiers).  Added last so the values of
 * the others, used as skip_mask bits, do not move.
 */
enum hr_tier {
	HR_TIER_MEMORY, HR_TIER_SYSTEM, HR_TIER_SITE, HR_TIER_USER,
	HR_TIER_COMPILED, HR_TIER_PACKAGE,
};
const char *hr_tier_name(enum hr_tier t);
#define HR_TIER_N (HR_TIER_PACKAGE + 1)

/*
 * A context's counters of its local tiers (cache.c), updated with relaxed
 * atomics, without a lock (a memory hit stays a hash probe): reads of each
 * on-disk tier (exact target and generic processor each count), found,
 * absent, bad (corrupt, wrong target, untrusted), payload bytes and time;
 * the memory tier's lookups and hits; compiles (kernel/compile.c).
 */
struct hr_tier_counters {
	uint64_t lookups, hits, absent, bad, bytes, ns;
};
struct hr_cache_counters {
	struct hr_tier_counters tier[HR_TIER_N];
	uint64_t compiles, compile_failures, compile_ns;
};
struct hanzo_rocm;
struct hr_cache;
void hr_cache_counters_get(struct hanzo_rocm *ctx, struct hr_cache_counters *out);
uint64_t hr_cache_clock_ns(void);
void hr_cache_count_compile(struct hr_cache *c, uint64_t start_ns, bool ok);

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
/* ---- entries ---------------------------------------------------------- */

/* One cache file: a fixed header then the code object (see cache/entry.c). */
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
/* The same, with a one-line reason for a rejection in why (for the CLI). */
int hr_entry_read_why(struct hanzo_rocm *ctx, const char *path,
                      const struct hr_cache_key *expect_key, struct hr_entry *e,
                      char *why, size_t n);
void hr_entry_release(struct hr_entry *e);
/*
 * hr_entry_read_why of dir/target/family.hrco in a tier, reached by a
 * descriptor walk: the target directory and the entry are opened under the
 * tier's descriptor without following symlinks (a symlinked target
 * directory, which the maintenance scan cannot see, is never used).  For a
 * shared (system, site, package) tier the directory and every ancestor
 * (hr_trust_open_dir), the target directory and the entry must pass the
 * trust rule (shared/trust.h) on the very descriptors that are read.
 * -EPERM with "PATH is WHY" in why when refused; else as hr_entry_read_why.
 */
int hr_entry_read_tier(struct hanzo_rocm *ctx, const char *dir, const char *target,
                       const char *family, bool shared,
                       const struct hr_cache_key *expect_key, struct hr_entry *e,
                       char *why, size_t n);

/* Publish atomically as <dir>/<target>/<family>.hrco (creating <target>/). */
int hr_entry_write(struct hanzo_rocm *ctx, const char *dir, const char *family,
                   const char *target, const struct hr_cache_key *key,
                   const char *compiler, const void *payload, size_t size);

/*
 * Non-blocking open-file-description lock (F_OFD_SETLK) on
 * <dir>/<target>/.<family>.lock, retried until timeout_s; -ETIMEDOUT means
 * "go on without it" (publish is atomic anyway).  It excludes other
 * processes, other contexts and other threads of this process alike.
 * hr_entry_unlock leaves the lock file beside the entry it guarded;
 * hr_entry_unlock_discard, after a build that published nothing, removes
 * it first (still held: a waiter then locks a new file), so that a failed
 * build leaves no lock file behind.
 */
int hr_entry_lock(const char *dir, const char *target, const char *family,
                  unsigned timeout_s, int *fd);
void hr_entry_unlock(int fd);
void hr_entry_unlock_discard(const char *dir, const char *target, const char *family, int fd);


/* What a file inside a tier's <target>/ directory is. */
enum hr_cache_file {
	HR_CACHE_ENTRY,       /* <family>.hrco */
	HR_CACHE_TEMP,        /* .<family>.hrco.XXXXXX: a publish in progress or a crash's debris;
	                       * also the tier root's .plugins.index.XXXXXX and
	                       * ..toolchain-*.XXXXXX (target "", whole-tier scans only) */
	HR_CACHE_LOCK,        /* .<family>.lock */
	HR_CACHE_QUARANTINE,  /* <family>.hrco.bad-<pid>: moved aside as corrupt */
	HR_CACHE_IRREGULAR,   /* <family>.hrco that is a symlink, directory, FIFO...: never used;
	                       * also a <target> that is not a directory (a symlink...),
	                       * reported with name "" */
};
/*
 * Calls fn for every regular file of those kinds under dir/<target>/, for
 * an entry name that is not a regular file, and for a target name that is
 * not a real directory (both HR_CACHE_IRREGULAR: lookups never use them;
 * only target directories with safe names; symlinks are not followed).
 * target NULL = all.  A missing dir is no files.  fn returning < 0 stops
 * the walk.
 */
typedef int (*hr_cache_scan_fn)(void *data, const char *path, const char *target,
                                const char *name, enum hr_cache_file kind,
                                const struct stat *st);
int hr_cache_scan(const char *dir, const char *target, hr_cache_scan_fn fn,
                  void *data);

/*
 * Bound a (user) tier: evict the least recently used entries (by atime or
 * mtime, whichever is later) until they total <= max_size, sparing the path
 * keep (NULL = none); remove temp and lock files untouched for an hour
 * (unless the lock is held) and quarantined entries.
 */
struct hr_gc_stats {
	unsigned evicted;     /* entries removed */
	unsigned debris;      /* temp, lock and quarantined files removed */
	uint64_t freed;       /* bytes of the evicted entries */
	uint64_t total;       /* bytes of the entries left */
};
int hr_cache_gc(struct hanzo_rocm *ctx, const char *dir, uint64_t max_size,
                const char *keep, struct hr_gc_stats *st);

/*
 * The in-process memory tier, the context's cache slot (created on first
 * use): a hash table (family, target) -> bytes.  A lookup is a mutex and a hash probe.
 */
struct hr_cache;
struct hr_cache *hr_cache_get(struct hanzo_rocm *ctx);   /* NULL on ENOMEM */
/* -ENOENT when absent, or when it came from a tier in skip_mask. */
int hr_memory_lookup(struct hr_cache *c, const char *family, const char *target,
                     unsigned skip_mask, const void **data, size_t *size,
                     enum hr_tier *from);
/*
 * Takes ownership of data (malloc'd).  If a usable entry is already there
 * the new bytes are dropped and *out is the existing copy; one from a tier
 * in skip_mask is replaced (its bytes stay allocated until ctx is freed).
 */
int hr_memory_insert(struct hr_cache *c, const char *family, const char *target,
                     void *data, size_t size, enum hr_tier from,
                     unsigned skip_mask, const void **out, size_t *out_size);
/*
 * Compiles on a miss are serialised within the context: two threads must
 * not build the same thing, and waiting on a mutex beats polling the entry
 * lock (which excludes other contexts and processes).
 */
void hr_cache_compile_lock(struct hr_cache *c);
void hr_cache_compile_unlock(struct hr_cache *c);

/* ---- the lookup through the tiers (cache.c) ---------------------------- */

struct hr_family;
/*
 * One lookup: what hr_cache_lookup checked and listed, kept for its caller
 * on a miss (the kernel layer compiles then, lib/kernel/compile.c, and
 * publishes through hr_cache_publish).  Release with hr_cache_lookup_release.
 */
struct hr_lookup {
	struct hanzo_rocm *ctx;
	struct hr_cache *cache;
	const char *family;
	const char *target;               /* as asked, maybe with features */
	char generic[HR_TARGET_MAX];      /* its processor */
	unsigned skip_mask;
	struct hr_family *fam;            /* the family's plugin (not loaded) */
	struct hr_tier_dir *tiers;        /* the on-disk tiers, in order */
	size_t n_tiers;
};

/*
 * The code object of family for target: the memory tier, else the first
 * on-disk tier that has a valid one (exact target, then its generic
 * processor); never compiles.  Tiers in skip_mask (1u << enum hr_tier) are
 * passed over: the kernel layer uses it when a driver refuses bytes from a
 * tier (the user tier's refused entry is then moved aside, as a corrupt
 * one).  Bytes are owned by ctx (memory tier) until it is freed.  *from is
 * the tier the bytes were read from (also on a later memory hit, so that
 * the caller can skip exactly that tier).  0 found; HR_CACHE_MISS when no
 * tier has one (l then holds the family and the tiers for a compile: call
 * hr_cache_lookup_release(l) after it; any other return holds nothing);
 * -EINVAL bad name/target, -ENOENT unknown family.
 */
#define HR_CACHE_MISS 1
int hr_cache_lookup(struct hanzo_rocm *ctx, const char *family, const char *target,
                    unsigned skip_mask, struct hr_lookup *l, const void **data,
                    size_t *size, enum hr_tier *from);
void hr_cache_lookup_release(struct hr_lookup *l);

/*
 * After a miss, for the compile (cache/publish.c): the user tier when this
 * process may publish there (one the policy lets us write but the file
 * system does not gets one warning); its valid entry for l->target, kept
 * in the memory tier (another process may have published it while we
 * waited for the entry lock); publishing a freshly compiled code object
 * there (atomic; [cache] max_size bounds the tier; a failure is one
 * warning, not an error).
 */
const struct hr_tier_dir *hr_cache_user_tier(struct hr_lookup *l);
int hr_cache_user_entry(struct hr_lookup *l, const struct hr_tier_dir *user,
                        const void **data, size_t *size);
void hr_cache_publish(struct hr_lookup *l, const struct hr_tier_dir *user,
                      const char *compiler, const void *obj, size_t size);

#endif
