/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The HIP runtime (libamdhip64.so.6 or .so.5), opened with dlopen on first
 * use.  Only functions whose ABI is the same in ROCm 5 and 6 are used (no
 * hipDeviceProp_t, whose layout changed in ROCm 6; devices come from KFD).
 * Layer: backend (lib/layers).
 */
#ifndef HR_HIP_H
#define HR_HIP_H

#include <stddef.h>

struct hanzo_rocm;
struct hr_backend;
struct hr_backend_ops;
struct hr_device;

/*
 * backend/hip-kfd.c: the AMD GPUs of KFD's topology (under the configured
 * root) into devs[0..max) in KFD order, ordinals 0..; b is unused (the
 * runtime need not be opened).  0 with *n == 0 when there is no KFD;
 * -ENOMEM.  Nodes that cannot be read are skipped with a warning.
 */
int hr_hip_enumerate(struct hanzo_rocm *ctx, struct hr_backend *b, struct hr_device *devs,
                     size_t max, size_t *n);

/* As hr_cuda_open: -ENOENT, -ENOSYS or -ENODEV, logged. */
int hr_hip_open(struct hanzo_rocm *ctx, struct hr_backend **b);
void hr_hip_close(struct hr_backend *b);
extern const struct hr_backend_ops hr_hip_ops;

#endif
