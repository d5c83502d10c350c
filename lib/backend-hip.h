/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The HIP runtime (libamdhip64.so.6 or .so.5), opened with dlopen on first
 * use.  Only functions whose ABI is the same in ROCm 5 and 6 are used (no
 * hipDeviceProp_t, whose layout changed in ROCm 6; devices come from KFD).
 * Layer: backend (lib/layers).
 */
#ifndef HR_HIP_H
#define HR_HIP_H

struct hanzo_rocm;
struct hr_backend_ops;

/* As hr_cuda_open: -ENOENT, -ENOSYS or -ENODEV, logged. */
int hr_hip_open(struct hanzo_rocm *ctx, void **b);
void hr_hip_close(void *b);
extern const struct hr_backend_ops hr_hip_ops;

#endif
