/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The host backend's pool of workers (host-internal.h): blocks are taken from
 * a shared counter by the workers (the launching thread is worker 0; helper
 * threads start on the first launch, with every signal blocked); each worker
 * runs its blocks with the execution model of backend/host/exec.c.  Launches
 * on one pool are serialised.  Layer: backend.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"
#include "host-internal.h"
#include "target/target.h"

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
		hr_host_run_job(w, j);
		pthread_mutex_lock(&p->lock);
		if (--p->busy == 0)
			pthread_cond_signal(&p->idle);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int hr_host_pool_new(unsigned workers, struct hr_host_pool **ret)
{
	struct hr_host_pool *p;

	*ret = NULL;
	if (workers == 0)
		return -EINVAL;
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
		hr_host_worker_free(p->w[i]);
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
	bool parallel;

	l->why[0] = '\0';
	if (!l->entry || (l->wave != 32 && l->wave != 64))
		return -EINVAL;
	for (int i = 0; i < 3; i++)
		if (!l->grid[i] || !l->block[i])
			return -EINVAL;
	if ((uint64_t)l->block[0] * l->block[1] * l->block[2] > MAX_BLOCK_THREADS) {
		snprintf(l->why, sizeof(l->why), "%u x %u x %u threads per block: the limit is %u",
		         l->block[0], l->block[1], l->block[2], MAX_BLOCK_THREADS);
		return -EINVAL;
	}
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
	hr_host_run_job(p->w[0], &j);
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
