// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * launch-cost: the host cost of hanzo_rocm_kernel_launch_work over the raw
 * hanzo_rocm_kernel_launch (doc/BENCHMARKS.md; goal: within 1 us).
 *
 *   HANZO_ROCM_HOST=host-w64 HANZO_ROCM_PLUGIN_PATH=plugins/.libs \
 *       bench/launch-cost [N]
 *
 * Three timings, ns per call, the median of 7 runs of N calls each:
 *   geometry     hanzo_rocm_kernel_geometry: everything launch_work adds
 *                to the raw call (the plan's acquire load, the derivation)
 *   raw          hanzo_rocm_kernel_launch of ucopy_f32 over 256 elements,
 *                grid 1 x block 256
 *   work         hanzo_rocm_kernel_launch_work of the same (same geometry)
 * The two launches run the kernel on the first device (a host device by
 * default: no GPU needed), so their difference is noisy; geometry is the
 * added cost itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hanzo-rocm.h"
#include "bench-clock.h"
#include "runtime/runtime.h"

#define RUNS 7

int main(int argc, char **argv)
{
	static const unsigned grid[3] = { 1, 1, 1 }, block[3] = { 256, 1, 1 };
	long n = argc > 1 ? atol(argv[1]) : 20000;
	struct hanzo_rocm *ctx;
	struct hanzo_rocm_kernel *k;
	struct hanzo_rocm_geometry g;
	struct hanzo_rocm_layout info;
	double t[3][RUNS];
	size_t numel = 256, ndims = 0;
	uint64_t in = 0, out = 0;
	void *args[] = { &numel, &ndims, &info, &in, &out };
	volatile unsigned sink = 0;
	int r;

	memset(&info, 0, sizeof(info));
	if (n < 1 || hanzo_rocm_new(&ctx) < 0) {
		fprintf(stderr, "launch-cost: no context\n");
		return 2;
	}
	if (hanzo_rocm_device_count(ctx) < 1) {
		fprintf(stderr, "launch-cost: no device (set HANZO_ROCM_HOST=host-w64)\n");
		return 2;
	}
	r = hanzo_rocm_kernel_get(ctx, 0, "unary", "ucopy_f32", &k);
	if (r == 0)
		r = hr_runtime_alloc(ctx, 0, numel * 4, &in);
	if (r == 0)
		r = hr_runtime_alloc(ctx, 0, numel * 4, &out);
	if (r == 0)
		r = hanzo_rocm_kernel_geometry(k, numel, 1, &g);
	if (r < 0 || g.grid[0] != 1 || g.block[0] != 256) {
		fprintf(stderr, "launch-cost: setup: %s (grid %u block %u)\n",
		        hanzo_rocm_strerror(r), g.grid[0], g.block[0]);
		return 1;
	}
	for (int run = 0; run < RUNS; run++) {
		double t0 = now();

		for (long i = 0; i < n; i++) {
			hanzo_rocm_kernel_geometry(k, numel + (uint64_t)(i & 1), 1, &g);
			sink += g.grid[0];
		}
		t[0][run] = (now() - t0) / (double)n;
		t0 = now();
		for (long i = 0; i < n / 10; i++)
			hanzo_rocm_kernel_launch(k, grid, block, 0, NULL, args);
		t[1][run] = (now() - t0) / (double)(n / 10 ? n / 10 : 1);
		t0 = now();
		for (long i = 0; i < n / 10; i++)
			hanzo_rocm_kernel_launch_work(k, numel, 1, NULL, args);
		t[2][run] = (now() - t0) / (double)(n / 10 ? n / 10 : 1);
	}
	for (int i = 0; i < 3; i++)
		qsort(t[i], RUNS, sizeof(double), cmp);
	printf("geometry %.1f ns/call\nraw      %.1f ns/launch\nwork     %.1f ns/launch\n",
	       t[0][RUNS / 2], t[1][RUNS / 2], t[2][RUNS / 2]);
	hr_runtime_mem_free(ctx, 0, in);
	hr_runtime_mem_free(ctx, 0, out);
	hanzo_rocm_unref(ctx);
	return sink == 0;
}
