/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The catalogue line parser (shared/catalogue-meta.h).  Like the #@launch
 * parser, its text comes from a plugin the library does not trust: every
 * byte is checked, every number bounded, a line that is not exactly the
 * grammar is refused.  Layer: util (lib/layers).
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "catalogue-meta.h"

static const char *const prefixes[] = {
	[HR_CAT_WORK] = "#@work",
	[HR_CAT_WS] = "#@ws",
	[HR_CAT_FORMS] = "#@forms",
	[HR_CAT_NOTE] = "#@note",
	[HR_CAT_WIDE] = "#@wide",
	[HR_CAT_BIND] = "#@bind",
	[HR_CAT_NULL] = "#@null",
	[HR_CAT_CHECK] = "#@check",
	[HR_CAT_ARG] = "#@arg",
};

static const char *const sources[HR_SRC_COUNT] = {
	[HR_SRC_SRC] = "src", [HR_SRC_DST] = "dst", [HR_SRC_ALPHA] = "alpha",
	[HR_SRC_BETA] = "beta", [HR_SRC_RESIDUAL] = "residual",
	[HR_SRC_RESIDUAL_OUT] = "residual_out", [HR_SRC_WS] = "ws", [HR_SRC_EPS] = "eps",
	[HR_SRC_COLS] = "cols", [HR_SRC_ROWS] = "rows", [HR_SRC_NUMEL] = "rows*cols",
	[HR_SRC_COLS_POW2] = "pow2(cols)", [HR_SRC_BLOCK] = "block", [HR_SRC_SPLITS] = "splits",
	[HR_SRC_ZERO] = "zero", [HR_SRC_PARTIAL_FLOATS_M1] = "partial_floats-1",
};

enum hr_cat_source hr_cat_source(const char *word)
{
	for (size_t i = 1; i < HR_SRC_COUNT; i++)
		if (strcmp(word, sources[i]) == 0)
			return (enum hr_cat_source)i;
	return HR_SRC_NONE;
}

const char *hr_cat_source_name(enum hr_cat_source s)
{
	return s > HR_SRC_NONE && s < HR_SRC_COUNT ? sources[s] : "?";
}
#define N_PREFIXES (sizeof(prefixes) / sizeof(prefixes[0]))

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

static enum hr_cat_kind prefix_of(const char *line)
{
	for (size_t k = 1; k < N_PREFIXES; k++) {
		size_t n = strlen(prefixes[k]);

		if (strncmp(line, prefixes[k], n) == 0 && (line[n] == ' ' || line[n] == '\t'))
			return (enum hr_cat_kind)k;
	}
	return HR_CAT_NONE;
}

bool hr_cat_is_meta(const char *line)
{
	return prefix_of(line) != HR_CAT_NONE;
}

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* Kernel-name glob: identifier characters and fnmatch's * ? [ ] ! -. */
static bool pattern_is_valid(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!ident_char(*s) && !strchr("*?[]!-", *s))
			return false;
	return true;
}

/* forms: identifier characters and exactly one '*'. */
static bool template_is_valid(const char *s)
{
	unsigned stars = 0;

	for (; *s; s++)
		if (*s == '*')
			stars++;
		else if (!ident_char(*s))
			return false;
	return stars == 1;
}

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* The next blank-separated word of *s into out (at most size - 1 bytes). */
static bool word(const char **s, char *out, size_t size)
{
	const char *p = skip_ws(*s);
	size_t n = strcspn(p, " \t");

	if (n == 0 || n >= size)
		return false;
	memcpy(out, p, n);
	out[n] = '\0';
	*s = p + n;
	return true;
}

/* Copy text with blanks around trimmed; false when empty. */
static bool trimmed(const char *p, size_t n, char *out, size_t size)
{
	while (n && (*p == ' ' || *p == '\t'))
		p++, n--;
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	if (n == 0 || n >= size)
		return false;
	memcpy(out, p, n);
	out[n] = '\0';
	return true;
}

static bool ident_only(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!ident_char(*s))
			return false;
	return true;
}

/* bind: NAME=SOURCE words; null: NAMEs; check: rows=A*B or cols=A. */
static int words_valid(enum hr_cat_kind kind, const char *text, char *why, size_t why_size)
{
	char w[HR_CAT_MAX_LINE + 1];
	const char *p = text;

	while (word(&p, w, sizeof(w))) {
		char *eq = strchr(w, '=');

		if (kind == HR_CAT_NULL) {
			if (!ident_only(w))
				return bad(why, why_size, "#@null: '%s' is not an argument name", w);
			continue;
		}
		if (!eq)
			return bad(why, why_size, "%s: '%s' is not NAME=VALUE", prefixes[kind], w);
		*eq = '\0';
		if (kind == HR_CAT_BIND) {
			if (!ident_only(w) || hr_cat_source(eq + 1) == HR_SRC_NONE)
				return bad(why, why_size, "#@bind: '%s=%s': want an argument name = "
				           "src, dst, alpha, beta, residual, residual_out, ws, eps, cols, "
				           "rows, rows*cols, pow2(cols), block, splits, zero or "
				           "partial_floats-1", w, eq + 1);
			continue;
		}
		char *star = strchr(eq + 1, '*');

		if (strcmp(w, "rows") == 0 && star) {
			*star = '\0';
			if (ident_only(eq + 1) && ident_only(star + 1))
				continue;
		} else if (strcmp(w, "cols") == 0 && ident_only(eq + 1)) {
			continue;
		}
		return bad(why, why_size, "#@check: want rows=A*B or cols=A (argument names)");
	}
	return 0;
}

int hr_cat_parse(const char *line, struct hr_cat_line *out, char *why, size_t why_size)
{
	size_t len = strlen(line);
	const char *p;

	memset(out, 0, sizeof(*out));
	if (len > HR_CAT_MAX_LINE)
		return bad(why, why_size, "line longer than %u bytes", HR_CAT_MAX_LINE);
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)line[i] < 0x20 && line[i] != '\t')
			return bad(why, why_size, "control character in the line");
		else if ((unsigned char)line[i] >= 0x7f)
			return bad(why, why_size, "non-ASCII byte in the line");
	out->kind = prefix_of(line);
	if (out->kind == HR_CAT_NONE)
		return bad(why, why_size, "not a #@work, #@ws, #@forms, #@wide, #@note, #@bind, #@null, "
		           "#@check or #@arg line");
	p = line + strlen(prefixes[out->kind]);
	if (!word(&p, out->pattern, sizeof(out->pattern)) || !pattern_is_valid(out->pattern))
		return bad(why, why_size, "missing or invalid kernel pattern");
	p = skip_ws(p);
	switch (out->kind) {
	case HR_CAT_WORK: {
		const char *bar = strchr(p, '|');

		if (!bar || strchr(bar + 1, '|') || !trimmed(p, (size_t)(bar - p), out->a, sizeof(out->a)) ||
		    !trimmed(bar + 1, strlen(bar + 1), out->b, sizeof(out->b)))
			return bad(why, why_size, "want '#@work PATTERN ROWS | COLS' (two non-empty texts)");
		return 0;
	}
	case HR_CAT_WS: {
		bool col = strncmp(p, "per_col=", 8) == 0;
		unsigned long v = 0;
		const char *n;

		if (!col && strncmp(p, "per_partial=", 12) != 0)
			return bad(why, why_size, "want '#@ws PATTERN per_partial=BYTES' or 'per_col=BYTES'");
		n = p + (col ? 8 : 12);
		if (!*n || strlen(n) > 6)
			return bad(why, why_size, "%s: want 1..%u", col ? "per_col" : "per_partial", HR_CAT_MAX_WS);
		for (; *n; n++) {
			if (*n < '0' || *n > '9')
				return bad(why, why_size, "%s: want 1..%u", col ? "per_col" : "per_partial", HR_CAT_MAX_WS);
			v = v * 10 + (unsigned long)(*n - '0');
		}
		if (v < 1 || v > HR_CAT_MAX_WS)
			return bad(why, why_size, "%s: want 1..%u", col ? "per_col" : "per_partial", HR_CAT_MAX_WS);
		if (col)
			out->ws_col = (unsigned)v;
		else
			out->ws = (unsigned)v;
		return 0;
	}
	case HR_CAT_WIDE:
		if (!template_is_valid(out->pattern) || !word(&p, out->a, sizeof(out->a)) ||
		    !template_is_valid(out->a) || *skip_ws(p))
			return bad(why, why_size, "want '#@wide PATTERN WIDE', each a name with one '*'");
		return 0;
	case HR_CAT_FORMS:
		if (!template_is_valid(out->pattern) || !word(&p, out->a, sizeof(out->a)) ||
		    !template_is_valid(out->a) || !word(&p, out->b, sizeof(out->b)) ||
		    !template_is_valid(out->b) || *skip_ws(p))
			return bad(why, why_size, "want '#@forms PATTERN SPLIT SECOND', each a name with one '*'");
		return 0;
	case HR_CAT_NOTE:
		if (!trimmed(p, strlen(p), out->a, sizeof(out->a)))
			return bad(why, why_size, "empty note");
		return 0;
	case HR_CAT_BIND:
	case HR_CAT_NULL:
	case HR_CAT_CHECK:
		if (!trimmed(p, strlen(p), out->a, sizeof(out->a)))
			return bad(why, why_size, "want '%s PATTERN' and at least one word",
			           prefixes[out->kind]);
		return words_valid(out->kind, out->a, why, why_size);
	case HR_CAT_ARG:
		if (!word(&p, out->b, sizeof(out->b)) || !ident_only(out->b) ||
		    !trimmed(p, strlen(p), out->a, sizeof(out->a)))
			return bad(why, why_size, "want '#@arg PATTERN NAME TEXT'");
		return 0;
	case HR_CAT_NONE:
		break;
	}
	return -EINVAL;
}

int hr_cat_walk(const char *text, size_t len, enum hr_cat_kind kind, const char *name,
                int (*fn)(const struct hr_cat_line *l, void *data), void *data,
                unsigned *lineno, char *why, size_t why_size)
{
	char line[HR_CAT_MAX_LINE + 1];
	struct hr_cat_line cur;
	unsigned no = 0;

	*lineno = 0;
	if (len > HR_CAT_MAX_TEXT)
		return -E2BIG;
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
		int r;

		no++;
		if (n > HR_CAT_MAX_LINE) {
			*lineno = no;
			bad(why, why_size, "line longer than %u bytes", HR_CAT_MAX_LINE);
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
			break;
		r = hr_cat_parse(line, &cur, why, why_size);
		if (r < 0) {
			*lineno = no;
			return r;
		}
		if (cur.kind != kind || !name || fnmatch(cur.pattern, name, 0) != 0)
			continue;
		r = fn(&cur, data);
		if (r) {
			*lineno = no;
			return r;
		}
	}
	return 0;
}

bool hr_cat_sibling(const char *pattern, const char *tmpl, const char *name,
                    char *out, size_t out_size)
{
	const char *star = strchr(pattern, '*'), *tstar = strchr(tmpl, '*');
	size_t pre, suf, nlen = strlen(name), cap, tpre, tsuf;

	if (!star || !tstar)
		return false;
	pre = (size_t)(star - pattern);
	suf = strlen(star + 1);
	if (nlen < pre + suf || strncmp(name, pattern, pre) != 0 ||
	    strcmp(name + nlen - suf, star + 1) != 0)
		return false;
	cap = nlen - pre - suf;
	tpre = (size_t)(tstar - tmpl);
	tsuf = strlen(tstar + 1);
	if (tpre + cap + tsuf >= out_size)
		return false;
	memcpy(out, tmpl, tpre);
	memcpy(out + tpre, name + pre, cap);
	memcpy(out + tpre + cap, tstar + 1, tsuf + 1);
	return true;
}
