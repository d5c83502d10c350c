/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The host backend: kernels compiled by the system C++ compiler into a shared
 * object (the host code object) and run on the CPU with the GPU execution
 * model (lib/backend/host/exec.c), behind the same backend ops table as HIP and CUDA
 * (lib/backend/host/host.c).  For tests and debugging; opt-in only.
 *
 * Targets: host-w64 (wave 64, the AMD CDNA/GCN code paths) and host-w32
 * (wave 32, the RDNA/NVIDIA paths).  Layer: backend; the target facts the
 * lower layers need are the platform table's host row (platform/host.c).
 */
#ifndef HR_HOST_BACKEND_H
#define HR_HOST_BACKEND_H

struct hr_backend_ops;

/* The backend (backend/host/host.c): backend.c opens it through its ops.  The
 * execution model behind it is the folder's own (host-internal.h). */
extern const struct hr_backend_ops hr_host_ops;

#endif
