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
struct hr_backend_ops;

/*
 * The two handles of the interface.  A backend embeds each head as a member
 * of its own struct (the CUDA driver's symbols, the HIP runtime's, the host's
 * worker pool; a device's CUDA primary context, the host's wave) and gets
 * its struct back with hr_container_of: no op takes a void pointer to cast.
 *
 * struct hr_backend: one opened backend (open makes it, close frees it);
 * ops is the table it was opened through.
 *
 * struct hr_backend_dev: one opened device of a backend (dev_open makes it,
 * dev_close frees it); the single first argument of every per-device op.
 * CUDA makes its primary context current only around each call, HIP selects
 * the ordinal, so the caller's own current context or device is untouched.
 */
struct hr_backend {
	const struct hr_backend_ops *ops;
};

struct hr_backend_dev {
	struct hr_backend *backend;     /* the backend it was opened on */
	int ordinal;                    /* the backend's own device number */
};

struct hr_backend_ops {
	const char *name;       /* "CUDA", "HIP", "host", for messages */
	enum hr_platform platform;      /* its row of the platform table */
	/*
	 * Its life in a context (backend.c calls them, once each): open ->
	 * 0 with *b set (its ops this table), -ENOENT its library is missing,
	 * -ENOSYS a symbol is missing (both logged naming it), -ENODEV the
	 * driver reports no device; close frees what open made.
	 */
	int (*open)(struct hanzo_rocm *ctx, struct hr_backend **b);
	void (*close)(struct hr_backend *b);
	/*
	 * Its devices, in its own order, into devs[0..max): ordinal, detected
	 * (a valid target ID), name and the geometry facts it knows; the
	 * device layer (devices.c) sets platform and index and applies the
	 * overrides.  0 with *n == 0 when it has none.  b is the opened
	 * backend, or NULL when enumerate_unopened (AMD reads KFD, the host
	 * its configuration: enumerating must not load a runtime).
	 */
	int (*enumerate)(struct hanzo_rocm *ctx, struct hr_backend *b, struct hr_device *devs,
	                 size_t max, size_t *n);
	bool enumerate_unopened;
	/* Its list is KFD's: the AMD stack's visible-devices variables filter
	 * it (devices/visible.c) so that device i is the runtime's device i. */
	bool kfd_visible;
	/* The device of ordinal ordinal: -ENODEV when the backend has none. */
	int (*dev_open)(struct hr_backend *b, int ordinal, struct hr_backend_dev **dev);
	void (*dev_close)(struct hr_backend_dev *dev);
	int (*module_load)(struct hr_backend_dev *dev, const void *image, size_t size,
	                   void **mod);
	void (*module_unload)(struct hr_backend_dev *dev, void *mod);
	int (*function)(struct hr_backend_dev *dev, void *mod, const char *name, void **fn);
	int (*launch)(struct hr_backend_dev *dev, void *fn, const unsigned grid[3],
	              const unsigned block[3], unsigned shared, void *stream, void **args);
	int (*mem_alloc)(struct hr_backend_dev *dev, size_t size, uint64_t *ptr);
	int (*mem_free)(struct hr_backend_dev *dev, uint64_t ptr);
	int (*htod)(struct hr_backend_dev *dev, uint64_t dst, const void *src, size_t n);
	int (*dtoh)(struct hr_backend_dev *dev, void *dst, uint64_t src, size_t n);
	int (*synchronize)(struct hr_backend_dev *dev, void *stream);
	int (*event_create)(struct hr_backend_dev *dev, void **ev);
	int (*event_record)(struct hr_backend_dev *dev, void *ev, void *stream);
	/* Waits for "end", then the milliseconds between the two records. */
	int (*event_elapsed)(struct hr_backend_dev *dev, void *start, void *end, float *ms);
	void (*event_destroy)(struct hr_backend_dev *dev, void *ev);
	/* Optional (NULL: not known to this backend). */
	int (*limits)(struct hr_backend_dev *dev, struct hr_device_limits *l);
	/* Resident blocks per multiprocessor of fn at that block and dynamic
	 * shared size (cuOccupancyMaxActiveBlocksPerMultiprocessor, ...). */
	int (*occupancy)(struct hr_backend_dev *dev, void *fn, unsigned block,
	                 size_t shared, unsigned *blocks);
};

#endif
