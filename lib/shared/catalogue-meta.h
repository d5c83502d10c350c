/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Catalogue metadata: the `#@work`, `#@ws`, `#@forms` and `#@note` lines of
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
};

struct hr_cat_line {
	enum hr_cat_kind kind;
	char pattern[HR_CAT_MAX_PATTERN + 1];
	char a[HR_CAT_MAX_LINE + 1];    /* work: rows; forms: SPLIT; note: text */
	char b[HR_CAT_MAX_LINE + 1];    /* work: cols; forms: SECOND */
	unsigned ws;                    /* ws: bytes per partial (per_partial=) */
	unsigned ws_col;                /* ws: bytes per column (per_col=) */
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
 * forms, wide: the sibling name of kernel `name` for a forms line's SPLIT or
 * SECOND template (the '*' of pattern captured from name).  false when name
 * does not match or out is too small.
 */
bool hr_cat_sibling(const char *pattern, const char *tmpl, const char *name,
                    char *out, size_t out_size);

#endif
