/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The operation call against its two forms, on a GPU: for the sum, softmax
 * and rmsnorm (f32) at shapes from few long rows to many short ones, the
 * time of hanzo_rocm_op_run (the library picks the form) and of each form
 * launched by hand - the one-pass kernel, and the split pass + second pass
 * at the split count the geometry gives - with event timing, 3 warm-ups,
 * median of 20.  Prints op / best-of-the-two: the bar is <= 1.05.
 *   HANZO_ROCM_PLUGIN_PATH=… bench/op-forms
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "runtime.h"

static struct hanzo_rocm *ctx;

static int cmp(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return x < y ? -1 : x > y;
}

enum form { ONE, SPLIT, OP };

struct job {
	const char *one, *split, *second;
	struct hanzo_rocm_kernel *k1, *ks, *k2;
	uint64_t rows, cols, src, dst, alpha, ws;
	size_t ws_size;
};

static int run(struct job *j, enum form f)
{
	struct hanzo_rocm_geometry g;
	struct hanzo_rocm_layout info;
	uint64_t numel = j->rows * j->cols, el = j->cols, nd = 0, rows = j->rows, splits;
	int ncols = (int)j->cols, block, isplits;
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
		hanzo_rocm_kernel_geometry(j->k1, j->rows, j->cols, &g);
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
	hanzo_rocm_kernel_geometry(j->ks, j->rows, j->cols, &g);
	splits = g.splits;
	isplits = (int)g.splits;
	if (j->one[0] == 'f') {
		void *a1[] = { &numel, &el, &nd, &info, &j->src, &j->ws };
		void *a2[] = { &rows, &splits, &j->ws, &j->dst };
		int r = hanzo_rocm_kernel_launch_work(j->ks, j->rows, j->cols, NULL, a1);
		return r ? r : hanzo_rocm_kernel_launch_work(j->k2, j->rows, 1, NULL, a2);
	} else if (j->one[0] == 's') {
		void *a1[] = { &j->src, &j->ws, &ncols };
		void *a2[] = { &j->src, &j->dst, &ncols, &j->ws, &isplits };
		int r = hanzo_rocm_kernel_launch_work(j->ks, j->rows, j->cols, NULL, a1);
		return r ? r : hanzo_rocm_kernel_launch_work(j->k2, j->rows, j->cols, NULL, a2);
	} else {
		void *a1[] = { &j->src, &j->ws, &ncols };
		void *a2[] = { &j->src, &j->dst, &j->alpha, &ncols, &eps, &j->ws, &isplits };
		int r = hanzo_rocm_kernel_launch_work(j->ks, j->rows, j->cols, NULL, a1);
		return r ? r : hanzo_rocm_kernel_launch_work(j->k2, j->rows, j->cols, NULL, a2);
	}
}

static float time_form(struct job *j, enum form f)
{
	float ms[20];
	void *e0, *e1;

	hr_runtime_event_create(ctx, 0, &e0);
	hr_runtime_event_create(ctx, 0, &e1);
	for (int i = 0; i < 3; i++)
		if (run(j, f) < 0)
			return -1;
	for (int i = 0; i < 20; i++) {
		hr_runtime_event_record(ctx, 0, e0, NULL);
		run(j, f);
		hr_runtime_event_record(ctx, 0, e1, NULL);
		hr_runtime_event_elapsed(ctx, 0, e0, e1, &ms[i]);
	}
	hr_runtime_event_destroy(ctx, 0, e0);
	hr_runtime_event_destroy(ctx, 0, e1);
	qsort(ms, 20, sizeof(float), cmp);
	return ms[10];
}

int main(void)
{
	static const char *const ops[][4] = {
		{ "reduce", "fast_sum_f32", "fast_sum_split_f32", "fast_sum_finish_f32" },
		{ "norm", "softmax_f32", "softmax_split_f32", "softmax_apply_f32" },
		{ "norm", "rmsnorm_f32", "rmsnorm_split_f32", "rmsnorm_apply_f32" },
	};
	static const uint64_t shapes[][2] = {
		{ 1, 1 << 24 }, { 8, 1 << 21 }, { 32, 151936 }, { 64, 32000 }, { 132, 65536 },
		{ 256, 4096 }, { 4096, 4096 }, { 16384, 1024 },
	};
	size_t max = (size_t)1 << 24, worst_i = 0;
	uint64_t src, dst, alpha, ws;
	const char *target = "?";
	double worst = 0;
	int r;

	r = hanzo_rocm_new(&ctx);
	if (r < 0 || hanzo_rocm_device_count(ctx) <= 0) {
		printf("no device\n");
		return 2;
	}
	hanzo_rocm_device_target(ctx, 0, &target);
	if (hr_runtime_alloc(ctx, 0, max * 4, &src) || hr_runtime_alloc(ctx, 0, max * 4, &dst) ||
	    hr_runtime_alloc(ctx, 0, max * 4, &alpha) || hr_runtime_alloc(ctx, 0, 64 << 20, &ws)) {
		printf("alloc failed\n");
		return 1;
	}
	{
		float *h = malloc(max * 4);

		for (size_t i = 0; i < max; i++)
			h[i] = (float)((i * 7919) % 1000) / 500.0f - 1.0f;
		hr_runtime_copy_htod(ctx, 0, src, h, max * 4);
		hr_runtime_copy_htod(ctx, 0, alpha, h, (size_t)1 << 22);
		free(h);
	}
	printf("device 0: %s\n%-13s %13s %6s %10s %10s %10s %7s\n", target, "kernel", "shape", "splits",
	       "one ms", "split ms", "op ms", "op/best");
	for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++)
		for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
			struct job j = { .one = ops[o][1], .split = ops[o][2], .second = ops[o][3],
			                 .rows = shapes[s][0], .cols = shapes[s][1], .src = src,
			                 .dst = dst, .alpha = alpha, .ws = ws };
			struct hanzo_rocm_geometry g;
			float t1, ts, to;
			double best, ratio;
			char shape[32];

			if (hanzo_rocm_kernel_get(ctx, 0, ops[o][0], ops[o][1], &j.k1) ||
			    hanzo_rocm_kernel_get(ctx, 0, ops[o][0], ops[o][2], &j.ks) ||
			    hanzo_rocm_kernel_get(ctx, 0, ops[o][0], ops[o][3], &j.k2) ||
			    hanzo_rocm_op_workspace(j.k1, j.rows, j.cols, &j.ws_size) ||
			    hanzo_rocm_kernel_geometry(j.ks, j.rows, j.cols, &g)) {
				printf("%s: setup failed\n", ops[o][1]);
				return 1;
			}
			j.ws_size = 64 << 20;
			t1 = time_form(&j, ONE);
			ts = time_form(&j, SPLIT);
			to = time_form(&j, OP);
			best = t1 < ts ? t1 : ts;
			ratio = to / best;
			if (ratio > worst) {
				worst = ratio;
				worst_i = o * 100 + s;
			}
			snprintf(shape, sizeof(shape), "%llux%llu", (unsigned long long)j.rows,
			         (unsigned long long)j.cols);
			printf("%-13s %13s %6u %10.4f %10.4f %10.4f %7.3f\n", ops[o][1], shape, g.splits,
			       t1, ts, to, ratio);
		}
	printf("worst op/best: %.3f (%s, shape %zu)\n", worst, ops[worst_i / 100][1], worst_i % 100);
	hanzo_rocm_unref(ctx);
	return 0;
}
