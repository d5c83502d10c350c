/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The GPU execution model on the CPU.  Blocks are taken from a shared counter
 * by a pool of workers (the launching thread is worker 0); inside a block
 * every simulated thread runs on a fiber of that worker: a register switch
 * of our own on x86-64 (glibc's swapcontext makes a sigprocmask system call
 * per switch, about 10x the cost), ucontext elsewhere.
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
 * are reset before reuse) and no further block starts.  Layer: backend.
 *
 * Over 600 lines on purpose: the scheduler, the fibers and the barrier and
 * wave exchange share one per-block state whose invariants (who is parked,
 * who runs, when a block may retire) are only checkable read together.
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

#include "backend-host.h"
#include "target.h"

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

/* Not with shadow stacks (CET): a stack switch by `ret` would fault. */
#if defined(__x86_64__) && !(defined(__CET__) && (__CET__ & 2)) && !defined(HR_HOST_UCONTEXT)
#define HR_FAST_SWITCH 1
/*
 * hr_host_switch(&save, to): pushes the callee-saved registers and the SSE
 * and x87 control words, stores the stack pointer in *save, then pops the
 * same from the stack `to` and returns there.  A new fiber's stack is
 * prepared by fiber_reset to "return" into hr_host_fiber_entry, which calls
 * hr_host_fiber_start(r12).
 */
void hr_host_switch(void **save, void *to);
__asm__(
	".text\n"
	".globl hr_host_switch\n"
	".hidden hr_host_switch\n"
	".type hr_host_switch,@function\n"
	".p2align 4\n"
	"hr_host_switch:\n"
	"\tpushq %rbp\n\tpushq %rbx\n\tpushq %r12\n\tpushq %r13\n\tpushq %r14\n\tpushq %r15\n"
	"\tsubq $8, %rsp\n\tstmxcsr (%rsp)\n\tfnstcw 4(%rsp)\n"
	"\tmovq %rsp, (%rdi)\n\tmovq %rsi, %rsp\n"
	"\tldmxcsr (%rsp)\n\tfldcw 4(%rsp)\n\taddq $8, %rsp\n"
	"\tpopq %r15\n\tpopq %r14\n\tpopq %r13\n\tpopq %r12\n\tpopq %rbx\n\tpopq %rbp\n"
	"\tret\n"
	".size hr_host_switch, .-hr_host_switch\n"
	".globl hr_host_fiber_entry\n"
	".hidden hr_host_fiber_entry\n"
	".type hr_host_fiber_entry,@function\n"
	"hr_host_fiber_entry:\n"
	"\tmovq %r12, %rdi\n\tcall hr_host_fiber_start\n\tud2\n"
	".size hr_host_fiber_entry, .-hr_host_fiber_entry\n");
void hr_host_fiber_entry(void);
void hr_host_fiber_start(void *f);
#endif
#define MAX_BLOCK_THREADS 1024u

struct worker;

struct fiber {
#ifdef HR_FAST_SWITCH
	void *sp;
#else
	ucontext_t uc;
#endif
	struct worker *w;
	struct fiber *next;         /* free list, a group's waiters, the run queue */
	void *map;                  /* guard page + stack */
	void *stack;
	bool busy, fresh;           /* fresh: needs a new initial frame before use */
	unsigned color;             /* stack top offset, see fiber_get */
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
#ifdef HR_FAST_SWITCH
	void *sched_sp;
#else
	ucontext_t sched;
#endif
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
#ifdef HR_FAST_SWITCH
	hr_host_switch(&w->sched_sp, f->sp);
#else
	swapcontext(&w->sched, &f->uc);
#endif
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
#ifdef HR_FAST_SWITCH
	hr_host_switch(&f->sp, w->sched_sp);
#else
	swapcontext(&f->uc, &w->sched);
#endif
#ifdef HR_ASAN
	/* Worker 0 is whichever thread launches: learn its stack anew. */
	__sanitizer_finish_switch_fiber(f->asan_fake, &w->sched_bottom, &w->sched_size);
#endif
}

static void thread_done(struct worker *w, unsigned i, struct fiber *f);

/* A fiber's life: run threads of the current block, park, repeat. */
static void fiber_run(struct fiber *f)
{
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

#ifdef HR_FAST_SWITCH
void hr_host_fiber_start(void *f)
{
	fiber_run(f);
}

static void fiber_reset(struct fiber *f)
{
	uintptr_t top = ((uintptr_t)f->stack + STACK_SIZE - f->color) & ~(uintptr_t)15;
	uint64_t *sp = (uint64_t *)(top - 128);     /* 16-byte aligned */
	unsigned mxcsr;
	unsigned short fpucw;

#ifdef HR_ASAN
	ASAN_UNPOISON_MEMORY_REGION(f->stack, STACK_SIZE);
#endif
	__asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
	__asm__ volatile("fnstcw %0" : "=m"(fpucw));
	/* What hr_host_switch pops: control words, r15..r12, rbx, rbp, return
	 * address; the entry then sees the stack aligned as after a call. */
	memset(sp, 0, 8 * sizeof(*sp));
	sp[0] = mxcsr | (uint64_t)fpucw << 32;
	sp[4] = (uint64_t)(uintptr_t)f;             /* r12 */
	sp[7] = (uint64_t)(uintptr_t)hr_host_fiber_entry;
	f->sp = sp;
	f->fresh = false;
}
#else
static void fiber_main(unsigned hi, unsigned lo)
{
	fiber_run((struct fiber *)(((uintptr_t)hi << 16 << 16) | (uintptr_t)lo));
}

static void fiber_reset(struct fiber *f)
{
#ifdef HR_ASAN
	/* An abandoned fiber leaves poisoned redzones of its frames behind. */
	ASAN_UNPOISON_MEMORY_REGION(f->stack, STACK_SIZE);
#endif
	getcontext(&f->uc);
	f->uc.uc_stack.ss_sp = f->stack;
	f->uc.uc_stack.ss_size = STACK_SIZE - f->color;
	f->uc.uc_link = NULL;
	makecontext(&f->uc, (void (*)(void))fiber_main, 2,
	            (unsigned)((uintptr_t)f >> 16 >> 16), (unsigned)(uintptr_t)f);
	f->fresh = false;
}
#endif

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
		/*
		 * Stacks are a fixed size apart, so their tops would all fall in
		 * the same cache sets: stagger them by whole cache lines.
		 */
		f->color = (unsigned)(w->n_fibers % 61) * 64;
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

unsigned hr_host_default_workers(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 256 ? 256 : (unsigned)n;
}

int hr_host_pool_new(unsigned workers, struct hr_host_pool **ret)
{
	struct hr_host_pool *p;

	*ret = NULL;
	if (workers == 0)
		workers = hr_host_default_workers();
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
	/* What a GPU refuses, the host refuses (target.h: both GPUs' limits). */
	if (hr_grid_check(hr_platform_grid_limits(HR_PLATFORM_HOST), l->grid, l->block,
	                  l->why, sizeof(l->why)) < 0)
		return -E2BIG;
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
