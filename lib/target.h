/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Target IDs (layer: target IDs, above util only): parsing and validating
 * them, and struct hr_device, the record the backends fill and the device
 * layer (devices.h) completes.
 */
#ifndef HR_TARGET_H
#define HR_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HR_TARGET_MAX 48

enum hr_platform {
	HR_PLATFORM_NONE = 0, HR_PLATFORM_AMD = 1, HR_PLATFORM_NVIDIA = 2,
	HR_PLATFORM_HOST = 3,   /* host-w64, host-w32: lib/backend-host.h */
};

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

/*
 * A platform's launch limits, one row per platform (the platform table of
 * DESIGN.md §7; lib/target.c): blocks per grid dimension, and threads per
 * grid dimension (grid[i] x block[i]).  CUDA: grid x <= 2^31 - 1, y and z
 * <= 65535.  HIP on AMD: the same block counts, and grid x x block x <=
 * 2^32 - 1 (HSA's grid size is a 32-bit count of work-items).  The host
 * backend takes both rows' limits at once, whatever wave size it emulates:
 * a geometry the host accepts is one every GPU accepts, so a result proven
 * on the host holds on the GPU.  HR_PLATFORM_NONE gets the host row.
 */
struct hr_grid_limits {
	uint32_t blocks[3];             /* grid x, y, z */
	uint64_t threads;               /* grid[i] x block[i], every i */
};
const struct hr_grid_limits *hr_platform_grid_limits(enum hr_platform p);
/* 0 when grid x block fits lim; else -E2BIG, why saying which dimension. */
int hr_grid_check(const struct hr_grid_limits *lim, const unsigned grid[3],
                  const unsigned block[3], char *why, size_t why_size);

/* 0 if t is a valid target ID (gfx… with optional :feature±, sm_NN[a], host-w64/w32), else -EINVAL. */
int hr_target_validate(const char *t);
enum hr_platform hr_target_platform(const char *t);
/* Strip target features: "gfx90a:xnack+" -> "gfx90a". */
int hr_target_generic(const char *t, char *buf, size_t n);
/* KFD gfx_target_version 90010 -> "gfx90a"; -EINVAL for 0 or junk. */
int hr_target_from_gfx_version(uint32_t v, char *buf, size_t n);
/* HSA_OVERRIDE_GFX_VERSION "10.3.0" -> "gfx1030"; -EINVAL naming the value. */
int hr_target_from_hsa_override(const char *s, char *buf, size_t n);

/* target-known.c: true if t is valid and its processor is one of
 * lib/util-targets.def (any sm_NN[a] for NVIDIA); the i-th known AMD processor,
 * NULL past the end. */
bool hr_target_known(const char *t);
const char *hr_target_known_amd(size_t i);

#endif
