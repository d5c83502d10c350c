/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The library context's lifetime (layer: top): creating it (configuration
 * loaded, logging set up) and freeing it with every module's lazy state.
 * The only file that ties all modules together; logging is lib/log.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf.h"
#include "libhanzo-rocm-private.h"
#include "hanzo-rocm-tools.h"
#include "util.h"

HR_EXPORT int hanzo_rocm_new_with_options(const struct hanzo_rocm_options *opts,
                                          struct hanzo_rocm **ret)
{
	struct hanzo_rocm_options o = { 0 };
	struct hanzo_rocm *ctx;
	int r, env_prio;

	if (!ret)
		return -EINVAL;
	*ret = NULL;
	if (opts) {
		if (opts->size < offsetof(struct hanzo_rocm_options, log_priority) + sizeof(int))
			return -EINVAL;
		memcpy(&o, opts, sizeof(o) < opts->size ? sizeof(o) : opts->size);
	}
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ctx->refcount = 1;
	pthread_mutex_init(&ctx->lock, NULL);
	{
		/* Writer first: threads logging back to back must not starve set_log_fn. */
		pthread_rwlockattr_t a;

		pthread_rwlockattr_init(&a);
		pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
		pthread_rwlock_init(&ctx->log_lock, &a);
		pthread_rwlockattr_destroy(&a);
	}
	ctx->log_fn = o.log_fn ? o.log_fn : hr_log_stderr;
	ctx->log_data = o.log_data;
	env_prio = hr_log_priority_from_env();
	ctx->log_priority = env_prio ? env_prio : o.log_priority;

	/* Lenient: a bad setting is reported and left out, not fatal. */
	r = hr_config_load(ctx, o.root, o.config, false, &ctx->config);
	if (r == 0 && o.host)
		r = hr_config_set_host(ctx, ctx->config, o.host, "options.host");
	if (r < 0) {
		hanzo_rocm_unref(ctx);
		return r;
	}
	hr_info(ctx, "context %p created\n", (void *)ctx);
	*ret = ctx;
	return 0;
}

HR_EXPORT int hanzo_rocm_new(struct hanzo_rocm **ret)
{
	return hanzo_rocm_new_with_options(NULL, ret);
}

HR_EXPORT struct hanzo_rocm *hanzo_rocm_ref(struct hanzo_rocm *ctx)
{
	if (ctx)
		__atomic_add_fetch(&ctx->refcount, 1, __ATOMIC_RELAXED);
	return ctx;
}

HR_EXPORT struct hanzo_rocm *hanzo_rocm_unref(struct hanzo_rocm *ctx)
{
	if (!ctx)
		return NULL;
	if (__atomic_sub_fetch(&ctx->refcount, 1, __ATOMIC_ACQ_REL) > 0)
		return ctx;
	/* Runtime first: it holds modules built from cached code objects. */
	hr_runtime_free(ctx->runtime);
	hr_backends_free(ctx->backends);   /* after the contexts living in them */
	hr_cache_free(ctx->cache);
	hr_plugins_free(ctx->plugins);
	hr_devices_free(ctx->devices);
	hr_config_free(ctx->config);
	pthread_mutex_destroy(&ctx->lock);
	pthread_rwlock_destroy(&ctx->log_lock);
	free(ctx);
	return NULL;
}

const struct hr_config *hr_tools_config(struct hanzo_rocm *ctx)
{
	return ctx->config;
}

void hr_tools_set_cancel(struct hanzo_rocm *ctx, const volatile sig_atomic_t *flag)
{
	ctx->cancel = flag;
}
