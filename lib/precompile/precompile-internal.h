/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What precompile's files share (layer: top; private to lib/precompile/,
 * whose top-precompile*.c files only include it): the prune of families
 * gone, the toolchain stamps, the destination and the read-only tiers, the
 * configured compiler's name.  The rest of lib/ and the CLI use
 * precompile/precompile.h.
 */
#ifndef HR_PRECOMPILE_INTERNAL_H
#define HR_PRECOMPILE_INTERNAL_H

#include <stdbool.h>

#include "toolchain/toolchain.h"
#include "precompile.h"

struct hanzo_rocm;
struct hr_config;

/*
 * Remove from dest the entries of the families in before (the previous
 * index's) that are neither installed now nor disabled: *pruned lists them
 * (malloc'd strv), *removed counts the entries.  0 or -errno.
 */
int hr_precompile_prune(struct hanzo_rocm *ctx, const char *dest, char *const *before,
                        char ***pruned, unsigned *removed);
/*
 * precompile's toolchain stamps (precompile/stamp.c): the toolchain that
 * <dest>/.toolchain-<kind> remembers when everything it depends on is
 * unchanged (NULL otherwise), and writing one after a probe.
 */
struct hr_toolchain *hr_stamp_load(const struct hr_config *cfg,
                                   const char *dest, enum hr_compiler k);
void hr_stamp_save(struct hanzo_rocm *ctx, const struct hr_config *cfg,
                   const char *dest, const struct hr_toolchain *tc);
/*
 * precompile's destination (precompile/dest.c): the directory o names, made
 * ready; *readonly when it is a user cache we may only check.  And the
 * read-only tiers searched before dest (none for --output).
 */
int hr_precompile_dest(struct hanzo_rocm *ctx, const struct hr_config *cfg,
                       const struct hr_precompile_opts *o, const char **dir,
                       bool *readonly);
int hr_precompile_ro_dirs(struct hanzo_rocm *ctx, const struct hr_config *cfg,
                          const struct hr_precompile_opts *o, const char *dest,
                          char ***ret);
/* The compiler name the configuration gives for kind (hipcc/nvcc). */
const char *hr_precompile_compiler_name(const struct hr_config *cfg,
                                        enum hr_compiler k);

#endif
