/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The `#@launch` line parser (shared/launch-meta.h).  The text comes from a plugin,
 * which the library does not trust: every byte is checked, every number
 * bounded, and a line that is not exactly the grammar is refused rather
 * than half-understood.  Layer: util (lib/layers).
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launch-meta.h"

static const char *const kind_names[] = {
	[HR_LAUNCH_ELEMENTWISE] = "elementwise",
	[HR_LAUNCH_ELEMENTWISE2D] = "elementwise2d",
	[HR_LAUNCH_ROWS] = "rows",
	[HR_LAUNCH_ROWS_SPLIT] = "rows-split",
};

const char *hr_launch_kind_name(enum hr_launch_kind k)
{
	if ((size_t)k < sizeof(kind_names) / sizeof(kind_names[0]) && kind_names[k])
		return kind_names[k];
	return "none";
}

static int bad(char *why, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int bad(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;

	if (why && n) {
		va_start(ap, fmt);
		vsnprintf(why, n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* A decimal in [lo, hi], nothing else. */
static bool parse_num(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
	unsigned long v = 0;

	if (!*s || strlen(s) > 9)
		return false;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		v = v * 10 + (unsigned long)(*p - '0');
	}
	if (v < lo || v > hi)
		return false;
	*out = (unsigned)v;
	return true;
}

/* Kernel-name glob: identifier characters and fnmatch's * ? [ ] ! -. */
static bool pattern_is_valid(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("_*?[]!-", *s)))
			return false;
	return true;
}

static bool is_rows(enum hr_launch_kind k)
{
	return k == HR_LAUNCH_ROWS || k == HR_LAUNCH_ROWS_SPLIT;
}

static int parse_key(char *tok, struct hr_launch_meta *m, unsigned *seen,
                     char *why, size_t n)
{
	static const char *const keys[] = {
		"vec", "block", "per_thread", "shared", "shared_per_col", "waves",
		"pad", "grid", "split_share", "split_min", "wave_rows",
	};
	char *val = strchr(tok, '=');
	size_t k;

	if (!val || val == tok || !val[1])
		return bad(why, n, "'%s' is not key=value", tok);
	*val++ = '\0';
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		if (strcmp(tok, keys[k]) == 0)
			break;
	if (k == sizeof(keys) / sizeof(keys[0]))
		return bad(why, n, "unknown key '%s'", tok);
	if (*seen & (1u << k))
		return bad(why, n, "key '%s' given twice", tok);
	*seen |= 1u << k;
	switch (k) {
	case 0:
		if (is_rows(m->kind))
			return bad(why, n, "vec is for element-wise kinds");
		if (!parse_num(val, 1, 64, &m->vec))
			return bad(why, n, "vec=%s: want 1..64", val);
		return 0;
	case 1:
		if (strcmp(val, "auto") == 0) {
			if (!is_rows(m->kind))
				return bad(why, n, "block=auto is for row kinds");
			m->block = 0;
			return 0;
		}
		if (!parse_num(val, 32, 1024, &m->block) || m->block % 32)
			return bad(why, n, "block=%s: want auto or a multiple of 32 in 32..1024", val);
		if (is_rows(m->kind) && m->block % 64)
			return bad(why, n, "block=%s: row kinds need a multiple of 64", val);
		return 0;
	case 2:
		if (!is_rows(m->kind))
			return bad(why, n, "per_thread is for row kinds");
		if (!parse_num(val, 1, 65536, &m->per_thread))
			return bad(why, n, "per_thread=%s: want 1..65536", val);
		return 0;
	case 3:
		if (!parse_num(val, 0, 1u << 20, &m->shared))
			return bad(why, n, "shared=%s: want 0..1048576 bytes", val);
		return 0;
	case 4:
		if (!is_rows(m->kind))
			return bad(why, n, "shared_per_col is for row kinds");
		if (!parse_num(val, 1, 1024, &m->shared_per_col))
			return bad(why, n, "shared_per_col=%s: want 1..1024 bytes", val);
		return 0;
	case 5:
		if (!parse_num(val, 0, 64, &m->waves))
			return bad(why, n, "waves=%s: want 0..64", val);
		return 0;
	case 6:
		if (!is_rows(m->kind) || strcmp(val, "pow2") != 0)
			return bad(why, n, "pad=%s: only pad=pow2, for row kinds", val);
		m->pad_pow2 = true;
		return 0;
	case 8:
		if (m->kind != HR_LAUNCH_ROWS_SPLIT)
			return bad(why, n, "split_share is for rows-split");
		if (!parse_num(val, 1, 64, &m->split_share))
			return bad(why, n, "split_share=%s: want 1..64 rows", val);
		return 0;
	case 9:
		if (m->kind != HR_LAUNCH_ROWS_SPLIT)
			return bad(why, n, "split_min is for rows-split");
		if (!parse_num(val, 1, 1u << 20, &m->split_min))
			return bad(why, n, "split_min=%s: want 1..1048576 columns", val);
		return 0;
	case 10:
		if (m->kind != HR_LAUNCH_ROWS)
			return bad(why, n, "wave_rows is for rows");
		if (!parse_num(val, 1, 65536, &m->wave_rows))
			return bad(why, n, "wave_rows=%s: want 1..65536 columns a lane", val);
		return 0;
	default:                /* 7: grid */
		if (!is_rows(m->kind) ||
		    (strcmp(val, "exact") != 0 && strcmp(val, "stride") != 0))
			return bad(why, n, "grid=%s: want exact or stride, for row kinds", val);
		m->exact = strcmp(val, "exact") == 0;
		return 0;
	}
}

int hr_launch_meta_parse(const char *line, char *pattern, size_t pattern_size,
                         struct hr_launch_meta *m, char *why, size_t why_size)
{
	char buf[HR_LAUNCH_MAX_LINE + 1], *save = NULL, *tok;
	size_t len = strlen(line), plen = strlen(HR_LAUNCH_PREFIX);
	unsigned seen = 0;

	*m = (struct hr_launch_meta){ 0 };
	if (len > HR_LAUNCH_MAX_LINE)
		return bad(why, why_size, "line longer than %u bytes", HR_LAUNCH_MAX_LINE);
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)line[i] < 0x20 && line[i] != '\t')
			return bad(why, why_size, "control character in the line");
		else if ((unsigned char)line[i] >= 0x7f)
			return bad(why, why_size, "non-ASCII byte in the line");
	if (strncmp(line, HR_LAUNCH_PREFIX, plen) != 0 ||
	    (line[plen] != ' ' && line[plen] != '\t'))
		return bad(why, why_size, "not a '" HR_LAUNCH_PREFIX " PATTERN KIND' line");
	memcpy(buf, line + plen, len - plen + 1);
	tok = strtok_r(buf, " \t", &save);
	if (!tok || !pattern_is_valid(tok) || strlen(tok) >= pattern_size ||
	    strlen(tok) > HR_LAUNCH_MAX_PATTERN)
		return bad(why, why_size, "missing or invalid kernel pattern");
	memcpy(pattern, tok, strlen(tok) + 1);
	tok = strtok_r(NULL, " \t", &save);
	if (!tok)
		return bad(why, why_size, "missing kind");
	for (size_t k = 1; k < sizeof(kind_names) / sizeof(kind_names[0]); k++)
		if (strcmp(tok, kind_names[k]) == 0)
			m->kind = (enum hr_launch_kind)k;
	if (m->kind == HR_LAUNCH_NONE)
		return bad(why, why_size, "unknown kind '%s' (want elementwise, elementwise2d, rows or rows-split)", tok);
	m->vec = 1;
	m->per_thread = 8;
	/* No grid cap by default: one thread per vec items.  Measured on an H100
	 * (doc/BENCHMARKS.md, 2026-11-23): a cap of 2 waves of resident blocks
	 * cost 5% on contiguous and 65% on transposed views. */
	m->waves = 0;
	while ((tok = strtok_r(NULL, " \t", &save))) {
		int r = parse_key(tok, m, &seen, why, why_size);

		if (r < 0)
			return r;
	}
	if (m->split_min && !m->split_share)
		return bad(why, why_size, "split_min needs split_share");
	if (m->wave_rows && m->exact)
		return bad(why, why_size, "wave_rows needs a strided grid (a block takes several rows)");
	return 0;
}

int hr_meta_lines(const char *text, size_t len, size_t max_text,
                  int (*fn)(const char *line, unsigned lineno, void *data), void *data,
                  unsigned *lineno, char *why, size_t why_size)
{
	char line[HR_LAUNCH_MAX_LINE + 1];
	unsigned no = 0;

	*lineno = 0;
	if (why && why_size)
		why[0] = '\0';
	if (len > max_text) {
		bad(why, why_size, "more than %zu bytes (%zu MiB) of metadata", max_text, max_text >> 20);
		return -E2BIG;
	}
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
		int r;

		no++;
		if (n > HR_LAUNCH_MAX_LINE) {
			*lineno = no;
			bad(why, why_size, "line longer than %u bytes", HR_LAUNCH_MAX_LINE);
			return -E2BIG;
		}
		memcpy(line, text + i, n);
		line[n] = '\0';
		i += n + 1;
		if (memchr(line, '\0', n)) {
			*lineno = no;
			return bad(why, why_size, "NUL byte in the metadata");
		}
		if (n == 0 && i >= len)
			break;          /* the final newline */
		r = fn(line, no, data);
		if (r) {
			*lineno = no;
			return r;
		}
	}
	return 0;
}

struct launch_find {
	const char *name;
	struct hr_launch_meta m;        /* the first matching line's */
	unsigned found;                 /* its number; 0: none yet */
	char *why;
	size_t why_size;
};

/* Every line validated; the first whose pattern matches wins. */
static int launch_line(const char *line, unsigned no, void *data)
{
	struct launch_find *lf = data;
	char pattern[HR_LAUNCH_MAX_PATTERN + 1];
	struct hr_launch_meta cur;
	int r = hr_launch_meta_parse(line, pattern, sizeof(pattern), &cur, lf->why, lf->why_size);

	if (r < 0)
		return r;
	if (!lf->found && fnmatch(pattern, lf->name, 0) == 0) {
		lf->m = cur;
		lf->found = no;
	}
	return 0;
}

int hr_launch_meta_find(const char *text, size_t len, const char *name,
                        struct hr_launch_meta *m, unsigned *lineno,
                        char *why, size_t why_size)
{
	struct launch_find lf = { .name = name, .why = why, .why_size = why_size };
	int r = hr_meta_lines(text, len, HR_LAUNCH_MAX_TEXT, launch_line, &lf, lineno, why,
	                      why_size);

	if (r < 0)
		return r;
	*lineno = lf.found;
	if (!lf.found)
		return -ENOENT;
	*m = lf.m;
	return 0;
}
