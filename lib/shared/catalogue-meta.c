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
#include "launch-meta.h"

_Static_assert(HR_CAT_MAX_LINE == HR_LAUNCH_MAX_LINE, "one line splitter: one line length");

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
	[HR_CAT_PRE] = "#@pre",
	[HR_CAT_PASSES] = "#@passes",
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

/* A decimal in [lo, hi], nothing else. */
static bool number(const char *s, unsigned long long lo, unsigned long long hi,
                   unsigned long long *out)
{
	unsigned long long v = 0;

	if (!*s || strlen(s) > 12)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (unsigned long long)(*s - '0');
	}
	if (v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

/* A form name: identifier characters, at most HR_CAT_MAX_FORM - 1. */
static bool form_word(const char *s, char *out)
{
	size_t n = strlen(s);

	if (n == 0 || n >= HR_CAT_MAX_FORM)
		return false;
	for (const char *c = s; *c; c++)
		if (!ident_char(*c))
			return false;
	memcpy(out, s, n + 1);
	return true;
}

/* One KEY=VALUE of a #@pre line into *pre; the bit of its key in *seen. */
static int pre_key(char *w, struct hr_cat_pre *pre, unsigned *seen, char *why, size_t why_size)
{
	static const char *const keys[] = {
		"arg", "batch", "ws", "elem", "align", "direct", "form", "direct_form",
	};
	char *v = strchr(w, '='), *slash;
	unsigned long long x = 0, y = 0;
	size_t k;

	if (!v)
		return bad(why, why_size, "#@pre: '%s' is not KEY=VALUE", w);
	*v++ = '\0';
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		if (strcmp(w, keys[k]) == 0)
			break;
	if (k == sizeof(keys) / sizeof(keys[0]) || (*seen & (1u << k)))
		return bad(why, why_size, "#@pre: key '%s' unknown or given twice", w);
	*seen |= 1u << k;
	switch (k) {
	case 0:
		if (!ident_only(v) || strlen(v) >= sizeof(pre->arg))
			return bad(why, why_size, "#@pre: arg=%s: want an argument name (at most %d "
			           "characters)", v, HR_CAT_MAX_PRE_ARG - 1);
		memcpy(pre->arg, v, strlen(v) + 1);
		return 0;
	case 1:
	case 3:
		if (!number(v, 1, 64, &x))
			return bad(why, why_size, "#@pre: %s=%s: want 1..64", w, v);
		*(k == 1 ? &pre->batch : &pre->elem) = (unsigned)x;
		return 0;
	case 2:
		slash = strchr(v, '/');
		if (slash)
			*slash = '\0';
		if (!slash || !number(v, 1, HR_CAT_MAX_WS, &x) || !number(slash + 1, 1, HR_CAT_MAX_WS, &y))
			return bad(why, why_size, "#@pre: ws: want BYTES/COLS, each 1..%u", HR_CAT_MAX_WS);
		pre->ws_bytes = (unsigned)x;
		pre->ws_cols = (unsigned)y;
		return 0;
	case 4:
		if (!number(v, 1, HR_CAT_MAX_WS, &x))
			return bad(why, why_size, "#@pre: align=%s: want 1..%u", v, HR_CAT_MAX_WS);
		pre->align = (unsigned)x;
		return 0;
	case 5:
		if (!number(v, 1, 1ull << 40, &pre->direct))
			return bad(why, why_size, "#@pre: direct=%s: want 1..2^40", v);
		return 0;
	default:
		if (!form_word(v, k == 6 ? pre->form : pre->direct_form))
			return bad(why, why_size, "#@pre: %s=%s: want a name of at most %d identifier "
			           "characters", w, v, HR_CAT_MAX_FORM - 1);
		return 0;
	}
}

/* pre: PRE MAIN KEY=VALUE..., arg=, batch=, ws=, elem= and form= required. */
static int pre_valid(const char *p, struct hr_cat_line *out, char *why, size_t why_size)
{
	char w[HR_CAT_MAX_LINE + 1];
	unsigned seen = 0;
	size_t n;

	if (!template_is_valid(out->pattern) || !word(&p, out->a, sizeof(out->a)) ||
	    !ident_only(out->a) || !word(&p, out->b, sizeof(out->b)))
		return bad(why, why_size, "want '#@pre PATTERN PRE MAIN KEY=VALUE...': PATTERN "
		           "with one '*', PRE a kernel name, MAIN with one '*' and a final '#'");
	n = strlen(out->b);
	memcpy(w, out->b, n + 1);
	w[n - 1] = '\0';
	if (out->b[n - 1] != '#' || !template_is_valid(w))
		return bad(why, why_size, "#@pre: MAIN '%s': want one '*' and a final '#'", out->b);
	out->pre.align = 1;
	while (word(&p, w, sizeof(w))) {
		int r = pre_key(w, &out->pre, &seen, why, why_size);

		if (r < 0)
			return r;
	}
	if ((seen & 0x4fu) != 0x4fu)
		return bad(why, why_size, "#@pre: arg=, batch=, ws=, elem= and form= are required");
	if (!!(seen & 0x20u) != !!(seen & 0x80u))
		return bad(why, why_size, "#@pre: direct= and direct_form= go together");
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
		           "#@check, #@arg, #@pre or #@passes line");
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
	case HR_CAT_PRE:
		return pre_valid(p, out, why, why_size);
	case HR_CAT_PASSES: {
		char w[HR_CAT_MAX_LINE + 1];
		unsigned long long x;

		if (!word(&p, out->a, sizeof(out->a)) || !ident_only(out->a) ||
		    !word(&p, w, sizeof(w)) || !number(w, 2, HR_CAT_MAX_PASSES, &x) || *skip_ws(p))
			return bad(why, why_size, "want '#@passes PATTERN ARG N': ARG an argument name, "
			           "N 2..%u", HR_CAT_MAX_PASSES);
		out->passes = (unsigned)x;
		return 0;
	}
	case HR_CAT_NONE:
		break;
	}
	return -EINVAL;
}

struct walk {
	enum hr_cat_kind kind;
	const char *name;
	int (*fn)(const struct hr_cat_line *l, void *data);
	void *data;
	char *why;
	size_t why_size;
};

static int walk_line(const char *line, unsigned no, void *data)
{
	struct walk *w = data;
	struct hr_cat_line cur;
	int r = hr_cat_parse(line, &cur, w->why, w->why_size);

	(void)no;
	if (r < 0)
		return r;
	if (cur.kind != w->kind || !w->name || fnmatch(cur.pattern, w->name, 0) != 0)
		return 0;
	return w->fn(&cur, w->data);
}

int hr_cat_walk(const char *text, size_t len, enum hr_cat_kind kind, const char *name,
                int (*fn)(const struct hr_cat_line *l, void *data), void *data,
                unsigned *lineno, char *why, size_t why_size)
{
	struct walk w = { kind, name, fn, data, why, why_size };

	return hr_meta_lines(text, len, HR_CAT_MAX_TEXT, walk_line, &w, lineno, why, why_size);
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

bool hr_cat_pre_main(const char *pattern, const char *tmpl, const char *name, unsigned b,
                     char *out, size_t out_size)
{
	char t[HR_CAT_MAX_LINE + 1];
	size_t n = strlen(tmpl);
	int w;

	if (n == 0 || tmpl[n - 1] != '#' || n >= sizeof(t))
		return false;
	memcpy(t, tmpl, n - 1);
	t[n - 1] = '\0';
	if (!hr_cat_sibling(pattern, t, name, out, out_size))
		return false;
	n = strlen(out);
	w = snprintf(out + n, out_size - n, "%u", b);
	return w > 0 && (size_t)w < out_size - n;
}
