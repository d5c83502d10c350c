/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Catalogue metadata: the `#@work`, `#@ws`, `#@forms`, `#@note`, ... lines of
 * a kernels/F.list (grammar: doc/HACKING.md), parsed and validated.  Pure C
 * with no context, shared by the build tool plugins/hr-embed (which refuses
 * a malformed line, or one that matches no kernel) and the library (which
 * reads the same lines back from an untrusted plugin: the catalogue,
 * hanzo_rocm_catalogue_new, and the operations, hanzo_rocm_op_run).
 * Layer: util (lib/layers).
 *
 *   #@work PATTERN ROWS | COLS     what rows and cols of launch_work mean
 *                                  (first matching line; default: the kind's)
 *   #@ws PATTERN per_partial=N     split kernel: N workspace bytes for each of
 *                                  rows x splits partials (first match)
 *   #@ws PATTERN per_col=N         wide kernel: N bytes for each of rows x
 *                                  cols (cols rounded up to a power of two
 *                                  when its #@launch has pad=pow2)
 *   #@forms PATTERN SPLIT SECOND   PATTERN has one '*'; a kernel K it matches
 *                                  with '*' = c has a split form: SPLIT and
 *                                  SECOND with '*' replaced by c
 *   #@wide PATTERN WIDE            PATTERN and WIDE have one '*': a kernel K
 *                                  that PATTERN matches has a wide form WIDE
 *                                  (one pass on a global workspace) for work
 *                                  K's own launch cannot take (-E2BIG)
 *   #@note PATTERN TEXT            a note on the matched kernels (every
 *                                  matching line applies)
 *   #@bind PATTERN NAME=SOURCE...  what hanzo_rocm_op_run passes to argument
 *                                  NAME when the caller does not name it;
 *                                  SOURCE one of hr_cat_sources below (every
 *                                  matching line applies, the first binding
 *                                  of a name wins)
 *   #@null PATTERN NAME...         pointer arguments that may be NULL (any
 *                                  other pointer NULL is refused)
 *   #@check PATTERN rows=A*B       the work's rows must be A x B (arguments)
 *   #@check PATTERN cols=A         the pass's work cols is argument A
 *   #@arg PATTERN NAME TEXT        what argument NAME means (shape, layout,
 *                                  units, conventions; every matching line
 *                                  applies, the first for a name wins)
 *   #@pre PATTERN PRE MAIN KEY=VALUE...
 *                                  a pre-pass (first match): PATTERN and MAIN
 *                                  have one '*', MAIN ends in '#'.  For
 *                                  .batch columns of .src, hanzo_rocm_op_run
 *                                  runs PRE on up to batch= columns (work
 *                                  columns x cols) then MAIN ('*' as captured,
 *                                  '#' the launch's columns; work rows x
 *                                  cols), batch after batch, on a workspace
 *                                  of batch x (cols / C) x B bytes (ws=B/C)
 *                                  that argument arg= of both takes; .src
 *                                  and .dst advance elem= bytes a column
 *                                  element.  cols must be a multiple of
 *                                  align=.  One column and rows x cols at
 *                                  most direct= runs the kernel itself.
 *                                  form= and direct_form= name the two for
 *                                  hanzo_rocm_kernel_geometry_ex.
 *   #@passes PATTERN ARG N         a kernel PATTERN matches (first match)
 *                                  runs as N launches (2..64) of the same
 *                                  geometry and arguments in order on one
 *                                  stream, its int argument ARG 0 .. N - 1
 *                                  (hanzo_rocm_op_run)
 */
#ifndef HR_CATALOGUE_META_H
#define HR_CATALOGUE_META_H

#include <stdbool.h>
#include <stddef.h>

#define HR_CAT_MAX_TEXT (1u << 20)      /* the whole catalogue text of a family */
#define HR_CAT_MAX_LINE 512
#define HR_CAT_MAX_PATTERN 128
#define HR_CAT_MAX_WS 65536u            /* bytes per partial */

enum hr_cat_kind {
	HR_CAT_NONE = 0,
	HR_CAT_WORK,
	HR_CAT_WS,
	HR_CAT_FORMS,
	HR_CAT_NOTE,
	HR_CAT_WIDE,
	HR_CAT_BIND,
	HR_CAT_NULL,
	HR_CAT_CHECK,
	HR_CAT_ARG,
	HR_CAT_PRE,
	HR_CAT_PASSES,
};

#define HR_CAT_MAX_PASSES 64    /* a #@passes line's N */

#define HR_CAT_MAX_FORM 16      /* a #@pre form name, with its NUL */
#define HR_CAT_MAX_PRE_ARG 32   /* a #@pre arg= name, with its NUL */

/* A #@pre line's keys. */
struct hr_cat_pre {
	char arg[HR_CAT_MAX_PRE_ARG];           /* PRE's and MAIN's argument taking the workspace */
	unsigned batch;                         /* columns a launch of MAIN takes, at most (1..64) */
	unsigned ws_bytes, ws_cols;             /* workspace: batch x (cols / ws_cols) x ws_bytes */
	unsigned align;                         /* cols a multiple of it (1: any) */
	unsigned elem;                          /* bytes of a .src and a .dst element */
	unsigned long long direct;              /* one column, rows x cols <= it: the kernel alone */
	char form[HR_CAT_MAX_FORM], direct_form[HR_CAT_MAX_FORM];
};

/* The values a #@bind line can give an argument (hr_cat_source). */
enum hr_cat_source {
	HR_SRC_NONE = 0,
	HR_SRC_SRC, HR_SRC_DST, HR_SRC_ALPHA, HR_SRC_BETA, HR_SRC_RESIDUAL, HR_SRC_RESIDUAL_OUT,
	HR_SRC_WS,              /* the operation's workspace */
	HR_SRC_EPS,             /* .eps */
	HR_SRC_COLS, HR_SRC_ROWS, HR_SRC_NUMEL /* rows x cols */, HR_SRC_COLS_POW2,
	HR_SRC_BLOCK,           /* the block the library launches */
	HR_SRC_SPLITS,          /* the split pass's splits */
	HR_SRC_ZERO,            /* 0 (a layout: zeroed, contiguous) */
	HR_SRC_PARTIAL_FLOATS_M1, /* a second pass: the split pass's per_partial / 4 - 1 */
	HR_SRC_COUNT
};

/* The source named word ("src", "cols", "partial_floats-1", ...); HR_SRC_NONE: none. */
enum hr_cat_source hr_cat_source(const char *word);
const char *hr_cat_source_name(enum hr_cat_source s);

struct hr_cat_line {
	enum hr_cat_kind kind;
	char pattern[HR_CAT_MAX_PATTERN + 1];
	char a[HR_CAT_MAX_LINE + 1];    /* work: rows; forms: SPLIT; note: text */
	char b[HR_CAT_MAX_LINE + 1];    /* work: cols; forms: SECOND */
	unsigned ws;                    /* ws: bytes per partial (per_partial=) */
	unsigned ws_col;                /* ws: bytes per column (per_col=) */
	unsigned passes;                /* passes: N (ARG in a) */
	/* bind, null, check: the NAME=SOURCE / NAME / A*B words in a (blank-separated);
	 * arg: the argument's NAME in b, its text in a;
	 * pre: PRE in a, MAIN in b, the keys in pre */
	struct hr_cat_pre pre;
};

/* Whether line (no newline) starts with one of the catalogue prefixes. */
bool hr_cat_is_meta(const char *line);

/*
 * One line: fills *out.  -EINVAL with a reason in why for anything
 * malformed (unknown prefix, bad pattern, empty field, a number out of
 * range, a control or non-ASCII byte, a forms pattern without exactly one
 * '*').
 */
int hr_cat_parse(const char *line, struct hr_cat_line *out, char *why, size_t why_size);

/*
 * Walk text (lines as above, newline-separated, nothing else): every line is
 * validated; for each line of kind `kind` whose pattern matches name, call
 * fn (stop and return its value when non-zero).  Returns 0 when the walk
 * ended, fn's non-zero value, or -EINVAL (a malformed line: *lineno and why
 * say which and why), -E2BIG (text or a line too long).
 */
int hr_cat_walk(const char *text, size_t len, enum hr_cat_kind kind, const char *name,
                int (*fn)(const struct hr_cat_line *l, void *data), void *data,
                unsigned *lineno, char *why, size_t why_size);

/*
 * pre: the name of MAIN for kernel `name` and launch columns b (the '*' of
 * pattern captured from name, the final '#' replaced by b).  false when
 * name does not match or out is too small.
 */
bool hr_cat_pre_main(const char *pattern, const char *tmpl, const char *name, unsigned b,
                     char *out, size_t out_size);

/*
 * forms, wide: the sibling name of kernel `name` for a forms line's SPLIT or
 * SECOND template (the '*' of pattern captured from name).  false when name
 * does not match or out is too small.
 */
bool hr_cat_sibling(const char *pattern, const char *tmpl, const char *name,
                    char *out, size_t out_size);

#endif
