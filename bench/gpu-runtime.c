/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Runtime benchmark on a GPU: the cost of hanzo_rocm_kernel_get on a hit
 * (one thread and 16 at once), of a launch, and the bandwidth of a few
 * family kernels on 1 GiB inputs (event timing, warm-up, median of 20).
 * Compare with bench/gpu-torch.py on the same machine.
 *   HANZO_ROCM_PLUGIN_PATH=… bench/gpu-runtime [log2 elements, default 28]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "context.h"
#include "runtime/runtime.h"

struct layout { uint64_t v[32]; };

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return x < y ? -1 : x > y;
}

static struct hanzo_rocm *ctx;

static void *hits(void *arg)
{
	struct hanzo_rocm_kernel *k;
	long n = (long)(intptr_t)arg;

	for (long i = 0; i < n; i++)
		hanzo_rocm_kernel_get(ctx, 0, "unary", (i & 1) ? "uexp_f32" : "ucopy_f32", &k);
	return NULL;
}

/* Median milliseconds of 20 timed launches after 3 warm-ups. */
static float time_kernel(struct hanzo_rocm_kernel *k, unsigned blocks, void **args)
{
	unsigned grid[3] = { blocks, 1, 1 }, block[3] = { 256, 1, 1 };
	float ms[20];
	void *e0, *e1;

	hr_runtime_event_create(ctx, 0, &e0);
	hr_runtime_event_create(ctx, 0, &e1);
	for (int i = 0; i < 3; i++)
		hanzo_rocm_kernel_launch(k, grid, block, 0, NULL, args);
	for (int i = 0; i < 20; i++) {
		hr_runtime_event_record(ctx, 0, e0, NULL);
		hanzo_rocm_kernel_launch(k, grid, block, 0, NULL, args);
		hr_runtime_event_record(ctx, 0, e1, NULL);
		hr_runtime_event_elapsed(ctx, 0, e0, e1, &ms[i]);
	}
	hr_runtime_event_destroy(ctx, 0, e0);
	hr_runtime_event_destroy(ctx, 0, e1);
	qsort(ms, 20, sizeof(float), cmp);
	return ms[10];
}

int main(int argc, char **argv)
{
	static const char *const ops[][3] = {
		{ "unary", "ucopy_f32", "2" }, { "unary", "uexp_f32", "2" }, { "binary", "badd_f32", "3" },
	};
	unsigned shift = argc > 1 ? (unsigned)atoi(argv[1]) : 28;
	size_t n = (size_t)1 << shift, dims = 0, one = 1;
	struct hanzo_rocm_kernel *k;
	struct layout info = { { 0 } };
	uint64_t a, b, c;
	pthread_t th[16];
	const char *target;
	double t;
	int r;

	if (hanzo_rocm_new(&ctx) < 0 || hanzo_rocm_device_count(ctx) <= 0) {
		printf("no GPU\n");
		return 77;
	}
	hanzo_rocm_device_target(ctx, 0, &target);
	t = now();
	r = hanzo_rocm_kernel_get(ctx, 0, "unary", "ucopy_f32", &k);
	if (r < 0) {
		fprintf(stderr, "kernel_get: %s\n", hanzo_rocm_strerror(r));
		return 1;
	}
	printf("device 0: %s; first kernel_get (cache or compile, load): %.1f ms\n", target,
	       (now() - t) * 1e3);
	hanzo_rocm_kernel_get(ctx, 0, "unary", "uexp_f32", &k);

	t = now();
	hits((void *)(intptr_t)2000000);
	printf("kernel_get hit, 1 thread: %.1f ns\n", (now() - t) / 2e6 * 1e9);
	t = now();
	for (int i = 0; i < 16; i++)
		pthread_create(&th[i], NULL, hits, (void *)(intptr_t)200000);
	for (int i = 0; i < 16; i++)
		pthread_join(th[i], NULL);
	printf("kernel_get hit, 16 threads: %.1f ns per call per thread\n", (now() - t) / 2e5 * 1e9);

	if (hr_runtime_alloc(ctx, 0, n * 4, &a) < 0 || hr_runtime_alloc(ctx, 0, n * 4, &b) < 0 ||
	    hr_runtime_alloc(ctx, 0, n * 4, &c) < 0)
		return 1;
	{
		void *args[] = { &one, &dims, &info, &a, &c };
		unsigned g[3] = { 1, 1, 1 }, bl[3] = { 32, 1, 1 };

		for (int i = 0; i < 1000; i++)
			hanzo_rocm_kernel_launch(k, g, bl, 0, NULL, args);
		hr_runtime_synchronize(ctx, 0, NULL);
		t = now();
		for (int i = 0; i < 100000; i++)
			hanzo_rocm_kernel_launch(k, g, bl, 0, NULL, args);
		hr_runtime_synchronize(ctx, 0, NULL);
		printf("launch of a 1-element kernel (queued, then synchronised): %.2f us\n",
		       (now() - t) / 1e5 * 1e6);
	}
	printf("%-12s %12s %10s %10s %12s\n", "kernel", "elements", "ms", "GB/s",
	       "GB/s(n/256)");
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		bool bin = ops[i][2][0] == '3';
		void *args[] = { &n, &dims, &info, &a, bin ? (void *)&b : (void *)&c, &c };
		double bytes = (double)n * 4 * (ops[i][2][0] - '0');
		float ms, ms2;

		if (hanzo_rocm_kernel_get(ctx, 0, ops[i][0], ops[i][1], &k) < 0)
			continue;
		/* A grid-stride grid of 16 blocks per SM, and one thread per element. */
		ms = time_kernel(k, 132 * 16, args);
		ms2 = time_kernel(k, (unsigned)((n + 255) / 256), args);
		printf("%-12s %12zu %10.3f %10.1f %12.1f\n", ops[i][1], n, ms,
		       bytes / (ms * 1e-3) / 1e9, bytes / (ms2 * 1e-3) / 1e9);
	}
	hr_runtime_mem_free(ctx, 0, a);
	hr_runtime_mem_free(ctx, 0, b);
	hr_runtime_mem_free(ctx, 0, c);
	hanzo_rocm_unref(ctx);
	return 0;
}
