/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hr-host-abi.h - the interface between a host code object (a kernel family
 * compiled for the CPU, see hr-host.h) and the library's host backend
 * (lib/backend/host/exec.c).  Valid C and C++: the library includes it from C, the
 * code object from C++ (hr-embed inlines it into each plugin's source).
 *
 * The code object never links against libhanzo-rocm: the runtime hands it a
 * table of functions (struct hr_host_rt) through hr_host_init() right after
 * dlopen, and passes each simulated thread's state (struct hr_host_thread)
 * to the per-kernel entry points the library appends to the source:
 *
 *   int  hr_host_init(const struct hr_host_rt *rt);   returns the wave size
 *   void hr_host_entry_NAME(void **args, struct hr_host_thread *t);
 *
 * Bump HR_HOST_ABI on any change here: it is part of the compile flags,
 * hence of the cache key.
 */
#ifndef HR_HOST_ABI_H
#define HR_HOST_ABI_H

#include <stdint.h>

#define HR_HOST_ABI 1

struct hr_host_dim3 {
	unsigned x, y, z;
};

/* One simulated GPU thread, owned by the runtime. */
struct hr_host_thread {
	struct hr_host_dim3 thread_idx, block_idx, block_dim, grid_dim;
	unsigned lane;          /* lane within its wave */
	unsigned wave_size;     /* 64 or 32 */
	unsigned wave_lanes;    /* lanes that exist in this wave (the last may be partial) */
	unsigned parity;        /* which half of wave_vals the next exchange uses */
	uint64_t *wave_vals;    /* [2][wave_size]: values exchanged by wave operations */
	void *shared_dynamic;   /* the block's dynamic shared memory */
	void *fiber;            /* runtime's record of the fiber running it */
};

/*
 * Both calls may switch to another simulated thread of the block and return
 * later; the caller re-reads its thread pointer afterwards (hr-host.h).
 * Neither returns when the block has failed (barrier not reached by every
 * thread): the runtime abandons the fiber.
 */
struct hr_host_rt {
	uint32_t abi, size;
	/* __syncthreads(): every thread of the block. */
	void (*barrier)(struct hr_host_thread *t);
	/* Wave rendezvous: every lane of t's wave has stored its value. */
	void (*wave_sync)(struct hr_host_thread *t);
};

#endif
