/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The catalogue's private side: what the operations (kernel/op.c) read of a
 * family's metadata - a kernel's signature, its arguments and its forms -
 * from the family's own plugin.  Layer: kernel (lib/layers).
 */
#ifndef HR_KERNEL_CATALOGUE_H
#define HR_KERNEL_CATALOGUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hanzo-rocm.h"
#include "shared/catalogue-meta.h"

#define HR_CAT_MAX_ARGS 32
#define HR_CAT_MAX_NAME 128

/* One argument of a signature: "const float *src" -> type, name. */
struct hr_cat_arg {
	char type[96];
	char name[64];
	size_t bytes;           /* 0: a type the library does not know */
	bool pointer;
};

/*
 * Split a signature into at most max arguments; -EINVAL when an argument
 * is not "TYPE NAME" or there are more than max.
 */
int hr_cat_args(const char *sig, struct hr_cat_arg *args, size_t max, size_t *n);

/* The signature of family/name from its plugin (owned by the plugin). */
int hr_cat_signature(struct hanzo_rocm *ctx, const char *family, const char *name,
                     const char **sig);

/*
 * The split form of family/name: 0 and the two passes' names, the
 * workspace bytes per partial and whether the second pass is elementwise
 * (one item a row: its work is rows x 1) or row-wise (rows x cols);
 * -ENOENT when it has one form only; -EBADMSG when the plugin's metadata is
 * malformed (logged).
 */
int hr_cat_forms(struct hanzo_rocm *ctx, const char *family, const char *name,
                 char split[HR_CAT_MAX_NAME], char second[HR_CAT_MAX_NAME],
                 unsigned *ws_per_partial, bool *second_per_item);

/*
 * The wide form of family/name (one pass on a global workspace, for work
 * name's own launch refuses with -E2BIG): 0, its name, its workspace bytes
 * per column and whether its columns are padded to a power of two;
 * -ENOENT none; -EBADMSG malformed metadata (logged).
 */
int hr_cat_wide(struct hanzo_rocm *ctx, const char *family, const char *name,
                char wide[HR_CAT_MAX_NAME], unsigned *ws_per_col, bool *pad_pow2);

/*
 * family/name's launches (its first '#@passes' line): 0, the int argument
 * that numbers them and their count (2..HR_CAT_MAX_PASSES); -ENOENT none.
 */
int hr_cat_passes(struct hanzo_rocm *ctx, const char *family, const char *name,
                  char arg[HR_CAT_MAX_NAME], unsigned *passes);

/*
 * family/name's own workspace rule (its '#@ws' line): bytes per partial
 * (rows x splits of its geometry) or per column (rows x cols, padded to a
 * power of two when its launch pads); -ENOENT none.
 */
int hr_cat_ws(struct hanzo_rocm *ctx, const char *family, const char *name,
              unsigned *per_partial, unsigned *per_col, bool *pad_pow2);

/*
 * family/name's pre-pass (its first '#@pre' line): 0, the pre-pass kernel's
 * name, the main pass's name without its columns (the caller appends B,
 * 1..rule->batch) and the line's keys; -ENOENT none; -EBADMSG malformed
 * metadata (logged).
 */
int hr_cat_pre(struct hanzo_rocm *ctx, const char *family, const char *name,
               char pre[HR_CAT_MAX_NAME], char main[HR_CAT_MAX_NAME], struct hr_cat_pre *rule);

/*
 * What the operation call binds to each argument of a signature when the
 * caller does not name it (the family's #@bind lines), which pointers may
 * be NULL (#@null) and what the work must agree with (#@check).
 */
struct hr_cat_binding {
	uint8_t source[HR_CAT_MAX_ARGS];        /* enum hr_cat_source; 0: none */
	uint32_t nullable;                      /* bit i: argument i may be NULL */
	int8_t rows_a, rows_b;                  /* rows = args[rows_a] x args[rows_b]; -1: none */
	int8_t cols_arg;                        /* a pass's work cols = args[cols_arg]; -1: none */
};
/* 0; -EBADMSG malformed metadata, a #@check naming no argument (logged). */
int hr_cat_binding(struct hanzo_rocm *ctx, const char *family, const char *name,
                   const struct hr_cat_arg *args, size_t n, struct hr_cat_binding *b);

#endif
