/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The host backend: kernels compiled by the system C++ compiler into a shared
 * object (the host code object) and run on the CPU with the GPU execution
 * model (lib/host/backend-host-exec.c), behind the same backend ops table as HIP and CUDA
 * (lib/host/backend-host.c).  For tests and debugging; opt-in only.
 *
 * Targets: host-w64 (wave 64, the AMD CDNA/GCN code paths) and host-w32
 * (wave 32, the RDNA/NVIDIA paths).  Layer: backend; the target facts the
 * lower layers need are the platform table's host row (util-platform-host.c).
 */
#ifndef HR_HOST_BACKEND_H
#define HR_HOST_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include "../../kernels/hr-host-abi.h"
#include "platform/util-platform.h"

struct hanzo_rocm;
struct hr_backend_ops;

/* ---- the backend (backend-host.c) ---------------------------------- */
extern const struct hr_backend_ops hr_host_ops;
int hr_host_open(struct hanzo_rocm *ctx, void **b);
void hr_host_close(void *b);

/* ---- the execution model (backend-host-exec.c) ----------------------------- */
struct hr_host_pool;

/* The block-size and shared-memory limits the host backend reports: a
 * GPU's, so launch geometry (and its fallbacks) behave as on a GPU. */
#define HR_HOST_MAX_BLOCK 1024u
#define HR_HOST_MAX_SHARED (64u << 10)

typedef void (*hr_host_entry_fn)(void **args, struct hr_host_thread *t);

struct hr_host_launch {
	hr_host_entry_fn entry;
	void **args;
	unsigned grid[3], block[3];
	unsigned shared;            /* dynamic shared memory bytes per block */
	unsigned wave;              /* 64 or 32 */
	char why[256];              /* set when the launch fails */
};

/* The runtime's side of the code-object interface (static, immutable). */
const struct hr_host_rt *hr_host_rt_table(void);

/* workers >= 1 (the backend's: one per online CPU, at most 256, its
 * devices' multiprocessors).  Threads start on the first launch. */
int hr_host_pool_new(unsigned workers, struct hr_host_pool **ret);
void hr_host_pool_free(struct hr_host_pool *p);

/*
 * Runs every block; returns when all are done.  -EDEADLK when a barrier or
 * wave operation is not reached by every thread it waits for (l->why says
 * which block and thread), -E2BIG for a grid a GPU would refuse (target.h's
 * host row; l->why says which limit), -ENOMEM.  Launches on one pool are
 * serialised.
 */
int hr_host_pool_run(struct hr_host_pool *p, struct hr_host_launch *l);

#endif
