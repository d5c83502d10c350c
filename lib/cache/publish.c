/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The write side of a lookup's miss (layer: cache): the user tier this
 * process may publish in, and publishing a code object the kernel layer
 * compiled (lib/kernel/compile.c) there, atomically, bounded by [cache]
 * max_size.  Reading stays in cache.c (the lookup, one path).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "cache-internal.h"
#include "config/config.h"
#include "context.h"

static void warn_once(struct hr_lookup *l, const char *msg)
{
	if (hr_ctx_warn_once(l->ctx, msg))
		hr_warn(l->ctx, "%s\n", msg);
}

const struct hr_tier_dir *hr_cache_user_tier(struct hr_lookup *l)
{
	const struct hr_config *cfg = hr_ctx_config(l->ctx);
	char msg[512];

	for (size_t k = 0; k < l->n_tiers; k++) {
		const struct hr_tier_dir *t = &l->tiers[k];

		if (t->tier != HR_TIER_USER)
			continue;
		if (t->writable)
			return t;
		if (cfg && cfg->policy == HR_POLICY_READWRITE) {
			snprintf(msg, sizeof(msg), "the user cache %s is not writable: "
			         "compiled code objects are not cached", t->path);
			warn_once(l, msg);
		}
	}
	return NULL;
}

/* [cache] max_size: a publish is rare (it follows a compile), so scan then. */
static void bound_user_tier(struct hr_lookup *l, const struct hr_tier_dir *user)
{
	const struct hr_config *cfg = hr_ctx_config(l->ctx);
	char *keep = hr_entry_path(user->path, l->target, l->family);
	struct hr_gc_stats st;

	if (cfg && keep && hr_cache_gc(l->ctx, user->path, cfg->max_size, keep, &st) == 0 &&
	    st.evicted)
		hr_info(l->ctx, "user cache %s over max_size: evicted %u old entries\n",
		        user->path, st.evicted);
	free(keep);
}

void hr_cache_publish(struct hr_lookup *l, const struct hr_tier_dir *user,
                      const char *compiler, const void *obj, size_t size)
{
	struct hr_cache_key key;
	char msg[512];
	int r;

	hr_cache_lookup_key(l, l->target, &key);
	r = hr_entry_write(l->ctx, user->path, l->family, l->target, &key,
	                   compiler, obj, size);
	if (r >= 0) {
		bound_user_tier(l, user);
		return;
	}
	/* One warning per context: a full disk must not flood the log. */
	snprintf(msg, sizeof(msg), "cannot write the user cache %s (%s): "
	         "compiled code objects are not cached", user->path, strerror(-r));
	warn_once(l, msg);
}
