// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * launch-exdev: what the -EXDEV stream check costs a launch on the CUDA
 * backend (lib/backend/cuda.c, cuda_stream_check: one cuStreamGetCtx per
 * launch on a caller's stream; NULL and the driver's special streams are
 * not checked).  Needs an NVIDIA GPU; run by hand on the lent machine:
 *
 *   HANZO_ROCM_PLUGIN_PATH=plugins/.libs bench/launch-exdev [BATCH] [BATCHES]
 *
 * No change to the library: the check runs or not by the stream passed.
 * Each timing is BATCH (default 256, under the driver's queue depth, so
 * the host never waits for the GPU) calls, the stream synchronized between
 * batches outside the timing; ns per call, the median of BATCHES (200):
 *   getctx         cuStreamGetCtx alone on the created stream (the check's
 *                  driver call)
 *   lib NULL       hanzo_rocm_kernel_launch of ucopy_f32 (256 elements,
 *                  grid 1 x block 256) on the NULL stream: no check
 *   lib stream     the same on a created stream: with the check
 *   drv NULL       cuLaunchKernel of the same function on the NULL stream
 *   drv stream     the same on the created stream
 * drv: the same cubin (hanzo_rocm_code_object) loaded by cuModuleLoadData.
 * The check's cost is (lib stream - lib NULL) - (drv stream - drv NULL),
 * which should agree with getctx; launches per second = 1e9 / ns.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hanzo-rocm.h"
#include "bench-clock.h"

typedef int CUresult;
typedef void *CUcontext, *CUstream, *CUfunction, *CUmodule;
typedef unsigned long long CUdeviceptr;

static struct {
	CUresult (*Init)(unsigned);
	CUresult (*DeviceGet)(int *, int);
	CUresult (*PrimaryCtxRetain)(CUcontext *, int);
	CUresult (*CtxSetCurrent)(CUcontext);
	CUresult (*StreamCreate)(CUstream *, unsigned);
	CUresult (*StreamSynchronize)(CUstream);
	CUresult (*StreamGetCtx)(CUstream, CUcontext *);
	CUresult (*MemAlloc)(CUdeviceptr *, size_t);
	CUresult (*ModuleLoadData)(CUmodule *, const void *);
	CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
	CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
	                         unsigned, unsigned, CUstream, void **, void **);
} cu;

enum { T_GETCTX, T_LIB_NULL, T_LIB_STREAM, T_DRV_NULL, T_DRV_STREAM, T_N };

int main(int argc, char **argv)
{
	static const char *const names[T_N] = { "getctx", "lib NULL", "lib stream", "drv NULL",
	                                        "drv stream" };
	static const unsigned grid[3] = { 1, 1, 1 }, block[3] = { 256, 1, 1 };
	long batch = argc > 1 ? atol(argv[1]) : 256, batches = argc > 2 ? atol(argv[2]) : 200;
	void *dl = dlopen("libcuda.so.1", RTLD_NOW);
	struct hanzo_rocm *ctx;
	struct hanzo_rocm_kernel *k;
	struct hanzo_rocm_layout info;
	size_t numel = 256, ndims = 0;
	CUdeviceptr in = 0, out = 0;
	void *args[] = { &numel, &ndims, &info, &in, &out };
	double *t[T_N], med[T_N];
	CUcontext pc = NULL, sc = NULL;
	CUstream s = NULL;
	CUfunction fn = NULL;
	CUmodule mod = NULL;
	const char *target = NULL;
	const void *cubin = NULL;
	size_t cubin_size = 0;
	int dev = 0, r, bad = 0;

	if (batch < 1 || batches < 1 || !dl) {
		fprintf(stderr, "launch-exdev: %s\n", dl ? "bad arguments" : dlerror());
		return 2;
	}
#define SYM(f, n) (*(void **)&cu.f = dlsym(dl, n))
	if (!SYM(Init, "cuInit") || !SYM(DeviceGet, "cuDeviceGet") ||
	    !SYM(PrimaryCtxRetain, "cuDevicePrimaryCtxRetain") ||
	    !SYM(CtxSetCurrent, "cuCtxSetCurrent") || !SYM(StreamCreate, "cuStreamCreate") ||
	    !SYM(StreamSynchronize, "cuStreamSynchronize") ||
	    !SYM(StreamGetCtx, "cuStreamGetCtx") || !SYM(MemAlloc, "cuMemAlloc_v2") ||
	    !SYM(LaunchKernel, "cuLaunchKernel") || !SYM(ModuleLoadData, "cuModuleLoadData") ||
	    !SYM(ModuleGetFunction, "cuModuleGetFunction")) {
		fprintf(stderr, "launch-exdev: libcuda lacks a symbol\n");
		return 2;
	}
	memset(&info, 0, sizeof(info));
	r = hanzo_rocm_new(&ctx);
	if (r == 0)
		r = hanzo_rocm_kernel_get(ctx, 0, "unary", "ucopy_f32", &k);
	if (r == 0)
		r = hanzo_rocm_device_target(ctx, 0, &target);
	if (r == 0)
		r = hanzo_rocm_code_object(ctx, "unary", target, &cubin, &cubin_size);
	if (r < 0) {
		fprintf(stderr, "launch-exdev: %s\n", hanzo_rocm_strerror(r));
		return 1;
	}
	/* The library has retained device 0's primary context: use it. */
	if (cu.Init(0) || cu.DeviceGet(&dev, 0) || cu.PrimaryCtxRetain(&pc, dev) ||
	    cu.CtxSetCurrent(pc) || cu.ModuleLoadData(&mod, cubin) ||
	    cu.ModuleGetFunction(&fn, mod, "ucopy_f32") || cu.StreamCreate(&s, 0) || cu.MemAlloc(&in, numel * 4) ||
	    cu.MemAlloc(&out, numel * 4) || cu.StreamGetCtx(s, &sc) || sc != pc) {
		fprintf(stderr, "launch-exdev: CUDA setup failed\n");
		return 1;
	}
	for (int i = 0; i < T_N; i++)
		t[i] = calloc((size_t)batches, sizeof(double));
	for (long b = -3; b < batches; b++) {           /* 3 warm-up batches */
		for (int i = 0; i < T_N; i++) {
			CUstream st = i == T_LIB_STREAM || i == T_DRV_STREAM ? s : NULL;
			double t0 = now();

			for (long j = 0; j < batch; j++) {
				if (i == T_GETCTX)
					bad |= cu.StreamGetCtx(s, &sc) != 0;
				else if (i == T_LIB_NULL || i == T_LIB_STREAM)
					bad |= hanzo_rocm_kernel_launch(k, grid, block, 0, st, args) < 0;
				else
					bad |= cu.LaunchKernel(fn, 1, 1, 1, 256, 1, 1, 0, st, args,
					                       NULL) != 0;
			}
			if (b >= 0)
				t[i][b] = (now() - t0) / (double)batch;
			bad |= cu.StreamSynchronize(st) != 0;
		}
	}
	if (bad) {
		fprintf(stderr, "launch-exdev: a call failed\n");
		return 1;
	}
	for (int i = 0; i < T_N; i++) {
		qsort(t[i], (size_t)batches, sizeof(double), cmp);
		med[i] = t[i][batches / 2];
		printf("%-11s %8.1f ns/call  %10.0f calls/s\n", names[i], med[i], 1e9 / med[i]);
		free(t[i]);
	}
	printf("check cost  %8.1f ns/launch (lib stream - lib NULL) - (drv stream - drv NULL)\n",
	       (med[T_LIB_STREAM] - med[T_LIB_NULL]) - (med[T_DRV_STREAM] - med[T_DRV_NULL]));
	hanzo_rocm_unref(ctx);
	dlclose(dl);
	return 0;
}
