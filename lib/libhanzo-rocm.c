/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The library context: lifetime, logging, error strings. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf.h"
#include "libhanzo-rocm-private.h"
#include "util.h"

__attribute__((format(printf, 6, 0)))
static void log_stderr(void *data, int priority, const char *file, int line,
                       const char *fn, const char *format, va_list args)
{
	static const char *const names[] = {
		[LOG_ERR] = "error", [LOG_WARNING] = "warning",
		[LOG_NOTICE] = "notice", [LOG_INFO] = "info", [LOG_DEBUG] = "debug",
	};
	const char *name = priority >= LOG_ERR && priority <= LOG_DEBUG &&
	                   names[priority] ? names[priority] : "error";

	(void)data; /* the default logger keeps no state */
	if (priority >= LOG_DEBUG)
		fprintf(stderr, "hanzo-rocm: %s: %s:%d %s: ", name, file, line, fn);
	else
		fprintf(stderr, "hanzo-rocm: %s: ", name);
	vfprintf(stderr, format, args);
}

/* Silent by default: a library does not write to a host's stderr unasked. */
static int log_priority_from_env(void)
{
	const char *v = hr_getenv("HANZO_ROCM_LOG");

	if (!v)
		return 0;
	if (strcasecmp(v, "error") == 0 || strcasecmp(v, "err") == 0)
		return LOG_ERR;
	if (strcasecmp(v, "warn") == 0 || strcasecmp(v, "warning") == 0)
		return LOG_WARNING;
	if (strcasecmp(v, "info") == 0)
		return LOG_INFO;
	if (strcasecmp(v, "debug") == 0)
		return LOG_DEBUG;
	return LOG_ERR;
}

void hr_log(struct hanzo_rocm *ctx, int priority, const char *file, int line,
            const char *fn, const char *format, ...)
{
	va_list args;

	if (!ctx->log_fn)
		return;
	va_start(args, format);
	ctx->log_fn(ctx->log_data, priority, file, line, fn, format, args);
	va_end(args);
}

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
	ctx->log_fn = o.log_fn ? o.log_fn : log_stderr;
	ctx->log_data = o.log_data;
	env_prio = log_priority_from_env();
	ctx->log_priority = env_prio ? env_prio : o.log_priority;

	r = hr_config_load(ctx, o.root, o.config, &ctx->config);
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
	hr_cache_free(ctx->cache);
	hr_plugins_free(ctx->plugins);
	hr_devices_free(ctx->devices);
	hr_config_free(ctx->config);
	pthread_mutex_destroy(&ctx->lock);
	free(ctx);
	return NULL;
}

HR_EXPORT void hanzo_rocm_set_log_fn(struct hanzo_rocm *ctx,
                                     hanzo_rocm_log_fn fn, void *data)
{
	if (!ctx)
		return;
	ctx->log_fn = fn;
	ctx->log_data = data;
}

HR_EXPORT int hanzo_rocm_get_log_priority(const struct hanzo_rocm *ctx)
{
	return ctx ? __atomic_load_n(&ctx->log_priority, __ATOMIC_RELAXED) : 0;
}

HR_EXPORT void hanzo_rocm_set_log_priority(struct hanzo_rocm *ctx, int priority)
{
	if (ctx)
		__atomic_store_n(&ctx->log_priority, priority, __ATOMIC_RELAXED);
}

HR_EXPORT const char *hanzo_rocm_strerror(int err)
{
	switch (err) {
	case 0: return "success";
	case -ENODEV: return "no GPU device (or no runtime for it)";
	case -ENOENT: return "not found";
	case -ENOEXEC: return "invalid or foreign code object";
	case -ENOTSUP: return "target not supported by the installed compiler";
	case -EACCES: return "permission denied";
	case -EPERM: return "rejected by a trust check";
	case -EINVAL: return "invalid argument or configuration";
	case -ENOMEM: return "out of memory";
	case -ETIMEDOUT: return "timed out";
	case -EIO: return "I/O or driver error";
	case -ENOSYS: return "not available in this build";
	default: return err < 0 ? strerror(-err) : "unknown error";
	}
}
