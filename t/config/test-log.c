/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hanzo_rocm_set_log_fn while another thread logs: a message never reaches
 * one function with the other's data, and once set_log_fn returns the
 * previous function is no longer running (its data may be freed).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "context.h"
#include "../tap.h"

static int tag_a, tag_b;
static atomic_int in_a, mismatches, calls;
static atomic_bool stop;

__attribute__((format(printf, 6, 0)))
static void log_a(void *data, int priority, const char *file, int line,
                  const char *fn, const char *format, va_list args)
{
	struct timespec nap = { 0, 100 * 1000 };

	(void)priority; (void)file; (void)line; (void)fn; (void)format; (void)args;
	atomic_fetch_add(&in_a, 1);
	if (data != &tag_a)
		atomic_fetch_add(&mismatches, 1);
	nanosleep(&nap, NULL); /* widen the window a torn switch would hit */
	atomic_fetch_add(&calls, 1);
	atomic_fetch_sub(&in_a, 1);
}

__attribute__((format(printf, 6, 0)))
static void log_b(void *data, int priority, const char *file, int line,
                  const char *fn, const char *format, va_list args)
{
	(void)priority; (void)file; (void)line; (void)fn; (void)format; (void)args;
	if (data != &tag_b)
		atomic_fetch_add(&mismatches, 1);
	atomic_fetch_add(&calls, 1);
}

static void *logger(void *data)
{
	struct hanzo_rocm *ctx = data;

	struct timespec nap = { 0, 20 * 1000 };

	while (!atomic_load(&stop)) {
		hr_warn(ctx, "message\n");
		nanosleep(&nap, NULL);
	}
	return NULL;
}

int main(void)
{
	struct hanzo_rocm_options o = {
		.size = sizeof(o), .config = "/dev/null", .log_fn = log_b,
		.log_data = &tag_b, .log_priority = LOG_WARNING,
	};
	struct hanzo_rocm *ctx = NULL;
	pthread_t th[2];
	int still_running = 0;

	plan(4);
	if (hanzo_rocm_new_with_options(&o, &ctx) < 0)
		skip_all("cannot create a context");
	hanzo_rocm_set_log_priority(ctx, LOG_WARNING);
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, logger, ctx);
	for (int i = 0; i < 500; i++) {
		struct timespec nap = { 0, 50 * 1000 };

		hanzo_rocm_set_log_fn(ctx, log_a, &tag_a);
		nanosleep(&nap, NULL);
		hanzo_rocm_set_log_fn(ctx, log_b, &tag_b);
		if (atomic_load(&in_a) != 0)
			still_running++;
	}
	atomic_store(&stop, true);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	ok(atomic_load(&calls) > 100, "messages were logged meanwhile (%d)", atomic_load(&calls));
	is_int(atomic_load(&mismatches), 0, "no message reached a function with the other's data");
	is_int(still_running, 0, "the old function never ran after set_log_fn returned");
	hanzo_rocm_set_log_fn(ctx, NULL, NULL);
	hr_warn(ctx, "dropped\n");
	ok(1, "a NULL log function drops messages");
	hanzo_rocm_unref(ctx);
	return tap_failed != 0;
}
