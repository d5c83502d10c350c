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
 * The scheduler, the fibers and the barrier and wave exchange share one
 * per-block state whose invariants (who is parked, who runs, when a block
 * may retire) are only checkable read together: they stay in this file.
 * The pool of workers that runs a launch's blocks is backend/host/pool.c;
 * the state both see is host-internal.h.
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
#include "host-internal.h"

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

#ifdef HR_FAST_SWITCH
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

void hr_host_run_job(struct worker *w, struct job *j)
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

void hr_host_worker_free(struct worker *w)
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
