/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The CUDA driver API through dlopen: no CUDA header or library is needed to
 * build, and a machine without the driver simply has no NVIDIA device.
 * Only the handful of types used are declared here.  Every call runs with the
 * device's primary context pushed, and popped after, so the caller's own
 * current context is left as it was.
 * Layer: backend (lib/layers).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda.h"
#include "context.h"
#include "ops.h"
#include "target/target.h"
#include "shared/util.h"

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUmodule;
typedef void *CUfunction;
typedef void *CUstream;
typedef void *CUevent;
typedef unsigned long long CUdeviceptr;

enum {
	CUDA_SUCCESS = 0,
	CUDA_ERROR_INVALID_VALUE = 1,
	CUDA_ERROR_OUT_OF_MEMORY = 2,
	CUDA_ERROR_NO_DEVICE = 100,
	CUDA_ERROR_INVALID_DEVICE = 101,
	CUDA_ERROR_INVALID_IMAGE = 200,
	CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
	CUDA_ERROR_INVALID_PTX = 218,
	CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221,
	CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
	CUDA_ERROR_INVALID_SOURCE = 300,
	CUDA_ERROR_NOT_FOUND = 500,
	CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
	CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
	CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
	CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
	CU_EVENT_DEFAULT = 0,
};

/*
 * field, exported symbol, parameters.  The _v2 names are what cuda.h has
 * mapped the plain names to since CUDA 4/11; the plain ones are the old ABI.
 */
#define HR_CUDA_SYMBOLS(X)                                                     \
	X(Init, "cuInit", (unsigned flags))                                    \
	X(DeviceGetCount, "cuDeviceGetCount", (int *count))                    \
	X(DeviceGet, "cuDeviceGet", (CUdevice *dev, int ordinal))              \
	X(DeviceGetAttribute, "cuDeviceGetAttribute", (int *v, int attr, CUdevice dev)) \
	X(DeviceGetName, "cuDeviceGetName", (char *name, int len, CUdevice dev)) \
	X(PrimaryCtxRetain, "cuDevicePrimaryCtxRetain", (CUcontext *c, CUdevice dev)) \
	X(PrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", (CUdevice dev))   \
	X(CtxPushCurrent, "cuCtxPushCurrent_v2", (CUcontext c))                \
	X(CtxPopCurrent, "cuCtxPopCurrent_v2", (CUcontext *c))                 \
	X(CtxSynchronize, "cuCtxSynchronize", (void))                          \
	X(ModuleLoadData, "cuModuleLoadData", (CUmodule *m, const void *image)) \
	X(ModuleUnload, "cuModuleUnload", (CUmodule m))                        \
	X(ModuleGetFunction, "cuModuleGetFunction", (CUfunction *f, CUmodule m, const char *name)) \
	X(LaunchKernel, "cuLaunchKernel", (CUfunction f, unsigned gx, unsigned gy, unsigned gz, \
	                                   unsigned bx, unsigned by, unsigned bz, unsigned shared, \
	                                   CUstream s, void **params, void **extra)) \
	X(MemAlloc, "cuMemAlloc_v2", (CUdeviceptr *p, size_t size))            \
	X(MemFree, "cuMemFree_v2", (CUdeviceptr p))                            \
	X(MemcpyHtoD, "cuMemcpyHtoD_v2", (CUdeviceptr dst, const void *src, size_t n)) \
	X(MemcpyDtoH, "cuMemcpyDtoH_v2", (void *dst, CUdeviceptr src, size_t n)) \
	X(StreamSynchronize, "cuStreamSynchronize", (CUstream s))              \
	X(EventCreate, "cuEventCreate", (CUevent *e, unsigned flags))          \
	X(EventRecord, "cuEventRecord", (CUevent e, CUstream s))               \
	X(EventSynchronize, "cuEventSynchronize", (CUevent e))                 \
	X(EventElapsedTime, "cuEventElapsedTime", (float *ms, CUevent a, CUevent b)) \
	X(EventDestroy, "cuEventDestroy_v2", (CUevent e))                      \
	X(GetErrorName, "cuGetErrorName", (CUresult r, const char **s))

struct hr_cuda {
	struct hanzo_rocm *ctx;
	void *dl;
	/* Optional (CUDA 6.5+): NULL leaves the launch geometry an estimate. */
	CUresult (*OccupancyMaxActiveBlocks)(int *n, CUfunction f, int block, size_t shared);
	/* Optional (CUDA 9.2+): NULL skips the stream's device check at launch. */
	CUresult (*StreamGetCtx)(CUstream s, CUcontext *c);
/* X-macro: params is a whole parenthesised list; wrapping it breaks the declarator. */
#define X(field, sym, params) CUresult (*field) params; // NOLINT(bugprone-macro-parentheses)
	HR_CUDA_SYMBOLS(X)
#undef X
};

static const struct {
	const char *sym;
	size_t offset;
} cuda_symbols[] = {
#define X(field, sym, params) { sym, offsetof(struct hr_cuda, field) },
	HR_CUDA_SYMBOLS(X)
#undef X
};

static const char *const cuda_libs[] = { "libcuda.so.1", "libcuda.so" };

static const char *cu_name(struct hr_cuda *c, CUresult r)
{
	const char *s = NULL;

	if (c->GetErrorName(r, &s) != CUDA_SUCCESS || !s)
		return "CUDA_ERROR_UNKNOWN";
	return s;
}

/* Map a driver result to an errno, logging the driver's name for it. */
static int cu_check(struct hr_cuda *c, CUresult r, const char *call)
{
	int err;

	switch (r) {
	case CUDA_SUCCESS:
		return 0;
	case CUDA_ERROR_NO_DEVICE:
	case CUDA_ERROR_INVALID_DEVICE:
		err = -ENODEV;
		break;
	case CUDA_ERROR_INVALID_IMAGE:
	case CUDA_ERROR_NO_BINARY_FOR_GPU:
	case CUDA_ERROR_INVALID_PTX:
	case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:
	case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
	case CUDA_ERROR_INVALID_SOURCE:
		err = -ENOEXEC;
		break;
	case CUDA_ERROR_NOT_FOUND:
		err = -ENOENT;
		break;
	case CUDA_ERROR_OUT_OF_MEMORY:
		err = -ENOMEM;
		break;
	case CUDA_ERROR_INVALID_VALUE:
		err = -EINVAL;
		break;
	default:
		err = -EIO;
	}
	/* A refused image or a missing kernel is handled by the caller. */
	if (err == -ENOEXEC || err == -ENOENT)
		hr_dbg(c->ctx, "CUDA %s: %s\n", call, cu_name(c, r));
	else
		hr_err(c->ctx, "CUDA %s: %s (%d)\n", call, cu_name(c, r), r);
	return err;
}

static int cu_enter(struct hr_cuda *c, void *dc)
{
	return cu_check(c, c->CtxPushCurrent(dc), "cuCtxPushCurrent");
}

static void cu_leave(struct hr_cuda *c)
{
	CUcontext prev;

	c->CtxPopCurrent(&prev);
}

static int cuda_resolve(struct hanzo_rocm *ctx, struct hr_cuda *c, const char *lib)
{
	for (size_t i = 0; i < HR_ARRAY_SIZE(cuda_symbols); i++) {
		void *p = dlsym(c->dl, cuda_symbols[i].sym);

		if (!p) {
			hr_err(ctx, "%s: missing symbol %s: the CUDA driver is too old or not a CUDA driver\n",
			       lib, cuda_symbols[i].sym);
			return -ENOSYS;
		}
		memcpy((char *)c + cuda_symbols[i].offset, &p, sizeof(p));
	}
	*(void **)&c->OccupancyMaxActiveBlocks =
		dlsym(c->dl, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
	*(void **)&c->StreamGetCtx = dlsym(c->dl, "cuStreamGetCtx");
	return 0;
}

/* Reuse a driver the process already loaded, else load libcuda.so.1. */
static void *cuda_dlopen(struct hanzo_rocm *ctx, const char **lib)
{
	void *dl;

	for (size_t i = 0; i < HR_ARRAY_SIZE(cuda_libs); i++) {
		dl = dlopen(cuda_libs[i], RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
		if (dl) {
			*lib = cuda_libs[i];
			return dl;
		}
	}
	*lib = cuda_libs[0];
	dl = dlopen(cuda_libs[0], RTLD_NOW | RTLD_LOCAL);
	if (!dl)
		hr_info(ctx, "no CUDA driver: %s\n", dlerror());
	return dl;
}

int hr_cuda_open(struct hanzo_rocm *ctx, void **b)
{
	struct hr_cuda *c;
	const char *lib;
	int r;

	*b = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->ctx = ctx;
	c->dl = cuda_dlopen(ctx, &lib);
	if (!c->dl) {
		free(c);
		return -ENOENT;
	}
	r = cuda_resolve(ctx, c, lib);
	if (r == 0) {
		CUresult cr = c->Init(0);

		if (cr != CUDA_SUCCESS) {
			/* No device, no kernel module, driver/library mismatch:
			 * all mean "no NVIDIA GPU here" to the caller. */
			hr_info(ctx, "%s: cuInit: %s (%d)\n", lib, cu_name(c, cr), cr);
			r = -ENODEV;
		}
	}
	if (r < 0) {
		hr_cuda_close(c);
		return r;
	}
	hr_dbg(ctx, "CUDA driver %s loaded\n", lib);
	*b = c;
	return 0;
}

/*
 * The library stays mapped: the driver's helper threads outlive cuInit's
 * caller and unloading code under them crashes; dlopen is refcounted, so
 * the next context reuses it at no cost.
 */
void hr_cuda_close(void *b)
{
	free(b);
}

static int cuda_device_count(void *b, int *count)
{
	struct hr_cuda *c = b;

	*count = 0;
	return cu_check(c, c->DeviceGetCount(count), "cuDeviceGetCount");
}

int hr_cuda_enumerate(struct hanzo_rocm *ctx, void *b, struct hr_device *devs,
                      size_t max, size_t *n)
{
	struct hr_cuda *c = b;
	int r, count;

	*n = 0;
	r = cuda_device_count(c, &count);
	if (r < 0)
		return r == -ENODEV ? 0 : r;
	for (int i = 0; i < count && *n < max; i++) {
		struct hr_device *d = &devs[*n];
		int major = 0, minor = 0;
		CUdevice dev;

		if (cu_check(c, c->DeviceGet(&dev, i), "cuDeviceGet") < 0 ||
		    cu_check(c, c->DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev),
		             "cuDeviceGetAttribute") < 0 ||
		    cu_check(c, c->DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev),
		             "cuDeviceGetAttribute") < 0)
			continue;
		if (major <= 0 || major > 99 || minor < 0 || minor > 9) {
			hr_warn(ctx, "CUDA device %d: odd compute capability %d.%d, skipped\n",
			        i, major, minor);
			continue;
		}
		memset(d, 0, sizeof(*d));
		d->index = (unsigned)*n;
		d->platform = HR_PLATFORM_NVIDIA;
		d->ordinal = i;
		snprintf(d->detected, sizeof(d->detected), "sm_%d%d", major, minor);
		memcpy(d->target, d->detected, sizeof(d->target));
		if (c->DeviceGetName(d->name, (int)sizeof(d->name) - 1, dev) != CUDA_SUCCESS)
			snprintf(d->name, sizeof(d->name), "NVIDIA device %d", i);
		(*n)++;
	}
	return 0;
}

static int cuda_dev_open(void *b, int ordinal, void **dc)
{
	struct hr_cuda *c = b;
	CUdevice dev;
	int r;

	r = cu_check(c, c->DeviceGet(&dev, ordinal), "cuDeviceGet");
	if (r < 0)
		return r;
	return cu_check(c, c->PrimaryCtxRetain((CUcontext *)dc, dev),
	                "cuDevicePrimaryCtxRetain");
}

static void cuda_dev_close(void *b, int ordinal, void *dc)
{
	struct hr_cuda *c = b;
	CUdevice dev;

	(void)dc;
	if (c->DeviceGet(&dev, ordinal) == CUDA_SUCCESS)
		cu_check(c, c->PrimaryCtxRelease(dev), "cuDevicePrimaryCtxRelease");
}

/* Run one driver call with the device's context pushed. */
#define CU_IN(c, dc, call, name)                                               \
	({                                                                     \
		int r_ = cu_enter((c), (dc));                                  \
		if (r_ == 0) {                                                 \
			r_ = cu_check((c), (call), (name));                    \
			cu_leave(c);                                           \
		}                                                              \
		r_;                                                            \
	})

static int cuda_module_load(void *b, int ordinal, void *dc, const void *image,
                            size_t size, void **mod)
{
	struct hr_cuda *c = b;

	int r;

	(void)ordinal;
	(void)size;      /* cubins and fatbins carry their size in their headers */
	r = CU_IN(c, dc, c->ModuleLoadData((CUmodule *)mod, image), "cuModuleLoadData");
	/* Whatever else the driver disliked in the image, it is refused. */
	return r == -EIO || r == -EINVAL ? -ENOEXEC : r;
}

static void cuda_module_unload(void *b, int ordinal, void *dc, void *mod)
{
	struct hr_cuda *c = b;

	(void)ordinal;
	CU_IN(c, dc, c->ModuleUnload(mod), "cuModuleUnload");
}

static int cuda_function(void *b, int ordinal, void *dc, void *mod,
                         const char *name, void **fn)
{
	struct hr_cuda *c = b;

	(void)ordinal;
	return CU_IN(c, dc, c->ModuleGetFunction((CUfunction *)fn, mod, name),
	             "cuModuleGetFunction");
}

/*
 * The caller's stream must belong to the handle's device (its primary
 * context): a kernel of device 0 queued on a stream of device 1 is -EXDEV
 * with a message, whatever a driver would make of it.  One cheap driver
 * call (no context needed for a real stream).  NULL, CU_STREAM_LEGACY (1)
 * and CU_STREAM_PER_THREAD (2) name the current context's default stream,
 * which at launch is the device's own: not checked.  A stream of a context
 * of the right device other than the primary one is refused too: the
 * module lives in the primary context.
 */
static int cuda_stream_check(struct hr_cuda *c, int ordinal, void *dc, void *stream)
{
	CUcontext sc = NULL;
	CUresult cr;

	if ((uintptr_t)stream <= 2 || !c->StreamGetCtx)
		return 0;
	cr = c->StreamGetCtx(stream, &sc);
	if (cr != CUDA_SUCCESS)
		return cu_check(c, cr, "cuStreamGetCtx");
	if (sc == dc)
		return 0;
	hr_err(c->ctx, "CUDA launch: the stream belongs to another context than device %d's "
	       "(a kernel handle of one device launched on another device's stream)\n", ordinal);
	return -EXDEV;
}

static int cuda_launch(void *b, int ordinal, void *dc, void *fn,
                       const unsigned grid[3], const unsigned block[3],
                       unsigned shared, void *stream, void **args)
{
	struct hr_cuda *c = b;
	int r = cuda_stream_check(c, ordinal, dc, stream);

	if (r < 0)
		return r;
	return CU_IN(c, dc, c->LaunchKernel(fn, grid[0], grid[1], grid[2], block[0],
	                                    block[1], block[2], shared, stream, args, NULL),
	             "cuLaunchKernel");
}

static int cuda_mem_alloc(void *b, int ordinal, void *dc, size_t size, uint64_t *ptr)
{
	struct hr_cuda *c = b;
	CUdeviceptr p = 0;
	int r;

	(void)ordinal;
	r = CU_IN(c, dc, c->MemAlloc(&p, size), "cuMemAlloc");
	*ptr = p;
	return r;
}

static int cuda_mem_free(void *b, int ordinal, void *dc, uint64_t ptr)
{
	struct hr_cuda *c = b;

	(void)ordinal;
	return CU_IN(c, dc, c->MemFree(ptr), "cuMemFree");
}

static int cuda_htod(void *b, int ordinal, void *dc, uint64_t dst, const void *src, size_t n)
{
	struct hr_cuda *c = b;

	(void)ordinal;
	return CU_IN(c, dc, c->MemcpyHtoD(dst, src, n), "cuMemcpyHtoD");
}

static int cuda_dtoh(void *b, int ordinal, void *dc, void *dst, uint64_t src, size_t n)
{
	struct hr_cuda *c = b;

	(void)ordinal;
	return CU_IN(c, dc, c->MemcpyDtoH(dst, src, n), "cuMemcpyDtoH");
}

static int cuda_synchronize(void *b, int ordinal, void *dc, void *stream)
{
	struct hr_cuda *c = b;

	(void)ordinal;
	if (stream)
		return CU_IN(c, dc, c->StreamSynchronize(stream), "cuStreamSynchronize");
	return CU_IN(c, dc, c->CtxSynchronize(), "cuCtxSynchronize");
}

static int cuda_event_create(void *b, int ordinal, void *dc, void **ev)
{
	struct hr_cuda *c = b;

	(void)ordinal;
	return CU_IN(c, dc, c->EventCreate((CUevent *)ev, CU_EVENT_DEFAULT), "cuEventCreate");
}

static int cuda_event_record(void *b, int ordinal, void *dc, void *ev, void *stream)
{
	struct hr_cuda *c = b;

	(void)ordinal;
	return CU_IN(c, dc, c->EventRecord(ev, stream), "cuEventRecord");
}

static int cuda_event_elapsed(void *b, int ordinal, void *dc, void *start,
                              void *end, float *ms)
{
	struct hr_cuda *c = b;
	int r;

	(void)ordinal;
	r = CU_IN(c, dc, c->EventSynchronize(end), "cuEventSynchronize");
	if (r < 0)
		return r;
	return CU_IN(c, dc, c->EventElapsedTime(ms, start, end), "cuEventElapsedTime");
}

static void cuda_event_destroy(void *b, int ordinal, void *dc, void *ev)
{
	struct hr_cuda *c = b;

	(void)ordinal;
	CU_IN(c, dc, c->EventDestroy(ev), "cuEventDestroy");
}

/* An attribute the driver does not know stays 0: the runtime's default. */
static int cuda_limits(void *b, int ordinal, void *dc, struct hr_device_limits *l)
{
	static const struct {
		int attr;
		size_t offset;
	} attrs[] = {
		{ CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, offsetof(struct hr_device_limits, multiprocessors) },
		{ CU_DEVICE_ATTRIBUTE_WARP_SIZE, offsetof(struct hr_device_limits, wave) },
		{ CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, offsetof(struct hr_device_limits, max_block) },
		{ CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, offsetof(struct hr_device_limits, max_shared) },
	};
	struct hr_cuda *c = b;
	CUdevice dev;

	(void)dc;
	*l = (struct hr_device_limits){ 0 };
	if (c->DeviceGet(&dev, ordinal) != CUDA_SUCCESS)
		return -ENODEV;
	for (size_t i = 0; i < HR_ARRAY_SIZE(attrs); i++) {
		int v = 0;

		if (c->DeviceGetAttribute(&v, attrs[i].attr, dev) == CUDA_SUCCESS && v > 0)
			*(unsigned *)((char *)l + attrs[i].offset) = (unsigned)v;
	}
	return 0;
}

static int cuda_occupancy(void *b, int ordinal, void *dc, void *fn, unsigned block,
                          size_t shared, unsigned *blocks)
{
	struct hr_cuda *c = b;
	int n = 0, r;

	(void)ordinal;
	*blocks = 0;
	if (!c->OccupancyMaxActiveBlocks)
		return -ENOTSUP;
	r = CU_IN(c, dc, c->OccupancyMaxActiveBlocks(&n, fn, (int)block, shared),
	          "cuOccupancyMaxActiveBlocksPerMultiprocessor");
	if (r == 0 && n > 0)
		*blocks = (unsigned)n;
	return r;
}

const struct hr_backend_ops hr_cuda_ops = {
	.name = "CUDA",
	.platform = HR_PLATFORM_NVIDIA,
	.open = hr_cuda_open,
	.close = hr_cuda_close,
	.enumerate = hr_cuda_enumerate,
	.device_count = cuda_device_count,
	.dev_open = cuda_dev_open,
	.dev_close = cuda_dev_close,
	.module_load = cuda_module_load,
	.module_unload = cuda_module_unload,
	.function = cuda_function,
	.launch = cuda_launch,
	.mem_alloc = cuda_mem_alloc,
	.mem_free = cuda_mem_free,
	.htod = cuda_htod,
	.dtoh = cuda_dtoh,
	.synchronize = cuda_synchronize,
	.event_create = cuda_event_create,
	.event_record = cuda_event_record,
	.event_elapsed = cuda_event_elapsed,
	.event_destroy = cuda_event_destroy,
	.limits = cuda_limits,
	.occupancy = cuda_occupancy,
};
