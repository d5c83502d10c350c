/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The context and logging shared by every module of the library.  Modules
 * keep their own state behind the pointers below and initialise it lazily
 * (under ctx->lock) so that hanzo_rocm_new() stays cheap.
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

struct hr_config;
struct hr_devices;
struct hr_plugins;
struct hr_cache;
struct hr_runtime;
struct hr_backends;

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
	struct hr_config *config;       /* loaded by hanzo_rocm_new, immutable after */
	pthread_mutex_t lock;           /* guards the lazy pointers below */
	struct hr_devices *devices;     /* target.c */
	struct hr_plugins *plugins;     /* plugin.c */
	struct hr_cache *cache;         /* cache.c: memory tier */
	struct hr_runtime *runtime;     /* runtime.c (compare-and-swap, no lock) */
	struct hr_backends *backends;   /* backend.c (compare-and-swap, no lock) */
	/*
	 * Set by a tool (hr_tools_set_cancel) to a flag its SIGINT/SIGTERM
	 * handler raises: compiles in flight are killed (their whole process
	 * group) and their temp dirs removed, no new one starts.  NULL: never.
	 */
	const volatile sig_atomic_t *cancel;
};

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

/* The default logger (stderr) and $HANZO_ROCM_LOG's level (0 = unset): log.c. */
void hr_log_stderr(void *data, int priority, const char *file, int line,
                   const char *fn, const char *format, va_list args)
	__attribute__((format(printf, 6, 0)));
int hr_log_priority_from_env(void);

/* Teardown hooks each module provides (NULL-safe). */
void hr_devices_free(struct hr_devices *devices);
void hr_plugins_free(struct hr_plugins *plugins);
void hr_cache_free(struct hr_cache *cache);
void hr_runtime_free(struct hr_runtime *runtime);
void hr_backends_free(struct hr_backends *backends);

#endif
