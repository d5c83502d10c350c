/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Caller source through the tiers: the same entry format, validation, tier
 * walk, locks and publish as the families (cache-entry.c), keyed by the source
 * text.  See cache-source.h.  Layer: cache (lib/layers).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build-source.h"
#include "build-toolchain.h"
#include "cache.h"
#include "cache-source.h"
#include "config-api.h"
#include "context.h"
#include "target.h"
#include "util.h"

#define KEY_PREFIX "hanzo-rocm-source:"

struct src_key {
	struct hr_cache_key key;
	char entry[HR_SOURCE_NAME_MAX + 18];    /* NAME.<16 hex> */
};

static int key_for(struct hanzo_rocm *ctx, const struct hr_source_spec *s,
                   const char *target, struct src_key *k)
{
	const struct hr_config *cfg = hr_ctx_config(ctx);
	char family[sizeof(KEY_PREFIX) + HR_SOURCE_NAME_MAX], hex[17];
	uint8_t sha[32];
	char *text = NULL;
	size_t len = 0;
	int r = hr_source_text(s, target, &text, &len);

	if (r < 0)
		return r;
	hr_sha256(text, len, sha);
	free(text);
	snprintf(family, sizeof(family), KEY_PREFIX "%s", s->name);
	hr_cache_key_compute(family, sha, s->flags, cfg ? cfg->flags : NULL, target, &k->key);
	hr_hex(k->key.b, 8, hex);
	snprintf(k->entry, sizeof(k->entry), "%s.%s", s->name, hex);
	return 0;
}

static int copy_payload(struct hr_entry *e, void **data, size_t *size)
{
	*data = malloc(e->payload_size ? e->payload_size : 1);
	if (!*data) {
		hr_entry_release(e);
		return -ENOMEM;
	}
	memcpy(*data, e->payload, e->payload_size);
	*size = e->payload_size;
	hr_entry_release(e);
	return 0;
}

/* One tier: 0 (e filled), -ENOENT, or -ENOMEM; a bad entry is a miss, logged. */
static int read_tier(struct hanzo_rocm *ctx, const struct hr_tier_dir *t,
                     const char *target, const struct src_key *k, struct hr_entry *e)
{
	char why[256] = "";
	int r = hr_entry_read_tier(ctx, t->path, target, k->entry, t->tier != HR_TIER_USER,
	                           &k->key, e, why, sizeof(why));

	if (r == 0 || r == -ENOMEM)
		return r;
	if (r != -ENOENT && r != -ENOTDIR)
		hr_warn(ctx, "ignoring cache entry %s/%s/%s.hrco: %s\n", t->path, target,
		        k->entry, why[0] ? why : strerror(-r));
	return -ENOENT;
}

static const struct hr_tier_dir *user_tier(const struct hr_tier_dir *tiers, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (tiers[i].tier == HR_TIER_USER && tiers[i].writable)
			return &tiers[i];
	return NULL;
}

static int compile_publish(struct hanzo_rocm *ctx, const struct hr_source_spec *s,
                           const char *target, const struct src_key *k,
                           const struct hr_tier_dir *user, unsigned skip_mask,
                           void **data, size_t *size, char **diag, enum hr_tier *from)
{
	const struct hr_config *cfg = hr_ctx_config(ctx);
	char *identity = NULL;
	struct hr_entry e;
	int r, fd = -1;

	if (user) {
		/* Another process may be building it: wait for it, then look again. */
		r = hr_entry_lock(user->path, target, k->entry,
		                  cfg && cfg->timeout_s ? cfg->timeout_s + 5 : HR_COMPILE_TIMEOUT_S + 5,
		                  &fd);
		if (r < 0 && r != -ETIMEDOUT)
			hr_dbg(ctx, "no lock in %s: %s\n", user->path, strerror(-r));
		/* Unless the caller refused the user tier's bytes: then replace them. */
		if (!(skip_mask & (1u << HR_TIER_USER)) &&
		    read_tier(ctx, user, target, k, &e) == 0) {
			hr_entry_unlock(fd);
			*from = HR_TIER_USER;
			return copy_payload(&e, data, size);
		}
	}
	r = hr_source_compile(ctx, s, target, data, size, &identity, diag);
	if (r == 0 && user) {
		int w = hr_entry_write(ctx, user->path, k->entry, target, &k->key, identity,
		                       *data, *size);

		if (w < 0)
			hr_warn(ctx, "cannot write the user cache %s (%s): source '%s' is not cached\n",
			        user->path, strerror(-w), s->name);
	}
	hr_entry_unlock(fd);
	free(identity);
	if (r == 0)
		*from = HR_TIER_COMPILED;
	else if (r == -EILSEQ)
		hr_info(ctx, "source '%s' for %s: the compiler rejected it\n", s->name, target);
	else if (r == -ENOTSUP)
		hr_err(ctx, "source '%s': the installed compiler cannot build %s\n", s->name, target);
	return r;
}

int hr_source_code_object(struct hanzo_rocm *ctx, const struct hr_source_spec *s,
                          const char *target, unsigned skip_mask, void **data,
                          size_t *size, char **diag, enum hr_tier *from)
{
	const struct hr_config *cfg = hr_ctx_config(ctx);
	char generic[HR_TARGET_MAX];
	const char *targets[2] = { target, generic };
	struct hr_tier_dir *tiers = NULL;
	struct hr_cache *cache;
	struct src_key keys[2];
	size_t n_tiers = 0, n_targets;
	int r;

	*data = NULL;
	*size = 0;
	if (diag)
		*diag = NULL;
	r = hr_source_check(ctx, s);
	if (r < 0)
		return r;
	if (!target || hr_target_validate(target) < 0 ||
	    hr_target_generic(target, generic, sizeof(generic)) < 0) {
		hr_err(ctx, "invalid target '%s'\n", target ? target : "(null)");
		return -EINVAL;
	}
	n_targets = strcmp(target, generic) == 0 ? 1 : 2;
	cache = hr_cache_get(ctx);
	if (!cache)
		return -ENOMEM;
	for (size_t i = 0; i < n_targets; i++) {
		r = key_for(ctx, s, targets[i], &keys[i]);
		if (r < 0)
			return r;
	}
	r = hr_cache_tiers(ctx, &tiers, &n_tiers);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n_targets; i++) {
		for (size_t t = 0; t < n_tiers; t++) {
			struct hr_entry e;

			if (skip_mask & (1u << tiers[t].tier))
				continue;
			r = read_tier(ctx, &tiers[t], targets[i], &keys[i], &e);
			if (r == -ENOMEM)
				goto out;
			if (r == 0) {
				hr_dbg(ctx, "source '%s' for %s from the %s tier %s\n", s->name,
				       target, hr_tier_name(tiers[t].tier), tiers[t].path);
				*from = tiers[t].tier;
				r = copy_payload(&e, data, size);
				goto out;
			}
		}
	}
	if (cfg && cfg->compile == HR_COMPILE_NEVER) {
		hr_err(ctx, "no code object for source '%s' on %s in any cache tier and [cache] compile = never; "
		       "build it with: hanzo-rocm precompile --source FILE --name %s --target %s\n",
		       s->name, target, s->name, target);
		r = -ENOENT;
		goto out;
	}
	hr_cache_compile_lock(cache);
	r = compile_publish(ctx, s, target, &keys[0], user_tier(tiers, n_tiers), skip_mask,
	                    data, size, diag, from);
	hr_cache_compile_unlock(cache);
out:
	hr_cache_tiers_free(tiers, n_tiers);
	return r;
}

int hr_source_precompile(struct hanzo_rocm *ctx, const struct hr_source_spec *s,
                         const char *target, const char *dir, bool force,
                         uint64_t *out_size, char **diag)
{
	struct src_key k;
	struct hr_entry e;
	char *identity = NULL, *path;
	void *obj = NULL;
	size_t size = 0;
	int r, fd = -1;

	if (diag)
		*diag = NULL;
	*out_size = 0;
	r = hr_source_check(ctx, s);
	if (r < 0)
		return r;
	if (!target || hr_target_validate(target) < 0) {
		hr_err(ctx, "invalid target '%s'\n", target ? target : "(null)");
		return -EINVAL;
	}
	r = key_for(ctx, s, target, &k);
	if (r < 0)
		return r;
	path = hr_entry_path(dir, target, k.entry);
	if (!path)
		return -ENOMEM;
	(void)hr_entry_lock(dir, target, k.entry, HR_COMPILE_TIMEOUT_S + 5, &fd);
	if (!force && hr_entry_read(ctx, path, &k.key, &e) == 0) {
		*out_size = e.payload_size;
		hr_entry_release(&e);
		r = 0;
		goto out;
	}
	r = hr_source_compile(ctx, s, target, &obj, &size, &identity, diag);
	if (r == 0)
		r = hr_entry_write(ctx, dir, k.entry, target, &k.key, identity, obj, size);
	if (r == 0) {
		*out_size = size;
		r = 1;
	}
out:
	hr_entry_unlock(fd);
	free(identity);
	free(obj);
	free(path);
	return r;
}
