/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one lookup of AMD target facts (layer: shared), pure: the rows of
 * shared/targets.def expanded once (shared/targets.c), read by the ELF check
 * (mach), the target grammar (features), feature detection (devices.c), the
 * known-processor list and the toolchain (first ROCm release).
 */
#ifndef HR_UTIL_TARGETS_H
#define HR_UTIL_TARGETS_H

#include <stdbool.h>
#include <stddef.h>

struct hr_amd_target {
	const char *name;       /* the processor, as clang and the ELF notes spell it */
	const char *first_rocm; /* first ROCm release that builds it; NULL: every one */
	unsigned mach;          /* ELF e_flags & EF_AMDGPU_MACH */
	bool sramecc, xnack;    /* KFD may report the feature; the target ID may name it */
	bool sdot4;             /* __builtin_amdgcn_sdot4 exists */
};

/* The processor named by the len bytes at p; NULL when the table lacks it. */
const struct hr_amd_target *hr_amd_target_find(const char *p, size_t len);
/* The processor of an ELF mach number; NULL when the table lacks it. */
const struct hr_amd_target *hr_amd_target_by_mach(unsigned mach);
/* The i-th row, NULL past the last. */
const struct hr_amd_target *hr_amd_target_at(size_t i);

#endif
