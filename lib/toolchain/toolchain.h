/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Compilers: finding hipcc and nvcc, learning their versions and which targets
 * they can build, and running them (argv, no shell, timeout, diagnostics
 * captured).  Only precompile and a compile-on-miss get here.
 * Layer: build (lib/layers).
 */
#ifndef HR_TOOLCHAIN_H
#define HR_TOOLCHAIN_H

#include <stddef.h>

#include "platform/platform.h"

struct hanzo_rocm;
struct hr_config;

/* The compiler that builds code objects for a platform (enum hr_platform;
 * enum hr_compiler is the platform table's, platform/platform.h). */
enum hr_compiler hr_compiler_for(int platform);

struct hr_toolchain {
	enum hr_compiler kind;
	char *path;         /* absolute path of the compiler */
	char *version;      /* "5.2.3", "13.0"; HANZO_ROCM_VERSION overrides the label */
	char *identity;     /* stored in cache entries, e.g. "hipcc 5.2.3 clang 15.0.6" */
	char *devlib_dir;   /* AMD device libraries (oclc_isa_version_*.bc), NULL if unknown */
	unsigned timeout_s; /* per compile */
	char **gpu_codes;   /* nvcc: the sm_XX it lists (--list-gpu-code); NULL if unknown */
};

/* -ENOENT when the compiler is not installed (not an error to log loudly). */
/* "hipcc" or "nvcc". */
const char *hr_compiler_name(enum hr_compiler k);
/* The program to run for a kind: [compiler] hipcc, nvcc or cxx (the compiler
 * row's name is its key), else the row's default; NULL for an unknown kind. */
const char *hr_toolchain_program(const struct hr_config *cfg, enum hr_compiler kind);
/*
 * The executable a configured compiler name means (PATH, then the vendor
 * directories; an absolute path as is): 0, -ENOENT, -EINVAL (relative path).
 */
int hr_toolchain_locate(const char *name, enum hr_compiler kind, char **ret);
int hr_toolchain_find(struct hanzo_rocm *ctx, enum hr_compiler kind,
                      struct hr_toolchain **ret);
void hr_toolchain_free(struct hr_toolchain *tc);

/*
 * 0 when tc can build target; -ENOTSUP with a reason such as
 * "needs ROCm >= 5.7 (installed: 5.2.3)" when this compiler cannot build
 * it; -ENOPKG when the toolchain is broken (no AMD device libraries), which
 * callers report as a failure, not a skip.
 */
int hr_toolchain_can_build(const struct hr_toolchain *tc, const char *target,
                           char *reason, size_t n);

/*
 * Every target tc can build (AMD: from the device libraries; NVIDIA: what
 * nvcc lists), as a new string vector; -ENODATA when that is unknown.
 */
int hr_toolchain_targets(const struct hr_toolchain *tc, char ***targets);

/*
 * Compile one self-contained source for one target into a code object
 * (raw AMDGPU ELF or cubin).  flags: the plugin's then the config's, both
 * NULL-terminated (either may be NULL).  On failure *diag holds the
 * compiler's diagnostics (malloc'd, noise such as rocm_agent_enumerator
 * tracebacks removed).
 */
int hr_toolchain_compile(struct hanzo_rocm *ctx, const struct hr_toolchain *tc,
                         const char *source, size_t source_len,
                         const char *const *plugin_flags,
                         char *const *config_flags, const char *target,
                         void **obj, size_t *obj_size, char **diag);
/*
 * Returns: 0; -ENOENT the compiler could not be run; -EIO it failed (see
 * *diag); -ETIMEDOUT killed after tc->timeout_s; -ENOEXEC it "succeeded"
 * without a code object of the right machine; -EINVAL bad target.
 */

/*
 * The preprocessed text (malloc'd, NUL-terminated) of source for a host
 * target by tc (the C++ compiler): the source API reads its kernels' names
 * there.  -EIO with *diag when the compiler rejects the source.
 */
int hr_toolchain_preprocess(struct hanzo_rocm *ctx, const struct hr_toolchain *tc,
                            const char *source, size_t source_len, const char *target,
                            char **text, char **diag);

/*
 * Removes this user's compile temp dirs ($TMPDIR/hanzo-rocm-XXXXXX) whose
 * compile is gone (its flock on <dir>/.lock is free; without .lock: older
 * than any compile may run): those of a process killed with SIGKILL, whose
 * cleanup never ran.  For `cache gc` and `cache clear`.
 */
int hr_toolchain_tmpdirs_gc(unsigned *removed);

#endif
