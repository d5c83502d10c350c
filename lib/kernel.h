/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Launch by amount of work (layer: kernel, above the runtime): the
 * geometry derivation, pure so the tests can drive it with a made-up device,
 * and the per-(kernel, device) plan behind hanzo_rocm_kernel_launch_work and
 * hanzo_rocm_kernel_geometry.
 */
#ifndef HR_LAUNCH_H
#define HR_LAUNCH_H

#include <stdint.h>

#include "backend-ops.h"
#include "hanzo-rocm.h"
#include "util-launch-meta.h"

/* occ[b / 32]: resident blocks per multiprocessor at block b (0 = unknown). */
#define HR_LAUNCH_OCC (1024 / 32 + 1)

/*
 * Grid, block and dynamic shared memory for rows x cols of work (the
 * meaning of which is the kind's, util-launch-meta.h) on a device described by
 * d and occ (NULL: every occupancy unknown, estimated as 2048 resident
 * threads per multiprocessor).  Deterministic.  Zero work: 0 with an
 * all-zero grid.  Grid-stride kinds are capped to the platform's grid
 * limits (d->grid, target.h); -EOVERFLOW rows x cols overflows; -E2BIG the
 * work does not fit one launch (grid y or an exact grid x beyond the
 * platform's limits, a row's shared memory beyond the device's).
 */
int hr_launch_derive(const struct hr_launch_meta *m, const struct hr_device_limits *d,
                     const uint16_t *occ, uint64_t rows, uint64_t cols,
                     struct hanzo_rocm_geometry *g);

/*
 * Room on the handle's plan for the operation layer (lib/kernel-op.c): the
 * kernel's forms, worked out once from its family's catalogue lines.
 * state: 0 unknown, 1 being filled (by the thread that moved it from 0),
 * 2 filled; data is written before the release store of 2 and read after
 * an acquire load of 2.  NULL when out of memory.
 */
#define HR_OP_CACHE_BYTES 128
struct hr_op_cache {
	_Atomic int state;
	_Alignas(8) unsigned char data[HR_OP_CACHE_BYTES];
};
struct hr_op_cache *hr_kernel_op_cache(struct hanzo_rocm_kernel *kernel);

#endif
