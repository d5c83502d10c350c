/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The remote tier's trust (layer: cache; lib/layers): Ed25519 keys written
 * "name:base64" as Nix binary caches write them, and the small signed
 * manifest that names one blob of a remote cache.  A remote server serves
 * `ac/<cache key>` (a manifest) and `cas/<sha256>` (a blob: a whole cache
 * entry file, cache-entry.c's format), as Bazel's HTTP cache lays them
 * out.  Nothing fetched is trusted: a manifest counts only once its
 * signature verifies with a trusted key and it names the key, family and
 * target asked for; a blob only once its size and SHA-256 are the
 * manifest's (then the caller validates it as any local entry: ELF,
 * machine, target) -- all before any loader sees a byte.
 *
 * A manifest, every line ending in '\n', in this order and nothing else:
 *   hanzo-rocm-manifest 1
 *   key <cache key, 64 lower-case hex>
 *   family <family name>
 *   target <target name>
 *   blob <SHA-256 of the blob, 64 lower-case hex>
 *   size <bytes of the blob, decimal, 1..HR_REMOTE_BLOB_MAX>
 *   signer <key name>
 *   sig <base64 of the 64-byte Ed25519 signature>
 * The signature is over every byte before the "sig " line, so it binds the
 * cache key, family, target, blob hash, size and the signer's name: a
 * valid manifest copied under another key, or served for another target,
 * is refused.
 */
#ifndef HR_REMOTE_H
#define HR_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/cache.h"
#include "target/target.h"

/* A key name: 1..64 of [A-Za-z0-9._-], not starting with '.' or '-'. */
#define HR_REMOTE_NAME_MAX 64
/* The text of a key, "name:base64" of 64 bytes, with its NUL. */
#define HR_REMOTE_KEY_TEXT_MAX (HR_REMOTE_NAME_MAX + 1 + 88 + 1)
/* A manifest is at most this many bytes; anything longer is refused. */
#define HR_MANIFEST_MAX 1024
/* A blob (one cache entry) is at most this many bytes. */
#define HR_REMOTE_BLOB_MAX (256ull << 20)

bool hr_remote_key_name_is_valid(const char *s);

struct hr_remote_pubkey {
	char name[HR_REMOTE_NAME_MAX + 1];
	uint8_t pub[32];
};
/* A builder's signing key: the Ed25519 seed and its public key. */
struct hr_remote_seckey {
	char name[HR_REMOTE_NAME_MAX + 1];
	uint8_t seed[32];
	uint8_t pub[32];
};

/* "name:base64(32 bytes)", whole string, canonical base64; -EINVAL. */
int hr_remote_pubkey_parse(const char *s, struct hr_remote_pubkey *k);
/* "name:" + base64 of pub into out (HR_REMOTE_KEY_TEXT_MAX bytes). */
void hr_remote_pubkey_format(const char *name, const uint8_t pub[32], char *out);
/*
 * A secret key's text, "name:base64(seed || public key)" (64 bytes, as
 * Nix), an optional final newline; the public half must be the seed's.
 */
int hr_remote_seckey_parse(const char *s, size_t n, struct hr_remote_seckey *k);
void hr_remote_seckey_format(const struct hr_remote_seckey *k, char *out);
/* A new key from getrandom(2); -EINVAL for a bad name. */
int hr_remote_seckey_generate(const char *name, struct hr_remote_seckey *k);
/*
 * Read a secret key file: opened without following symlinks or blocking,
 * a regular file owned by this user and neither readable nor writable by
 * group or others (else -EPERM, the reason in why); -EINVAL bad contents.
 */
int hr_remote_seckey_load(const char *path, struct hr_remote_seckey *k,
                          char *why, size_t n);
/*
 * Write the secret key to path, mode 0600, atomically (a temp file beside
 * it, fsync, link: never a partial file) and never over an existing file
 * (-EEXIST).
 */
int hr_remote_seckey_write(const char *path, const struct hr_remote_seckey *k);
/* Forget a secret key (explicit_bzero). */
void hr_remote_seckey_wipe(struct hr_remote_seckey *k);
/*
 * Open a credential file ([remote] auth_file, client_key): without
 * following symlinks or blocking, a regular file owned by this user or
 * root, neither accessible by others nor writable by the group.  The fd,
 * or -EPERM / -errno with the reason in why.
 */
int hr_remote_private_open(const char *path, char *why, size_t n);
/*
 * [remote] auth_file: one line, "Bearer TOKEN" (RFC 6750 token68) or
 * "Basic USER:PASSWORD" (printable ASCII; sent base64-encoded), a final
 * newline allowed; *header = "Authorization: ..." (malloc'd).  -EINVAL bad
 * contents, or hr_remote_private_open's errors; why says which.
 */
int hr_remote_auth_header(const char *path, char **header, char *why, size_t n);

struct hr_manifest {
	struct hr_cache_key key;
	char family[65];
	char target[HR_TARGET_MAX];
	uint8_t blob[32];
	uint64_t size;
	char signer[HR_REMOTE_NAME_MAX + 1];
	uint8_t sig[64];
	size_t signed_len;     /* bytes before the "sig " line */
};

/*
 * Why a remote lookup did not return an entry (each counted by name).
 * The first ones are the manifest's and the blob's; the rest the
 * transport's.
 */
enum hr_remote_reason {
	HR_REMOTE_OK,
	HR_REMOTE_BAD_MANIFEST,     /* not a manifest of the grammar above */
	HR_REMOTE_UNTRUSTED_KEY,    /* signer is none of the trusted keys */
	HR_REMOTE_BAD_SIGNATURE,    /* does not verify with the signer's key */
	HR_REMOTE_WRONG_TARGET,     /* signed for another target */
	HR_REMOTE_WRONG_KEY,        /* signed for another cache key or family (a replay) */
	HR_REMOTE_BAD_SIZE,         /* blob length is not the signed size */
	HR_REMOTE_BAD_HASH,         /* blob SHA-256 is not the signed one */
	HR_REMOTE_BAD_ENTRY,        /* blob is not a valid entry (header, ELF, target) */
	HR_REMOTE_NOT_FOUND,        /* 404 */
	HR_REMOTE_TIMEOUT,
	HR_REMOTE_CONNECT,          /* refused, unreachable, DNS, TLS */
	HR_REMOTE_HTTP_4XX,
	HR_REMOTE_HTTP_5XX,
	HR_REMOTE_BREAKER_OPEN,     /* skipped: the circuit breaker is open */
	HR_REMOTE_BUDGET,           /* skipped: the process's time budget is spent */
	HR_REMOTE_N_REASONS
};
/* "bad_signature", ... (the names statistics and logs use). */
const char *hr_remote_reason_name(enum hr_remote_reason r);

/* Syntax only (no signature check): 0, or -EBADMSG. */
int hr_manifest_parse(const void *text, size_t n, struct hr_manifest *m);
/*
 * Sign m's key, family, target, blob and size as k (m->signer and m->sig
 * are set) and write the manifest text into out (cap >= HR_MANIFEST_MAX);
 * *len its length.  -EINVAL for a field outside the grammar.
 */
int hr_manifest_sign(struct hr_manifest *m, const struct hr_remote_seckey *k,
                     char *out, size_t cap, size_t *len);
/*
 * Parse and check a fetched manifest against what was asked (key, family,
 * target) and the trusted keys; m is filled when it returns HR_REMOTE_OK.
 */
enum hr_remote_reason hr_manifest_verify(const void *text, size_t n,
                                         const struct hr_remote_pubkey *trusted,
                                         size_t n_trusted,
                                         const struct hr_cache_key *key,
                                         const char *family, const char *target,
                                         struct hr_manifest *m);
/* The blob against a verified manifest: size, then SHA-256. */
enum hr_remote_reason hr_manifest_check_blob(const struct hr_manifest *m,
                                             const void *blob, size_t n);

/* ---- the HTTP transport: a module, remote.so (http.c) ------ */

/*
 * The base library links no network library: the HTTP(S) client is a
 * separate module (libcurl), dlopen-ed only when a remote tier is used.
 * It exports `hr_remote_http_ops` (HR_REMOTE_HTTP_SYMBOL); a module of
 * another abi is refused.  The module only moves bytes: every check of
 * what it returns is the base library's.
 */
#define HR_REMOTE_HTTP_ABI 2
#define HR_REMOTE_HTTP_SYMBOL "hr_remote_http_ops"

struct hr_remote_http_opts {
	unsigned connect_ms;       /* TCP (and TLS) connect */
	unsigned request_ms;       /* a whole request */
	unsigned low_speed_bps;    /* abort below this many bytes/s ... */
	unsigned low_speed_s;      /* ... for this many seconds (0: never) */
	const char *ca_file;       /* NULL: the system's CAs */
	const char *cert_file, *key_file;  /* TLS client certificate */
	const char *auth_header;   /* e.g. "Authorization: Bearer ..." or NULL */
};

struct hr_remote_http_ops {
	unsigned abi;
	/* NULL on ENOMEM or when the HTTP library cannot start. */
	void *(*client_new)(const struct hr_remote_http_opts *o);
	void (*client_free)(void *client);
	/*
	 * GET url, at most max bytes (more is a failure), within timeout_ms
	 * (at most the request timeout).  HR_REMOTE_OK with *body (malloc'd)
	 * and *n on 200; else a transport reason (not_found on 404) and
	 * nothing allocated.  *status: the HTTP status, 0 when none came.
	 */
	enum hr_remote_reason (*get)(void *client, const char *url, size_t max,
	                             unsigned timeout_ms, void **body, size_t *n,
	                             long *status);
	/* PUT the n bytes at url: HR_REMOTE_OK on 200, 201 or 204. */
	enum hr_remote_reason (*put)(void *client, const char *url, const void *body,
	                             size_t n, unsigned timeout_ms, long *status);
	/*
	 * Redis leases for a single compile across nodes (hiredis,
	 * redis.c).  redis_new: "redis://HOST:PORT", connected
	 * within connect_ms, every command within timeout_ms; NULL when it
	 * cannot connect or the module was built without hiredis (why says
	 * which).  lease_take: SET name token NX PX ms -- 1 taken, 0 held by
	 * another, -EIO.  lease_held: 1 the name exists, 0 not, -EIO.
	 * lease_release: deletes name only while it still holds token (a
	 * compare-and-delete script), 0 or -EIO.
	 */
	void *(*redis_new)(const char *url, unsigned connect_ms, unsigned timeout_ms,
	                   char *why, size_t n);
	void (*redis_free)(void *redis);
	int (*lease_take)(void *redis, const char *name, const char *token, unsigned ms);
	int (*lease_held)(void *redis, const char *name);
	int (*lease_release)(void *redis, const char *name, const char *token);
};

/* ---- bounded waiting: breaker and budget (client.c) ------- */

/*
 * Per process and remote (remote.c keeps one breaker per url, and one
 * guard whose breaker never opens for the process's budget): after
 * `threshold` failures in a row (timeouts,
 * connect errors, 5xx; a 404 or a refused entry is an answer, not a
 * failure) the remote is skipped for a back-off that starts at backoff_ms
 * and doubles at each failed probe up to backoff_cap_ms; one request
 * probes it then, and a success closes it.  Time spent waiting on the
 * remote is bounded by budget_ms in all: a request never gets more than
 * what is left, and none is made once it is spent.
 */
struct hr_remote_guard {
	unsigned threshold, backoff_ms, backoff_cap_ms, budget_ms;
	unsigned failures;         /* in a row */
	unsigned backoff_now_ms;   /* the next back-off */
	uint64_t open_until_ns;    /* CLOCK_MONOTONIC; 0: closed */
	uint64_t spent_ns;
};
void hr_remote_guard_init(struct hr_remote_guard *g, unsigned threshold,
                          unsigned backoff_ms, unsigned backoff_cap_ms,
                          unsigned budget_ms);
/*
 * May a request start now?  HR_REMOTE_OK with *timeout_ms cut to the
 * budget left, or HR_REMOTE_BREAKER_OPEN / HR_REMOTE_BUDGET.
 */
enum hr_remote_reason hr_remote_guard_enter(struct hr_remote_guard *g,
                                            uint64_t now_ns, unsigned *timeout_ms);
/* A request that entered ended at now_ns after started at start_ns with r. */
void hr_remote_guard_leave(struct hr_remote_guard *g, uint64_t start_ns,
                           uint64_t now_ns, enum hr_remote_reason r);

/*
 * Load the HTTP module at path: the file and every directory above it
 * must pass the plugin trust rule (util-trust.h), and the very file that
 * was checked is the one loaded (dlopen of its descriptor).  *ops and
 * *dl (for dlclose) on success; -EPERM (why says which path and why),
 * -ENOEXEC (not a module of this ABI), another negative errno.
 */
int hr_remote_http_load(const char *path, const struct hr_remote_http_ops **ops,
                        void **dl, char *why, size_t n);

/* ---- the remote tier of a context (remote.c) --------------------- */

struct hanzo_rocm;

/* Counters of one context's remote tier. */
struct hr_remote_stats {
	uint64_t lookups;      /* asked on a local miss */
	uint64_t hits;         /* checked, published into the user tier */
	uint64_t misses[HR_REMOTE_N_REASONS];   /* by reason (not_found, bad_signature, ...) */
	uint64_t bytes;        /* code-object bytes of the hits */
	uint64_t ns;           /* time spent in requests */
	uint64_t pushes;       /* entries pushed (hanzo-rocm cache push, a builder's compile) */
	uint64_t leases;       /* Redis leases taken (this node compiled for the cluster) */
	uint64_t waits;        /* misses waited on another node's lease, or re-checked */
	uint64_t wait_hits;    /* ... that ended with the entry from the remote */
	uint64_t wait_ns;      /* time spent waiting so */
	uint64_t compiles;     /* misses compiled here with a remote configured */
};
void hr_remote_stats_get(struct hanzo_rocm *ctx, struct hr_remote_stats *st);

/*
 * Is the remote at base reachable?  A GET of a manifest nobody has (the
 * all-zero key), through the breaker and budget: HR_REMOTE_NOT_FOUND (or
 * OK) when it answered, else why not.
 */
enum hr_remote_reason hr_remote_probe(struct hanzo_rocm *ctx, const char *base);

/*
 * The entry of family for target under cache key on one remote (base),
 * checked as a lookup checks it -- manifest syntax, trusted signer,
 * signature, key, family and target; blob size and SHA-256; the code
 * object's ELF machine and target -- but published nowhere (`hanzo-rocm
 * cache verify --remote`).  HR_REMOTE_OK with *m filled, else why not.
 */
enum hr_remote_reason hr_remote_check(struct hanzo_rocm *ctx, const char *base,
                                      const struct hr_cache_key *key, const char *family,
                                      const char *target, struct hr_manifest *m);

/* [remote] url is set. */
bool hr_remote_configured(const struct hanzo_rocm *ctx);
/*
 * After a miss of every local tier (l from hr_cache_lookup): the remotes
 * in order; a checked hit is published into the user tier and read back
 * from it (*from HR_TIER_USER).  -ENOENT: none configured, no writable
 * user tier, or a miss (counted by reason; with [cache] compile = never,
 * logged as an error naming the cache key).
 */
int hr_remote_fetch(struct hr_lookup *l, const void **data, size_t *size,
                    enum hr_tier *from);
/*
 * Push a (validated) entry to every remote: its code object to cas/<sha256>,
 * then a manifest signed with [remote] signing_key to ac/<cache key>.
 * -EINVAL not configured as a builder, -EPERM the key file refused, -EIO a
 * remote failed; why says which and why.
 */
int hr_remote_push(struct hanzo_rocm *ctx, const struct hr_entry *e, char *why, size_t n);

/*
 * A single compile across nodes, after a miss of every tier, remote
 * included (kernel/compile.c, before it compiles).  With [remote] redis a
 * node that can push (signing_key) takes the lease of the cache key (SET
 * NX PX [remote] lease) and compiles; the others -- and nodes without a
 * signing key, which never take one, since they could not push what they
 * compile -- wait while the lease is held, polling the remote with
 * jittered sleeps, bounded by the lease and the remote budget (waiting is
 * charged to it), then load the entry, or take the lease when it expired
 * unreleased (or compile, without a key).  Without Redis: a jittered
 * sleep (at most 200 ms) and one more look at the remote.  0 with the
 * entry (from the remote, published into the user tier); -ENOENT: compile,
 * and then call hr_remote_compiled (*lease says what to release).
 */
struct hr_remote_lease;
int hr_remote_before_compile(struct hr_lookup *l, const void **data, size_t *size,
                             enum hr_tier *from, struct hr_remote_lease **lease);
/*
 * After the compile of a miss (data NULL when it failed): a node with a
 * signing key pushes the code object (lease or not), then the lease is
 * released and freed.
 */
void hr_remote_compiled(struct hr_lookup *l, struct hr_remote_lease *lease,
                        const void *data, size_t size);

#endif
