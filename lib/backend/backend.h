/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The backends of a context (layer: backend, above their implementations
 * lib/backend/cuda.c, lib/backend/hip.c and lib/backend/host/host.c, each a
 * struct hr_backend_ops): listed once, each opened once, on first use, and
 * kept until the context is freed.  State is the context's backends slot
 * (hr_ctx_lazy); its one lock comes after every lock of devices and the
 * runtime (runtime.h), so they may ask for a backend under any of theirs.
 */
#ifndef HR_BACKEND_H
#define HR_BACKEND_H

#include "ops.h"

struct hanzo_rocm;
struct hr_backends;

/*
 * The opened backend for a platform (enum hr_platform); (*b)->ops is its
 * table, whose dev_open gives the per-device handle.  -EINVAL an unknown
 * platform, -ENOENT when its library is missing, -ENOSYS when a needed
 * symbol is missing (both logged naming it), -ENODEV when the driver reports
 * no device.  The result of the one attempt is remembered.
 */
int hr_backend_get(struct hanzo_rocm *ctx, int platform, struct hr_backend **b);

/* The i-th backend, in the order devices are numbered; NULL past the last. */
const struct hr_backend_ops *hr_backend_at(size_t i);
/* The backend of a platform, NULL when none implements it. */
const struct hr_backend_ops *hr_backend_for(int platform);

/*
 * A backend's devices (its enumerate op) into devs[0..max): opened first
 * unless it enumerates unopened; 0 with *n == 0 when the driver reports
 * no device; else as hr_backend_get (-ENOENT, -ENOSYS, ...) or the op.
 */
int hr_backend_enumerate(struct hanzo_rocm *ctx, const struct hr_backend_ops *ops,
                         struct hr_device *devs, size_t max, size_t *n);

#endif
