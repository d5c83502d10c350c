/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Target IDs (layer: target IDs, above util only): parsing and validating
 * them, and struct hr_device, the record the backends fill and the device
 * layer (devices.h) completes.  The platforms (enum hr_platform, their
 * facts and grid limits) are the platform table's (platform/platform.h).
 */
#ifndef HR_TARGET_H
#define HR_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "platform/platform.h"

#define HR_TARGET_MAX 48

struct hr_device {
	unsigned index;                 /* hanzo-rocm device number */
	enum hr_platform platform;
	int ordinal;                    /* HIP / CUDA device ordinal */
	char detected[HR_TARGET_MAX];   /* what the hardware reports, e.g. gfx90a:sramecc+:xnack- */
	char target[HR_TARGET_MAX];     /* after overrides and map */
	char name[64];                  /* marketing name when known */
	uint32_t kfd_node;              /* AMD: topology node id */
	uint64_t unique_id;             /* AMD: KFD unique_id (ROCr's UUID GPU-<hex>), 0 unknown */
	/* AMD, from KFD (0 = not reported): for the launch geometry. */
	unsigned compute_units, wave, lds_bytes;
};

/* 0 if t is a valid target ID (gfx… with optional :feature±, sm_NN[a], host-w64/w32), else -EINVAL. */
int hr_target_validate(const char *t);
enum hr_platform hr_target_platform(const char *t);
/* Strip target features: "gfx90a:xnack+" -> "gfx90a". */
int hr_target_generic(const char *t, char *buf, size_t n);
/* KFD gfx_target_version 90010 -> "gfx90a"; -EINVAL for 0 or junk. */
int hr_target_from_gfx_version(uint32_t v, char *buf, size_t n);
/* HSA_OVERRIDE_GFX_VERSION "10.3.0" -> "gfx1030"; -EINVAL naming the value. */
int hr_target_from_hsa_override(const char *s, char *buf, size_t n);

/* target/known.c: true if t is valid and its processor is one of
 * lib/shared/targets.def (any sm_NN[a] for NVIDIA); the i-th known AMD processor,
 * NULL past the end. */
bool hr_target_known(const char *t);
const char *hr_target_known_amd(size_t i);

#endif
