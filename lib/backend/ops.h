/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The backend operations table (layer: backend).  A backend (CUDA driver,
 * HIP runtime, …) only implements these; opening, keeping and choosing
 * backends is backend.c's, using them is the runtime's and the devices'.
 */
#ifndef HR_BACKEND_OPS_H
#define HR_BACKEND_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "target/target.h"

/*
 * One backend (CUDA driver or HIP runtime).  "b" is the backend's own state,
 * "dc" the per-device context from dev_open (CUDA: the primary context,
 * made current only around each call so the caller's context is untouched).
 * Every op returns 0 or a negative errno and logs the driver's error name:
 * -ENOEXEC when the driver refuses a code object, -ENOENT for a missing
 * kernel, -ENODEV for no device, -EIO for other driver errors.
 */
/*
 * What the launch geometry needs to know about a device (lib/kernel/kernel.c);
 * 0 in a field = unknown (the runtime fills a default).
 */
struct hr_device_limits {
	unsigned multiprocessors;       /* SMs, CUs, or host workers */
	unsigned wave;                  /* 32 or 64 */
	unsigned max_block;             /* threads per block */
	unsigned max_shared;            /* shared memory bytes per block */
	struct hr_grid_limits grid;     /* the platform's (target.h); zero: the host row */
};

struct hanzo_rocm;

struct hr_backend_ops {
	const char *name;       /* "CUDA", "HIP", "host", for messages */
	enum hr_platform platform;      /* its row of the platform table */
	/*
	 * Its life in a context (backend.c calls them, once each): open ->
	 * 0, -ENOENT its library is missing, -ENOSYS a symbol is missing (both
	 * logged naming it), -ENODEV the driver reports no device; close
	 * frees what open made.
	 */
	int (*open)(struct hanzo_rocm *ctx, void **b);
	void (*close)(void *b);
	/*
	 * Its devices, in its own order, into devs[0..max): ordinal, detected
	 * (a valid target ID), name and the geometry facts it knows; the
	 * device layer (devices.c) sets platform and index and applies the
	 * overrides.  0 with *n == 0 when it has none.  b is the opened
	 * backend, or NULL when enumerate_unopened (AMD reads KFD, the host
	 * its configuration: enumerating must not load a runtime).
	 */
	int (*enumerate)(struct hanzo_rocm *ctx, void *b, struct hr_device *devs,
	                 size_t max, size_t *n);
	bool enumerate_unopened;
	/* Its list is KFD's: the AMD stack's visible-devices variables filter
	 * it (devices/visible.c) so that device i is the runtime's device i. */
	bool kfd_visible;
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
	/* Optional (NULL: not known to this backend). */
	int (*limits)(void *b, int ordinal, void *dc, struct hr_device_limits *l);
	/* Resident blocks per multiprocessor of fn at that block and dynamic
	 * shared size (cuOccupancyMaxActiveBlocksPerMultiprocessor, ...). */
	int (*occupancy)(void *b, int ordinal, void *dc, void *fn, unsigned block,
	                 size_t shared, unsigned *blocks);
};

#endif
