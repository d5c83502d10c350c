/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel handle (layer: kernel, above the runtime), in one home
 * (kernel.c): its struct, the table behind hanzo_rocm_kernel_get (a family's
 * module loaded once per device), hanzo_rocm_kernel_launch, and launch by
 * amount of work: the geometry derivation, pure so the tests can drive it
 * with a made-up device, and the per-handle plan behind
 * hanzo_rocm_kernel_launch_work and hanzo_rocm_kernel_geometry.  The other
 * kernel files (kernel/op.c, source/module.c) read the struct directly.
 */
#ifndef HR_LAUNCH_H
#define HR_LAUNCH_H

#include <stdint.h>

#include "backend/ops.h"
#include "cache/cache.h"
#include "hanzo-rocm.h"
#include "runtime/runtime.h"
#include "shared/launch-meta.h"

/*
 * A kernel handle: owned by the context's kernel table, never freed before
 * the context.  Fields are set once before the handle is published; plan
 * is published once by compare-and-swap (kernel.c).
 */
struct hanzo_rocm_kernel {
	struct hanzo_rocm_kernel *next; /* hash chain (or the adopted list) */
	uint64_t hash;
	unsigned device;
	char *family, *name;            /* a source module's label for family */
	struct hr_rt_device *dev;
	void *fn;
	struct hanzo_rocm *ctx;
	void *plan;                     /* the launch plan, built on first use */
	const char *launch;             /* source modules: their launch text (owned by source/module.c) */
};

/*
 * A kernel handle for fn (hr_runtime_module_function of a module loaded
 * with hr_runtime_module_load) outside the family table: the source API's
 * (source/module.c).  label stands for its family in messages; launch is
 * its launch metadata text or NULL, kept by the caller while ctx lives.
 * Owned by the kernel table, freed with ctx.
 */
int hr_kernel_adopt(struct hanzo_rocm *ctx, unsigned device, void *fn,
                    const char *label, const char *name, const char *launch,
                    struct hanzo_rocm_kernel **ret);

/*
 * Counters for tests: kernel table misses (hits are not counted: a shared
 * counter would slow the hit path), modules loaded, code objects refused.
 */
struct hr_kernel_stats {
	uint64_t misses, modules, refused;
};
void hr_kernel_stats(struct hanzo_rocm *ctx, struct hr_kernel_stats *s);

/*
 * The code object of family for target, for the kernel table and
 * hanzo_rocm_code_object: the cache's lookup (hr_cache_lookup, cache.h:
 * skip_mask, *from and the errors are its), and on a miss a compile when
 * [cache] compile = auto (hr_code_object_compile).  -ENOENT nothing cached
 * and compile = never (the error names the tiers searched) or
 * HR_TIER_COMPILED in skip_mask, else the compiler's error.
 */
int hr_code_object_find(struct hanzo_rocm *ctx, const char *family,
                        const char *target, unsigned skip_mask,
                        const void **data, size_t *size, enum hr_tier *from);
/*
 * Caller source's code object (malloc'd) for target: hr_source_lookup's
 * tiers (exact target, then the generic processor; skip_mask passes tiers
 * over, as for families), else compiled once (a per-context mutex, then the
 * user tier's entry lock across processes, then a second look) and
 * published in the user tier; a refused user-tier entry is replaced by the
 * compile, not served again.  *from: the tier, or HR_TIER_COMPILED.  Errors
 * as hr_source_compile; -ENOENT when nothing is cached and [cache] compile =
 * never.
 */
struct hr_source_spec;
int hr_source_code_object(struct hanzo_rocm *ctx, const struct hr_source_spec *s,
                          const char *target, unsigned skip_mask, void **data,
                          size_t *size, char **diag, enum hr_tier *from);

/* A kernel's block when its metadata names none (element-wise kinds). */
#define HR_LAUNCH_DEFAULT_BLOCK 256u
/* kernels/hr-rows.h: row kinds' blocks are multiples of 64. */
#define HR_LAUNCH_ROW_UNIT 64u
/* `rows` with wave_rows: the fewest waves a block for rows one wave reduces
 * (H200, 2026-11-29, doc/BENCHMARKS.md: 65536 x 256 bf16 sum from the L2
 * 1499 GB/s with 2 waves a block, 2355 with 4, 2361 with 8). */
#define HR_LAUNCH_WAVE_ROW_WAVES 4u
/* occ[b / 32]: resident blocks per multiprocessor at block b (0 = unknown). */
#define HR_LAUNCH_OCC (1024 / 32 + 1)

/*
 * Grid, block and dynamic shared memory for rows x cols of work (the
 * meaning of which is the kind's, shared/launch-meta.h) on a device described by
 * d and occ (NULL: every occupancy unknown, estimated as 2048 resident
 * threads per multiprocessor).  Deterministic.  Zero work: 0 with an
 * all-zero grid.  Grid-stride kinds are capped to the platform's grid
 * limits (d->grid, target.h); -EOVERFLOW rows x cols overflows; -E2BIG the
 * work does not fit one launch (grid y or an exact grid x beyond the
 * platform's limits, a row's shared memory beyond the device's).
 * Pure: kernel/geometry.c.
 */
int hr_launch_derive(const struct hr_launch_meta *m, const struct hr_device_limits *d,
                     const uint16_t *occ, uint64_t rows, uint64_t cols,
                     struct hanzo_rocm_geometry *g);

/*
 * Room on the handle's plan for the operation layer (lib/kernel/op.c): the
 * kernel's forms, worked out once from its family's catalogue lines (with a
 * #@pre line's passes' argument names, so a call binds them by name without
 * reading a signature again).
 * state: 0 unknown, 1 being filled (by the thread that moved it from 0),
 * 2 filled; data is written before the release store of 2 and read after
 * an acquire load of 2.  NULL when out of memory.
 */
#define HR_OP_CACHE_BYTES 768
struct hr_op_cache {
	_Atomic int state;
	_Alignas(8) unsigned char data[HR_OP_CACHE_BYTES];
};
struct hr_op_cache *hr_kernel_op_cache(struct hanzo_rocm_kernel *kernel);

#endif
