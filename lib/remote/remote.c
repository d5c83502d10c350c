/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The remote tier of one context: [remote] url in order, after the local
 * tiers and before a compile (the kernel layer asks, kernel/compile.c).
 * A hit is checked -- manifest signature with a trusted key, the key,
 * family and target asked for, blob size and SHA-256, the ELF validation
 * of a local entry -- before it is published into the user tier, from
 * which the normal, fully validated read hands it out.  Every request goes
 * through the breaker and the budget (client.c); the HTTP
 * module is loaded on first use.  One request at a time per context.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "remote.h"
#include "config/config.h"
#include "context.h"
#include "plugin/plugin.h"
#include "shared/util.h"
#include "shared/elf.h"

/* After this many failures in a row a remote is skipped for a back-off of
 * 1 s, doubling up to 60 s (hanzo-rocm.conf(5)). */
#define BREAKER_THRESHOLD 3
#define BACKOFF_MS 1000
#define BACKOFF_CAP_MS 60000

struct hr_remote {
	pthread_mutex_t lock;
	bool tried;                         /* the module was loaded, or failed to */
	const struct hr_remote_http_ops *ops;
	void *dl, *client;
	struct hr_remote_guard guard;       /* the budget, shared by every url */
	struct hr_remote_guard *breakers;   /* one breaker per url, in url order */
	size_t n_breakers;
	struct hr_remote_pubkey *trusted;
	size_t n_trusted;
	struct hr_remote_stats stats;
	bool show_stats;                    /* HANZO_ROCM_STATS=1: print them when freed */
	char **refused;                     /* "family/target" answered with a deterministic miss */
	void *redis;                        /* leases ([remote] redis); NULL: none or failed */
	bool redis_tried;
};

struct hr_remote_lease {
	char name[96];                      /* hanzo-rocm:lease:<cache key> */
	char token[40];                     /* this holder's */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One line on stderr (HANZO_ROCM_STATS=1, as Mesa's shader-cache statistics). */
static void stats_print(const struct hr_remote *r)
{
	const struct hr_remote_stats *st = &r->stats;

	fprintf(stderr, "hanzo-rocm: remote tier: %llu lookups, %llu hits, %llu bytes, "
	        "%llu ms waiting, %llu pushed; misses:", (unsigned long long)st->lookups,
	        (unsigned long long)st->hits, (unsigned long long)st->bytes,
	        (unsigned long long)(st->ns / 1000000u), (unsigned long long)st->pushes);
	for (int i = 1; i < HR_REMOTE_N_REASONS; i++)
		if (st->misses[i])
			fprintf(stderr, " %s %llu", hr_remote_reason_name((enum hr_remote_reason)i),
			        (unsigned long long)st->misses[i]);
	fputc('\n', stderr);
	fprintf(stderr, "hanzo-rocm: remote tier: %llu compiled here, %llu leases taken, "
	        "%llu waited (%llu loaded after waiting, %llu ms)\n",
	        (unsigned long long)st->compiles, (unsigned long long)st->leases,
	        (unsigned long long)st->waits, (unsigned long long)st->wait_hits,
	        (unsigned long long)(st->wait_ns / 1000000u));
}

static void remote_free(void *p)
{
	struct hr_remote *r = p;

	if (!r)
		return;
	if (r->show_stats)
		stats_print(r);
	if (r->redis)
		r->ops->redis_free(r->redis);
	if (r->client)
		r->ops->client_free(r->client);
	if (r->dl)
		dlclose(r->dl);
	pthread_mutex_destroy(&r->lock);
	hr_strv_free(r->refused);
	free(r->breakers);
	free(r->trusted);
	free(r);
}

static int remote_new(struct hanzo_rocm *ctx, void **ret)
{
	const struct hr_config *cfg = hr_ctx_config(ctx);
	size_t n = cfg ? hr_strv_len(cfg->remote_trusted_keys) : 0;
	struct hr_remote *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	pthread_mutex_init(&r->lock, NULL);
	r->show_stats = hr_getenv("HANZO_ROCM_STATS") && strcmp(hr_getenv("HANZO_ROCM_STATS"), "1") == 0;
	r->trusted = calloc(n ? n : 1, sizeof(*r->trusted));
	if (!r->trusted) {
		remote_free(r);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		if (hr_remote_pubkey_parse(cfg->remote_trusted_keys[i], &r->trusted[r->n_trusted]) == 0)
			r->n_trusted++;
		else
			hr_warn_admin(ctx, "[remote] trusted_keys: '%s' is not a public key "
			              "(NAME:BASE64 of 32 bytes): ignored\n", cfg->remote_trusted_keys[i]);
	}
	/* The budget is the process's; a breaker is each url's, so that a dead
	 * mirror is skipped while the next url's answers go on. */
	hr_remote_guard_init(&r->guard, UINT_MAX, BACKOFF_MS, BACKOFF_CAP_MS,
	                     cfg ? cfg->remote_budget_ms : 0);
	r->n_breakers = cfg ? hr_strv_len(cfg->remote_url) : 0;
	r->breakers = calloc(r->n_breakers ? r->n_breakers : 1, sizeof(*r->breakers));
	if (!r->breakers) {
		remote_free(r);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->n_breakers; i++)
		hr_remote_guard_init(&r->breakers[i], BREAKER_THRESHOLD, BACKOFF_MS, BACKOFF_CAP_MS,
		                     UINT_MAX);
	*ret = r;
	return 0;
}

static struct hr_remote *remote_get(struct hanzo_rocm *ctx)
{
	void *r;

	return hr_ctx_lazy(ctx, HR_SLOT_REMOTE, remote_new, remote_free, &r) < 0 ? NULL : r;
}

bool hr_remote_configured(const struct hanzo_rocm *ctx)
{
	const struct hr_config *cfg = hr_ctx_config(ctx);

	return cfg && cfg->remote_url && cfg->remote_url[0];
}

/* The module and its client, loaded once (r->lock held); false: unusable. */
static bool remote_open(struct hanzo_rocm *ctx, struct hr_remote *r)
{
	const struct hr_config *cfg = hr_ctx_config(ctx);
	struct hr_remote_http_opts o = { 0 };
	char why[512], *auth = NULL;

	if (r->tried)
		return r->client != NULL;
	r->tried = true;
	if (hr_remote_http_load(cfg->remote_module, &r->ops, &r->dl, why, sizeof(why)) < 0) {
		hr_warn_admin(ctx, "remote cache tier disabled: %s\n", why);
		return false;
	}
	o.connect_ms = cfg->remote_connect_ms;
	o.request_ms = cfg->remote_timeout_ms;
	o.low_speed_bps = 1024;
	o.low_speed_s = 2;
	o.ca_file = cfg->remote_ca_file;
	o.cert_file = cfg->remote_client_cert;
	o.key_file = cfg->remote_client_key;
	/* A credential that cannot be used turns the tier off rather than
	 * asking the servers without it. */
	if (cfg->remote_client_key) {
		int fd = hr_remote_private_open(cfg->remote_client_key, why, sizeof(why));

		if (fd < 0) {
			hr_warn_admin(ctx, "remote cache tier disabled: [remote] client_key: %s\n", why);
			return false;
		}
		close(fd);
	}
	if (cfg->remote_auth_file &&
	    hr_remote_auth_header(cfg->remote_auth_file, &auth, why, sizeof(why)) < 0) {
		hr_warn_admin(ctx, "remote cache tier disabled: [remote] auth_file: %s\n", why);
		return false;
	}
	o.auth_header = auth;
	r->client = r->ops->client_new(&o);
	if (auth) {
		explicit_bzero(auth, strlen(auth));
		free(auth);
	}
	if (!r->client)
		hr_warn_admin(ctx, "remote cache tier disabled: the HTTP client did not start\n");
	return r->client != NULL;
}

/* base's breaker (base is one of [remote] url), NULL for another. */
static struct hr_remote_guard *breaker_of(struct hanzo_rocm *ctx, struct hr_remote *r,
                                          const char *base)
{
	const struct hr_config *cfg = hr_ctx_config(ctx);

	for (size_t i = 0; i < r->n_breakers && cfg->remote_url[i]; i++)
		if (cfg->remote_url[i] == base || strcmp(cfg->remote_url[i], base) == 0)
			return &r->breakers[i];
	return NULL;
}

/* May a request to base start: the budget, then base's breaker. */
static enum hr_remote_reason guard_enter(struct hr_remote *r, struct hr_remote_guard *b,
                                         uint64_t start, unsigned *t)
{
	enum hr_remote_reason why = hr_remote_guard_enter(&r->guard, start, t);

	if (why == HR_REMOTE_OK && b)
		why = hr_remote_guard_enter(b, start, t);
	return why;
}

static void guard_leave(struct hr_remote *r, struct hr_remote_guard *b, uint64_t start,
                        enum hr_remote_reason why)
{
	uint64_t end = now_ns();

	hr_remote_guard_leave(&r->guard, start, end, why);
	if (b)
		hr_remote_guard_leave(b, start, end, why);
}

static enum hr_remote_reason guarded_get(struct hanzo_rocm *ctx, struct hr_remote *r,
                                         const char *base, const char *url, size_t max,
                                         void **body, size_t *n)
{
	const struct hr_config *cfg = hr_ctx_config(ctx);
	struct hr_remote_guard *b = breaker_of(ctx, r, base);
	unsigned t = cfg->remote_timeout_ms;
	uint64_t start = now_ns();
	enum hr_remote_reason why = guard_enter(r, b, start, &t);
	long status = 0;

	if (why != HR_REMOTE_OK) {
		hr_dbg(ctx, "remote GET %s: skipped (%s)\n", url, hr_remote_reason_name(why));
		return why;
	}
	why = r->ops->get(r->client, url, max, t, body, n, &status);
	guard_leave(r, b, start, why);
	r->stats.ns += now_ns() - start;
	hr_dbg(ctx, "remote GET %s: %s (HTTP %ld)\n", url, hr_remote_reason_name(why), status);
	return why;
}

static enum hr_remote_reason guarded_put(struct hanzo_rocm *ctx, struct hr_remote *r,
                                         const char *base, const char *url,
                                         const void *body, size_t n)
{
	const struct hr_config *cfg = hr_ctx_config(ctx);
	struct hr_remote_guard *b = breaker_of(ctx, r, base);
	unsigned t = cfg->remote_timeout_ms;
	uint64_t start = now_ns();
	enum hr_remote_reason why = guard_enter(r, b, start, &t);
	long status = 0;

	if (why != HR_REMOTE_OK) {
		hr_dbg(ctx, "remote PUT %s: skipped (%s)\n", url, hr_remote_reason_name(why));
		return why;
	}
	why = r->ops->put(r->client, url, body, n, t, &status);
	guard_leave(r, b, start, why);
	r->stats.ns += now_ns() - start;
	hr_dbg(ctx, "remote PUT %s: %s (HTTP %ld)\n", url, hr_remote_reason_name(why), status);
	return why;
}

/* One remote: manifest, then blob, each checked; *payload owned on OK. */
static enum hr_remote_reason fetch_one(struct hanzo_rocm *ctx, struct hr_remote *r,
                                       const char *base, const struct hr_cache_key *key,
                                       const char *family, const char *target,
                                       struct hr_manifest *m, void **payload, size_t *n)
{
	char hex[65], *url = NULL, why[256];
	void *text = NULL;
	size_t len = 0;
	enum hr_remote_reason res;

	*payload = NULL;
	hr_hex(key->b, sizeof(key->b), hex);
	if (asprintf(&url, "%s/ac/%s", base, hex) < 0)
		return HR_REMOTE_CONNECT;
	res = guarded_get(ctx, r, base, url, HR_MANIFEST_MAX, &text, &len);
	free(url);
	if (res != HR_REMOTE_OK)
		return res;
	res = hr_manifest_verify(text, len, r->trusted, r->n_trusted, key, family, target, m);
	free(text);
	if (res != HR_REMOTE_OK)
		return res;
	hr_hex(m->blob, sizeof(m->blob), hex);
	if (asprintf(&url, "%s/cas/%s", base, hex) < 0)
		return HR_REMOTE_CONNECT;
	res = guarded_get(ctx, r, base, url, (size_t)m->size, payload, n);
	free(url);
	if (res == HR_REMOTE_OK)
		res = hr_manifest_check_blob(m, *payload, *n);
	if (res == HR_REMOTE_OK && hr_elf_check(*payload, *n, target, why, sizeof(why)) < 0) {
		hr_info(ctx, "remote %s: the code object of %s for %s is refused: %s\n",
		        base, family, target, why);
		res = HR_REMOTE_BAD_ENTRY;
	}
	if (res != HR_REMOTE_OK) {
		free(*payload);
		*payload = NULL;
	}
	return res;
}

/* An answer of the remote about this entry, not a state of the server. */
static bool is_definite(enum hr_remote_reason r)
{
	return r != HR_REMOTE_OK && r != HR_REMOTE_TIMEOUT && r != HR_REMOTE_CONNECT &&
	       r != HR_REMOTE_HTTP_5XX && r != HR_REMOTE_BREAKER_OPEN && r != HR_REMOTE_BUDGET;
}

/* A checked hit (payload, freed here) into the user tier, read back from it. */
static int publish(struct hr_lookup *l, const struct hr_tier_dir *user,
                   const struct hr_cache_key *key, const struct hr_manifest *m,
                   void *payload, size_t n, const void **data, size_t *size,
                   enum hr_tier *from)
{
	char compiler[128];
	int ret;

	snprintf(compiler, sizeof(compiler), "remote:%s", m->signer);
	ret = hr_entry_write(l->ctx, user->path, l->family, l->target, key, compiler, payload, n);
	free(payload);
	if (ret < 0) {
		hr_warn(l->ctx, "cannot publish the remote entry of %s for %s into %s: %s\n",
		        l->family, l->target, user->path, strerror(-ret));
		return -ENOENT;
	}
	ret = hr_cache_user_entry(l, user, data, size);
	if (ret == 0)
		*from = HR_TIER_USER;
	return ret == -ENOMEM ? ret : (ret < 0 ? -ENOENT : 0);
}

int hr_remote_fetch(struct hr_lookup *l, const void **data, size_t *size,
                    enum hr_tier *from)
{
	struct hanzo_rocm *ctx = l->ctx;
	const struct hr_config *cfg = hr_ctx_config(ctx);
	const struct hr_tier_dir *user;
	enum hr_remote_reason res = HR_REMOTE_NOT_FOUND;
	struct hr_cache_key key;
	struct hr_manifest m;
	struct hr_remote *r;
	void *payload = NULL;
	size_t n = 0;
	char hex[65], *memo = NULL;

	if (!hr_remote_configured(ctx) || (l->skip_mask & (1u << HR_TIER_USER)))
		return -ENOENT;
	/* A hit is published into the user tier and read back from it. */
	user = hr_cache_user_tier(l);
	if (!user) {
		hr_dbg(ctx, "remote tier skipped: no writable user tier to publish into\n");
		return -ENOENT;
	}
	r = remote_get(ctx);
	if (!r)
		return -ENOMEM;
	hr_cache_key_compute(l->fam->family, l->fam->source_sha256,
	                     (const char *const *)l->fam->flags, cfg->flags, l->target, &key);
	hr_hex(key.b, sizeof(key.b), hex);
	if (asprintf(&memo, "%s/%s", l->family, l->target) < 0)
		return -ENOMEM;
	pthread_mutex_lock(&r->lock);
	/* A remote's definite answer holds for the life of the context: each
	 * kernel of a family asks again, the network need not. */
	if (r->refused && hr_strv_contains(r->refused, memo)) {
		pthread_mutex_unlock(&r->lock);
		free(memo);
		return -ENOENT;
	}
	/* Another thread of this context may have fetched it while we waited. */
	if (hr_cache_user_entry(l, user, data, size) == 0) {
		pthread_mutex_unlock(&r->lock);
		free(memo);
		*from = HR_TIER_USER;
		return 0;
	}
	r->stats.lookups++;
	if (!remote_open(ctx, r)) {
		res = HR_REMOTE_CONNECT;
		r->stats.misses[res]++;
		pthread_mutex_unlock(&r->lock);
		free(memo);
		return -ENOENT;
	}
	for (size_t i = 0; cfg->remote_url[i]; i++) {
		res = fetch_one(ctx, r, cfg->remote_url[i], &key, l->family, l->target,
		                &m, &payload, &n);
		if (res == HR_REMOTE_OK)
			break;
		if (res == HR_REMOTE_NOT_FOUND)
			hr_dbg(ctx, "remote %s: no %s for %s (cache key %s)\n",
			       cfg->remote_url[i], l->family, l->target, hex);
		else
			hr_info(ctx, "remote %s: %s for %s (cache key %s) is a miss: %s\n",
			        cfg->remote_url[i], l->family, l->target, hex,
			        hr_remote_reason_name(res));
	}
	if (res == HR_REMOTE_OK) {
		r->stats.hits++;
		r->stats.bytes += n;
	} else {
		r->stats.misses[res]++;
		if (is_definite(res) && (r->refused || (r->refused = hr_strv_new())))
			(void)hr_strv_push(&r->refused, memo);
	}
	pthread_mutex_unlock(&r->lock);
	free(memo);
	if (res != HR_REMOTE_OK) {
		if (cfg->compile == HR_COMPILE_NEVER)
			hr_err(ctx, "no remote cache tier has a valid entry for %s on %s "
			       "(cache key %s): %s\n", l->family, l->target, hex,
			       hr_remote_reason_name(res));
		return -ENOENT;
	}
	return publish(l, user, &key, &m, payload, n, data, size, from);
}

int hr_remote_push(struct hanzo_rocm *ctx, const struct hr_entry *e, char *why, size_t n)
{
	const struct hr_config *cfg = hr_ctx_config(ctx);
	struct hr_remote_seckey k;
	struct hr_manifest m = { 0 };
	char text[HR_MANIFEST_MAX], hex[65], khex[65], *url = NULL;
	struct hr_remote *r;
	size_t len = 0;
	int ret = 0;

	if (!hr_remote_configured(ctx)) {
		snprintf(why, n, "no [remote] url is configured");
		return -EINVAL;
	}
	if (!cfg->remote_signing_key) {
		snprintf(why, n, "no [remote] signing_key is configured (a node without one only reads)");
		return -EINVAL;
	}
	if (hr_remote_seckey_load(cfg->remote_signing_key, &k, why, n) < 0)
		return -EPERM;
	m.key = e->key;
	snprintf(m.family, sizeof(m.family), "%s", e->family);
	snprintf(m.target, sizeof(m.target), "%s", e->target);
	hr_sha256(e->payload, e->payload_size, m.blob);
	m.size = e->payload_size;
	ret = hr_manifest_sign(&m, &k, text, sizeof(text), &len);
	hr_remote_seckey_wipe(&k);
	if (ret < 0) {
		snprintf(why, n, "%s for %s: cannot be described by a manifest", e->family, e->target);
		return ret;
	}
	r = remote_get(ctx);
	if (!r)
		return -ENOMEM;
	hr_hex(m.blob, sizeof(m.blob), hex);
	hr_hex(m.key.b, sizeof(m.key.b), khex);
	pthread_mutex_lock(&r->lock);
	if (!remote_open(ctx, r)) {
		pthread_mutex_unlock(&r->lock);
		snprintf(why, n, "the remote module could not be loaded (see the warning)");
		return -ENOEXEC;
	}
	for (size_t i = 0; cfg->remote_url[i] && ret == 0; i++) {
		enum hr_remote_reason res;

		/* The blob first: a manifest never names a blob not yet there. */
		if (asprintf(&url, "%s/cas/%s", cfg->remote_url[i], hex) < 0) {
			ret = -ENOMEM;
			break;
		}
		res = guarded_put(ctx, r, cfg->remote_url[i], url, e->payload, e->payload_size);
		free(url);
		if (res == HR_REMOTE_OK) {
			if (asprintf(&url, "%s/ac/%s", cfg->remote_url[i], khex) < 0) {
				ret = -ENOMEM;
				break;
			}
			res = guarded_put(ctx, r, cfg->remote_url[i], url, text, len);
			free(url);
		}
		if (res != HR_REMOTE_OK) {
			snprintf(why, n, "%s: %s", cfg->remote_url[i], hr_remote_reason_name(res));
			ret = -EIO;
		}
	}
	r->stats.pushes += ret == 0;
	pthread_mutex_unlock(&r->lock);
	return ret;
}

void hr_remote_stats_get(struct hanzo_rocm *ctx, struct hr_remote_stats *st)
{
	struct hr_remote *r = hr_ctx_peek(ctx, HR_SLOT_REMOTE);

	memset(st, 0, sizeof(*st));
	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	*st = r->stats;
	pthread_mutex_unlock(&r->lock);
}

/* ---- a single compile across nodes --------------------------------------- */

/* The Redis client, connected once (r->lock held); NULL: none or failed. */
static void *redis_open(struct hanzo_rocm *ctx, struct hr_remote *r)
{
	const struct hr_config *cfg = hr_ctx_config(ctx);
	char why[512];

	if (r->redis_tried)
		return r->redis;
	r->redis_tried = true;
	if (!cfg->remote_redis)
		return NULL;
	r->redis = r->ops->redis_new(cfg->remote_redis, cfg->remote_connect_ms,
	                             cfg->remote_timeout_ms, why, sizeof(why));
	if (!r->redis)
		hr_info(ctx, "remote leases off, a jittered re-check instead: %s\n", why);
	return r->redis;
}

/* A Redis command failed: no more leases for this context. */
static void redis_drop(struct hanzo_rocm *ctx, struct hr_remote *r)
{
	hr_info(ctx, "remote leases off after a Redis error: %s\n",
	        hr_ctx_config(ctx)->remote_redis);
	r->ops->redis_free(r->redis);
	r->redis = NULL;
}

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Sleep up to ms (r->lock released meanwhile), charged to the remote's
 * budget; false when the budget has nothing left to wait with.
 */
static bool wait_charged(struct hr_remote *r, unsigned ms)
{
	uint64_t budget = (uint64_t)r->guard.budget_ms * 1000000u, t0, dt;
	struct timespec ts;

	if (budget && r->guard.spent_ns >= budget)
		return false;
	if (budget && (uint64_t)ms * 1000000u > budget - r->guard.spent_ns)
		ms = (unsigned)((budget - r->guard.spent_ns) / 1000000u);
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	t0 = now_ns();
	pthread_mutex_unlock(&r->lock);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	pthread_mutex_lock(&r->lock);
	dt = now_ns() - t0;
	r->guard.spent_ns += dt;
	r->stats.wait_ns += dt;
	return true;
}

/* Every remote in order, r->lock held; HR_REMOTE_OK with *payload owned. */
static enum hr_remote_reason fetch_any(struct hanzo_rocm *ctx, struct hr_remote *r,
                                       const struct hr_cache_key *key, const char *family,
                                       const char *target, struct hr_manifest *m,
                                       void **payload, size_t *n)
{
	const struct hr_config *cfg = hr_ctx_config(ctx);
	enum hr_remote_reason res = HR_REMOTE_NOT_FOUND;

	for (size_t i = 0; cfg->remote_url[i]; i++) {
		res = fetch_one(ctx, r, cfg->remote_url[i], key, family, target, m, payload, n);
		if (res == HR_REMOTE_OK)
			break;
	}
	return res;
}

int hr_remote_before_compile(struct hr_lookup *l, const void **data, size_t *size,
                             enum hr_tier *from, struct hr_remote_lease **lease)
{
	struct hanzo_rocm *ctx = l->ctx;
	const struct hr_config *cfg = hr_ctx_config(ctx);
	const struct hr_tier_dir *user;
	struct hr_remote_lease *ls = NULL;
	enum hr_remote_reason res = HR_REMOTE_NOT_FOUND;
	struct hr_cache_key key;
	struct hr_manifest m;
	struct hr_remote *r;
	void *payload = NULL, *redis;
	size_t n = 0;
	uint64_t seed, start, lease_ns;
	bool can_push;
	char hex[65];

	*lease = NULL;
	if (!hr_remote_configured(ctx) || (l->skip_mask & (1u << HR_TIER_USER)))
		return -ENOENT;
	user = hr_cache_user_tier(l);
	r = user ? remote_get(ctx) : NULL;
	if (!r)
		return -ENOENT;
	/* A node without a signing key could not push what it compiles: it
	 * never takes a lease (the others would wait for nothing), but waits
	 * on a builder's. */
	can_push = cfg->remote_signing_key != NULL;
	hr_cache_key_compute(l->fam->family, l->fam->source_sha256,
	                     (const char *const *)l->fam->flags, cfg->flags, l->target, &key);
	hr_hex(key.b, sizeof(key.b), hex);
	start = now_ns();
	seed = start ^ ((uint64_t)getpid() << 32) ^ (uintptr_t)l;
	seed |= 1;
	lease_ns = (uint64_t)cfg->remote_lease_ms * 1000000u;
	pthread_mutex_lock(&r->lock);
	if (!remote_open(ctx, r)) {
		pthread_mutex_unlock(&r->lock);
		return -ENOENT;
	}
	redis = redis_open(ctx, r);
	r->stats.waits++;
	if (!redis) {
		/* No leases: another node may be pushing it right now. */
		if (wait_charged(r, (unsigned)(next_rand(&seed) % 201u)))
			res = fetch_any(ctx, r, &key, l->family, l->target, &m, &payload, &n);
		goto out;
	}
	ls = calloc(1, sizeof(*ls));
	if (!ls) {
		pthread_mutex_unlock(&r->lock);
		return -ENOMEM;
	}
	snprintf(ls->name, sizeof(ls->name), "hanzo-rocm:lease:%s", hex);
	snprintf(ls->token, sizeof(ls->token), "%d-%016llx", (int)getpid(),
	         (unsigned long long)next_rand(&seed));
	for (unsigned k = 0;; k++) {
		unsigned base = 100u << (k < 3 ? k : 3);   /* 100 .. 800 ms */
		int t = can_push ? r->ops->lease_take(r->redis, ls->name, ls->token,
		                                      cfg->remote_lease_ms)
		                 : r->ops->lease_held(r->redis, ls->name);

		if (t < 0) {
			redis_drop(ctx, r);
			break;
		}
		if (can_push && t == 1) {
			hr_dbg(ctx, "remote lease %s taken: compiling %s for %s\n", ls->name,
			       l->family, l->target);
			r->stats.leases++;
			*lease = ls;
			ls = NULL;
			break;
		}
		if (!can_push && t == 0)
			break;
		/* Held by another node: its push, or its lease's end. */
		if (now_ns() - start >= lease_ns ||
		    !wait_charged(r, base / 2 + (unsigned)(next_rand(&seed) % base)))
			break;
		res = fetch_any(ctx, r, &key, l->family, l->target, &m, &payload, &n);
		if (res == HR_REMOTE_OK)
			break;
	}
out:
	if (res == HR_REMOTE_OK) {
		r->stats.wait_hits++;
		r->stats.bytes += n;
	}
	pthread_mutex_unlock(&r->lock);
	free(ls);
	if (res != HR_REMOTE_OK)
		return -ENOENT;
	hr_dbg(ctx, "remote: %s for %s came after waiting\n", l->family, l->target);
	return publish(l, user, &key, &m, payload, n, data, size, from);
}

void hr_remote_compiled(struct hr_lookup *l, struct hr_remote_lease *lease,
                        const void *data, size_t size)
{
	struct hanzo_rocm *ctx = l->ctx;
	const struct hr_config *cfg = hr_ctx_config(ctx);
	struct hr_remote *r;
	struct hr_entry e = { 0 };
	char why[512];

	if (!hr_remote_configured(ctx) || !(r = remote_get(ctx))) {
		free(lease);
		return;
	}
	if (data) {
		pthread_mutex_lock(&r->lock);
		r->stats.compiles++;
		pthread_mutex_unlock(&r->lock);
	}
	/* The push before the release: a waiter finds the manifest, or the lease. */
	if (data && cfg->remote_signing_key) {
		hr_cache_key_compute(l->fam->family, l->fam->source_sha256,
		                     (const char *const *)l->fam->flags, cfg->flags, l->target,
		                     &e.key);
		snprintf(e.family, sizeof(e.family), "%s", l->family);
		snprintf(e.target, sizeof(e.target), "%s", l->target);
		e.payload = data;
		e.payload_size = size;
		if (hr_remote_push(ctx, &e, why, sizeof(why)) < 0)
			hr_info(ctx, "the compiled %s for %s was not pushed: %s\n", l->family,
			        l->target, why);
	}
	if (lease) {
		pthread_mutex_lock(&r->lock);
		if (r->redis && r->ops->lease_release(r->redis, lease->name, lease->token) < 0)
			redis_drop(ctx, r);
		pthread_mutex_unlock(&r->lock);
		free(lease);
	}
}

enum hr_remote_reason hr_remote_probe(struct hanzo_rocm *ctx, const char *base)
{
	struct hr_remote *r = hr_remote_configured(ctx) ? remote_get(ctx) : NULL;
	enum hr_remote_reason res = HR_REMOTE_CONNECT;
	char *url = NULL;
	void *body = NULL;
	size_t n = 0;

	if (!r)
		return res;
	if (asprintf(&url, "%s/ac/%064d", base, 0) < 0)
		return res;
	pthread_mutex_lock(&r->lock);
	if (remote_open(ctx, r))
		res = guarded_get(ctx, r, base, url, HR_MANIFEST_MAX, &body, &n);
	pthread_mutex_unlock(&r->lock);
	free(body);
	free(url);
	return res;
}

enum hr_remote_reason hr_remote_check(struct hanzo_rocm *ctx, const char *base,
                                      const struct hr_cache_key *key, const char *family,
                                      const char *target, struct hr_manifest *m)
{
	struct hr_remote *r = hr_remote_configured(ctx) ? remote_get(ctx) : NULL;
	enum hr_remote_reason res = HR_REMOTE_CONNECT;
	void *payload = NULL;
	size_t n = 0;

	if (!r)
		return res;
	pthread_mutex_lock(&r->lock);
	if (remote_open(ctx, r))
		res = fetch_one(ctx, r, base, key, family, target, m, &payload, &n);
	pthread_mutex_unlock(&r->lock);
	free(payload);
	return res;
}
