/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The HIP runtime through dlopen.  Only calls whose ABI is identical in ROCm
 * 5 and 6 are resolved: hipGetDeviceProperties changed its struct in ROCm 6,
 * so device facts come from KFD (lib/target/target.c), never from HIP.  Every call
 * selects the device and restores the caller's current device afterwards.
 * Layer: backend (lib/layers).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hip.h"
#include "context.h"
#include "ops.h"
#include "shared/util.h"

typedef int hipError_t;
typedef void *hipModule_t;
typedef void *hipFunction_t;
typedef void *hipStream_t;
typedef void *hipEvent_t;

enum {
	hipSuccess = 0,
	hipErrorInvalidValue = 1,
	hipErrorOutOfMemory = 2,
	hipErrorNoDevice = 100,
	hipErrorInvalidDevice = 101,
	hipErrorInvalidImage = 200,
	hipErrorNoBinaryForGpu = 209,
	hipErrorInvalidKernelFile = 218,
	hipErrorSharedObjectInitFailed = 303,
	hipErrorNotFound = 500,
};

#define HR_HIP_SYMBOLS(X)                                                      \
	X(Init, "hipInit", (unsigned flags))                                   \
	X(GetDeviceCount, "hipGetDeviceCount", (int *count))                   \
	X(GetDevice, "hipGetDevice", (int *dev))                               \
	X(SetDevice, "hipSetDevice", (int dev))                                \
	X(ModuleLoadData, "hipModuleLoadData", (hipModule_t *m, const void *image)) \
	X(ModuleUnload, "hipModuleUnload", (hipModule_t m))                    \
	X(ModuleGetFunction, "hipModuleGetFunction", (hipFunction_t *f, hipModule_t m, const char *name)) \
	X(ModuleLaunchKernel, "hipModuleLaunchKernel", (hipFunction_t f, unsigned gx, unsigned gy, unsigned gz, \
	                                                unsigned bx, unsigned by, unsigned bz, unsigned shared, \
	                                                hipStream_t s, void **params, void **extra)) \
	X(Malloc, "hipMalloc", (void **p, size_t size))                        \
	X(Free, "hipFree", (void *p))                                          \
	X(MemcpyHtoD, "hipMemcpyHtoD", (void *dst, const void *src, size_t n)) \
	X(MemcpyDtoH, "hipMemcpyDtoH", (void *dst, void *src, size_t n))       \
	X(DeviceSynchronize, "hipDeviceSynchronize", (void))                   \
	X(StreamSynchronize, "hipStreamSynchronize", (hipStream_t s))          \
	X(EventCreate, "hipEventCreate", (hipEvent_t *e))                      \
	X(EventRecord, "hipEventRecord", (hipEvent_t e, hipStream_t s))        \
	X(EventSynchronize, "hipEventSynchronize", (hipEvent_t e))             \
	X(EventElapsedTime, "hipEventElapsedTime", (float *ms, hipEvent_t a, hipEvent_t b)) \
	X(EventDestroy, "hipEventDestroy", (hipEvent_t e))

struct hr_hip {
	struct hr_backend base;
	struct hanzo_rocm *ctx;
	void *dl;
	/* Optional: NULL leaves the launch geometry an estimate. */
	hipError_t (*OccupancyMaxActiveBlocks)(int *n, hipFunction_t f, int block, size_t shared);
	/* Optional (not in ROCm 5.2): NULL skips the stream's device check at launch. */
	hipError_t (*StreamGetDevice)(hipStream_t s, int *device);
	const char *(*GetErrorName)(hipError_t r);
/* X-macro: params is a whole parenthesised list; wrapping it breaks the declarator. */
#define X(field, sym, params) hipError_t (*field) params; // NOLINT(bugprone-macro-parentheses)
	HR_HIP_SYMBOLS(X)
#undef X
};

/* An opened device: its ordinal, selected around each call. */
struct hip_dev {
	struct hr_backend_dev base;
	struct hr_hip *h;
};

static struct hr_hip *hip_of(struct hr_backend *b)
{
	return hr_container_of(b, struct hr_hip, base);
}

static struct hip_dev *hip_dev_of(struct hr_backend_dev *dev)
{
	return hr_container_of(dev, struct hip_dev, base);
}

static const struct {
	const char *sym;
	size_t offset;
} hip_symbols[] = {
	{ "hipGetErrorName", offsetof(struct hr_hip, GetErrorName) },
#define X(field, sym, params) { sym, offsetof(struct hr_hip, field) },
	HR_HIP_SYMBOLS(X)
#undef X
};

/* Prefer whatever the process already has (a framework's ROCm), newest first. */
static const char *const hip_libs[] = { "libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5" };

static const char *hip_name(struct hr_hip *h, hipError_t r)
{
	const char *s = h->GetErrorName(r);

	return s ? s : "hipErrorUnknown";
}

static int hip_check(struct hr_hip *h, hipError_t r, const char *call)
{
	int err;

	switch (r) {
	case hipSuccess:
		return 0;
	case hipErrorNoDevice:
	case hipErrorInvalidDevice:
		err = -ENODEV;
		break;
	case hipErrorInvalidImage:
	case hipErrorNoBinaryForGpu:
	case hipErrorInvalidKernelFile:
	case hipErrorSharedObjectInitFailed:
		err = -ENOEXEC;
		break;
	case hipErrorNotFound:
		err = -ENOENT;
		break;
	case hipErrorOutOfMemory:
		err = -ENOMEM;
		break;
	case hipErrorInvalidValue:
		err = -EINVAL;
		break;
	default:
		err = -EIO;
	}
	if (err == -ENOEXEC || err == -ENOENT)
		hr_dbg(h->ctx, "HIP %s: %s\n", call, hip_name(h, r));
	else
		hr_err(h->ctx, "HIP %s: %s (%d)\n", call, hip_name(h, r), r);
	return err;
}

static void *hip_dlopen(struct hanzo_rocm *ctx, const char **lib)
{
	void *dl;

	for (size_t i = 0; i < HR_ARRAY_SIZE(hip_libs); i++) {
		dl = dlopen(hip_libs[i], RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
		if (dl) {
			*lib = hip_libs[i];
			return dl;
		}
	}
	for (size_t i = 1; i < HR_ARRAY_SIZE(hip_libs); i++) {
		dl = dlopen(hip_libs[i], RTLD_NOW | RTLD_LOCAL);
		if (dl) {
			*lib = hip_libs[i];
			return dl;
		}
		hr_dbg(ctx, "%s\n", dlerror());
	}
	hr_info(ctx, "no HIP runtime: neither libamdhip64.so.6 nor libamdhip64.so.5 could be loaded\n");
	return NULL;
}

int hr_hip_open(struct hanzo_rocm *ctx, struct hr_backend **b)
{
	struct hr_hip *h;
	const char *lib = NULL;
	hipError_t hr;

	*b = NULL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->base.ops = &hr_hip_ops;
	h->ctx = ctx;
	h->dl = hip_dlopen(ctx, &lib);
	if (!h->dl) {
		free(h);
		return -ENOENT;
	}
	for (size_t i = 0; i < HR_ARRAY_SIZE(hip_symbols); i++) {
		void *p = dlsym(h->dl, hip_symbols[i].sym);

		if (!p) {
			hr_err(ctx, "%s: missing symbol %s: not a usable HIP runtime\n",
			       lib, hip_symbols[i].sym);
			free(h);
			return -ENOSYS;
		}
		memcpy((char *)h + hip_symbols[i].offset, &p, sizeof(p));
	}
	*(void **)&h->OccupancyMaxActiveBlocks =
		dlsym(h->dl, "hipModuleOccupancyMaxActiveBlocksPerMultiprocessor");
	*(void **)&h->StreamGetDevice = dlsym(h->dl, "hipStreamGetDevice");
	hr = h->Init(0);
	if (hr != hipSuccess) {
		hr_info(ctx, "%s: hipInit: %s (%d)\n", lib, hip_name(h, hr), hr);
		free(h);
		return -ENODEV;
	}
	hr_dbg(ctx, "HIP runtime %s loaded\n", lib);
	*b = &h->base;
	return 0;
}

/* As for CUDA, the runtime stays mapped (its threads outlive us). */
void hr_hip_close(struct hr_backend *b)
{
	free(hip_of(b));
}

static int hip_device_count(struct hr_hip *h, int *count)
{
	*count = 0;
	return hip_check(h, h->GetDeviceCount(count), "hipGetDeviceCount");
}

/* Select the device for one call; *prev is restored by hip_leave. */
static int hip_enter(struct hr_hip *h, int ordinal, int *prev)
{
	int r = hip_check(h, h->GetDevice(prev), "hipGetDevice");

	if (r < 0)
		return r;
	if (*prev == ordinal)
		return 0;
	return hip_check(h, h->SetDevice(ordinal), "hipSetDevice");
}

static void hip_leave(struct hr_hip *h, int ordinal, int prev)
{
	if (prev != ordinal)
		h->SetDevice(prev);
}

static int hip_dev_open(struct hr_backend *b, int ordinal, struct hr_backend_dev **ret)
{
	struct hr_hip *h = hip_of(b);
	struct hip_dev *d;
	int count = 0, r;

	r = hip_device_count(h, &count);
	if (r < 0)
		return r;
	if (ordinal < 0 || ordinal >= count)
		return -ENODEV;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->base = (struct hr_backend_dev){ .backend = b, .ordinal = ordinal };
	d->h = h;
	*ret = &d->base;
	return 0;
}

static void hip_dev_close(struct hr_backend_dev *dev)
{
	free(hip_dev_of(dev));
}

/* Run one runtime call with device d selected. */
#define HIP_IN(d, call, name)                                                  \
	({                                                                     \
		int prev_, r_ = hip_enter((d)->h, (d)->base.ordinal, &prev_);  \
		if (r_ == 0) {                                                 \
			r_ = hip_check((d)->h, (call), (name));                \
			hip_leave((d)->h, (d)->base.ordinal, prev_);           \
		}                                                              \
		r_;                                                            \
	})

/* ELF code objects carry their size in their headers. */
static int hip_module_load(struct hr_backend_dev *dev, const void *image,
                           size_t size HR_UNUSED, void **mod)
{
	struct hip_dev *d = hip_dev_of(dev);
	int r = HIP_IN(d, d->h->ModuleLoadData((hipModule_t *)mod, image), "hipModuleLoadData");

	/* Whatever else the runtime disliked in the image, it is refused. */
	return r == -EIO || r == -EINVAL ? -ENOEXEC : r;
}

static void hip_module_unload(struct hr_backend_dev *dev, void *mod)
{
	struct hip_dev *d = hip_dev_of(dev);

	HIP_IN(d, d->h->ModuleUnload(mod), "hipModuleUnload");
}

static int hip_function(struct hr_backend_dev *dev, void *mod, const char *name, void **fn)
{
	struct hip_dev *d = hip_dev_of(dev);

	return HIP_IN(d, d->h->ModuleGetFunction((hipFunction_t *)fn, mod, name),
	              "hipModuleGetFunction");
}

static int hip_launch(struct hr_backend_dev *dev, void *fn, const unsigned grid[3],
                      const unsigned block[3], unsigned shared, void *stream, void **args)
{
	struct hip_dev *d = hip_dev_of(dev);
	struct hr_hip *h = d->h;
	int sdev = dev->ordinal;

	/* A handle of one device on another device's stream: -EXDEV (as the CUDA
	 * backend); NULL and hipStreamPerThread (2) are the device's own. */
	if ((uintptr_t)stream > 2 && h->StreamGetDevice && h->StreamGetDevice(stream, &sdev) == hipSuccess &&
	    sdev != dev->ordinal) {
		hr_err(h->ctx, "HIP launch: the stream is device %d's, the kernel device %d's "
		       "(a kernel handle of one device launched on another device's stream)\n",
		       sdev, dev->ordinal);
		return -EXDEV;
	}
	return HIP_IN(d,
	              h->ModuleLaunchKernel(fn, grid[0], grid[1], grid[2], block[0], block[1],
	                                    block[2], shared, stream, args, NULL),
	              "hipModuleLaunchKernel");
}

static int hip_mem_alloc(struct hr_backend_dev *dev, size_t size, uint64_t *ptr)
{
	struct hip_dev *d = hip_dev_of(dev);
	void *p = NULL;
	int r;

	r = HIP_IN(d, d->h->Malloc(&p, size), "hipMalloc");
	*ptr = (uint64_t)(uintptr_t)p;
	return r;
}

static int hip_mem_free(struct hr_backend_dev *dev, uint64_t ptr)
{
	struct hip_dev *d = hip_dev_of(dev);

	return HIP_IN(d, d->h->Free((void *)(uintptr_t)ptr), "hipFree");
}

static int hip_htod(struct hr_backend_dev *dev, uint64_t dst, const void *src, size_t n)
{
	struct hip_dev *d = hip_dev_of(dev);

	return HIP_IN(d, d->h->MemcpyHtoD((void *)(uintptr_t)dst, src, n), "hipMemcpyHtoD");
}

static int hip_dtoh(struct hr_backend_dev *dev, void *dst, uint64_t src, size_t n)
{
	struct hip_dev *d = hip_dev_of(dev);

	return HIP_IN(d, d->h->MemcpyDtoH(dst, (void *)(uintptr_t)src, n), "hipMemcpyDtoH");
}

static int hip_synchronize(struct hr_backend_dev *dev, void *stream)
{
	struct hip_dev *d = hip_dev_of(dev);

	if (stream)
		return HIP_IN(d, d->h->StreamSynchronize(stream), "hipStreamSynchronize");
	return HIP_IN(d, d->h->DeviceSynchronize(), "hipDeviceSynchronize");
}

static int hip_event_create(struct hr_backend_dev *dev, void **ev)
{
	struct hip_dev *d = hip_dev_of(dev);

	return HIP_IN(d, d->h->EventCreate((hipEvent_t *)ev), "hipEventCreate");
}

static int hip_event_record(struct hr_backend_dev *dev, void *ev, void *stream)
{
	struct hip_dev *d = hip_dev_of(dev);

	return HIP_IN(d, d->h->EventRecord(ev, stream), "hipEventRecord");
}

static int hip_event_elapsed(struct hr_backend_dev *dev, void *start, void *end, float *ms)
{
	struct hip_dev *d = hip_dev_of(dev);
	int r;

	r = HIP_IN(d, d->h->EventSynchronize(end), "hipEventSynchronize");
	if (r < 0)
		return r;
	return HIP_IN(d, d->h->EventElapsedTime(ms, start, end), "hipEventElapsedTime");
}

static void hip_event_destroy(struct hr_backend_dev *dev, void *ev)
{
	struct hip_dev *d = hip_dev_of(dev);

	HIP_IN(d, d->h->EventDestroy(ev), "hipEventDestroy");
}

/*
 * Device limits come from KFD (lib/devices/devices.c), not hipDeviceGetAttribute,
 * whose enum is not the same in every ROCm; occupancy is a call on the
 * function, the same in ROCm 5 and 6.
 */
static int hip_occupancy(struct hr_backend_dev *dev, void *fn, unsigned block,
                         size_t shared, unsigned *blocks)
{
	struct hip_dev *d = hip_dev_of(dev);
	int n = 0, r;

	*blocks = 0;
	if (!d->h->OccupancyMaxActiveBlocks)
		return -ENOTSUP;
	r = HIP_IN(d, d->h->OccupancyMaxActiveBlocks(&n, fn, (int)block, shared),
	           "hipModuleOccupancyMaxActiveBlocksPerMultiprocessor");
	if (r == 0 && n > 0)
		*blocks = (unsigned)n;
	return r;
}

const struct hr_backend_ops hr_hip_ops = {
	.name = "HIP",
	.platform = HR_PLATFORM_AMD,
	.open = hr_hip_open,
	.close = hr_hip_close,
	.enumerate = hr_hip_enumerate,
	.enumerate_unopened = true,
	.kfd_visible = true,
	.dev_open = hip_dev_open,
	.dev_close = hip_dev_close,
	.module_load = hip_module_load,
	.module_unload = hip_module_unload,
	.function = hip_function,
	.launch = hip_launch,
	.mem_alloc = hip_mem_alloc,
	.mem_free = hip_mem_free,
	.htod = hip_htod,
	.dtoh = hip_dtoh,
	.synchronize = hip_synchronize,
	.event_create = hip_event_create,
	.event_record = hip_event_record,
	.event_elapsed = hip_event_elapsed,
	.event_destroy = hip_event_destroy,
	.occupancy = hip_occupancy,
};
