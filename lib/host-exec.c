/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The GPU execution model on the CPU.  Blocks are taken from a shared counter
 * by a pool of workers (the launching thread is worker 0); inside a block
 * every simulated thread runs on a fiber (ucontext) of that worker.
 *
 * Fibers start lazily: one fiber runs thread 0, then 1, 2, ... to
 * completion, so a kernel without barriers costs two context switches per
 * block, not per thread.  A thread that waits (__syncthreads, a wave
 * operation) parks its fiber and the scheduler starts the next thread on a
 * fresh fiber; the last thread to arrive releases the others and keeps
 * running.  Fibers and their stacks stay with the worker for reuse.
 *
 * A barrier (block or wave) that some of its threads can never reach - one
 * returned, or waits at another call site - fails the launch with -EDEADLK
 * instead of hanging: the block's parked fibers are abandoned (their stacks
 * are reset before reuse) and no further block starts.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "host.h"

#if defined(__SANITIZE_ADDRESS__)
#define HR_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HR_ASAN 1
#endif
#endif
#ifdef HR_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#define STACK_SIZE (256u << 10)     /* per simulated thread; lazily committed */
#define MAX_BLOCK_THREADS 1024u

struct worker;

struct fiber {
	ucontext_t uc;
	struct worker *w;
	struct fiber *next;         /* free list, a group's waiters, the run queue */
	void *map;                  /* guard page + stack */
	void *stack;
	bool busy, fresh;           /* fresh: needs makecontext before use */
	void *asan_fake;
};

/* Threads that must all arrive: the block (barrier) or one wave. */
struct group {
	unsigned size, arrived, done;
	const void *site;
	struct fiber *waiters;
};

struct job {
	struct hr_host_launch *l;
	uint64_t n_blocks;
	uint64_t next;              /* atomic */
	int err;                    /* atomic: first error wins */
};

struct worker {
	struct hr_host_pool *pool;
	pthread_t thread;
	bool started;
	ucontext_t sched;
	const void *sched_bottom;
	size_t sched_size;
	void *sched_fake;
	struct fiber **fibers;
	size_t n_fibers;
	struct fiber *free;
	struct fiber *runq, *runq_tail;

	/* the block being run */
	const struct hr_host_launch *l;
	struct hr_host_thread th[MAX_BLOCK_THREADS];
	uint64_t wave_vals[2 * MAX_BLOCK_THREADS];
	struct group waves[MAX_BLOCK_THREADS / 32];
	struct group bar;
	struct hr_host_dim3 block_idx;
	unsigned n, next_start, done;
	void *shared;
	int err;
	char why[256];
};

struct hr_host_pool {
	unsigned n_workers;
	struct worker **w;
	pthread_mutex_t launch_lock;    /* one launch at a time */
	pthread_mutex_t lock;           /* the fields below */
	pthread_cond_t wake, idle;
	uint64_t gen;
	unsigned busy;
	bool stop, threads_started;
	struct job *job;
};

/* ---- fibers ----------------------------------------------------------- */

static void to_fiber(struct worker *w, struct fiber *f)
{
#ifdef HR_ASAN
	__sanitizer_start_switch_fiber(&w->sched_fake, f->stack, STACK_SIZE);
#endif
	swapcontext(&w->sched, &f->uc);
#ifdef HR_ASAN
	__sanitizer_finish_switch_fiber(w->sched_fake, NULL, NULL);
#endif
}

static void to_scheduler(struct fiber *f)
{
	struct worker *w = f->w;

#ifdef HR_ASAN
	__sanitizer_start_switch_fiber(&f->asan_fake, w->sched_bottom, w->sched_size);
#endif
	swapcontext(&f->uc, &w->sched);
#ifdef HR_ASAN
	/* Worker 0 is whichever thread launches: learn its stack anew. */
	__sanitizer_finish_switch_fiber(f->asan_fake, &w->sched_bottom, &w->sched_size);
#endif
}

static void thread_done(struct worker *w, unsigned i, struct fiber *f);

static void fiber_main(unsigned hi, unsigned lo)
{
	struct fiber *f = (struct fiber *)(((uintptr_t)hi << 16 << 16) | (uintptr_t)lo);
	struct worker *w = f->w;

#ifdef HR_ASAN
	__sanitizer_finish_switch_fiber(NULL, &w->sched_bottom, &w->sched_size);
#endif
	for (;;) {
		while (!w->err && w->next_start < w->n) {
			unsigned i = w->next_start++;
			struct hr_host_thread *t = &w->th[i];
			const struct hr_host_launch *l = w->l;
			unsigned bx = l->block[0], by = l->block[1], wave = i / l->wave;

			t->thread_idx.x = i % bx;
			t->thread_idx.y = (i / bx) % by;
			t->thread_idx.z = i / (bx * by);
			t->block_idx = w->block_idx;
			t->block_dim = (struct hr_host_dim3){ l->block[0], l->block[1], l->block[2] };
			t->grid_dim = (struct hr_host_dim3){ l->grid[0], l->grid[1], l->grid[2] };
			t->lane = i % l->wave;
			t->wave_size = l->wave;
			t->wave_lanes = w->waves[wave].size;
			t->parity = 0;
			t->wave_vals = w->wave_vals + (size_t)wave * 2 * l->wave;
			t->shared_dynamic = w->shared;
			t->fiber = f;
			l->entry(l->args, t);
			thread_done(w, i, f);
		}
		f->busy = false;
		f->next = w->free;
		w->free = f;
		to_scheduler(f);
	}
}

static void fiber_reset(struct fiber *f)
{
#ifdef HR_ASAN
	/* An abandoned fiber leaves poisoned redzones of its frames behind. */
	ASAN_UNPOISON_MEMORY_REGION(f->stack, STACK_SIZE);
#endif
	getcontext(&f->uc);
	f->uc.uc_stack.ss_sp = f->stack;
	f->uc.uc_stack.ss_size = STACK_SIZE;
	f->uc.uc_link = NULL;
	makecontext(&f->uc, (void (*)(void))fiber_main, 2,
	            (unsigned)((uintptr_t)f >> 16 >> 16), (unsigned)(uintptr_t)f);
	f->fresh = false;
}

static struct fiber *fiber_get(struct worker *w)
{
	struct fiber *f = w->free;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (f) {
		w->free = f->next;
	} else {
		struct fiber **v = realloc(w->fibers, (w->n_fibers + 1) * sizeof(struct fiber *));

		if (!v)
			return NULL;
		w->fibers = v;
		f = calloc(1, sizeof(*f));
		if (!f)
			return NULL;
		/* A guard page below the stack: an overflow faults, it does not corrupt. */
		f->map = mmap(NULL, STACK_SIZE + page, PROT_READ | PROT_WRITE,
		              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (f->map == MAP_FAILED) {
			free(f);
			return NULL;
		}
		(void)mprotect(f->map, page, PROT_NONE);
		f->stack = (char *)f->map + page;
		f->w = w;
		f->fresh = true;
		w->fibers[w->n_fibers++] = f;
	}
	if (f->fresh)
		fiber_reset(f);
	f->busy = true;
	f->next = NULL;
	return f;
}

/* ---- groups ----------------------------------------------------------- */

static void fail(struct worker *w, struct fiber *f, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Never returns: the block has failed; the scheduler abandons this fiber. */
static void fail(struct worker *w, struct fiber *f, const char *fmt, ...)
{
	va_list ap;
	int k;

	k = snprintf(w->why, sizeof(w->why), "block (%u,%u,%u): ", w->block_idx.x,
	             w->block_idx.y, w->block_idx.z);
	va_start(ap, fmt);
	if (k > 0 && (size_t)k < sizeof(w->why))
		vsnprintf(w->why + k, sizeof(w->why) - (size_t)k, fmt, ap);
	va_end(ap);
	w->err = -EDEADLK;
	for (;;)
		to_scheduler(f);
}

static void thread_name(const struct worker *w, const struct fiber *f, char *buf, size_t n)
{
	for (unsigned i = 0; i < w->n; i++)
		if (i < w->next_start && w->th[i].fiber == f) {
			const struct hr_host_thread *t = &w->th[i];

			snprintf(buf, n, "thread (%u,%u,%u)", t->thread_idx.x, t->thread_idx.y,
			         t->thread_idx.z);
			return;
		}
	snprintf(buf, n, "a thread");
}

static void group_arrive(struct worker *w, struct group *g, struct fiber *f,
                         const struct hr_host_thread *t, const void *site,
                         const char *what)
{
	if (g->done)
		fail(w, f, "thread (%u,%u,%u) waits at %s, but %u thread%s of its %s already returned: it can never be released",
		     t->thread_idx.x, t->thread_idx.y, t->thread_idx.z, what, g->done,
		     g->done == 1 ? "" : "s", g == &w->bar ? "block" : "wave");
	if (g->arrived == 0)
		g->site = site;
	else if (g->site != site)
		fail(w, f, "thread (%u,%u,%u) waits at %s at another call site than %u other thread%s of its %s (divergent barrier)",
		     t->thread_idx.x, t->thread_idx.y, t->thread_idx.z, what, g->arrived,
		     g->arrived == 1 ? "" : "s", g == &w->bar ? "block" : "wave");
	if (++g->arrived == g->size) {
		/* The last one releases the others and runs on. */
		if (g->waiters) {
			struct fiber *last = g->waiters;

			while (last->next)
				last = last->next;
			last->next = NULL;
			if (w->runq_tail)
				w->runq_tail->next = g->waiters;
			else
				w->runq = g->waiters;
			w->runq_tail = last;
		}
		g->waiters = NULL;
		g->arrived = 0;
		return;
	}
	f->next = g->waiters;
	g->waiters = f;
	to_scheduler(f);
}

static void group_leave(struct worker *w, struct group *g, struct fiber *f,
                        const struct hr_host_thread *t, const char *what)
{
	g->done++;
	if (g->arrived)
		fail(w, f, "thread (%u,%u,%u) returned while %u thread%s of its %s wait%s at %s: they can never be released",
		     t->thread_idx.x, t->thread_idx.y, t->thread_idx.z, g->arrived,
		     g->arrived == 1 ? "" : "s", g == &w->bar ? "block" : "wave",
		     g->arrived == 1 ? "s" : "", what);
}

static void thread_done(struct worker *w, unsigned i, struct fiber *f)
{
	const struct hr_host_thread *t = &w->th[i];

	w->done++;
	group_leave(w, &w->bar, f, t, "__syncthreads()");
	group_leave(w, &w->waves[i / w->l->wave], f, t, "a wave operation");
}

/* Called from the code object; the return address identifies the call site. */
static void rt_barrier(struct hr_host_thread *t)
{
	struct fiber *f = t->fiber;
	struct worker *w = f->w;

	group_arrive(w, &w->bar, f, t, __builtin_return_address(0), "__syncthreads()");
}

static void rt_wave_sync(struct hr_host_thread *t)
{
	struct fiber *f = t->fiber;
	struct worker *w = f->w;
	unsigned i = (unsigned)(t - w->th);

	group_arrive(w, &w->waves[i / w->l->wave], f, t, __builtin_return_address(0),
	             "a wave operation");
}

static const struct hr_host_rt rt_table = {
	.abi = HR_HOST_ABI,
	.size = sizeof(struct hr_host_rt),
	.barrier = rt_barrier,
	.wave_sync = rt_wave_sync,
};

const struct hr_host_rt *hr_host_rt_table(void)
{
	return &rt_table;
}

/* ---- blocks ----------------------------------------------------------- */

static int run_block(struct worker *w, const struct hr_host_launch *l, uint64_t b)
{
	unsigned n = l->block[0] * l->block[1] * l->block[2];
	unsigned n_waves = (n + l->wave - 1) / l->wave;

	w->l = l;
	w->block_idx.x = (unsigned)(b % l->grid[0]);
	w->block_idx.y = (unsigned)(b / l->grid[0] % l->grid[1]);
	w->block_idx.z = (unsigned)(b / l->grid[0] / l->grid[1]);
	w->n = n;
	w->next_start = 0;
	w->done = 0;
	w->err = 0;
	w->runq = w->runq_tail = NULL;
	w->bar = (struct group){ .size = n };
	for (unsigned k = 0; k < n_waves; k++)
		w->waves[k] = (struct group){
			.size = k + 1 < n_waves ? l->wave : n - k * l->wave };
	/* Exactly the requested size: the sanitizer sees an overrun. */
	w->shared = l->shared ? malloc(l->shared) : NULL;
	if (l->shared && !w->shared)
		return -ENOMEM;
	for (;;) {
		struct fiber *f = w->runq;

		if (f) {
			w->runq = f->next;
			if (!w->runq)
				w->runq_tail = NULL;
		} else if (w->next_start < w->n) {
			f = fiber_get(w);
			if (!f) {
				snprintf(w->why, sizeof(w->why), "out of memory for fiber stacks");
				w->err = -ENOMEM;
				break;
			}
		} else if (w->done == w->n) {
			break;
		} else {
			char who[64] = "";

			for (size_t k = 0; k < w->n_fibers; k++)
				if (w->fibers[k]->busy) {
					thread_name(w, w->fibers[k], who, sizeof(who));
					break;
				}
			snprintf(w->why, sizeof(w->why),
			         "block (%u,%u,%u): %u of %u threads wait forever (%s among them)",
			         w->block_idx.x, w->block_idx.y, w->block_idx.z,
			         w->n - w->done, w->n, who);
			w->err = -EDEADLK;
			break;
		}
		to_fiber(w, f);
		if (w->err)
			break;
	}
	if (w->err) {
		/* Parked fibers are abandoned: reinitialised before their next use. */
		for (size_t k = 0; k < w->n_fibers; k++) {
			struct fiber *f = w->fibers[k];

			if (f->busy) {
				f->busy = false;
				f->fresh = true;
				f->next = w->free;
				w->free = f;
			}
		}
	}
	free(w->shared);
	w->shared = NULL;
	return w->err;
}

static void run_job(struct worker *w, struct job *j)
{
	for (;;) {
		uint64_t b;
		int r, expected = 0;

		if (__atomic_load_n(&j->err, __ATOMIC_ACQUIRE))
			return;
		b = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
		if (b >= j->n_blocks)
			return;
		r = run_block(w, j->l, b);
		if (r < 0 && __atomic_compare_exchange_n(&j->err, &expected, r, false,
		                                         __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			memcpy(j->l->why, w->why, sizeof(j->l->why));
	}
}

/* ---- the pool --------------------------------------------------------- */

static void *worker_main(void *data)
{
	struct worker *w = data;
	struct hr_host_pool *p = w->pool;
	uint64_t seen = 0;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct job *j;

		while (p->gen == seen && !p->stop)
			pthread_cond_wait(&p->wake, &p->lock);
		if (p->stop)
			break;
		seen = p->gen;
		j = p->job;
		pthread_mutex_unlock(&p->lock);
		run_job(w, j);
		pthread_mutex_lock(&p->lock);
		if (--p->busy == 0)
			pthread_cond_signal(&p->idle);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static void worker_free(struct worker *w)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (!w)
		return;
	for (size_t k = 0; k < w->n_fibers; k++) {
		munmap(w->fibers[k]->map, STACK_SIZE + page);
		free(w->fibers[k]);
	}
	free(w->fibers);
	free(w);
}

int hr_host_pool_new(unsigned workers, struct hr_host_pool **ret)
{
	struct hr_host_pool *p;

	*ret = NULL;
	if (workers == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		workers = n < 1 ? 1 : n > 256 ? 256 : (unsigned)n;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->w = calloc(workers, sizeof(struct worker *));
	if (!p->w) {
		free(p);
		return -ENOMEM;
	}
	p->n_workers = workers;
	for (unsigned i = 0; i < workers; i++) {
		p->w[i] = calloc(1, sizeof(*p->w[i]));
		if (!p->w[i]) {
			hr_host_pool_free(p);
			return -ENOMEM;
		}
		p->w[i]->pool = p;
	}
	pthread_mutex_init(&p->launch_lock, NULL);
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
	pthread_cond_init(&p->idle, NULL);
	*ret = p;
	return 0;
}

void hr_host_pool_free(struct hr_host_pool *p)
{
	if (!p)
		return;
	if (p->threads_started) {
		pthread_mutex_lock(&p->lock);
		p->stop = true;
		pthread_cond_broadcast(&p->wake);
		pthread_mutex_unlock(&p->lock);
		for (unsigned i = 1; i < p->n_workers; i++)
			if (p->w[i]->started)
				pthread_join(p->w[i]->thread, NULL);
	}
	for (unsigned i = 0; i < p->n_workers; i++)
		worker_free(p->w[i]);
	free(p->w);
	pthread_cond_destroy(&p->idle);
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
	pthread_mutex_destroy(&p->launch_lock);
	free(p);
}

/* Helpers block every signal: the application's handlers run on its threads. */
static void start_threads(struct hr_host_pool *p)
{
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (unsigned i = 1; i < p->n_workers; i++)
		p->w[i]->started = pthread_create(&p->w[i]->thread, NULL, worker_main, p->w[i]) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	p->threads_started = true;
}

int hr_host_pool_run(struct hr_host_pool *p, struct hr_host_launch *l)
{
	struct job j = { .l = l };
	unsigned n_threads;
	bool parallel;

	l->why[0] = '\0';
	if (!l->entry || (l->wave != 32 && l->wave != 64))
		return -EINVAL;
	for (int i = 0; i < 3; i++)
		if (!l->grid[i] || !l->block[i])
			return -EINVAL;
	n_threads = l->block[0] * l->block[1] * l->block[2];
	if ((uint64_t)l->block[0] * l->block[1] * l->block[2] > MAX_BLOCK_THREADS) {
		snprintf(l->why, sizeof(l->why), "%u x %u x %u threads per block: the limit is %u",
		         l->block[0], l->block[1], l->block[2], MAX_BLOCK_THREADS);
		return -EINVAL;
	}
	(void)n_threads;
	j.n_blocks = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
	parallel = p->n_workers > 1 && j.n_blocks > 1;
	pthread_mutex_lock(&p->launch_lock);
	if (parallel) {
		pthread_mutex_lock(&p->lock);
		if (!p->threads_started)
			start_threads(p);
		/* Cleared below, before j goes out of scope. */
		// cppcheck-suppress autoVariables
		p->job = &j;
		p->gen++;
		p->busy = 0;
		for (unsigned i = 1; i < p->n_workers; i++)
			p->busy += p->w[i]->started;
		pthread_cond_broadcast(&p->wake);
		pthread_mutex_unlock(&p->lock);
	}
	run_job(p->w[0], &j);
	if (parallel) {
		pthread_mutex_lock(&p->lock);
		while (p->busy)
			pthread_cond_wait(&p->idle, &p->lock);
		p->job = NULL;
		pthread_mutex_unlock(&p->lock);
	}
	pthread_mutex_unlock(&p->launch_lock);
	return j.err;
}
