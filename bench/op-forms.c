/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The operation call against its two forms: for the sum, softmax and
 * rmsnorm (f32) at shapes from few long rows to many short ones,
 * hanzo_rocm_op_run (the library picks the form) and each form launched by
 * hand - the one-pass kernel, and the split pass + second pass at the split
 * count the geometry gives.
 *
 * 1. Check: every form's result (and the operation's) against a float64
 *    CPU reference before anything is timed; a mismatch fails the run.
 * 2. GPU time ("ms" columns): a long one-block kernel (the one-pass sum of
 *    one 2^24 row, ~25 ms on an H100) is queued first, then event 0, N
 *    launches of the form, event 1: the host enqueues all N while the GPU is
 *    still busy with the spin, so the time is the GPU's alone, host cost
 *    hidden; median of 5 such batches, divided by N.
 * 3. Host time ("host us"): the wall-clock time of one call on the host
 *    (hanzo_rocm_op_run, or the by-hand launches of the better form with
 *    their geometry call), N calls in a row behind the spin, so the queue
 *    never blocks: what the operation call itself costs the caller's
 *    thread.  It is real and is not in the GPU time.
 * Prints op / best (GPU time): the bar is <= 1.05.
 *   HANZO_ROCM_PLUGIN_PATH=… bench/op-forms [small]
 * ("small": a few small shapes, for the host backend.)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "context.h"
#include "runtime/runtime.h"

#define N_LAUNCH 50
#define N_BATCH 5

static struct hanzo_rocm *ctx;

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

enum form { ONE, SPLIT, OP };
static const char *const form_name[] = { "one-pass", "split", "op" };

struct job {
	const char *one;
	struct hanzo_rocm_kernel *k1, *ks, *k2;
	uint64_t rows, cols, src, dst, alpha, ws;
	size_t ws_size;
};

static int run(struct job *j, enum form f)
{
	struct hanzo_rocm_geometry g;
	struct hanzo_rocm_layout info;
	uint64_t numel = j->rows * j->cols, el = j->cols, nd = 0, rows = j->rows, splits;
	int ncols = (int)j->cols, block, isplits, r;
	float eps = 1e-5f;

	memset(&info, 0, sizeof(info));
	if (f == OP) {
		struct hanzo_rocm_op_args a = { .size = sizeof(a), .src = (void *)(uintptr_t)j->src,
		                                .dst = (void *)(uintptr_t)j->dst,
		                                .alpha = (void *)(uintptr_t)j->alpha, .eps = eps,
		                                .workspace = (void *)(uintptr_t)j->ws,
		                                .workspace_size = j->ws_size };
		return hanzo_rocm_op_run(j->k1, j->rows, j->cols, &a);
	}
	if (f == ONE) {
		r = hanzo_rocm_kernel_geometry(j->k1, j->rows, j->cols, &g);
		if (r < 0)
			return r;
		block = (int)g.block[0];
		if (j->one[0] == 'f') {
			void *args[] = { &numel, &el, &nd, &info, &j->src, &j->dst };
			return hanzo_rocm_kernel_launch_work(j->k1, j->rows, j->cols, NULL, args);
		} else if (j->one[0] == 's') {
			void *args[] = { &j->src, &j->dst, &ncols };
			return hanzo_rocm_kernel_launch_work(j->k1, j->rows, j->cols, NULL, args);
		} else {
			void *args[] = { &j->src, &j->dst, &j->alpha, &ncols, &block, &eps };
			return hanzo_rocm_kernel_launch_work(j->k1, j->rows, j->cols, NULL, args);
		}
	}
	r = hanzo_rocm_kernel_geometry(j->ks, j->rows, j->cols, &g);
	if (r < 0)
		return r;
	splits = g.splits;
	isplits = (int)g.splits;
	if (j->one[0] == 'f') {
		void *a1[] = { &numel, &el, &nd, &info, &j->src, &j->ws };
		void *a2[] = { &rows, &splits, &j->ws, &j->dst };
		r = hanzo_rocm_kernel_launch_work(j->ks, j->rows, j->cols, NULL, a1);
		return r ? r : hanzo_rocm_kernel_launch_work(j->k2, j->rows, 1, NULL, a2);
	} else if (j->one[0] == 's') {
		void *a1[] = { &j->src, &j->ws, &ncols };
		void *a2[] = { &j->src, &j->dst, &ncols, &j->ws, &isplits };
		r = hanzo_rocm_kernel_launch_work(j->ks, j->rows, j->cols, NULL, a1);
		return r ? r : hanzo_rocm_kernel_launch_work(j->k2, j->rows, j->cols, NULL, a2);
	} else {
		void *a1[] = { &j->src, &j->ws, &ncols };
		void *a2[] = { &j->src, &j->dst, &j->alpha, &ncols, &eps, &j->ws, &isplits };
		r = hanzo_rocm_kernel_launch_work(j->ks, j->rows, j->cols, NULL, a1);
		return r ? r : hanzo_rocm_kernel_launch_work(j->k2, j->rows, j->cols, NULL, a2);
	}
}

/* The spin: one block summing 2^24 floats (the one-pass sum of one row). */
static struct job spin_job;

static int spin(void)
{
	return run(&spin_job, ONE);
}

/* GPU ms a launch (host hidden behind the spin) and host us a call. */
static int time_form(struct job *j, enum form f, double *gpu_ms, double *host_us)
{
	double ms[N_BATCH], us[N_BATCH];
	void *e0 = NULL, *e1 = NULL;
	int r = 0;

	if (hr_runtime_event_create(ctx, 0, &e0) || hr_runtime_event_create(ctx, 0, &e1))
		return -1;
	for (int i = 0; i < 3 && r == 0; i++)
		r = run(j, f);
	for (int b = 0; b < N_BATCH && r == 0; b++) {
		float t = 0.f;
		double h0, h1;

		r = spin();
		r = r ? r : hr_runtime_event_record(ctx, 0, e0, NULL);
		h0 = now_us();
		for (int i = 0; i < N_LAUNCH && r == 0; i++)
			r = run(j, f);
		h1 = now_us();
		r = r ? r : hr_runtime_event_record(ctx, 0, e1, NULL);
		r = r ? r : hr_runtime_synchronize(ctx, 0, NULL);
		r = r ? r : hr_runtime_event_elapsed(ctx, 0, e0, e1, &t);
		ms[b] = (double)t / N_LAUNCH;
		us[b] = (h1 - h0) / N_LAUNCH;
	}
	hr_runtime_event_destroy(ctx, 0, e0);
	hr_runtime_event_destroy(ctx, 0, e1);
	qsort(ms, N_BATCH, sizeof(double), cmp);
	qsort(us, N_BATCH, sizeof(double), cmp);
	*gpu_ms = ms[N_BATCH / 2];
	*host_us = us[N_BATCH / 2];
	return r;
}

/* float64 reference of job j's output from the host copy x of src and w of alpha. */
static void reference(const struct job *j, const float *x, const float *w, double *out)
{
	for (uint64_t r = 0; r < j->rows; r++) {
		const float *row = x + r * j->cols;
		double *o = out + (j->one[0] == 'f' ? r : r * j->cols);

		if (j->one[0] == 'f') {
			double s = 0;

			for (uint64_t c = 0; c < j->cols; c++)
				s += row[c];
			o[0] = s;
		} else if (j->one[0] == 's') {
			double m = -INFINITY, l = 0;

			for (uint64_t c = 0; c < j->cols; c++)
				m = fmax(m, row[c]);
			for (uint64_t c = 0; c < j->cols; c++)
				l += exp(row[c] - m);
			for (uint64_t c = 0; c < j->cols; c++)
				o[c] = exp(row[c] - m) / l;
		} else {
			double ss = 0;

			for (uint64_t c = 0; c < j->cols; c++)
				ss += (double)row[c] * row[c];
			ss = 1.0 / sqrt(ss / (double)j->cols + 1e-5);
			for (uint64_t c = 0; c < j->cols; c++)
				o[c] = row[c] * ss * w[c];
		}
	}
}

/* Run form f once on a poisoned dst; its largest error against ref (scaled). */
static int check(struct job *j, enum form f, const double *ref, float *got, double *err)
{
	size_t n = j->one[0] == 'f' ? j->rows : j->rows * j->cols;
	int r;

	for (size_t i = 0; i < n; i++)
		got[i] = NAN;
	if (hr_runtime_copy_htod(ctx, 0, j->dst, got, n * 4) < 0)
		return -1;
	r = run(j, f);
	if (r < 0 || hr_runtime_synchronize(ctx, 0, NULL) < 0 ||
	    hr_runtime_copy_dtoh(ctx, 0, got, j->dst, n * 4) < 0)
		return r < 0 ? r : -1;
	*err = 0;
	for (size_t i = 0; i < n; i++) {
		/* the sum: relative to the row's length (values in [-1, 1)); else absolute */
		double scale = j->one[0] == 'f' ? (double)j->cols : 1.0;
		double e = fabs((double)got[i] - ref[i]) / scale;

		if (!(e <= *err))
			*err = e;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const ops[][4] = {
		{ "reduce", "fast_sum_f32", "fast_sum_split_f32", "fast_sum_finish_f32" },
		{ "norm", "softmax_f32", "softmax_split_f32", "softmax_apply_f32" },
		{ "norm", "rmsnorm_f32", "rmsnorm_split_f32", "rmsnorm_apply_f32" },
	};
	static const uint64_t big[][2] = {
		{ 1, 1 << 24 }, { 8, 1 << 21 }, { 32, 151936 }, { 64, 32000 }, { 128, 8192 },
		{ 132, 65536 }, { 256, 4096 }, { 4096, 4096 }, { 16384, 1024 },
	}, small[][2] = { { 1, 1 << 16 }, { 3, 5000 }, { 64, 100 } };
	const bool is_small = argc > 1 && strcmp(argv[1], "small") == 0;
	const uint64_t (*shapes)[2] = is_small ? small : big;
	const size_t n_shapes = is_small ? 3 : sizeof(big) / sizeof(big[0]);
	size_t max = (size_t)1 << 24, worst_i = 0;
	uint64_t src, dst, alpha, ws;
	const char *target = "?";
	double worst = 0, *ref = malloc(max * sizeof(double));
	float *h = malloc(max * 4), *got = malloc(max * 4);
	int r, bad = 0;

	r = hanzo_rocm_new(&ctx);
	if (r < 0 || hanzo_rocm_device_count(ctx) <= 0 || !ref || !h || !got) {
		printf("no device\n");
		return 2;
	}
	hanzo_rocm_device_target(ctx, 0, &target);
	if (hr_runtime_alloc(ctx, 0, max * 4, &src) || hr_runtime_alloc(ctx, 0, max * 4, &dst) ||
	    hr_runtime_alloc(ctx, 0, max * 4, &alpha) || hr_runtime_alloc(ctx, 0, 64 << 20, &ws)) {
		printf("alloc failed\n");
		return 1;
	}
	for (size_t i = 0; i < max; i++)
		h[i] = (float)((i * 7919) % 1000) / 500.0f - 1.0f;
	hr_runtime_copy_htod(ctx, 0, src, h, max * 4);
	hr_runtime_copy_htod(ctx, 0, alpha, h, max * 4);
	spin_job = (struct job){ .one = "fast_sum_f32", .rows = 1, .cols = is_small ? 1 << 16 : max,
	                         .src = src, .dst = ws };
	if (hanzo_rocm_kernel_get(ctx, 0, "reduce", "fast_sum_f32", &spin_job.k1) < 0) {
		printf("no reduce family\n");
		return 1;
	}
	printf("device 0: %s; GPU ms a launch behind a spin (%d queued, median of %d); host us a call\n"
	       "%-13s %13s %6s %-8s %9s %9s %9s %7s %8s %8s %8s\n", target, N_LAUNCH, N_BATCH,
	       "kernel", "shape", "splits", "op form", "one ms", "split ms", "op ms", "op/best",
	       "op us", "hand us", "max err");
	for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++)
		for (size_t s = 0; s < n_shapes; s++) {
			struct job j = { .one = ops[o][1], .rows = shapes[s][0], .cols = shapes[s][1],
			                 .src = src, .dst = dst, .alpha = alpha, .ws = ws,
			                 .ws_size = 64 << 20 };
			struct hanzo_rocm_geometry_ex gx = { .size = sizeof(gx) };
			struct hanzo_rocm_geometry g;
			double t[3], us[3], best, ratio, err = INFINITY, maxerr = 0, tol;
			char shape[32];

			if (hanzo_rocm_kernel_get(ctx, 0, ops[o][0], ops[o][1], &j.k1) ||
			    hanzo_rocm_kernel_get(ctx, 0, ops[o][0], ops[o][2], &j.ks) ||
			    hanzo_rocm_kernel_get(ctx, 0, ops[o][0], ops[o][3], &j.k2) ||
			    hanzo_rocm_kernel_geometry_ex(j.k1, j.rows, j.cols, &gx) ||
			    hanzo_rocm_kernel_geometry(j.ks, j.rows, j.cols, &g)) {
				printf("%s: setup failed\n", ops[o][1]);
				return 1;
			}
			reference(&j, h, h, ref);
			/* f32 accumulation: the sum relative to its length, the rest per element */
			tol = 1e-5;
			for (int f = ONE; f <= OP; f++) {
				err = INFINITY;
				if (check(&j, (enum form)f, ref, got, &err) < 0 || !(err <= tol)) {
					printf("%s %llux%llu: %s form WRONG (error %.3g)\n", ops[o][1],
					       (unsigned long long)j.rows, (unsigned long long)j.cols,
					       form_name[f], err);
					bad = 1;
				}
				if (err > maxerr)
					maxerr = err;
			}
			for (int f = ONE; f <= OP; f++)
				if (time_form(&j, (enum form)f, &t[f], &us[f]) < 0) {
					printf("%s: timing failed\n", ops[o][1]);
					return 1;
				}
			best = t[ONE] < t[SPLIT] ? t[ONE] : t[SPLIT];
			ratio = t[OP] / best;
			if (ratio > worst) {
				worst = ratio;
				worst_i = o * 100 + s;
			}
			snprintf(shape, sizeof(shape), "%llux%llu", (unsigned long long)j.rows,
			         (unsigned long long)j.cols);
			printf("%-13s %13s %6u %-8s %9.4f %9.4f %9.4f %7.3f %8.2f %8.2f %8.2g\n", ops[o][1],
			       shape, g.splits, gx.op_form, t[ONE], t[SPLIT], t[OP], ratio, us[OP],
			       us[t[ONE] < t[SPLIT] ? ONE : SPLIT], maxerr);
		}
	printf("worst op/best: %.3f (%s, shape %zu)%s\n", worst, ops[worst_i / 100][1], worst_i % 100,
	       bad ? "; RESULTS WRONG" : "; every result checked against float64");
	hanzo_rocm_unref(ctx);
	free(ref);
	free(h);
	free(got);
	return bad;
}
