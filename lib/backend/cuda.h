/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CUDA driver (libcuda.so.1), opened with dlopen on first use (layer: backend). */
#ifndef HR_CUDA_H
#define HR_CUDA_H

#include <stddef.h>

struct hanzo_rocm;
struct hr_device;
struct hr_backend;
struct hr_backend_ops;

/*
 * Enumerate the NVIDIA devices of the opened driver b (platform, ordinal,
 * target "sm_XY", name) into devs[0..max); 0 with *n == 0 when it has none.
 * lib/devices/devices.c calls it; this file never reaches up for the driver.
 */
int hr_cuda_enumerate(struct hanzo_rocm *ctx, struct hr_backend *b, struct hr_device *devs,
                      size_t max, size_t *n);

/*
 * dlopen the driver (reusing one the process already loaded), resolve every
 * symbol and cuInit(0).  -ENOENT no library, -ENOSYS a missing symbol,
 * -ENODEV no usable device; each logged naming the library/symbol/error.
 * lib/backend/backend.c calls this once per context and keeps the result.
 */
int hr_cuda_open(struct hanzo_rocm *ctx, struct hr_backend **b);
void hr_cuda_close(struct hr_backend *b);
extern const struct hr_backend_ops hr_cuda_ops;

#endif
