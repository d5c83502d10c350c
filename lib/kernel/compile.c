/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Compile on a miss (layer: kernel): when no cache tier holds a family's
 * code object for a target (hr_cache_lookup said HR_CACHE_MISS), load the
 * family's plugin for its source, find the platform's compiler, build it
 * once (serialised in the context, and across processes by the user tier's
 * entry lock) and publish it in the user tier (hr_cache_publish).  Caller
 * source the same way (hr_source_lookup said HR_CACHE_MISS: hr_source_compile,
 * hr_source_publish), except that compiles of different sources run side
 * by side (only the key's entry lock is taken).  The cache only reads and publishes; building is the
 * kernel layer's, which asked.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "kernel-internal.h"
#include "plugin/plugin.h"
#include "source/source.h"
#include "toolchain/toolchain.h"
#include "cache/cache.h"
#include "source/key.h"
#include "config/config.h"
#include "remote/remote.h"
#include "context.h"
#include "shared/util.h"
#include "platform/platform.h"

static int no_compile_error(struct hr_lookup *l)
{
	char **dirs = hr_strv_new(), *list;

	for (size_t k = 0; dirs && k < l->n_tiers; k++)
		if (!(l->skip_mask & (1u << l->tiers[k].tier)) &&
		    hr_strv_push(&dirs, l->tiers[k].path) < 0)
			break;
	list = dirs ? hr_strv_join(dirs, ", ") : NULL;
	hr_err(l->ctx, "no code object for %s on %s in any cache tier (searched: %s); "
	       "build it with: hanzo-rocm precompile --target %s --family %s\n",
	       l->family, l->target, list && *list ? list : "none", l->target,
	       l->family);
	free(list);
	hr_strv_free(dirs);
	return -ENOENT;
}

static int compile_source(struct hr_lookup *l, const struct hr_toolchain *tc,
                          const struct hanzo_rocm_plugin *desc,
                          void **obj, size_t *obj_size)
{
	const struct hr_config *cfg = hr_ctx_config(l->ctx);
	char *diag = NULL;
	int r;

	hr_info(l->ctx, "compiling %s for %s with %s\n", l->family, l->target,
	        tc->identity ? tc->identity : tc->path);
	r = hr_toolchain_compile(l->ctx, tc, desc->source, desc->source_len,
	                         (const char *const *)l->fam->flags,
	                         cfg ? cfg->flags : NULL, l->target, obj, obj_size,
	                         &diag);
	if (r < 0)
		hr_err(l->ctx, "compiling %s for %s failed: %s\n%s", l->family,
		       l->target, strerror(-r), diag ? diag : "");
	free(diag);
	return r;
}

static int compile_and_publish(struct hr_lookup *l, const struct hr_toolchain *tc,
                               const struct hanzo_rocm_plugin *desc,
                               const void **data, size_t *size,
                               enum hr_tier *from)
{
	const struct hr_tier_dir *user = hr_cache_user_tier(l);
	void *obj = NULL;
	size_t obj_size = 0;
	uint64_t t0;
	int r, fd = -1;

	if (user) {
		/* Another process may be building it: wait for it, then look again. */
		r = hr_entry_lock(user->path, l->target, l->family,
		                  tc->timeout_s ? tc->timeout_s + 5 : 300, &fd);
		if (r < 0 && r != -ETIMEDOUT)
			hr_dbg(l->ctx, "no lock in %s: %s\n", user->path, strerror(-r));
		/* Unless the caller refused the user tier's bytes: then replace them. */
		if (!(l->skip_mask & (1u << HR_TIER_USER))) {
			r = hr_cache_user_entry(l, user, data, size);
			if (r != -ENOENT) {
				hr_entry_unlock(fd);
				*from = HR_TIER_USER;
				return r;
			}
		}
	}
	t0 = hr_cache_clock_ns();
	r = compile_source(l, tc, desc, &obj, &obj_size);
	hr_cache_count_compile(l->cache, t0, r == 0);
	if (r == 0 && user)
		hr_cache_publish(l, user, tc->identity, obj, obj_size);
	if (r < 0 && user)
		hr_entry_unlock_discard(user->path, l->target, l->family, fd);
	else
		hr_entry_unlock(fd);
	if (r < 0)
		return r;
	*from = HR_TIER_COMPILED;
	return hr_memory_insert(l->cache, l->family, l->target, obj, obj_size,
	                        HR_TIER_COMPILED, l->skip_mask, data, size);
}

static int compile_on_miss(struct hr_lookup *l, const void **data, size_t *size,
                           enum hr_tier *from)
{
	const struct hanzo_rocm_plugin *desc;
	struct hr_toolchain *tc = NULL;
	enum hr_platform platform = hr_target_platform(l->target);
	char reason[256] = "";
	int r;

	r = hr_family_load(l->ctx, l->fam, &desc);
	if (r < 0) {
		hr_err(l->ctx, "cannot load the plugin of family %s: %s\n", l->family,
		       strerror(-r));
		return r;
	}
	r = hr_toolchain_find(l->ctx, hr_compiler_for(platform), &tc);
	if (r < 0) {
		hr_err(l->ctx, "no code object for %s on %s is cached and no %s "
		       "compiler was found to build it\n", l->family, l->target,
		       hr_platform_facts(platform) ? hr_platform_facts(platform)->compiler_label : "hipcc");
		return r;
	}
	r = hr_toolchain_can_build(tc, l->target, reason, sizeof(reason));
	if (r < 0)
		hr_err(l->ctx, "cannot build %s for %s: %s\n", l->family, l->target,
		       reason);
	else
		r = compile_and_publish(l, tc, desc, data, size, from);
	hr_toolchain_free(tc);
	return r;
}

int hr_code_object_compile(struct hr_lookup *l, const void **data, size_t *size,
                           enum hr_tier *from)
{
	const struct hr_config *cfg = hr_ctx_config(l->ctx);
	struct hr_remote_lease *lease = NULL;
	int r;

	if (l->skip_mask & (1u << HR_TIER_COMPILED))
		return -ENOENT;
	/* The remote tier, after the local ones and before a compile. */
	r = hr_remote_fetch(l, data, size, from);
	if (r != -ENOENT)
		return r;
	if (cfg && cfg->compile == HR_COMPILE_NEVER)
		return no_compile_error(l);
	/* One node of a cluster compiles it; the others wait for its push. */
	r = hr_remote_before_compile(l, data, size, from, &lease);
	if (r != -ENOENT)
		return r;
	/* Another thread may have built it while we waited for our turn. */
	hr_cache_compile_lock(l->cache);
	r = hr_memory_lookup(l->cache, l->family, l->target, l->skip_mask, data,
	                     size, from);
	if (r < 0)
		r = compile_on_miss(l, data, size, from);
	hr_cache_compile_unlock(l->cache);
	hr_remote_compiled(l, lease, r == 0 && *from == HR_TIER_COMPILED ? *data : NULL,
	                   r == 0 ? *size : 0);
	return r;
}

/*
 * Caller source: built once per key (the module table's wait per key in
 * this context, then the user tier's entry lock - its file is the key's -
 * and a second look), different keys side by side.
 */
static int source_compile_publish(struct hr_source_lookup *l, void **data, size_t *size,
                                  char **diag, enum hr_tier *from)
{
	const struct hr_config *cfg = hr_ctx_config(l->ctx);
	const struct hr_tier_dir *user = hr_source_user_tier(l);
	char *identity = NULL;
	int r, fd = -1;

	if (user) {
		/* Another process may be building it: wait for it, then look again. */
		r = hr_entry_lock(user->path, l->target, l->key.entry,
		                  cfg && cfg->timeout_s ? cfg->timeout_s + 5 : HR_COMPILE_TIMEOUT_S + 5,
		                  &fd);
		if (r < 0 && r != -ETIMEDOUT)
			hr_dbg(l->ctx, "no lock in %s: %s\n", user->path, strerror(-r));
		/* Unless the caller refused the user tier's bytes: then replace them. */
		if (!(l->skip_mask & (1u << HR_TIER_USER))) {
			r = hr_source_user_entry(l, user, data, size);
			if (r != -ENOENT) {
				hr_entry_unlock(fd);
				*from = HR_TIER_USER;
				return r;
			}
		}
	}
	r = hr_source_compile(l->ctx, l->s, l->target, data, size, &identity, diag);
	if (r == 0 && user)
		hr_source_publish(l, user, identity, *data, *size);
	if (r < 0 && user)
		hr_entry_unlock_discard(user->path, l->target, l->key.entry, fd);
	else
		hr_entry_unlock(fd);
	free(identity);
	if (r == 0)
		*from = HR_TIER_COMPILED;
	else if (r == -EILSEQ)
		hr_info(l->ctx, "source '%s' for %s: the compiler rejected it\n", l->s->name, l->target);
	else if (r == -ENOTSUP)
		hr_err(l->ctx, "source '%s': the installed compiler cannot build %s\n", l->s->name,
		       l->target);
	return r;
}

int hr_source_code_object(struct hanzo_rocm *ctx, const struct hr_source_spec *s,
                          const char *target, unsigned skip_mask, void **data,
                          size_t *size, char **diag, enum hr_tier *from)
{
	const struct hr_config *cfg = hr_ctx_config(ctx);
	struct hr_source_lookup l;
	int r;

	if (diag)
		*diag = NULL;
	r = hr_source_lookup(ctx, s, target, skip_mask, &l, data, size, from);
	if (r != HR_CACHE_MISS)
		return r;
	if (cfg && cfg->compile == HR_COMPILE_NEVER) {
		hr_err(ctx, "no code object for source '%s' on %s in any cache tier and [cache] compile = never; "
		       "build it with: hanzo-rocm precompile --source FILE --name %s --target %s\n",
		       s->name, target, s->name, target);
		r = -ENOENT;
	} else {
		/* No context lock: a slow source holds up no other (module.c waits per key). */
		r = source_compile_publish(&l, data, size, diag, from);
	}
	hr_source_lookup_release(&l);
	return r;
}
