/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The runtime: dlopen-ed GPU backends (lib/cuda.c, lib/hip.c) behind one
 * table of operations, per-device contexts and modules, and the kernel handle
 * table behind hanzo_rocm_kernel_get/launch.  State hangs off ctx->runtime,
 * created on first use without ctx->lock (target.c calls hr_cuda_devices
 * while holding ctx->lock, so the runtime must never need it).
 *
 * Lock order: rt->load_lock → ctx->lock (hr_devices_get, code objects) →
 * rt->dev_lock → rt->open_lock (backend dlopen).  rt->map_lock (kernel
 * table inserts) is a leaf; lookups take no lock.
 */
#ifndef HR_RUNTIME_H
#define HR_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

struct hanzo_rocm;

/*
 * One backend (CUDA driver or HIP runtime).  "b" is the backend's own state,
 * "dc" the per-device context from dev_open (CUDA: the primary context,
 * made current only around each call so the caller's context is untouched).
 * Every op returns 0 or a negative errno and logs the driver's error name:
 * -ENOEXEC when the driver refuses a code object, -ENOENT for a missing
 * kernel, -ENODEV for no device, -EIO for other driver errors.
 */
struct hr_backend_ops {
	const char *name;       /* "CUDA" or "HIP", for messages */
	int (*device_count)(void *b, int *count);
	int (*dev_open)(void *b, int ordinal, void **dc);
	void (*dev_close)(void *b, int ordinal, void *dc);
	int (*module_load)(void *b, int ordinal, void *dc, const void *image,
	                   size_t size, void **mod);
	void (*module_unload)(void *b, int ordinal, void *dc, void *mod);
	int (*function)(void *b, int ordinal, void *dc, void *mod,
	                const char *name, void **fn);
	int (*launch)(void *b, int ordinal, void *dc, void *fn,
	              const unsigned grid[3], const unsigned block[3],
	              unsigned shared, void *stream, void **args);
	int (*mem_alloc)(void *b, int ordinal, void *dc, size_t size, uint64_t *ptr);
	int (*mem_free)(void *b, int ordinal, void *dc, uint64_t ptr);
	int (*htod)(void *b, int ordinal, void *dc, uint64_t dst, const void *src, size_t n);
	int (*dtoh)(void *b, int ordinal, void *dc, void *dst, uint64_t src, size_t n);
	int (*synchronize)(void *b, int ordinal, void *dc, void *stream);
	int (*event_create)(void *b, int ordinal, void *dc, void **ev);
	int (*event_record)(void *b, int ordinal, void *dc, void *ev, void *stream);
	/* Waits for "end", then the milliseconds between the two records. */
	int (*event_elapsed)(void *b, int ordinal, void *dc, void *start, void *end, float *ms);
	void (*event_destroy)(void *b, int ordinal, void *dc, void *ev);
};

/*
 * The runtime backend for a platform (enum hr_platform), opened once and
 * kept until the context is freed.  -ENOENT when its library is missing,
 * -ENOSYS when a needed symbol is missing (both logged naming it), -ENODEV
 * when the driver reports no device.
 */
int hr_runtime_backend(struct hanzo_rocm *ctx, int platform,
                       const struct hr_backend_ops **ops, void **b);

/*
 * Private device-memory API for the tests, the selftest and the benchmarks:
 * device is the hanzo-rocm device number; pointers are device addresses.
 * Calls are made in the device's own context (primary context on CUDA).
 */
int hr_runtime_alloc(struct hanzo_rocm *ctx, unsigned device, size_t size,
                     uint64_t *ptr);
int hr_runtime_mem_free(struct hanzo_rocm *ctx, unsigned device, uint64_t ptr);
int hr_runtime_copy_htod(struct hanzo_rocm *ctx, unsigned device, uint64_t dst,
                         const void *src, size_t n);
int hr_runtime_copy_dtoh(struct hanzo_rocm *ctx, unsigned device, void *dst,
                         uint64_t src, size_t n);
/* Waits for the stream (NULL: the whole device) to finish. */
int hr_runtime_synchronize(struct hanzo_rocm *ctx, unsigned device, void *stream);

/* Event timing: create two events, record around work, read milliseconds. */
int hr_runtime_event_create(struct hanzo_rocm *ctx, unsigned device, void **ev);
int hr_runtime_event_record(struct hanzo_rocm *ctx, unsigned device, void *ev,
                            void *stream);
int hr_runtime_event_elapsed(struct hanzo_rocm *ctx, unsigned device,
                             void *start, void *end, float *ms);
void hr_runtime_event_destroy(struct hanzo_rocm *ctx, unsigned device, void *ev);

/*
 * Load a code object on a device outside the kernel table (tests, selftest):
 * -ENOEXEC when the driver refuses it.  Unloaded by hr_runtime_module_unload.
 */
int hr_runtime_module_load(struct hanzo_rocm *ctx, unsigned device,
                           const void *image, size_t size, void **mod);
int hr_runtime_module_function(struct hanzo_rocm *ctx, unsigned device,
                               void *mod, const char *name, void **fn);
void hr_runtime_module_unload(struct hanzo_rocm *ctx, unsigned device, void *mod);
/* Launch a function from hr_runtime_module_function (as kernel_launch). */
int hr_runtime_launch(struct hanzo_rocm *ctx, unsigned device, void *fn,
                      const unsigned grid[3], const unsigned block[3],
                      unsigned shared, void *stream, void **args);

/*
 * Counters for tests: kernel table misses (hits are not counted: a shared
 * counter would slow the hit path), modules loaded, code objects refused.
 */
struct hr_runtime_stats {
	uint64_t misses, modules, refused;
};
void hr_runtime_stats(struct hanzo_rocm *ctx, struct hr_runtime_stats *s);

#endif
