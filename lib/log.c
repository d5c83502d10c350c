/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Logging and error strings (layer: context): the default stderr logger,
 * HANZO_ROCM_LOG, the guarded log function and the public log and strerror
 * API.  Everything above logs through hr_log (libhanzo-rocm-private.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "libhanzo-rocm-private.h"
#include "util.h"

__attribute__((format(printf, 6, 0)))
void hr_log_stderr(void *data, int priority, const char *file, int line,
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
int hr_log_priority_from_env(void)
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

	pthread_rwlock_rdlock(&ctx->log_lock);
	if (ctx->log_fn) {
		va_start(args, format);
		ctx->log_fn(ctx->log_data, priority, file, line, fn, format, args);
		va_end(args);
	}
	pthread_rwlock_unlock(&ctx->log_lock);
}

void hr_warn_admin(struct hanzo_rocm *ctx, const char *format, ...)
{
	va_list args;

	pthread_rwlock_rdlock(&ctx->log_lock);
	if (ctx->log_fn &&
	    (ctx->log_fn == hr_log_stderr ||
	     hanzo_rocm_get_log_priority(ctx) >= LOG_WARNING)) {
		va_start(args, format);
		ctx->log_fn(ctx->log_data, LOG_WARNING, __FILE__, __LINE__,
		            __func__, format, args);
		va_end(args);
	}
	pthread_rwlock_unlock(&ctx->log_lock);
}

HR_EXPORT void hanzo_rocm_set_log_fn(struct hanzo_rocm *ctx,
                                     hanzo_rocm_log_fn fn, void *data)
{
	if (!ctx)
		return;
	/* Waits for messages being written: the old fn/data are free after. */
	pthread_rwlock_wrlock(&ctx->log_lock);
	ctx->log_fn = fn;
	ctx->log_data = data;
	pthread_rwlock_unlock(&ctx->log_lock);
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
	case -ENODATA: return "no launch metadata for this kernel (launch it with a grid)";
	case -E2BIG: return "too much work for one launch of this kernel on this device";
	case -EBADMSG: return "malformed data (a cache entry, index or plugin metadata)";
	default: return err < 0 ? strerror(-err) : "unknown error";
	}
}
