/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The context and logging shared by every module of the library.  Modules
 * keep their own state in the context's slots and create it lazily
 * (hr_ctx_lazy) so that hanzo_rocm_new() stays cheap.
 * Layer: context (lib/layers).
 */
#ifndef HR_PRIVATE_H
#define HR_PRIVATE_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <syslog.h>

#include "hanzo-rocm.h"

#define HR_EXPORT __attribute__((visibility("default")))
#define HR_PRINTF(a, b) __attribute__((format(printf, a, b)))

/*
 * struct hanzo_rocm is defined in context.c only; everything else uses the
 * accessors below.
 *
 * Each module keeps its state in a slot of the context, created on first
 * use by hr_ctx_lazy: create() runs unlocked (two threads may both run
 * it), the first result is published by a compare-and-swap and a loser's
 * is destroyed.  So creating module state takes no lock and orders against
 * none; the library's lock order is written once, in runtime.h.  The last
 * unref destroys the slots in this order (the kernel table's modules live in
 * backend contexts, the configuration is read by everyone's teardown).
 */
enum hr_ctx_slot {
	HR_SLOT_SOURCE,         /* source/module.c: source modules, unloaded before the runtime */
	HR_SLOT_KERNELS,        /* kernel.c: kernel table and family modules, unloaded before the devices */
	HR_SLOT_RUNTIME,        /* runtime.c: opened devices */
	HR_SLOT_BACKENDS,       /* backend.c */
	HR_SLOT_CACHE,          /* cache.c: the cache object (memory tier) */
	HR_SLOT_REMOTE,         /* remote/remote.c: the remote tier (HTTP module, breaker, budget) */
	HR_SLOT_PLUGINS,        /* plugin/plugin.c */
	HR_SLOT_DEVICES,        /* devices.c */
	HR_SLOT_TRUST,          /* context.c: shared/trust.c's memo */
	HR_SLOT_CONFIG,         /* top-new.c, immutable once published */
	HR_SLOT_N
};

int hr_ctx_lazy(struct hanzo_rocm *ctx, enum hr_ctx_slot slot,
                int (*create)(struct hanzo_rocm *ctx, void **ret),
                void (*destroy)(void *), void **ret);
/* Publishes p unless the slot is taken (then destroys p); returns the winner. */
void *hr_ctx_publish(struct hanzo_rocm *ctx, enum hr_ctx_slot slot, void *p,
                     void (*destroy)(void *));
/* The slot's state if created, else NULL (creates nothing). */
void *hr_ctx_peek(const struct hanzo_rocm *ctx, enum hr_ctx_slot slot);

/* A context with logging set up and no module state (hanzo_rocm_new). */
int hr_ctx_new(hanzo_rocm_log_fn log_fn, void *log_data, int log_priority,
               struct hanzo_rocm **ret);
/* The configuration ctx was created with (config/config.h; NULL only while loading). */
struct hr_config;
const struct hr_config *hr_ctx_config(const struct hanzo_rocm *ctx);
/*
 * The log-once set: true the first time what is seen in this context (then
 * log it), false after, so a condition met on every call (a full disk, an
 * untrusted tier) is one warning per context.  True when out of memory.
 */
bool hr_ctx_warn_once(struct hanzo_rocm *ctx, const char *what);
/* The trust rule's memo (shared/trust.h), or NULL (no memo: still correct). */
struct hr_trust;
struct hr_trust *hr_ctx_trust(struct hanzo_rocm *ctx);
/* The cancel flag a tool set (hr_tools_set_cancel), or NULL. */
const volatile sig_atomic_t *hr_ctx_cancel(const struct hanzo_rocm *ctx);
void hr_ctx_set_cancel(struct hanzo_rocm *ctx, const volatile sig_atomic_t *flag);

void hr_log(struct hanzo_rocm *ctx, int priority, const char *file, int line,
            const char *fn, const char *format, ...) HR_PRINTF(6, 7);

/* The level test is inline so that a silent context costs one compare. */
#define hr_log_cond(ctx, prio, ...)                                            \
	do {                                                                   \
		if ((ctx) && hanzo_rocm_get_log_priority(ctx) >= (prio))       \
			hr_log((ctx), (prio), __FILE__, __LINE__, __func__,    \
			       __VA_ARGS__);                                   \
	} while (0)
#define hr_dbg(ctx, ...) hr_log_cond(ctx, LOG_DEBUG, __VA_ARGS__)
#define hr_info(ctx, ...) hr_log_cond(ctx, LOG_INFO, __VA_ARGS__)
#define hr_warn(ctx, ...) hr_log_cond(ctx, LOG_WARNING, __VA_ARGS__)
#define hr_err(ctx, ...) hr_log_cond(ctx, LOG_ERR, __VA_ARGS__)

/*
 * A warning meant for the administrator (a bad setting in the system
 * configuration that the library works around): with the application's own
 * log function it obeys the log priority like any warning; with the default
 * logger it goes to standard error even when the context is otherwise
 * silent, since nobody else would ever see it (doc/hanzo-rocm.conf.5).
 */
void hr_warn_admin(struct hanzo_rocm *ctx, const char *format, ...) HR_PRINTF(2, 3);

/* The default logger (stderr) and $HANZO_ROCM_LOG's level (0 = unset): context.c. */
void hr_log_stderr(void *data, int priority, const char *file, int line,
                   const char *fn, const char *format, va_list args)
	__attribute__((format(printf, 6, 0)));
int hr_log_priority_from_env(void);

#endif
