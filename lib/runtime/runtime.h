/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The runtime (layer: runtime, above devices and backends): per-device
 * contexts over the backends' table of operations (backend/ops.h, opened
 * through backend.h) and the private device-memory API.  The kernel handle
 * is the kernel layer's (kernel.h).  State is the context's runtime slot.
 *
 * The library's lock order, written here once.  The context has no lock
 * (module state is published by compare-and-swap, hr_ctx_lazy), so the only
 * nesting is the load of a missing kernel:
 *   the kernel table's load_lock (kernel.c) → the cache's compile_lock
 *   (cache.c's, taken by kernel/compile.c: one compile at a time) →
 *   rt->dev_lock (opening a
 *   device) → the backends' open lock
 *   (backend.c) → a backend's own locks (backend/host/host.c).
 * Every other lock is a leaf, held around its own data only: the memory
 * tier's lock and the plugin table's lock (each taken with or without the
 * above), the kernel table's map_lock (inserts; lookups take no lock) and the
 * context's log_lock (held while the log function runs).
 */
#ifndef HR_RUNTIME_H
#define HR_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "backend/ops.h"

struct hanzo_rocm;

/*
 * An opened device: its backend's table, the backend's handle of the device
 * (the first argument of every per-device op) and the launch limits computed
 * once at open (backend's, else KFD's, else the platform's defaults).
 * Never freed before the context.
 */
struct hr_rt_device {
	const struct hr_backend_ops *ops;       /* dev->backend->ops */
	struct hr_backend_dev *dev;
	struct hr_device_limits limits;
};

/*
 * The opened slot of a hanzo-rocm device number (opened on first use);
 * *target (optional) is its target ID.  -ENODEV no such device.
 */
int hr_runtime_device(struct hanzo_rocm *ctx, unsigned device,
                      struct hr_rt_device **ret, const char **target);

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

#endif
