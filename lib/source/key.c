/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Caller source through the tiers: the same entry format, validation, tier
 * walk and publish as the families (cache/entry.c), keyed by the source text.
 * It only reads and publishes: compiling on a miss is the kernel layer's
 * (kernel/compile.c).  See source/key.h.  Layer: cache (lib/layers).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source.h"
#include "cache/cache.h"
#include "key.h"
#include "config/config.h"
#include "context.h"
#include "target/target.h"
#include "shared/util.h"

#define KEY_PREFIX "hanzo-rocm-source:"

int hr_source_key(struct hanzo_rocm *ctx, const struct hr_source_spec *s, const char *target,
                  struct hr_source_key *k)
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
                     const char *target, const struct hr_source_key *k, struct hr_entry *e)
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

const struct hr_tier_dir *hr_source_user_tier(const struct hr_source_lookup *l)
{
	for (size_t i = 0; i < l->n_tiers; i++)
		if (l->tiers[i].tier == HR_TIER_USER && l->tiers[i].writable)
			return &l->tiers[i];
	return NULL;
}

int hr_source_user_entry(const struct hr_source_lookup *l, const struct hr_tier_dir *user,
                         void **data, size_t *size)
{
	struct hr_entry e;
	int r = read_tier(l->ctx, user, l->target, &l->key, &e);

	return r < 0 ? r : copy_payload(&e, data, size);
}

void hr_source_publish(const struct hr_source_lookup *l, const struct hr_tier_dir *user,
                       const char *identity, const void *data, size_t size)
{
	int w = hr_entry_write(l->ctx, user->path, l->key.entry, l->target, &l->key.key, identity,
	                       data, size);

	if (w < 0)
		hr_warn(l->ctx, "cannot write the user cache %s (%s): source '%s' is not cached\n",
		        user->path, strerror(-w), l->s->name);
}

void hr_source_lookup_release(struct hr_source_lookup *l)
{
	hr_cache_tiers_free(l->tiers, l->n_tiers);
	l->tiers = NULL;
	l->n_tiers = 0;
}

int hr_source_lookup(struct hanzo_rocm *ctx, const struct hr_source_spec *s, const char *target,
                     unsigned skip_mask, struct hr_source_lookup *l, void **data, size_t *size,
                     enum hr_tier *from)
{
	char generic[HR_TARGET_MAX];
	const char *targets[2] = { target, generic };
	struct hr_source_key keys[2];
	size_t n_targets;
	int r;

	*l = (struct hr_source_lookup){ .ctx = ctx, .s = s, .target = target,
	                                .skip_mask = skip_mask };
	*data = NULL;
	*size = 0;
	r = hr_source_check(ctx, s);
	if (r < 0)
		return r;
	if (!target || hr_target_validate(target) < 0 ||
	    hr_target_generic(target, generic, sizeof(generic)) < 0) {
		hr_err(ctx, "invalid target '%s'\n", target ? target : "(null)");
		return -EINVAL;
	}
	n_targets = strcmp(target, generic) == 0 ? 1 : 2;
	l->cache = hr_cache_get(ctx);
	if (!l->cache)
		return -ENOMEM;
	for (size_t i = 0; i < n_targets; i++) {
		r = hr_source_key(ctx, s, targets[i], &keys[i]);
		if (r < 0)
			return r;
	}
	l->key = keys[0];
	r = hr_cache_tiers(ctx, &l->tiers, &l->n_tiers);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n_targets; i++) {
		for (size_t t = 0; t < l->n_tiers; t++) {
			const struct hr_tier_dir *tier = &l->tiers[t];
			struct hr_entry e;

			if (skip_mask & (1u << tier->tier))
				continue;
			r = read_tier(ctx, tier, targets[i], &keys[i], &e);
			if (r == -ENOENT)
				continue;
			if (r == 0) {
				hr_dbg(ctx, "source '%s' for %s from the %s tier %s\n", s->name,
				       target, hr_tier_name(tier->tier), tier->path);
				*from = tier->tier;
				r = copy_payload(&e, data, size);
			}
			hr_source_lookup_release(l);
			return r;
		}
	}
	return HR_CACHE_MISS;
}
