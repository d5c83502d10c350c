/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * GPU targets: parsing and validating target IDs, and detecting devices
 * without spawning a process (KFD topology for AMD, the dlopen-ed CUDA driver
 * for NVIDIA), with the override precedence of DESIGN §2.
 */
#ifndef HR_TARGET_H
#define HR_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hanzo_rocm;
struct hr_config;

#define HR_TARGET_MAX 48

enum hr_platform {
	HR_PLATFORM_NONE = 0, HR_PLATFORM_AMD = 1, HR_PLATFORM_NVIDIA = 2,
	HR_PLATFORM_HOST = 3,   /* host-w64, host-w32: lib/host.h */
};

struct hr_device {
	unsigned index;                 /* hanzo-rocm device number */
	enum hr_platform platform;
	int ordinal;                    /* HIP / CUDA device ordinal */
	char detected[HR_TARGET_MAX];   /* what the hardware reports, e.g. gfx90a:sramecc+:xnack- */
	char target[HR_TARGET_MAX];     /* after overrides and map */
	char name[64];                  /* marketing name when known */
	uint32_t kfd_node;              /* AMD: topology node id */
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

/*
 * Detect devices and apply precedence (env arch > [targets] override >
 * HSA_OVERRIDE_GFX_VERSION > map > detected).  Cached in ctx->devices; the
 * array stays owned by ctx.  No GPU is success with *n == 0.
 */
int hr_devices_get(struct hanzo_rocm *ctx, const struct hr_device **devs,
                   size_t *n);

/*
 * The targets `precompile` builds when none are given on the command line:
 * HANZO_ROCM_TARGETS, else detected ∪ [targets] extra, else [targets] default.
 * Deduplicated, validated; *why says which rule chose them (static string).
 */
int hr_targets_for_precompile(struct hanzo_rocm *ctx, char ***targets,
                              const char **why);

#endif
