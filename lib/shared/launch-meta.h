/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Launch metadata: the `#@launch PATTERN KIND key=value...` lines of a
 * kernels/F.list (grammar: doc/HACKING.md), parsed and validated.  Pure C
 * with no context, so the build tool plugins/hr-embed (which refuses a list
 * whose metadata is malformed or leaves a kernel uncovered) and the library
 * (which reads the same lines back from an untrusted plugin) share one
 * parser.  Layer: util (lib/layers).
 */
#ifndef HR_LAUNCH_META_H
#define HR_LAUNCH_META_H

#include <stdbool.h>
#include <stddef.h>

#define HR_LAUNCH_PREFIX "#@launch"
#define HR_LAUNCH_MAX_TEXT (1u << 20)   /* the whole metadata of a family */
#define HR_LAUNCH_MAX_LINE 512
#define HR_LAUNCH_MAX_PATTERN 128

enum hr_launch_kind {
	HR_LAUNCH_NONE = 0,
	HR_LAUNCH_ELEMENTWISE,          /* work = items of a 1-D grid-stride loop */
	HR_LAUNCH_ELEMENTWISE2D,        /* rows x cols: grid y = rows exactly, x strides over cols */
	HR_LAUNCH_ROWS,                 /* rows x cols: one block per row (grid-strided or exact) */
	HR_LAUNCH_ROWS_SPLIT,           /* rows x cols: grid (rows, splits), first pass of two */
};

struct hr_launch_meta {
	enum hr_launch_kind kind;
	unsigned vec;           /* elementwise: items a thread handles per iteration */
	unsigned block;         /* threads per block; 0 = the library's choice (auto) */
	unsigned per_thread;    /* rows, block=auto: columns per thread */
	unsigned shared;        /* static shared bytes the kernel declares */
	unsigned shared_per_col;/* dynamic shared bytes per (padded) column */
	unsigned waves;         /* grid cap in full-occupancy waves; 0 = no cap */
	unsigned split_share;   /* rows-split: rows a first-pass block may serve
	                         * together (0: the default rule); see kernel-geometry.c */
	unsigned split_min;     /* rows-split with split_share: fewest columns a split */
	unsigned wave_rows;     /* rows: a row of at most wave x wave_rows columns is one
	                         * wave's (0: a block a row); see kernel/geometry.c */
	bool pad_pow2;          /* rows: columns rounded up to a power of two */
	bool exact;             /* rows: grid x == rows (one block per row) */
};

/*
 * One line (the whole "#@launch ..." text, without newline): fills pattern
 * and *m.  -EINVAL with a reason in why for anything malformed (unknown
 * kind or key, a value out of range, a key the kind does not take).
 */
int hr_launch_meta_parse(const char *line, char *pattern, size_t pattern_size,
                         struct hr_launch_meta *m, char *why, size_t why_size);

/*
 * The metadata of kernel `name` in `text` (the "#@launch" lines of a list,
 * one per line, nothing else): every line is validated, the first whose
 * PATTERN fnmatch(3)es name wins.  0; -ENOENT no line matches; -EINVAL a
 * malformed line (*lineno and why say which and why); -E2BIG text or a
 * line too long (why says which; *lineno 0 for the whole text).
 */
int hr_launch_meta_find(const char *text, size_t len, const char *name,
                        struct hr_launch_meta *m, unsigned *lineno,
                        char *why, size_t why_size);

/*
 * The `#@` line splitter, the one the launch lines and the catalogue lines
 * (shared/catalogue-meta.c) are read with: text cut at newlines (a final
 * newline ends it), each line at most HR_LAUNCH_MAX_LINE bytes and free of
 * NUL, given NUL-terminated to fn with its number (from 1).  A non-zero
 * value of fn stops the walk and is returned, with *lineno its line;
 * -E2BIG text over max_text bytes (*lineno 0) or a line too long, -EINVAL
 * a NUL byte (*lineno and why say which and why); 0 at the end.
 */
int hr_meta_lines(const char *text, size_t len, size_t max_text,
                  int (*fn)(const char *line, unsigned lineno, void *data), void *data,
                  unsigned *lineno, char *why, size_t why_size);

/* A kind's name as written in a list ("elementwise", ...). */
const char *hr_launch_kind_name(enum hr_launch_kind k);

#endif
