/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Devices (layer: devices, above the backends): detection without a
 * process (KFD for AMD, the CUDA backend for NVIDIA) with the override
 * precedence of doc/DESIGN.md §2.
 */
#ifndef HR_DEVICES_H
#define HR_DEVICES_H

#include <stddef.h>

#include "target/target.h"

struct hanzo_rocm;

/*
 * Detect devices and apply precedence (env arch > [targets] override >
 * HSA_OVERRIDE_GFX_VERSION > map > detected).  Cached in the context's
 * devices slot; the array stays owned by ctx.  No GPU is success with *n == 0.
 */
int hr_devices_get(struct hanzo_rocm *ctx, const struct hr_device **devs,
                   size_t *n);

/*
 * NVIDIA devices through the CUDA backend (opened once per context):
 * -ENOENT no driver, -ENOSYS a missing symbol; 0 with *n == 0 when the
 * driver has no device.
 */
int hr_devices_cuda(struct hanzo_rocm *ctx, struct hr_device *devs, size_t max,
                    size_t *n);

#endif
