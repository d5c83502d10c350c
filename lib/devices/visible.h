/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The visible-devices variables of the AMD stack (layer: devices), applied
 * to the KFD list so that hanzo-rocm's AMD device i is HIP's device i:
 * ROCR_VISIBLE_DEVICES (ROCr: KFD GPU indices or GPU-<unique_id> UUIDs),
 * then GPU_DEVICE_ORDINAL (ROCclr), then HIP_VISIBLE_DEVICES, else
 * CUDA_VISIBLE_DEVICES (HIP), each level's indices counting what the
 * level below left.  NVIDIA devices are not filtered here: the CUDA driver
 * applies CUDA_VISIBLE_DEVICES itself.
 */
#ifndef HR_DEVICES_VISIBLE_H
#define HR_DEVICES_VISIBLE_H

#include <stddef.h>

#include "target/target.h"

struct hanzo_rocm;

#define HR_VISIBLE_LEVELS 3
#define HR_VISIBLE_VALUE_MAX 128

/* What was applied, for `hanzo-rocm info` and the log. */
struct hr_visible {
	unsigned n;                     /* levels applied, in order */
	struct hr_visible_level {
		const char *var;        /* "ROCR_VISIBLE_DEVICES", ... (static) */
		char value[HR_VISIBLE_VALUE_MAX];  /* as set (truncated with "...") */
		size_t before, after;   /* devices the level saw and kept */
		bool ended;             /* an invalid or repeated entry ended the list */
	} level[HR_VISIBLE_LEVELS];
	size_t kfd_gpus;                /* AMD GPUs found in KFD before any level */
};


/* The record of the context's device list (NULL when detection failed). */
const struct hr_visible *hr_devices_visible(struct hanzo_rocm *ctx);

#endif
