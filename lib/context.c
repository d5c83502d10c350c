/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The context (layer: context): struct hanzo_rocm itself, known to this
 * file only; its reference count and teardown; the one way a module's lazy
 * state is created (hr_ctx_lazy); logging (the default stderr logger,
 * HANZO_ROCM_LOG, the guarded log function) and the public log and
 * strerror API.  Every other file reaches the context through the
 * accessors in context.h; hanzo_rocm_new (which loads the
 * configuration, a higher layer) is lib/top-new.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "context.h"
#include "shared/util.h"
#include "shared/trust.h"

struct hanzo_rocm {
	int refcount;                   /* atomic (__atomic builtins) */
	/*
	 * log_fn and log_data change together under log_lock (written by
	 * hanzo_rocm_set_log_fn, read for every message), so a message never
	 * goes to one function with another's data, and once set_log_fn
	 * returns the old function is no longer running.
	 */
	pthread_rwlock_t log_lock;
	hanzo_rocm_log_fn log_fn;
	void *log_data;
	int log_priority;
	/*
	 * Each module's state (and the configuration), published once by a
	 * compare-and-swap (hr_ctx_publish) and freed by unref in slot order.
	 * No lock guards them, so none orders against their creation.
	 */
	void *slot[HR_SLOT_N];
	void (*destroy[HR_SLOT_N])(void *);
	/*
	 * Set by a tool (hr_tools_set_cancel) to a flag its SIGINT/SIGTERM
	 * handler raises: compiles in flight are killed (their whole process
	 * group) and their temp dirs removed, no new one starts.  NULL: never.
	 */
	const volatile sig_atomic_t *cancel;
	pthread_mutex_t once_lock;      /* guards warned */
	char **warned;                  /* hr_ctx_warn_once: messages logged once */
};

int hr_ctx_new(hanzo_rocm_log_fn log_fn, void *log_data, int log_priority,
               struct hanzo_rocm **ret)
{
	struct hanzo_rocm *ctx = calloc(1, sizeof(*ctx));
	pthread_rwlockattr_t a;
	int env_prio;

	*ret = NULL;
	if (!ctx)
		return -ENOMEM;
	ctx->refcount = 1;
	/* Writer first: threads logging back to back must not starve set_log_fn. */
	pthread_rwlockattr_init(&a);
	pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&ctx->log_lock, &a);
	pthread_rwlockattr_destroy(&a);
	pthread_mutex_init(&ctx->once_lock, NULL);
	ctx->log_fn = log_fn ? log_fn : hr_log_stderr;
	ctx->log_data = log_data;
	env_prio = hr_log_priority_from_env();
	ctx->log_priority = env_prio ? env_prio : log_priority;
	*ret = ctx;
	return 0;
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
	/* Slot order: the kernel table (modules built from cached code objects)
	 * first, then the devices and backends it ran on, ..., the
	 * configuration last. */
	for (int i = 0; i < HR_SLOT_N; i++)
		if (ctx->slot[i])
			ctx->destroy[i](ctx->slot[i]);
	hr_strv_free(ctx->warned);
	pthread_mutex_destroy(&ctx->once_lock);
	pthread_rwlock_destroy(&ctx->log_lock);
	free(ctx);
	return NULL;
}

void *hr_ctx_peek(const struct hanzo_rocm *ctx, enum hr_ctx_slot slot)
{
	return ctx ? __atomic_load_n(&ctx->slot[slot], __ATOMIC_ACQUIRE) : NULL;
}

bool hr_ctx_warn_once(struct hanzo_rocm *ctx, const char *what)
{
	bool first;

	if (!ctx)
		return true;
	pthread_mutex_lock(&ctx->once_lock);
	first = !hr_strv_contains(ctx->warned, what);
	if (first && hr_strv_push(&ctx->warned, what) < 0)
		first = true; /* no memory to remember: warning again is fine */
	pthread_mutex_unlock(&ctx->once_lock);
	return first;
}

/* Out of line, beside the slots: one home for the context's accessors. */
const struct hr_config *hr_ctx_config(const struct hanzo_rocm *ctx)
{
	return hr_ctx_peek(ctx, HR_SLOT_CONFIG);
}

void *hr_ctx_publish(struct hanzo_rocm *ctx, enum hr_ctx_slot slot, void *p,
                     void (*destroy)(void *))
{
	void *expected = NULL;

	if (!__atomic_compare_exchange_n(&ctx->slot[slot], &expected, p, false,
	                                 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		destroy(p);             /* lost the race: use the winner's */
		return expected;
	}
	/* Read only by the last unref, which synchronises with every ref. */
	ctx->destroy[slot] = destroy;
	return p;
}

int hr_ctx_lazy(struct hanzo_rocm *ctx, enum hr_ctx_slot slot,
                int (*create)(struct hanzo_rocm *ctx, void **ret),
                void (*destroy)(void *), void **ret)
{
	void *p = hr_ctx_peek(ctx, slot);
	int r;

	if (!p) {
		/* Unlocked: two threads may both create; the loser's copy goes. */
		r = create(ctx, &p);
		if (r < 0)
			return r;
		p = hr_ctx_publish(ctx, slot, p, destroy);
	}
	*ret = p;
	return 0;
}

static int trust_new(struct hanzo_rocm *ctx, void **ret)
{
	struct hr_trust *t;
	int r = hr_trust_new(&t);

	(void)ctx;
	*ret = t;
	return r;
}

struct hr_trust *hr_ctx_trust(struct hanzo_rocm *ctx)
{
	void *p = NULL;

	if (!ctx || hr_ctx_lazy(ctx, HR_SLOT_TRUST, trust_new, hr_trust_free, &p) < 0)
		return NULL;
	return p;
}

const volatile sig_atomic_t *hr_ctx_cancel(const struct hanzo_rocm *ctx)
{
	return ctx->cancel;
}

void hr_ctx_set_cancel(struct hanzo_rocm *ctx, const volatile sig_atomic_t *flag)
{
	ctx->cancel = flag;
}

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
	case -ENOTSUP: return "operation not supported (the log names the kernel, target or build)";
	case -EACCES: return "permission denied";
	case -EPERM: return "rejected by a trust check";
	case -EINVAL: return "invalid argument or configuration";
	case -ENOMEM: return "out of memory";
	case -ETIMEDOUT: return "timed out";
	case -EIO: return "I/O or driver error";
	case -ENOSYS: return "not available in this build";
	case -ENODATA: return "no data available (e.g. a kernel without launch metadata)";
	case -E2BIG: return "too big (work for one launch, a kernel's integer argument, or a text)";
	case -EBADMSG: return "malformed data (a cache entry, index or plugin metadata)";
	case -EILSEQ: return "the compiler rejected the source (see its diagnostics)";
	default: return err < 0 ? strerror(-err) : "unknown error";
	}
}
