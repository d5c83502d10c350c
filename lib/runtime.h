/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The runtime (layer: runtime, above devices and backends): per-device
 * contexts and modules over the backends' table of operations
 * (backend-ops.h, opened through backend.h), and the kernel handle table
 * behind hanzo_rocm_kernel_get/launch.  State is the context's runtime slot.
 *
 * The library's lock order, written here once.  The context has no lock
 * (module state is published by compare-and-swap, hr_ctx_lazy), so the only
 * nesting is the load of a missing kernel:
 *   rt->load_lock → the cache's compile_lock (cache-code-object.c: one compile at
 *   a time) → rt->dev_lock (opening a device) → the backends' open lock
 *   (backend.c) → a backend's own locks (backend-host.c).
 * Every other lock is a leaf, held around its own data only: the memory
 * tier's lock and the plugin table's lock (each taken with or without the
 * above), rt->map_lock (kernel table inserts; lookups take no lock) and the
 * context's log_lock (held while the log function runs).
 */
#ifndef HR_RUNTIME_H
#define HR_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

struct hanzo_rocm;
struct hanzo_rocm_kernel;
struct hr_device_limits;

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
 * The kernel layer's access to a handle (lib/kernel.c): what it is, the
 * device's limits (computed once when the device was opened), the driver's
 * occupancy, and one pointer the launch layer publishes once (a
 * compare-and-swap: the loser's plan is freed and the winner's returned);
 * the runtime frees it with the handle.  No lock anywhere.
 */
struct hr_kernel_view {
	struct hanzo_rocm *ctx;
	unsigned device;
	const char *family, *name;
	const struct hr_device_limits *limits;
	const char *launch;     /* a source module's "#@launch" lines; NULL: the family's */
};
void hr_kernel_view(const struct hanzo_rocm_kernel *k, struct hr_kernel_view *v);
void *hr_kernel_plan(const struct hanzo_rocm_kernel *k);
void *hr_kernel_plan_publish(struct hanzo_rocm_kernel *k, void *plan);
/* -ENOTSUP when the backend cannot tell. */
int hr_kernel_occupancy(const struct hanzo_rocm_kernel *k, unsigned block,
                        size_t shared, unsigned *blocks);
/* hanzo_rocm_kernel_launch without its argument checks. */
int hr_kernel_launch_raw(const struct hanzo_rocm_kernel *k, const unsigned grid[3],
                         const unsigned block[3], unsigned shared, void *stream,
                         void **args);

/*
 * A kernel handle for fn (hr_runtime_module_function of a module loaded
 * with hr_runtime_module_load) outside the family table: the source API's
 * (kernel-module.c).  label stands for its family in messages; launch is
 * its launch metadata text or NULL, kept by the caller while ctx lives.
 * Owned by the runtime, freed with ctx.
 */
int hr_runtime_kernel_adopt(struct hanzo_rocm *ctx, unsigned device, void *fn,
                            const char *label, const char *name, const char *launch,
                            struct hanzo_rocm_kernel **ret);

/*
 * Counters for tests: kernel table misses (hits are not counted: a shared
 * counter would slow the hit path), modules loaded, code objects refused.
 */
struct hr_runtime_stats {
	uint64_t misses, modules, refused;
};
void hr_runtime_stats(struct hanzo_rocm *ctx, struct hr_runtime_stats *s);

#endif
