/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The catalogue (hanzo_rocm_catalogue_*): every kernel of the installed
 * families described from each plugin's own data - its kernel table (name
 * and signature), its #@launch lines (the launch kind) and its catalogue
 * lines (#@work, #@ws, #@forms, #@note: lib/shared/catalogue-meta.h) - so a
 * third-party family is described exactly like ours.  Nothing here is a
 * table of our families.  Layer: kernel (lib/layers).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalogue.h"
#include "plugin/plugin.h"
#include "context.h"
#include "shared/catalogue-meta.h"
#include "shared/launch-meta.h"
#include "shared/util.h"

struct entry {
	char *family, *name, *signature, *launch, *rows, *cols, *form, *op, *split, *second, *notes;
	size_t ws, ws_col;
	char *wide;
	size_t n_args;
	struct hr_cat_arg *args;
	char **arg_doc;         /* n_args texts from #@arg lines; NULL: none */
	uint32_t nullable;      /* #@null: bit i */
	uint8_t bind[HR_CAT_MAX_ARGS]; /* #@bind: enum hr_cat_source of argument i */
};

struct hanzo_rocm_catalogue {
	atomic_int refs;
	struct hanzo_rocm *ctx;
	struct entry *e;
	size_t n, cap;
};

/* ---- signatures ----------------------------------------------------------- */

static const struct {
	const char *type;
	size_t bytes;
} scalar_types[] = {
	{ "int", 4 }, { "unsigned", 4 }, { "unsigned int", 4 }, { "float", 4 },
	{ "int32_t", 4 }, { "uint32_t", 4 }, { "double", 8 }, { "size_t", 8 },
	{ "int64_t", 8 }, { "uint64_t", 8 }, { "long", 8 }, { "unsigned long", 8 },
	{ "int8_t", 1 }, { "uint8_t", 1 }, { "int16_t", 2 }, { "uint16_t", 2 },
	{ "hr_f16", 2 }, { "hr_bf16", 2 }, { "hr_layout", sizeof(struct hanzo_rocm_layout) },
};

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

static size_t type_bytes(const char *type, bool pointer)
{
	char t[96];
	const char *p = type;

	if (pointer)
		return sizeof(void *);
	if (strncmp(p, "const ", 6) == 0)
		p += 6;
	snprintf(t, sizeof(t), "%s", p);
	for (size_t i = 0; i < sizeof(scalar_types) / sizeof(scalar_types[0]); i++)
		if (strcmp(t, scalar_types[i].type) == 0)
			return scalar_types[i].bytes;
	return 0;
}

static int one_arg(const char *p, size_t n, struct hr_cat_arg *a)
{
	size_t end, start;

	while (n && (*p == ' ' || *p == '\t'))
		p++, n--;
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	end = n;
	start = end;
	while (start && ident_char(p[start - 1]))
		start--;
	if (start == end || end - start >= sizeof(a->name) || start == 0)
		return -EINVAL;
	memcpy(a->name, p + start, end - start);
	a->name[end - start] = '\0';
	while (start && (p[start - 1] == ' ' || p[start - 1] == '\t'))
		start--;
	if (start == 0 || start >= sizeof(a->type))
		return -EINVAL;
	memcpy(a->type, p, start);
	a->type[start] = '\0';
	for (size_t i = 0; i < start; i++)
		if (!ident_char(p[i]) && !strchr(" \t*", p[i]))
			return -EINVAL;
	a->pointer = strchr(a->type, '*') != NULL;
	a->bytes = type_bytes(a->type, a->pointer);
	return 0;
}

int hr_cat_args(const char *sig, struct hr_cat_arg *args, size_t max, size_t *n)
{
	const char *p = sig;

	*n = 0;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || strcmp(p, "void") == 0)
		return 0;
	for (;;) {
		size_t len = strcspn(p, ",");

		if (*n == max)
			return -EINVAL;
		if (one_arg(p, len, &args[*n]) < 0)
			return -EINVAL;
		(*n)++;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

/* ---- one family's data from its plugin ------------------------------------- */

struct fam_data {
	const struct hanzo_rocm_plugin *desc;
	const char *launch, *cat;
	size_t launch_len, cat_len;
};

#define COVERS(d, field) \
	((d)->struct_size >= offsetof(struct hanzo_rocm_plugin, field) + sizeof((d)->field))

static int fam_load(struct hanzo_rocm *ctx, const char *family, struct fam_data *f)
{
	struct hr_family *fam = NULL;
	int r;

	memset(f, 0, sizeof(*f));
	r = hr_plugins_family(ctx, family, &fam);
	if (r == 0)
		r = hr_family_load(ctx, fam, &f->desc);
	if (r < 0)
		return r;
	if (!f->desc)
		return -ENOENT;
	if (COVERS(f->desc, launch) && f->desc->launch) {
		f->launch = f->desc->launch;
		f->launch_len = strnlen(f->launch, HR_LAUNCH_MAX_TEXT + 1);
	}
	if (COVERS(f->desc, catalogue) && f->desc->catalogue) {
		f->cat = f->desc->catalogue;
		f->cat_len = strnlen(f->cat, HR_CAT_MAX_TEXT + 1);
	}
	return 0;
}

static bool fam_has(const struct fam_data *f, const char *name)
{
	for (size_t i = 0; i < f->desc->n_kernels; i++)
		if (f->desc->kernels[i].name && strcmp(f->desc->kernels[i].name, name) == 0)
			return true;
	return false;
}

static int first_line(const struct hr_cat_line *l, void *data)
{
	*(struct hr_cat_line *)data = *l;
	return 1;
}

/* hr_cat_walk over f's catalogue lines, a malformed line logged (-EBADMSG). */
static int fam_walk(struct hanzo_rocm *ctx, const char *family, const struct fam_data *f,
                    enum hr_cat_kind kind, const char *name,
                    int (*fn)(const struct hr_cat_line *l, void *data), void *data)
{
	unsigned lineno = 0;
	char why[160] = "";
	int r;

	if (!f->cat)
		return 0;
	r = hr_cat_walk(f->cat, f->cat_len, kind, name, fn, data, &lineno, why, sizeof(why));
	if (r < 0) {
		hr_err(ctx, "family '%s': catalogue metadata line %u: %s\n", family, lineno,
		       why[0] ? why : "invalid");
		return -EBADMSG;
	}
	return r;
}

/* The first line of kind for name: 1 found, 0 none, -EBADMSG (logged). */
static int fam_first(struct hanzo_rocm *ctx, const char *family, const struct fam_data *f,
                     enum hr_cat_kind kind, const char *name, struct hr_cat_line *out)
{
	return fam_walk(ctx, family, f, kind, name, first_line, out);
}

/* As fam_first, -ENOENT for none. */
static int fam_only(struct hanzo_rocm *ctx, const char *family, const struct fam_data *f,
                    enum hr_cat_kind kind, const char *name, struct hr_cat_line *out)
{
	int r = fam_first(ctx, family, f, kind, name, out);

	return r == 0 ? -ENOENT : r < 0 ? r : 0;
}

/*
 * A form of a kernel: a #@forms line's split and second passes (a, b), a
 * #@wide line's wide kernel (a), each with its '*' captured from the
 * kernel's name and each a kernel of the family.
 */
struct sib_find {
	const struct fam_data *f;
	const char *name;
	char a[HR_CAT_MAX_NAME], b[HR_CAT_MAX_NAME];
};

static int sib_match(const struct hr_cat_line *l, void *data)
{
	struct sib_find *sf = data;

	return hr_cat_sibling(l->pattern, l->a, sf->name, sf->a, sizeof(sf->a)) &&
	       fam_has(sf->f, sf->a) &&
	       (l->kind != HR_CAT_FORMS ||
	        (hr_cat_sibling(l->pattern, l->b, sf->name, sf->b, sizeof(sf->b)) &&
	         fam_has(sf->f, sf->b)));
}

/*
 * name's split form (kind HR_CAT_FORMS: sf->a the split pass, sf->b the
 * second, *ws its #@ws per_partial) or wide form (HR_CAT_WIDE: sf->a, *ws
 * its #@ws per_col): 1, 0 none, -EBADMSG (logged; a form without its #@ws).
 */
static int fam_form(struct hanzo_rocm *ctx, const char *family, const struct fam_data *f,
                    enum hr_cat_kind kind, const char *name, struct sib_find *sf, unsigned *ws)
{
	struct hr_cat_line wl;
	int r;

	sf->f = f;
	sf->name = name;
	r = fam_walk(ctx, family, f, kind, name, sib_match, sf);
	if (r <= 0)
		return r;
	r = fam_first(ctx, family, f, HR_CAT_WS, sf->a, &wl);
	if (r < 0)
		return r;
	*ws = r == 0 ? 0 : kind == HR_CAT_FORMS ? wl.ws : wl.ws_col;
	if (!*ws) {
		hr_err(ctx, "family '%s': %s kernel %s has no '#@ws ... %s=' line\n", family,
		       kind == HR_CAT_FORMS ? "split" : "wide", sf->a,
		       kind == HR_CAT_FORMS ? "per_partial" : "per_col");
		return -EBADMSG;
	}
	return 1;
}

int hr_cat_wide(struct hanzo_rocm *ctx, const char *family, const char *name,
                char wide[HR_CAT_MAX_NAME], unsigned *ws_per_col, bool *pad_pow2)
{
	struct sib_find wf;
	struct hr_launch_meta m;
	struct fam_data f;
	unsigned lineno;
	char why[160];
	int r = fam_load(ctx, family, &f);

	if (r < 0)
		return r;
	r = fam_form(ctx, family, &f, HR_CAT_WIDE, name, &wf, ws_per_col);
	if (r <= 0)
		return r < 0 ? r : -ENOENT;
	memcpy(wide, wf.a, HR_CAT_MAX_NAME);
	*pad_pow2 = f.launch &&
	            hr_launch_meta_find(f.launch, f.launch_len, wide, &m, &lineno, why,
	                                sizeof(why)) == 0 && m.pad_pow2;
	return 0;
}

int hr_cat_signature(struct hanzo_rocm *ctx, const char *family, const char *name,
                     const char **sig)
{
	struct fam_data f;
	int r = fam_load(ctx, family, &f);

	if (r < 0)
		return r;
	for (size_t i = 0; i < f.desc->n_kernels; i++)
		if (f.desc->kernels[i].name && strcmp(f.desc->kernels[i].name, name) == 0) {
			*sig = f.desc->kernels[i].signature ? f.desc->kernels[i].signature : "";
			return 0;
		}
	return -ENOENT;
}

int hr_cat_ws(struct hanzo_rocm *ctx, const char *family, const char *name,
              unsigned *per_partial, unsigned *per_col, bool *pad_pow2)
{
	struct hr_launch_meta m;
	struct hr_cat_line wl;
	struct fam_data f;
	unsigned lineno;
	char why[160];
	int r = fam_load(ctx, family, &f);

	*per_partial = *per_col = 0;
	*pad_pow2 = false;
	if (r == 0)
		r = fam_only(ctx, family, &f, HR_CAT_WS, name, &wl);
	if (r < 0)
		return r;
	*per_partial = wl.ws;
	*per_col = wl.ws_col;
	*pad_pow2 = f.launch &&
	            hr_launch_meta_find(f.launch, f.launch_len, name, &m, &lineno, why,
	                                sizeof(why)) == 0 && m.pad_pow2;
	return 0;
}

int hr_cat_forms(struct hanzo_rocm *ctx, const char *family, const char *name,
                 char split[HR_CAT_MAX_NAME], char second[HR_CAT_MAX_NAME],
                 unsigned *ws_per_partial, bool *second_per_item)
{
	struct sib_find ff;
	struct hr_launch_meta m;
	struct fam_data f;
	unsigned lineno;
	char why[160];
	int r = fam_load(ctx, family, &f);

	if (r < 0)
		return r;
	r = fam_form(ctx, family, &f, HR_CAT_FORMS, name, &ff, ws_per_partial);
	if (r <= 0)
		return r < 0 ? r : -ENOENT;
	memcpy(split, ff.a, HR_CAT_MAX_NAME);
	memcpy(second, ff.b, HR_CAT_MAX_NAME);
	*second_per_item = f.launch &&
	                   hr_launch_meta_find(f.launch, f.launch_len, second, &m, &lineno, why,
	                                       sizeof(why)) == 0 &&
	                   (m.kind == HR_LAUNCH_ELEMENTWISE || m.kind == HR_LAUNCH_ELEMENTWISE2D);
	return 0;
}

int hr_cat_passes(struct hanzo_rocm *ctx, const char *family, const char *name,
                  char arg[HR_CAT_MAX_NAME], unsigned *passes)
{
	struct hr_cat_line l;
	struct fam_data f;
	int r = fam_load(ctx, family, &f);

	if (r == 0)
		r = fam_only(ctx, family, &f, HR_CAT_PASSES, name, &l);
	if (r < 0)
		return r;
	if (strlen(l.a) >= HR_CAT_MAX_NAME)
		return -EBADMSG;
	memcpy(arg, l.a, strlen(l.a) + 1);
	*passes = l.passes;
	return 0;
}

int hr_cat_pre(struct hanzo_rocm *ctx, const char *family, const char *name,
               char pre[HR_CAT_MAX_NAME], char main[HR_CAT_MAX_NAME], struct hr_cat_pre *rule)
{
	struct hr_cat_line l;
	struct fam_data f;
	int r = fam_load(ctx, family, &f);

	if (r == 0)
		r = fam_only(ctx, family, &f, HR_CAT_PRE, name, &l);
	if (r < 0)
		return r;
	/* MAIN with its '*' captured and the final '#' dropped: the caller appends B */
	if (strlen(l.a) >= HR_CAT_MAX_NAME || !hr_cat_pre_main(l.pattern, l.b, name, 1, main,
	                                                       HR_CAT_MAX_NAME)) {
		hr_err(ctx, "family '%s': kernel %s: its #@pre names no kernel that fits\n", family,
		       name);
		return -EBADMSG;
	}
	main[strlen(main) - 1] = '\0';
	memcpy(pre, l.a, strlen(l.a) + 1);
	*rule = l.pre;
	return 0;
}

struct bind_walk {
	const struct hr_cat_arg *args;
	size_t n;
	struct hr_cat_binding *b;
	const char *bad;                /* a #@check word naming no argument */
};

static int arg_index(const struct bind_walk *w, const char *name)
{
	for (size_t i = 0; i < w->n; i++)
		if (strcmp(w->args[i].name, name) == 0)
			return (int)i;
	return -1;
}

static int bind_line(const struct hr_cat_line *l, void *data)
{
	struct bind_walk *w = data;
	char word[HR_CAT_MAX_LINE + 1];
	const char *p = l->a;
	size_t len;

	while (*p) {
		while (*p == ' ' || *p == '\t')
			p++;
		len = strcspn(p, " \t");
		if (!len)
			break;
		memcpy(word, p, len);
		word[len] = '\0';
		p += len;
		char *eq = strchr(word, '=');
		int i;

		if (l->kind == HR_CAT_NULL) {
			if ((i = arg_index(w, word)) >= 0)
				w->b->nullable |= 1u << i;
			continue;
		}
		if (!eq)
			continue;
		*eq = '\0';
		if (l->kind == HR_CAT_BIND) {
			if ((i = arg_index(w, word)) >= 0 && !w->b->source[i])
				w->b->source[i] = (uint8_t)hr_cat_source(eq + 1);
			continue;
		}
		char *star = strchr(eq + 1, '*');

		if (star) {
			*star = '\0';
			w->b->rows_a = (int8_t)arg_index(w, eq + 1);
			w->b->rows_b = (int8_t)arg_index(w, star + 1);
			if (w->b->rows_a < 0 || w->b->rows_b < 0)
				w->bad = "rows";
		} else {
			w->b->cols_arg = (int8_t)arg_index(w, eq + 1);
			if (w->b->cols_arg < 0)
				w->bad = "cols";
		}
	}
	return 0;
}

int hr_cat_binding(struct hanzo_rocm *ctx, const char *family, const char *name,
                   const struct hr_cat_arg *args, size_t n, struct hr_cat_binding *b)
{
	static const enum hr_cat_kind kinds[] = { HR_CAT_BIND, HR_CAT_NULL, HR_CAT_CHECK };
	struct bind_walk w = { .args = args, .n = n, .b = b };
	struct fam_data f;
	int r = fam_load(ctx, family, &f);

	memset(b, 0, sizeof(*b));
	b->rows_a = b->rows_b = b->cols_arg = -1;
	if (r < 0 || !f.cat)
		return r;
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if ((r = fam_walk(ctx, family, &f, kinds[k], name, bind_line, &w)) < 0)
			return r;
	if (w.bad) {
		hr_err(ctx, "family '%s': kernel %s: its #@check %s= names no argument of it\n",
		       family, name, w.bad);
		return -EBADMSG;
	}
	return 0;
}

/* ---- the catalogue object ----------------------------------------------------- */

static const struct {
	const char *rows, *cols;
} kind_work[] = {
	[HR_LAUNCH_NONE] = { NULL, NULL },
	[HR_LAUNCH_ELEMENTWISE] = { "items of the 1-D grid-stride loop (any split n = rows x cols)",
	                            "1 (or any factor of the items)" },
	[HR_LAUNCH_ELEMENTWISE2D] = { "grid rows (grid y, at most 65535)", "items of each row" },
	[HR_LAUNCH_ROWS] = { "rows (a block each)", "row length" },
	[HR_LAUNCH_ROWS_SPLIT] = { "rows", "row length (split into the geometry's splits chunks)" },
};

static void entry_free(struct entry *e)
{
	free(e->family);
	free(e->name);
	free(e->signature);
	free(e->launch);
	free(e->rows);
	free(e->cols);
	free(e->form);
	free(e->op);
	free(e->split);
	free(e->second);
	free(e->notes);
	free(e->wide);
	for (size_t i = 0; e->arg_doc && i < e->n_args; i++)
		free(e->arg_doc[i]);
	free(e->arg_doc);
	free(e->args);
}

struct doc_walk {
	struct entry *e;
	int err;
};

/* An #@arg line: the first text for each argument it names wins. */
static int doc_add(const struct hr_cat_line *l, void *data)
{
	struct doc_walk *dw = data;
	struct entry *e = dw->e;

	for (size_t i = 0; i < e->n_args; i++)
		if (strcmp(e->args[i].name, l->b) == 0 && !e->arg_doc[i]) {
			e->arg_doc[i] = strdup(l->a);
			if (!e->arg_doc[i]) {
				dw->err = -ENOMEM;
				return -ENOMEM;
			}
		}
	return 0;
}

/* The arguments' texts (#@arg) and which pointers may be NULL (#@null). */
static int describe_args(struct hanzo_rocm *ctx, const char *family, const struct fam_data *f,
                         struct entry *e)
{
	struct doc_walk dw = { .e = e };
	struct hr_cat_binding b;
	unsigned lineno = 0;
	char why[160] = "";
	int r;

	if (!f->cat || !e->n_args)
		return 0;
	e->arg_doc = calloc(e->n_args, sizeof(*e->arg_doc));
	if (!e->arg_doc)
		return -ENOMEM;
	r = hr_cat_walk(f->cat, f->cat_len, HR_CAT_ARG, e->name, doc_add, &dw, &lineno, why,
	                sizeof(why));
	if (dw.err)
		return dw.err;
	if (r < 0) {
		hr_err(ctx, "family '%s': catalogue metadata line %u: %s\n", family, lineno, why);
		return -EBADMSG;
	}
	r = hr_cat_binding(ctx, family, e->name, e->args, e->n_args, &b);
	if (r < 0)
		return r;
	e->nullable = b.nullable;
	memcpy(e->bind, b.source, sizeof(e->bind));
	return 0;
}

static int dup_or_null(const char *s, char **out)
{
	*out = NULL;
	if (!s)
		return 0;
	*out = strdup(s);
	return *out ? 0 : -ENOMEM;
}

struct notes_join {
	char *text;
	int err;
};

static int note_add(const struct hr_cat_line *l, void *data)
{
	struct notes_join *nj = data;
	size_t old = nj->text ? strlen(nj->text) : 0, add = strlen(l->a);
	char *t = realloc(nj->text, old + add + 2);

	if (!t) {
		nj->err = -ENOMEM;
		return -ENOMEM;
	}
	if (old)
		t[old++] = ' ';
	memcpy(t + old, l->a, add + 1);
	nj->text = t;
	return 0;
}

static int describe(struct hanzo_rocm *ctx, const char *family, const struct fam_data *f,
                    size_t i, struct entry *e)
{
	const struct hanzo_rocm_kernel_info *k = &f->desc->kernels[i];
	enum hr_launch_kind kind = HR_LAUNCH_NONE;
	struct hr_launch_meta m;
	struct hr_cat_line wl;
	struct hr_cat_arg args[HR_CAT_MAX_ARGS];
	struct notes_join nj = { 0 };
	unsigned lineno = 0;
	char why[160] = "";
	bool has_work;
	int r;

	if (!k->name)
		return -EBADMSG;
	if (f->launch && hr_launch_meta_find(f->launch, f->launch_len, k->name, &m, &lineno,
	                                     why, sizeof(why)) == 0)
		kind = m.kind;
	r = fam_first(ctx, family, f, HR_CAT_WORK, k->name, &wl);
	if (r < 0)
		return r;
	has_work = r == 1;
	if ((r = dup_or_null(family, &e->family)) < 0 || (r = dup_or_null(k->name, &e->name)) < 0 ||
	    (r = dup_or_null(k->signature ? k->signature : "", &e->signature)) < 0 ||
	    (r = dup_or_null(kind ? hr_launch_kind_name(kind) : NULL, &e->launch)) < 0 ||
	    (r = dup_or_null(has_work ? wl.a : kind_work[kind].rows, &e->rows)) < 0 ||
	    (r = dup_or_null(has_work ? wl.b : kind_work[kind].cols, &e->cols)) < 0)
		return r;
	if (f->cat) {
		r = hr_cat_walk(f->cat, f->cat_len, HR_CAT_NOTE, k->name, note_add, &nj, &lineno,
		                why, sizeof(why));
		if (r < 0 && nj.err == 0) {
			free(nj.text);
			hr_err(ctx, "family '%s': catalogue metadata line %u: %s\n", family, lineno, why);
			return -EBADMSG;
		}
		e->notes = nj.text;
		if (nj.err)
			return nj.err;
	}
	if (hr_cat_args(e->signature, args, HR_CAT_MAX_ARGS, &e->n_args) < 0) {
		e->n_args = 0;          /* an argument list we cannot split: told as written */
	} else if (e->n_args) {
		e->args = calloc(e->n_args, sizeof(*e->args));
		if (!e->args)
			return -ENOMEM;
		memcpy(e->args, args, e->n_args * sizeof(*e->args));
	}
	return describe_args(ctx, family, f, e);
}

/* Forms: one-pass kernels name their passes; the passes name their op. */
static int describe_forms(struct hanzo_rocm *ctx, const char *family, const struct fam_data *f,
                          struct entry *e, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct sib_find ff;
		unsigned ws = 0;
		int r = fam_form(ctx, family, f, HR_CAT_FORMS, e[i].name, &ff, &ws);

		if (r < 0)
			return r;
		if (r == 0)
			continue;
		free(e[i].form);
		if (!(e[i].form = strdup("one-pass")) || dup_or_null(ff.a, &e[i].split) < 0 ||
		    dup_or_null(ff.b, &e[i].second) < 0)
			return -ENOMEM;
		if (strcmp(ff.a, e[i].name) == 0)
			e[i].ws = ws;   /* its own split pass (attention's split-K) */
		for (size_t j = 0; j < n; j++) {
			bool split = strcmp(e[j].name, ff.a) == 0;

			if (j == i || (!split && strcmp(e[j].name, ff.b) != 0))
				continue;
			free(e[j].form);
			free(e[j].op);
			e[j].op = NULL;
			if (!(e[j].form = strdup(split ? "split" : "second")) ||
			    dup_or_null(e[i].name, &e[j].op) < 0)
				return -ENOMEM;
			if (split)
				e[j].ws = ws;
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct sib_find wf;
		unsigned ws_col = 0;
		int r = fam_form(ctx, family, f, HR_CAT_WIDE, e[i].name, &wf, &ws_col);

		if (r < 0)
			return r;
		if (r == 0 || e[i].form)
			continue;
		if (!(e[i].form = strdup("shared")) || dup_or_null(wf.a, &e[i].wide) < 0)
			return -ENOMEM;
		for (size_t j = 0; j < n; j++) {
			if (strcmp(e[j].name, wf.a) != 0)
				continue;
			free(e[j].form);
			free(e[j].op);
			e[j].op = NULL;
			if (!(e[j].form = strdup("wide")) || dup_or_null(e[i].name, &e[j].op) < 0)
				return -ENOMEM;
			e[j].ws_col = ws_col;
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (!e[i].form) {
			struct hr_cat_line wl;
			/* a kernel of one form that has its own #@ws per_col= rule
			 * (a wide kernel no other kernel takes as its wide form) */
			int r = fam_first(ctx, family, f, HR_CAT_WS, e[i].name, &wl);

			if (r < 0)
				return r;
			if (r > 0)
				e[i].ws_col = wl.ws_col;
			if (!(e[i].form = strdup("single")))
				return -ENOMEM;
		}
		if (!e[i].op && strcmp(e[i].form, "split") != 0 && strcmp(e[i].form, "second") != 0 &&
		    strcmp(e[i].form, "wide") != 0 &&
		    dup_or_null(e[i].name, &e[i].op) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int add_family(struct hanzo_rocm_catalogue *cat, const char *family)
{
	struct fam_data f;
	size_t first = cat->n;
	int r = fam_load(cat->ctx, family, &f);

	if (r < 0)
		return r;
	if (f.desc->n_kernels > 1u << 20)
		return -EBADMSG;
	if (cat->n + f.desc->n_kernels > cat->cap) {
		size_t cap = cat->n + f.desc->n_kernels + 64;
		struct entry *e = realloc(cat->e, cap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		cat->e = e;
		cat->cap = cap;
	}
	for (size_t i = 0; i < f.desc->n_kernels; i++) {
		struct entry *e = &cat->e[cat->n];

		memset(e, 0, sizeof(*e));
		cat->n++;
		r = describe(cat->ctx, family, &f, i, e);
		if (r < 0)
			return r;
	}
	return describe_forms(cat->ctx, family, &f, cat->e + first, cat->n - first);
}

HR_EXPORT struct hanzo_rocm_catalogue *hanzo_rocm_catalogue_ref(struct hanzo_rocm_catalogue *cat)
{
	if (cat)
		atomic_fetch_add(&cat->refs, 1);
	return cat;
}

HR_EXPORT struct hanzo_rocm_catalogue *hanzo_rocm_catalogue_unref(struct hanzo_rocm_catalogue *cat)
{
	if (!cat || atomic_fetch_sub(&cat->refs, 1) > 1)
		return NULL;
	for (size_t i = 0; i < cat->n; i++)
		entry_free(&cat->e[i]);
	free(cat->e);
	hanzo_rocm_unref(cat->ctx);
	free(cat);
	return NULL;
}

HR_EXPORT int hanzo_rocm_catalogue_new(struct hanzo_rocm *ctx, const char *family,
                                       struct hanzo_rocm_catalogue **ret)
{
	struct hanzo_rocm_catalogue *cat;
	char **names = NULL;
	int r = 0;

	if (!ctx || !ret)
		return -EINVAL;
	*ret = NULL;
	cat = calloc(1, sizeof(*cat));
	if (!cat)
		return -ENOMEM;
	atomic_init(&cat->refs, 1);
	cat->ctx = hanzo_rocm_ref(ctx);
	if (family) {
		r = add_family(cat, family);
	} else {
		r = hr_plugins_families(ctx, &names);
		for (size_t i = 0; r >= 0 && names && names[i]; i++)
			r = add_family(cat, names[i]);
		hr_strv_free(names);
	}
	if (r < 0) {
		hanzo_rocm_catalogue_unref(cat);
		return r;
	}
	*ret = cat;
	return 0;
}

HR_EXPORT size_t hanzo_rocm_catalogue_count(const struct hanzo_rocm_catalogue *cat)
{
	return cat ? cat->n : 0;
}

HR_EXPORT int hanzo_rocm_catalogue_kernel(const struct hanzo_rocm_catalogue *cat, size_t index,
                                          struct hanzo_rocm_kernel_desc *desc)
{
	struct hanzo_rocm_kernel_desc d;
	const struct entry *e;
	size_t n;

	if (!cat || !desc || desc->size < offsetof(struct hanzo_rocm_kernel_desc, name))
		return -EINVAL;
	if (index >= cat->n)
		return -ERANGE;
	e = &cat->e[index];
	d = (struct hanzo_rocm_kernel_desc){
		.size = desc->size, .family = e->family, .name = e->name,
		.signature = e->signature, .n_args = e->n_args, .launch = e->launch,
		.rows = e->rows, .cols = e->cols, .form = e->form, .op = e->op,
		.split = e->split, .second = e->second, .ws_per_partial = e->ws,
		.notes = e->notes, .wide = e->wide, .ws_per_col = e->ws_col,
		.abi = HANZO_ROCM_KERNEL_ABI,
	};
	n = desc->size < sizeof(d) ? desc->size : sizeof(d);
	memcpy(desc, &d, n);
	return 0;
}

HR_EXPORT int hanzo_rocm_catalogue_arg(const struct hanzo_rocm_catalogue *cat, size_t index,
                                       size_t arg, struct hanzo_rocm_arg_desc *desc)
{
	struct hanzo_rocm_arg_desc d;
	const struct hr_cat_arg *a;
	size_t n;

	if (!cat || !desc || desc->size < offsetof(struct hanzo_rocm_arg_desc, type))
		return -EINVAL;
	if (index >= cat->n || arg >= cat->e[index].n_args)
		return -ERANGE;
	a = &cat->e[index].args[arg];
	d = (struct hanzo_rocm_arg_desc){ .size = desc->size, .type = a->type, .name = a->name,
	                                  .bytes = a->bytes,
	                                  .doc = cat->e[index].arg_doc ? cat->e[index].arg_doc[arg] : NULL,
	                                  .may_be_null = (cat->e[index].nullable >> arg) & 1,
	                                  .bind = arg < HR_CAT_MAX_ARGS && cat->e[index].bind[arg] ?
	                                          hr_cat_source_name(cat->e[index].bind[arg]) : NULL };
	n = desc->size < sizeof(d) ? desc->size : sizeof(d);
	memcpy(desc, &d, n);
	return 0;
}
