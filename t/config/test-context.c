/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The context's one way of creating module state (hr_ctx_lazy): threads
 * racing on a fresh context all get the same state, every lost race's copy
 * is destroyed at once, the winner exactly once by the last unref, in slot
 * order; a failed creation publishes nothing.  And the real slots: threads
 * racing on device detection, plugins, cache and runtime of one fresh
 * context all agree.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hanzo-rocm.h"
#include "context.h"
#include "../tap.h"

#define THREADS 16

static atomic_int created, destroyed, order_bad, last_slot;
static atomic_bool go;

struct state {
	int slot;
	int alive;
};

static void state_destroy(void *p)
{
	struct state *s = p;

	/* The last unref destroys slots in order: never a lower one after a higher. */
	if (atomic_exchange(&last_slot, s->slot) > s->slot)
		atomic_fetch_add(&order_bad, 1);
	s->alive = 0;
	atomic_fetch_add(&destroyed, 1);
	free(s);
}

static int create_at(struct hanzo_rocm *ctx, void **ret, int slot)
{
	struct state *s = malloc(sizeof(*s));
	struct timespec nap = { 0, 2 * 1000 * 1000 };

	(void)ctx;
	if (!s)
		return -ENOMEM;
	s->slot = slot;
	s->alive = 1;
	atomic_fetch_add(&created, 1);
	nanosleep(&nap, NULL);  /* so that racing threads all get to create */
	*ret = s;
	return 0;
}

static int create_runtime(struct hanzo_rocm *ctx, void **ret)
{
	return create_at(ctx, ret, HR_SLOT_RUNTIME);
}

static int create_devices(struct hanzo_rocm *ctx, void **ret)
{
	return create_at(ctx, ret, HR_SLOT_DEVICES);
}

static int create_fails(struct hanzo_rocm *ctx, void **ret)
{
	(void)ctx; (void)ret;
	return -EIO;
}

struct racer {
	struct hanzo_rocm *ctx;
	void *got;
	int r;
};

static void *race(void *arg)
{
	struct racer *w = arg;

	while (!atomic_load(&go))
		sched_yield();  /* 2 CPUs under TSan: spinning starved the starter */
	w->r = hr_ctx_lazy(w->ctx, HR_SLOT_RUNTIME, create_runtime, state_destroy, &w->got);
	return NULL;
}

static void *race_real(void *arg)
{
	struct racer *w = arg;
	int a, b;

	while (!atomic_load(&go))
		sched_yield();  /* 2 CPUs under TSan: spinning starved the starter */
	a = hanzo_rocm_device_count(w->ctx);
	b = hanzo_rocm_device_count(w->ctx);
	w->r = a == b ? a : -EBADE;
	return NULL;
}

static void test_race(void)
{
	struct hanzo_rocm *ctx;
	struct racer w[THREADS];
	pthread_t t[THREADS];
	int same = 1, errors = 0, created_n;
	void *p = NULL;

	if (hanzo_rocm_new(&ctx) < 0)
		return (void)ok(0, "context");
	ok(hr_ctx_peek(ctx, HR_SLOT_RUNTIME) == NULL, "a fresh context has no runtime state");
	ok(hr_ctx_lazy(ctx, HR_SLOT_DEVICES, create_fails, state_destroy, &p) == -EIO,
	   "a failed creation returns its error");
	ok(hr_ctx_peek(ctx, HR_SLOT_DEVICES) == NULL, "and publishes nothing");

	atomic_store(&go, false);
	for (int i = 0; i < THREADS; i++) {
		w[i] = (struct racer){ .ctx = ctx };
		pthread_create(&t[i], NULL, race, &w[i]);
	}
	atomic_store(&go, true);
	for (int i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		errors += w[i].r != 0;
		same &= w[i].got == w[0].got;
	}
	created_n = atomic_load(&created);
	ok(errors == 0, "%d threads racing on a fresh slot all succeed", THREADS);
	ok(same && w[0].got == hr_ctx_peek(ctx, HR_SLOT_RUNTIME),
	   "and all get the one published state");
	ok(created_n >= 1 && atomic_load(&destroyed) == created_n - 1,
	   "each lost race's copy is destroyed at once (%d created, %d destroyed)",
	   created_n, atomic_load(&destroyed));
	ok(((struct state *)w[0].got)->alive, "the published one is alive");
	ok(hr_ctx_lazy(ctx, HR_SLOT_DEVICES, create_devices, state_destroy, &p) == 0 && p,
	   "a second slot");
	ok(hr_ctx_lazy(ctx, HR_SLOT_RUNTIME, create_runtime, state_destroy, &p) == 0 &&
	   p == w[0].got && atomic_load(&created) == created_n + 1,
	   "a created slot is not created again");

	atomic_store(&destroyed, 0);
	atomic_store(&last_slot, -1);
	hanzo_rocm_ref(ctx);
	hanzo_rocm_unref(ctx);
	ok(atomic_load(&destroyed) == 0, "an unref that is not the last destroys nothing");
	hanzo_rocm_unref(ctx);
	ok(atomic_load(&destroyed) == 2, "the last unref destroys each published state once");
	ok(atomic_load(&order_bad) == 0, "in slot order (runtime before devices)");
}

static void test_race_real(void)
{
	struct hanzo_rocm *ctx;
	struct racer w[THREADS];
	pthread_t t[THREADS];
	int same = 1;

	if (hanzo_rocm_new(&ctx) < 0)
		return (void)ok(0, "context");
	atomic_store(&go, false);
	for (int i = 0; i < THREADS; i++) {
		w[i] = (struct racer){ .ctx = ctx };
		pthread_create(&t[i], NULL, race_real, &w[i]);
	}
	atomic_store(&go, true);
	for (int i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		same &= w[i].r >= 0 && w[i].r == w[0].r;
	}
	ok(same, "%d threads detecting devices on one fresh context agree (%d devices)",
	   THREADS, w[0].r);
	ok(hr_ctx_peek(ctx, HR_SLOT_DEVICES) != NULL, "the device list is the context's devices slot");
	hanzo_rocm_unref(ctx);
}

int main(void)
{
	test_race();
	test_race_real();
	return done_testing();
}
