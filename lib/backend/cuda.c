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
	CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
	CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
	CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
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
	struct hr_backend base;
	struct hanzo_rocm *ctx;
	void *dl;
	/* Optional (CUDA 6.5+): NULL leaves the launch geometry an estimate. */
	CUresult (*OccupancyMaxActiveBlocks)(int *n, CUfunction f, int block, size_t shared);
	/* Optional (CUDA 9.2+): NULL skips the stream's device check at launch. */
	CUresult (*StreamGetCtx)(CUstream s, CUcontext *c);
	/* Optional (CUDA 9.0+): both or neither; NULL keeps a block's shared
	 * memory at the default per-block limit (48 KiB) instead of the
	 * device's opt-in limit (cuda_function). */
	CUresult (*FuncGetAttribute)(int *v, int attr, CUfunction f);
	CUresult (*FuncSetAttribute)(CUfunction f, int attr, int v);
/* X-macro: params is a whole parenthesised list; wrapping it breaks the declarator. */
#define X(field, sym, params) CUresult (*field) params; // NOLINT(bugprone-macro-parentheses)
	HR_CUDA_SYMBOLS(X)
#undef X
};

/* An opened device: its primary context, retained while it is open. */
struct cuda_dev {
	struct hr_backend_dev base;
	struct hr_cuda *c;
	CUcontext pctx;
	/* Shared memory bytes a block may use once its function opts in
	 * (sm_70+: above the 48 KiB default); 0: no opt-in (cuda_optin). */
	int optin;
};

/*
 * The opt-in limit of a device, when the driver can raise a function's
 * limit to it and it is above the default one; else 0.
 */
static int cuda_optin(struct hr_cuda *c, CUdevice dev)
{
	int optin = 0, dflt = 0;

	if (!c->FuncSetAttribute ||
	    c->DeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev) != CUDA_SUCCESS ||
	    c->DeviceGetAttribute(&dflt, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, dev) != CUDA_SUCCESS)
		return 0;
	return optin > dflt ? optin : 0;
}

static struct hr_cuda *cuda_of(struct hr_backend *b)
{
	return hr_container_of(b, struct hr_cuda, base);
}

static struct cuda_dev *cuda_dev_of(struct hr_backend_dev *dev)
{
	return hr_container_of(dev, struct cuda_dev, base);
}

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

static int cu_enter(struct hr_cuda *c, CUcontext pctx)
{
	return cu_check(c, c->CtxPushCurrent(pctx), "cuCtxPushCurrent");
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
	*(void **)&c->FuncGetAttribute = dlsym(c->dl, "cuFuncGetAttribute");
	*(void **)&c->FuncSetAttribute = dlsym(c->dl, "cuFuncSetAttribute");
	if (!c->FuncGetAttribute || !c->FuncSetAttribute) {
		c->FuncGetAttribute = NULL;
		c->FuncSetAttribute = NULL;
	}
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

int hr_cuda_open(struct hanzo_rocm *ctx, struct hr_backend **b)
{
	struct hr_cuda *c;
	const char *lib;
	int r;

	*b = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->base.ops = &hr_cuda_ops;
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
		free(c);
		return r;
	}
	hr_dbg(ctx, "CUDA driver %s loaded\n", lib);
	*b = &c->base;
	return 0;
}

/*
 * The library stays mapped: the driver's helper threads outlive cuInit's
 * caller and unloading code under them crashes; dlopen is refcounted, so
 * the next context reuses it at no cost.
 */
void hr_cuda_close(struct hr_backend *b)
{
	free(cuda_of(b));
}

static int cuda_device_count(struct hr_cuda *c, int *count)
{
	*count = 0;
	return cu_check(c, c->DeviceGetCount(count), "cuDeviceGetCount");
}

int hr_cuda_enumerate(struct hanzo_rocm *ctx, struct hr_backend *b, struct hr_device *devs,
                      size_t max, size_t *n)
{
	struct hr_cuda *c = cuda_of(b);
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

static int cuda_dev_open(struct hr_backend *b, int ordinal, struct hr_backend_dev **ret)
{
	struct hr_cuda *c = cuda_of(b);
	struct cuda_dev *d;
	CUdevice dev;
	int r;

	r = cu_check(c, c->DeviceGet(&dev, ordinal), "cuDeviceGet");
	if (r < 0)
		return r;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	r = cu_check(c, c->PrimaryCtxRetain(&d->pctx, dev), "cuDevicePrimaryCtxRetain");
	if (r < 0) {
		free(d);
		return r;
	}
	d->base = (struct hr_backend_dev){ .backend = b, .ordinal = ordinal };
	d->c = c;
	d->optin = cuda_optin(c, dev);
	*ret = &d->base;
	return 0;
}

static void cuda_dev_close(struct hr_backend_dev *dev)
{
	struct cuda_dev *d = cuda_dev_of(dev);
	CUdevice cu;

	if (d->c->DeviceGet(&cu, dev->ordinal) == CUDA_SUCCESS)
		cu_check(d->c, d->c->PrimaryCtxRelease(cu), "cuDevicePrimaryCtxRelease");
	free(d);
}

/* Run one driver call of device d's with its primary context pushed. */
#define CU_IN(d, call, name)                                                   \
	({                                                                     \
		int r_ = cu_enter((d)->c, (d)->pctx);                          \
		if (r_ == 0) {                                                 \
			r_ = cu_check((d)->c, (call), (name));                 \
			cu_leave((d)->c);                                      \
		}                                                              \
		r_;                                                            \
	})

/* cubins and fatbins carry their size in their headers. */
static int cuda_module_load(struct hr_backend_dev *dev, const void *image,
                            size_t size HR_UNUSED, void **mod)
{
	struct cuda_dev *d = cuda_dev_of(dev);
	int r = CU_IN(d, d->c->ModuleLoadData((CUmodule *)mod, image), "cuModuleLoadData");

	/* Whatever else the driver disliked in the image, it is refused. */
	return r == -EIO || r == -EINVAL ? -ENOEXEC : r;
}

static void cuda_module_unload(struct hr_backend_dev *dev, void *mod)
{
	struct cuda_dev *d = cuda_dev_of(dev);

	CU_IN(d, d->c->ModuleUnload(mod), "cuModuleUnload");
}

/*
 * A kernel's function, allowed the device's whole opt-in shared memory
 * (cuda_limits reports that limit, so the launch geometry may give a block
 * dynamic shared memory up to it less the kernel's static part): without
 * the attribute a launch above 48 KiB fails.  Two driver calls a kernel
 * load, none a launch.  A driver that refuses the attribute leaves the
 * kernel at its default limit, with a warning: it still loads, and a launch
 * above that limit gets the driver's error.
 */
static int cuda_function(struct hr_backend_dev *dev, void *mod, const char *name, void **fn)
{
	struct cuda_dev *d = cuda_dev_of(dev);
	int r = CU_IN(d, d->c->ModuleGetFunction((CUfunction *)fn, mod, name),
	              "cuModuleGetFunction");
	int stat = -1;

	if (r < 0 || !d->optin)
		return r;
	if (CU_IN(d, d->c->FuncGetAttribute(&stat, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, *fn),
	          "cuFuncGetAttribute") < 0 || stat < 0 || stat >= d->optin ||
	    CU_IN(d, d->c->FuncSetAttribute(*fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
	                                    d->optin - stat), "cuFuncSetAttribute") < 0)
		hr_warn(d->c->ctx, "CUDA device %d: kernel %s keeps the driver's default shared memory "
		        "limit (the opt-in to %d bytes failed)\n", dev->ordinal, name, d->optin);
	return 0;
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
static int cuda_stream_check(struct cuda_dev *d, void *stream)
{
	struct hr_cuda *c = d->c;
	CUcontext sc = NULL;
	CUresult cr;

	if ((uintptr_t)stream <= 2 || !c->StreamGetCtx)
		return 0;
	cr = c->StreamGetCtx(stream, &sc);
	if (cr != CUDA_SUCCESS)
		return cu_check(c, cr, "cuStreamGetCtx");
	if (sc == d->pctx)
		return 0;
	hr_err(c->ctx, "CUDA launch: the stream belongs to another context than device %d's "
	       "(a kernel handle of one device launched on another device's stream)\n",
	       d->base.ordinal);
	return -EXDEV;
}

static int cuda_launch(struct hr_backend_dev *dev, void *fn, const unsigned grid[3],
                       const unsigned block[3], unsigned shared, void *stream, void **args)
{
	struct cuda_dev *d = cuda_dev_of(dev);
	int r = cuda_stream_check(d, stream);

	if (r < 0)
		return r;
	return CU_IN(d, d->c->LaunchKernel(fn, grid[0], grid[1], grid[2], block[0],
	                                   block[1], block[2], shared, stream, args, NULL),
	             "cuLaunchKernel");
}

static int cuda_mem_alloc(struct hr_backend_dev *dev, size_t size, uint64_t *ptr)
{
	struct cuda_dev *d = cuda_dev_of(dev);
	CUdeviceptr p = 0;
	int r;

	r = CU_IN(d, d->c->MemAlloc(&p, size), "cuMemAlloc");
	*ptr = p;
	return r;
}

static int cuda_mem_free(struct hr_backend_dev *dev, uint64_t ptr)
{
	struct cuda_dev *d = cuda_dev_of(dev);

	return CU_IN(d, d->c->MemFree(ptr), "cuMemFree");
}

static int cuda_htod(struct hr_backend_dev *dev, uint64_t dst, const void *src, size_t n)
{
	struct cuda_dev *d = cuda_dev_of(dev);

	return CU_IN(d, d->c->MemcpyHtoD(dst, src, n), "cuMemcpyHtoD");
}

static int cuda_dtoh(struct hr_backend_dev *dev, void *dst, uint64_t src, size_t n)
{
	struct cuda_dev *d = cuda_dev_of(dev);

	return CU_IN(d, d->c->MemcpyDtoH(dst, src, n), "cuMemcpyDtoH");
}

static int cuda_synchronize(struct hr_backend_dev *dev, void *stream)
{
	struct cuda_dev *d = cuda_dev_of(dev);

	if (stream)
		return CU_IN(d, d->c->StreamSynchronize(stream), "cuStreamSynchronize");
	return CU_IN(d, d->c->CtxSynchronize(), "cuCtxSynchronize");
}

static int cuda_event_create(struct hr_backend_dev *dev, void **ev)
{
	struct cuda_dev *d = cuda_dev_of(dev);

	return CU_IN(d, d->c->EventCreate((CUevent *)ev, CU_EVENT_DEFAULT), "cuEventCreate");
}

static int cuda_event_record(struct hr_backend_dev *dev, void *ev, void *stream)
{
	struct cuda_dev *d = cuda_dev_of(dev);

	return CU_IN(d, d->c->EventRecord(ev, stream), "cuEventRecord");
}

static int cuda_event_elapsed(struct hr_backend_dev *dev, void *start, void *end, float *ms)
{
	struct cuda_dev *d = cuda_dev_of(dev);
	int r;

	r = CU_IN(d, d->c->EventSynchronize(end), "cuEventSynchronize");
	if (r < 0)
		return r;
	return CU_IN(d, d->c->EventElapsedTime(ms, start, end), "cuEventElapsedTime");
}

static void cuda_event_destroy(struct hr_backend_dev *dev, void *ev)
{
	struct cuda_dev *d = cuda_dev_of(dev);

	CU_IN(d, d->c->EventDestroy(ev), "cuEventDestroy");
}

/*
 * An attribute the driver does not know stays 0: the runtime's default.
 * max_shared is the opt-in limit where cuda_function raises each kernel
 * to it.
 */
static int cuda_limits(struct hr_backend_dev *dev, struct hr_device_limits *l)
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
	struct hr_cuda *c = cuda_dev_of(dev)->c;
	CUdevice cu;

	*l = (struct hr_device_limits){ 0 };
	if (c->DeviceGet(&cu, dev->ordinal) != CUDA_SUCCESS)
		return -ENODEV;
	for (size_t i = 0; i < HR_ARRAY_SIZE(attrs); i++) {
		int v = 0;

		if (c->DeviceGetAttribute(&v, attrs[i].attr, cu) == CUDA_SUCCESS && v > 0)
			*(unsigned *)((char *)l + attrs[i].offset) = (unsigned)v;
	}
	if (cuda_dev_of(dev)->optin > 0)
		l->max_shared = (unsigned)cuda_dev_of(dev)->optin;
	return 0;
}

static int cuda_occupancy(struct hr_backend_dev *dev, void *fn, unsigned block,
                          size_t shared, unsigned *blocks)
{
	struct cuda_dev *d = cuda_dev_of(dev);
	int n = 0, r;

	*blocks = 0;
	if (!d->c->OccupancyMaxActiveBlocks)
		return -ENOTSUP;
	r = CU_IN(d, d->c->OccupancyMaxActiveBlocks(&n, fn, (int)block, shared),
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
