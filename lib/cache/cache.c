/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The cache object (struct hr_cache, the context's HR_SLOT_CACHE): its
 * memory tier ((family, target) -> bytes, one hash probe under a mutex) and
 * the per-context compile mutex; and the lookup through it,
 * hanzo_rocm_code_object(): the code object of a family for a target from
 * the memory tier (the hot path), else the first on-disk tier holding a
 * valid entry (the tiers in order: system, site, package, user, with the
 * user tier's ownership and mode checks; cache/entry.c reads and validates
 * entries), else a miss for the caller: the kernel layer compiles
 * (kernel/compile.c) and publishes in the user tier (cache/publish.c).
 * Layer: cache (lib/layers).
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "cache-internal.h"
#include "config/config.h"
#include "context.h"
#include "plugin/plugin.h"
#include "target/target.h"
#include "shared/util.h"
#include "shared/name.h"
#include "shared/trust.h"

/* ---- the memory tier --------------------------------------------------- */

struct mem_entry {
	struct mem_entry *next;
	uint64_t hash;
	enum hr_tier from;
	void *data;
	size_t size;
	char *family;
	char *target;
};

struct hr_cache {
	pthread_mutex_t lock;
	pthread_mutex_t compile_lock; /* one compile at a time in this process */
	struct mem_entry **buckets;
	size_t n_buckets, n_entries;
	void **retired;       /* replaced bytes: callers may still hold them */
	size_t n_retired;
	struct hr_cache_counters counters;   /* relaxed atomics, no lock */
};

#define COUNT(field, n) __atomic_fetch_add(&(field), (uint64_t)(n), __ATOMIC_RELAXED)

uint64_t hr_cache_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void hr_cache_count_compile(struct hr_cache *c, uint64_t start_ns, bool ok)
{
	COUNT(c->counters.compiles, ok);
	COUNT(c->counters.compile_failures, !ok);
	COUNT(c->counters.compile_ns, hr_cache_clock_ns() - start_ns);
}

void hr_cache_counters_get(struct hanzo_rocm *ctx, struct hr_cache_counters *out)
{
	struct hr_cache *c = hr_ctx_peek(ctx, HR_SLOT_CACHE);
	uint64_t *dst = (uint64_t *)out;
	const uint64_t *src;

	memset(out, 0, sizeof(*out));
	if (!c)
		return;
	src = (const uint64_t *)&c->counters;
	for (size_t i = 0; i < sizeof(*out) / sizeof(uint64_t); i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

static void cache_free(void *state)
{
	struct hr_cache *c = state;

	for (size_t i = 0; i < c->n_buckets; i++) {
		struct mem_entry *m = c->buckets[i], *next;

		for (; m; m = next) {
			next = m->next;
			free(m->data);
			free(m->family);
			free(m->target);
			free(m);
		}
	}
	for (size_t i = 0; i < c->n_retired; i++)
		free(c->retired[i]);
	free(c->retired);
	free(c->buckets);
	pthread_mutex_destroy(&c->compile_lock);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

static int cache_new(struct hanzo_rocm *ctx, void **ret)
{
	struct hr_cache *c = calloc(1, sizeof(*c));

	(void)ctx;
	if (!c)
		return -ENOMEM;
	c->n_buckets = 64;
	c->buckets = calloc(c->n_buckets, sizeof(*c->buckets)); // NOLINT(bugprone-sizeof-expression): an array of pointers
	if (!c->buckets) {
		free(c);
		return -ENOMEM;
	}
	pthread_mutex_init(&c->lock, NULL);
	pthread_mutex_init(&c->compile_lock, NULL);
	*ret = c;
	return 0;
}

struct hr_cache *hr_cache_get(struct hanzo_rocm *ctx)
{
	void *c;

	return hr_ctx_lazy(ctx, HR_SLOT_CACHE, cache_new, cache_free, &c) < 0 ? NULL : c;
}

/* FNV-1a over "family\0target". */
static uint64_t mem_hash(const char *family, const char *target)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (const char *p = family; *p; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
	h *= 0x100000001b3ull;
	for (const char *p = target; *p; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
	return h;
}

static struct mem_entry *mem_find(struct hr_cache *c, uint64_t h,
                                  const char *family, const char *target)
{
	for (struct mem_entry *m = c->buckets[h % c->n_buckets]; m; m = m->next)
		if (m->hash == h && strcmp(m->family, family) == 0 &&
		    strcmp(m->target, target) == 0)
			return m;
	return NULL;
}

int hr_memory_lookup(struct hr_cache *c, const char *family, const char *target,
                     unsigned skip_mask, const void **data, size_t *size,
                     enum hr_tier *from)
{
	uint64_t h = mem_hash(family, target);
	struct mem_entry *m;
	int r = -ENOENT;

	if (skip_mask & (1u << HR_TIER_MEMORY))
		return -ENOENT;
	pthread_mutex_lock(&c->lock);
	m = mem_find(c, h, family, target);
	if (m && !(skip_mask & (1u << m->from))) {
		*data = m->data;
		*size = m->size;
		if (from)
			*from = m->from;
		r = 0;
	}
	pthread_mutex_unlock(&c->lock);
	return r;
}

static void mem_grow(struct hr_cache *c)
{
	size_t n = c->n_buckets * 2;
	struct mem_entry **b = calloc(n, sizeof(*b)); // NOLINT(bugprone-sizeof-expression): an array of pointers

	if (!b)
		return; /* longer chains, still correct */
	for (size_t i = 0; i < c->n_buckets; i++) {
		struct mem_entry *m = c->buckets[i], *next;

		for (; m; m = next) {
			next = m->next;
			m->next = b[m->hash % n];
			b[m->hash % n] = m;
		}
	}
	free(c->buckets);
	c->buckets = b;
	c->n_buckets = n;
}

int hr_memory_insert(struct hr_cache *c, const char *family, const char *target,
                     void *data, size_t size, enum hr_tier from,
                     unsigned skip_mask, const void **out, size_t *out_size)
{
	uint64_t h = mem_hash(family, target);
	struct mem_entry *m;
	int r = 0;

	pthread_mutex_lock(&c->lock);
	m = mem_find(c, h, family, target);
	if (m && !(skip_mask & (1u << m->from))) {
		/* Another thread got there first: use its copy. */
		free(data);
	} else if (m) {
		void **v = realloc(c->retired, (c->n_retired + 1) * sizeof(*v));

		if (!v) {
			/* cppcheck-suppress doubleFree ; not reached after the branch above */
			free(data);
			r = -ENOMEM;
			goto out;
		}
		c->retired = v;
		c->retired[c->n_retired++] = m->data;
		m->data = data;
		m->size = size;
		m->from = from;
	} else {
		m = calloc(1, sizeof(*m));
		if (m) {
			m->family = strdup(family);
			m->target = strdup(target);
		}
		if (!m || !m->family || !m->target) {
			if (m) {
				free(m->family);
				free(m->target);
			}
			free(m);
			free(data);
			r = -ENOMEM;
			goto out;
		}
		m->hash = h;
		m->data = data;
		m->size = size;
		m->from = from;
		if (c->n_entries >= c->n_buckets)
			mem_grow(c);
		m->next = c->buckets[h % c->n_buckets];
		c->buckets[h % c->n_buckets] = m;
		c->n_entries++;
	}
	*out = m->data;
	*out_size = m->size;
out:
	pthread_mutex_unlock(&c->lock);
	return r;
}

void hr_cache_compile_lock(struct hr_cache *c)
{
	pthread_mutex_lock(&c->compile_lock);
}

void hr_cache_compile_unlock(struct hr_cache *c)
{
	pthread_mutex_unlock(&c->compile_lock);
}

/* ---- tiers ------------------------------------------------------------- */

/* Writable now, or creatable: the nearest existing ancestor is writable. */
static bool dir_writable(const char *path)
{
	char *p = strdup(path), *slash;
	bool ok = false;

	if (!p)
		return false;
	for (;;) {
		struct stat st;

		if (stat(p, &st) == 0) {
			ok = S_ISDIR(st.st_mode) && access(p, W_OK | X_OK) == 0;
			break;
		}
		if (errno != ENOENT)
			break;
		slash = strrchr(p, '/');
		if (!slash)
			break;
		if (slash == p) {
			p[1] = '\0';
		} else {
			*slash = '\0';
		}
	}
	free(p);
	return ok;
}

static HR_PRINTF(2, 3) void warn_once(struct hanzo_rocm *ctx, const char *fmt, ...)
{
	char msg[PATH_MAX + 256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (hr_ctx_warn_once(ctx, msg))
		hr_warn(ctx, "%s\n", msg);
}

/*
 * The user tier, if usable: policy allows it, it is ours and private (a
 * directory someone else can write could feed us code objects: the trust
 * rule of shared/trust.h, so umask 002 with a private group is fine), and its
 * home exists (no cache trees grown at "/nonexistent" for system users).
 */
static int user_tier_dir(struct hanzo_rocm *ctx, const struct hr_config *cfg,
                     struct hr_tier_dir *t)
{
	const char *home = hr_getenv("HOME");
	struct stat st;
	size_t hl;

	if (cfg->policy == HR_POLICY_OFF)
		return 0;
	if (!cfg->user_dir) {
		warn_once(ctx, "%s", "no user cache directory (HOME is not set): caching disabled");
		return 0;
	}
	hl = home ? strlen(home) : 0;
	if (hl > 1 && strncmp(cfg->user_dir, home, hl) == 0 &&
	    cfg->user_dir[hl] == '/' && stat(home, &st) < 0) {
		warn_once(ctx, "home directory %s does not exist: user cache disabled", home);
		return 0;
	}
	if (stat(cfg->user_dir, &st) == 0) {
		char why[PATH_MAX + 256] = "";

		/* The trust rule (a private group's write bit is fine), and ours. */
		if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
		    *hr_trust_stat(hr_ctx_trust(ctx), &st, HR_TRUST_SELF, cfg->user_dir,
		                   why, sizeof(why))) {
			warn_once(ctx, "user cache %s is not a private directory owned by "
			          "this user (%s): caching disabled", cfg->user_dir,
			          why[0] ? why : !S_ISDIR(st.st_mode) ? "not a directory" :
			          "owned by another user");
			return 0;
		}
	}
	t->tier = HR_TIER_USER;
	t->path = strdup(cfg->user_dir);
	if (!t->path)
		return -ENOMEM;
	t->writable = cfg->policy == HR_POLICY_READWRITE && dir_writable(cfg->user_dir);
	return 1;
}

/*
 * A configured shared (system, site, package) tier that exists but fails
 * the trust rule (shared/trust.h: it and every ancestor) is skipped, loudly.
 * Whoever else could write it, or swap it by renaming an ancestor's
 * entries, could substitute the code of every job that reads it.  Lookups
 * apply the rule again on the descriptors they read (hr_entry_read_tier).
 */
static bool shared_tier_ok(struct hanzo_rocm *ctx, enum hr_tier tier, const char *path)
{
	char why[PATH_MAX + 256];
	int fd = hr_trust_open_dir(hr_ctx_trust(ctx), path, why, sizeof(why));

	if (fd >= 0) {
		close(fd);
		return true;
	}
	if (fd != -EPERM)
		return true; /* nothing to read there (yet) */
	warn_once(ctx, "%s cache %s is %s: not used", hr_tier_name(tier), path, why);
	return false;
}

static int push_tier(struct hr_tier_dir **v, size_t *n, enum hr_tier tier,
                     const char *path, bool writable)
{
	struct hr_tier_dir *nv;

	/* The same directory twice (site = system, say) is searched once. */
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*v)[i].path, path) == 0)
			return 0;
	nv = realloc(*v, (*n + 1) * sizeof(**v));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n].tier = tier;
	nv[*n].writable = writable;
	nv[*n].path = strdup(path);
	if (!nv[*n].path)
		return -ENOMEM;
	(*n)++;
	return 0;
}

void hr_cache_tiers_free(struct hr_tier_dir *tiers, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(tiers[i].path);
	free(tiers);
}

int hr_cache_tiers(struct hanzo_rocm *ctx, struct hr_tier_dir **tiers, size_t *n)
{
	const struct hr_config *cfg = ctx ? hr_ctx_config(ctx) : NULL;
	struct hr_tier_dir *v = NULL, user = { 0 };
	size_t k = 0;
	char *pkg = NULL;
	int r = 0;

	*tiers = NULL;
	*n = 0;
	if (!cfg)
		return 0;
	if (cfg->system_dir && *cfg->system_dir &&
	    shared_tier_ok(ctx, HR_TIER_SYSTEM, cfg->system_dir))
		r = push_tier(&v, &k, HR_TIER_SYSTEM, cfg->system_dir,
		              dir_writable(cfg->system_dir));
	for (size_t i = 0; r == 0 && cfg->site_dirs && cfg->site_dirs[i]; i++)
		if (shared_tier_ok(ctx, HR_TIER_SITE, cfg->site_dirs[i]))
			r = push_tier(&v, &k, HR_TIER_SITE, cfg->site_dirs[i], false);
	if (r == 0) {
		pkg = hr_root_path(cfg->root, HR_PLUGINCACHEDIR);
		if (!pkg)
			r = -ENOMEM;
		else if (shared_tier_ok(ctx, HR_TIER_PACKAGE, pkg))
			r = push_tier(&v, &k, HR_TIER_PACKAGE, pkg, false);
		free(pkg);
	}
	if (r == 0) {
		r = user_tier_dir(ctx, cfg, &user);
		if (r > 0) {
			r = push_tier(&v, &k, HR_TIER_USER, user.path, user.writable);
			free(user.path);
		}
	}
	if (r < 0) {
		hr_cache_tiers_free(v, k);
		return r;
	}
	*tiers = v;
	*n = k;
	return 0;
}

/* ---- the lookup ------------------------------------------------------- */

void hr_cache_lookup_key(const struct hr_lookup *l, const char *target,
                         struct hr_cache_key *key)
{
	const struct hr_config *cfg = hr_ctx_config(l->ctx);

	hr_cache_key_compute(l->fam->family, l->fam->source_sha256,
	                     (const char *const *)l->fam->flags,
	                     cfg ? cfg->flags : NULL, target, key);
}

/*
 * Keep the payload only: the memory tier hands out exactly the code object.
 * It takes over the entry's buffer (hr_entry.data, the whole file, owned),
 * the payload moved to its front: no second copy of a code object.
 */
static int keep(struct hr_lookup *l, struct hr_entry *e, enum hr_tier from,
                const void **data, size_t *size)
{
	size_t n = e->payload_size;
	void *bytes = e->data, *shrunk;

	memmove(bytes, e->payload, n);
	shrunk = realloc(bytes, n ? n : 1);
	if (shrunk)
		bytes = shrunk;
	*e = (struct hr_entry){ 0 };
	return hr_memory_insert(l->cache, l->family, l->target, bytes, n, from,
	                        l->skip_mask, data, size);
}

/*
 * A bad entry is a miss, logged once.  Only the user tier is ours to clean:
 * the corrupt file is moved aside so it is neither retried nor lost for a
 * post-mortem; system, site and package tiers are never touched.
 */
static void bad_entry(struct hr_lookup *l, const struct hr_tier_dir *t,
                      const char *path, int err, const char *why)
{
	char msg[512], *aside = NULL;

	if (err == -ESTALE) {
		hr_info(l->ctx, "%s: %s; rebuilding\n", path, why);
		return;
	}
	snprintf(msg, sizeof(msg), "%s: %s", path, why);
	if (hr_ctx_warn_once(l->ctx, msg))
		hr_warn(l->ctx, "ignoring cache entry %s\n", msg);
	if (t->tier != HR_TIER_USER || !t->writable ||
	    (err != -EBADMSG && err != -ENOEXEC))
		return;
	if (asprintf(&aside, "%s.bad-%ld", path, (long)getpid()) < 0)
		return;
	if (rename(path, aside) < 0)
		(void)unlink(path);
	free(aside);
}

static int read_tier(struct hr_lookup *l, const struct hr_tier_dir *t,
                     const char *target, const struct hr_cache_key *key,
                     struct hr_entry *e)
{
	char why[256], *path;
	int r;

	r = hr_entry_read_tier(l->ctx, t->path, target, l->family,
	                       t->tier != HR_TIER_USER, key, e, why, sizeof(why));
	if (r == -EPERM) {
		if (hr_ctx_warn_once(l->ctx, why))
			hr_warn(l->ctx, "%s: not used\n", why);
		return -ENOENT;
	}
	if (r >= 0 || r == -ENOENT || r == -ENOTDIR || r == -ENOMEM)
		return r;
	/* The path only for a bad entry's message and move aside. */
	path = hr_entry_path(t->path, target, l->family);
	if (path)
		bad_entry(l, t, path, r, why);
	free(path);
	return r;
}

/*
 * The runtime passes the user tier in skip_mask when a driver (or the host
 * backend) refused the bytes it gave.  That entry is moved aside like a
 * corrupt one: with compile = never nothing would replace it, and every
 * process would load it again (a host entry: dlopen it again).  It is the
 * exact target's entry when the user tier has a valid one, else the
 * generic's, as search_tiers served it.
 */
static void refused_user_entry(struct hr_lookup *l)
{
	const char *targets[2] = { l->target, l->generic };
	size_t n_targets = strcmp(l->target, l->generic) == 0 ? 1 : 2;

	for (size_t k = 0; k < l->n_tiers; k++) {
		const struct hr_tier_dir *t = &l->tiers[k];

		if (t->tier != HR_TIER_USER)
			continue;
		for (size_t i = 0; i < n_targets; i++) {
			struct hr_cache_key key;
			struct hr_entry e;
			char *path;

			hr_cache_lookup_key(l, targets[i], &key);
			if (read_tier(l, t, targets[i], &key, &e) < 0)
				continue;
			hr_entry_release(&e);
			path = hr_entry_path(t->path, targets[i], l->family);
			if (path)
				bad_entry(l, t, path, -ENOEXEC, "the driver refused it");
			free(path);
			return;
		}
	}
}

/* The exact target ID first, then its generic processor, tier by tier. */
static int search_tiers(struct hr_lookup *l, const void **data, size_t *size,
                        enum hr_tier *from)
{
	const char *targets[2] = { l->target, l->generic };
	size_t n_targets = strcmp(l->target, l->generic) == 0 ? 1 : 2;

	for (size_t i = 0; i < n_targets; i++) {
		struct hr_cache_key key;

		hr_cache_lookup_key(l, targets[i], &key);
		for (size_t k = 0; k < l->n_tiers; k++) {
			const struct hr_tier_dir *t = &l->tiers[k];
			struct hr_entry e;
			int r;

			struct hr_tier_counters *tc = &l->cache->counters.tier[t->tier];
			uint64_t t0;

			if (l->skip_mask & (1u << t->tier))
				continue;
			t0 = hr_cache_clock_ns();
			r = read_tier(l, t, targets[i], &key, &e);
			COUNT(tc->lookups, 1);
			COUNT(tc->ns, hr_cache_clock_ns() - t0);
			if (r == -ENOMEM)
				return r;
			if (r < 0) {
				if (r == -ENOENT || r == -ENOTDIR)
					COUNT(tc->absent, 1);
				else
					COUNT(tc->bad, 1);
				continue;
			}
			COUNT(tc->hits, 1);
			COUNT(tc->bytes, e.payload_size);
			hr_dbg(l->ctx, "%s for %s from the %s tier %s\n", l->family,
			       l->target, hr_tier_name(t->tier), t->path);
			*from = t->tier;
			return keep(l, &e, t->tier, data, size);
		}
	}
	return -ENOENT;
}

/* The user tier's valid entry for l->target: -ENOENT when none (compile). */
int hr_cache_user_entry(struct hr_lookup *l, const struct hr_tier_dir *user,
                        const void **data, size_t *size)
{
	struct hr_cache_key key;
	struct hr_entry e;
	int r;

	hr_cache_lookup_key(l, l->target, &key);
	r = read_tier(l, user, l->target, &key, &e);
	return r < 0 ? -ENOENT : keep(l, &e, HR_TIER_USER, data, size);
}

void hr_cache_lookup_release(struct hr_lookup *l)
{
	hr_cache_tiers_free(l->tiers, l->n_tiers);
	l->tiers = NULL;
	l->n_tiers = 0;
}

int hr_cache_lookup(struct hanzo_rocm *ctx, const char *family, const char *target,
                    unsigned skip_mask, struct hr_lookup *l, const void **data,
                    size_t *size, enum hr_tier *from)
{
	enum hr_tier got = HR_TIER_MEMORY;
	int r;

	*l = (struct hr_lookup){ .ctx = ctx, .family = family, .target = target,
	                         .skip_mask = skip_mask };
	if (!ctx || !data || !size || !family || !target)
		return -EINVAL;
	l->cache = hr_cache_get(ctx);
	if (!l->cache)
		return -ENOMEM;
	/*
	 * The hot path: a mutex and a hash probe, no system call.  Only names
	 * that passed the checks below are ever inserted, so a hit needs none.
	 */
	r = hr_memory_lookup(l->cache, family, target, skip_mask, data, size, &got);
	COUNT(l->cache->counters.tier[HR_TIER_MEMORY].lookups, 1);
	if (r == 0) {
		COUNT(l->cache->counters.tier[HR_TIER_MEMORY].hits, 1);
		goto done;
	}
	COUNT(l->cache->counters.tier[HR_TIER_MEMORY].absent, 1);

	if (!hr_name_is_valid(family)) {
		hr_err(ctx, "invalid kernel family name '%s'\n", family);
		return -EINVAL;
	}
	/* hr_target_generic validates the target ID: one check, not two. */
	if (hr_target_generic(target, l->generic, sizeof(l->generic)) < 0) {
		hr_err(ctx, "invalid target '%s'\n", target);
		return -EINVAL;
	}
	r = hr_plugins_family(ctx, family, &l->fam);
	if (r < 0) {
		hr_err(ctx, "unknown kernel family '%s' (see hanzo-rocm plugins)\n", family);
		return r;
	}
	r = hr_cache_tiers(ctx, &l->tiers, &l->n_tiers);
	if (r < 0)
		return r;
	if (skip_mask & (1u << HR_TIER_USER))
		refused_user_entry(l);
	r = search_tiers(l, data, size, &got);
	if (r == -ENOENT)
		return HR_CACHE_MISS;   /* the caller releases l after its compile */
	hr_cache_lookup_release(l);
done:
	if (r == 0 && from)
		*from = got;
	return r;
}
