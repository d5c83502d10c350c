/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Caller source text (hanzo_rocm_module_get, precompile --source): what is
 * compiled for a target, and the compile itself - hipcc/nvcc by argv, or
 * hipRTC/NVRTC in-process ([compiler] backend), or the host C++ compiler.
 * Layer: build (lib/layers).
 */
#ifndef HR_BUILD_SOURCE_H
#define HR_BUILD_SOURCE_H

#include <stddef.h>

struct hanzo_rocm;

/* Longest source name: entries are named "<name>.<16 hex>" (64 at most). */
#define HR_SOURCE_NAME_MAX 40
#define HR_SOURCE_MAX_FLAGS 64
#define HR_SOURCE_MAX_FLAG 256
#define HR_SOURCE_MAX_TEXT (64u << 20)

struct hr_source_spec {
	const char *name;
	const char *source;
	size_t source_len;
	const char *const *flags;   /* NULL-terminated or NULL */
};

/* 0, or -EINVAL (logged, naming what is wrong): name, flags, size, NUL bytes. */
int hr_source_check(struct hanzo_rocm *ctx, const struct hr_source_spec *s);

/*
 * The text compiled for target (malloc'd): the source with
 * `#include <hip/hip_runtime.h>` dropped on NVIDIA and host targets; host:
 * after the host execution header and the -D/-U flags as #define/#undef.
 */
int hr_source_text(const struct hr_source_spec *s, const char *target,
                   char **text, size_t *len);

/*
 * Compile for target with the backend the configuration picks.  *obj and
 * *identity (the compiler's, stored in the entry) are malloc'd.  Errors:
 * -EILSEQ the compiler rejected the source (*diag, malloc'd, says why);
 * -ENOENT no compiler for the target; -ENOTSUP it cannot build the target;
 * -ENOEXEC no valid code object came out; else as hr_toolchain_compile.
 */
int hr_source_compile(struct hanzo_rocm *ctx, const struct hr_source_spec *s,
                      const char *target, void **obj, size_t *size,
                      char **identity, char **diag);

/*
 * hipRTC (AMD) or NVRTC (NVIDIA) in-process, opened with dlopen
 * (lib/source/hiprtc.c): text for target with options flags then
 * config_flags.  -ENOENT no library; -EILSEQ compile error (*diag).
 */
int hr_rtc_compile(struct hanzo_rocm *ctx, const char *name, const char *text,
                   size_t len, const char *const *flags, char *const *config_flags,
                   const char *target, void **obj, size_t *size, char **identity,
                   char **diag);

#endif
