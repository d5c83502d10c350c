/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the host backend's files share (private to lib/backend/host/, whose files
 * only include it; the rest of lib/ sees backend/host/host.h, the ops table): the
 * backend's open and close (backend/host/host.c), the execution model it
 * launches on (a pool of workers, backend/host/pool.c; a launch) and that
 * model's state, shared by backend/host/exec.c (the fibers, the barrier and
 * wave exchange, running a block) and backend/host/pool.c (the workers that
 * run a launch's blocks).  Layer: backend.
 */
#ifndef HR_HOST_INTERNAL_H
#define HR_HOST_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

#include "../../../kernels/hr-host-abi.h"
#include "host.h"
#include "platform/platform.h"

struct hanzo_rocm;
struct hr_backend;

/* ---- the backend (backend/host/host.c) ---------------------------------- */
int hr_host_open(struct hanzo_rocm *ctx, struct hr_backend **b);
void hr_host_close(struct hr_backend *b);

/* ---- the execution model (backend/host/exec.c) ----------------------------- */
struct hr_host_pool;

/* The block-size and shared-memory limits the host backend reports: a
 * GPU's, so launch geometry (and its fallbacks) behave as on a GPU. */
#define HR_HOST_MAX_BLOCK 1024u
#define HR_HOST_MAX_SHARED (64u << 10)

typedef void (*hr_host_entry_fn)(void **args, struct hr_host_thread *t);

struct hr_host_launch {
	hr_host_entry_fn entry;
	void **args;
	unsigned grid[3], block[3];
	unsigned shared;            /* dynamic shared memory bytes per block */
	unsigned wave;              /* 64 or 32 */
	char why[256];              /* set when the launch fails */
};

/* The runtime's side of the code-object interface (static, immutable). */
const struct hr_host_rt *hr_host_rt_table(void);

/* workers >= 1 (the backend's: one per online CPU, at most 256, its
 * devices' multiprocessors).  Threads start on the first launch. */
int hr_host_pool_new(unsigned workers, struct hr_host_pool **ret);
void hr_host_pool_free(struct hr_host_pool *p);

/*
 * Runs every block; returns when all are done.  -EDEADLK when a barrier or
 * wave operation is not reached by every thread it waits for (l->why says
 * which block and thread), -E2BIG for a grid a GPU would refuse (target.h's
 * host row; l->why says which limit), -ENOMEM.  Launches on one pool are
 * serialised.
 */
int hr_host_pool_run(struct hr_host_pool *p, struct hr_host_launch *l);

/* ---- the execution model's state (backend/host/exec.c, backend/host/pool.c) */

#define STACK_SIZE (256u << 10)     /* per simulated thread; lazily committed */

/* Not with shadow stacks (CET): a stack switch by `ret` would fault. */
#if defined(__x86_64__) && !(defined(__CET__) && (__CET__ & 2)) && !defined(HR_HOST_UCONTEXT)
#define HR_FAST_SWITCH 1
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

/* Runs the job's blocks on worker w until none is left or one failed. */
void hr_host_run_job(struct worker *w, struct job *j);
/* Frees w, its fibers and their stacks. */
void hr_host_worker_free(struct worker *w);

#endif
