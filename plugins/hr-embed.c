// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hanzo-rocm-embed - the plugin SDK's tool (installed by the -dev package;
 * the stock families are built with it too): turn F.hip + F.list into the C
 * source of the kernel-family plugin F (see hanzo-rocm-plugin.h and
 * hanzo-rocm-embed(1), hanzo-rocm-plugin(7)).
 *
 *   hanzo-rocm-embed [-I DIR]... [--plugin-version V] [--check-cxx CXX]
 *                    -o F.c FAMILY F.hip F.list
 *
 * Every `#include "name"` of the .hip file is inlined recursively (found
 * next to the including file, else in the -I directories: the installed
 * kernel headers), so the embedded source is self-contained and
 * the cache key, a hash of that source, covers every byte that is compiled.
 * System includes (<...>) are left alone.  `#line` markers keep compiler
 * diagnostics pointing at the original file and line; they carry only the
 * names as written, so the output does not depend on the build directory.
 *
 * The .list holds one kernel per line: its name, then its argument list as
 * written in the source.  Blank lines and lines starting with '#' are
 * ignored; "@flag ARG" adds an extra compile flag for the family.
 * "#@launch PATTERN KIND key=value..." lines (lib/shared/launch-meta.h) are the
 * kernels' launch metadata: validated here with the library's own parser
 * (a malformed line, or a kernel no line matches when the list has any, is
 * an error) and embedded verbatim as the descriptor's launch text.
 * "#@work", "#@ws", "#@forms", "#@wide" and "#@note" lines (lib/shared/catalogue-meta.h)
 * are the catalogue's: validated with the library's parser (a malformed
 * line, a line that matches no kernel, a per_partial #@ws line on a kernel
 * that is not rows-split, a #@forms line whose split form is not rows-split
 * with a per_partial #@ws line, a #@wide line whose wide form has no
 * per_col #@ws line, are errors) and embedded verbatim as the catalogue text.
 *
 * For the host backend, one HR_HOST_ENTRY(name) per kernel is appended
 * (inside #ifdef HR_HOST): the C++ entry points lib/backend/host/exec.c calls.
 * List and source must agree: a kernel the source defines literally
 * (extern "C" __global__ ... NAME() that the list lacks is refused; with
 * --check-cxx, the source with its host entries is compiled once
 * (-fsyntax-only, both wave sizes' flags) so a listed kernel the source does
 * not define, or a source that does not build for the host, is refused
 * before any plugin is built.
 *
 * The source is written as a byte-array initializer: no string-literal
 * length limits, no escaping pitfalls.  The output is replaced atomically
 * so an interrupted build never leaves a half-written plugin source.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shared/catalogue-meta.h"
#include "shared/launch-meta.h"
#include "shared/name.h"

#define MAX_INCLUDE_DEPTH 16
#define MAX_FLAGS 32
#define MAX_INCLUDE_DIRS 16

struct buf {
	char *data;
	size_t len, cap;
};

struct embed {
	struct buf src;
	const char *stack[MAX_INCLUDE_DEPTH];
	int depth;
	const char *idirs[MAX_INCLUDE_DIRS];    /* -I: searched after the includer's directory */
	int n_idirs;
};

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("hanzo-rocm-embed: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_FAILURE);
}

static void buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;

		while (cap < b->len + n + 1)
			cap *= 2;
		b->data = realloc(b->data, cap);
		if (!b->data)
			die("out of memory");
		b->cap = cap;
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

static void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void buf_printf(struct buf *b, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		die("internal: formatted line too long");
	buf_add(b, tmp, (size_t)n);
}

/* Whole file; a NUL byte would silently truncate the source, so refuse it. */
static char *read_file(const char *path, size_t *len)
{
	struct buf b = { 0 };
	char chunk[65536];
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		die("%s: %s", path, strerror(errno));
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&b, chunk, n);
	if (ferror(f))
		die("%s: read error", path);
	fclose(f);
	if (!b.data)
		buf_add(&b, "", 0);
	if (memchr(b.data, '\0', b.len))
		die("%s: contains a NUL byte", path);
	*len = b.len;
	return b.data;
}

/* `name` from `#include "name"`: relative, no "..", plain characters. */
static bool include_name_is_safe(const char *name)
{
	if (!*name || name[0] == '/')
		return false;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._-/+", *p))
			return false;
	for (const char *p = name; (p = strstr(p, "..")); p += 2)
		if ((p == name || p[-1] == '/') && (p[2] == '/' || p[2] == '\0'))
			return false;
	return true;
}

/*
 * If `line` is `# include "name"`, copy name into out and return true.
 * Anything else, including <...> includes, is ordinary text.
 */
static bool parse_quoted_include(const char *line, size_t len, char *out, size_t outsz,
				 const char *file, unsigned lineno)
{
	const char *p = line, *end = line + len, *q;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end || *p != '#')
		return false;
	p++;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if ((size_t)(end - p) < 7 || strncmp(p, "include", 7) != 0)
		return false;
	p += 7;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end || *p != '"')
		return false;
	p++;
	q = memchr(p, '"', (size_t)(end - p));
	if (!q)
		die("%s:%u: unterminated #include", file, lineno);
	if ((size_t)(q - p) >= outsz)
		die("%s:%u: #include name too long", file, lineno);
	memcpy(out, p, (size_t)(q - p));
	out[q - p] = '\0';
	if (!include_name_is_safe(out))
		die("%s:%u: refusing to inline \"%s\" (absolute path, \"..\" or odd characters)",
		    file, lineno, out);
	return true;
}

/* Directory part of path, with trailing '/', or "" for a bare name. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) + 1 : 0;
	char *d = malloc(n + 1);

	if (!d)
		die("out of memory");
	memcpy(d, path, n);
	d[n] = '\0';
	return d;
}

static void inline_file(struct embed *e, const char *path, const char *shown);

static void inline_text(struct embed *e, const char *path, const char *shown, const char *text,
			size_t len)
{
	const char *p = text, *end = text + len;
	unsigned lineno = 0;
	char *dir = dir_of(path);

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char name[256];

		lineno++;
		if (parse_quoted_include(p, n, name, sizeof(name), path, lineno)) {
			char *inc = NULL;

			if (asprintf(&inc, "%s%s", dir, name) < 0)
				die("out of memory");
			for (int i = 0; access(inc, F_OK) != 0 && i < e->n_idirs; i++) {
				free(inc);
				if (asprintf(&inc, "%s/%s", e->idirs[i], name) < 0)
					die("out of memory");
			}
			if (access(inc, F_OK) != 0) {
				free(inc);
				if (asprintf(&inc, "%s%s", dir, name) < 0)
					die("out of memory");
			}
			buf_printf(&e->src, "#line 1 \"%s\"\n", name);
			inline_file(e, inc, name);
			if (e->src.len && e->src.data[e->src.len - 1] != '\n')
				buf_add(&e->src, "\n", 1);
			buf_printf(&e->src, "#line %u \"%s\"\n", lineno + 1, shown);
			free(inc);
		} else {
			buf_add(&e->src, p, n);
			if (nl)
				buf_add(&e->src, "\n", 1);
		}
		p += n + (nl ? 1 : 0);
	}
	free(dir);
}

static void inline_file(struct embed *e, const char *path, const char *shown)
{
	size_t len;
	char *text;

	for (int i = 0; i < e->depth; i++)
		if (strcmp(e->stack[i], path) == 0)
			die("%s: #include cycle", path);
	if (e->depth == MAX_INCLUDE_DEPTH)
		die("%s: #include nested more than %d deep", path, MAX_INCLUDE_DEPTH);
	e->stack[e->depth++] = path;
	text = read_file(path, &len);
	inline_text(e, path, shown, text, len);
	free(text);
	e->depth--;
}

struct kernel {
	char *name, *sig;
};

struct list {
	struct kernel *k;
	size_t n;
	char *flags[MAX_FLAGS + 1];
	size_t n_flags;
	struct buf launch;      /* the #@launch lines, newline-terminated */
	unsigned launch_lines;
	struct buf cat;         /* the catalogue lines, newline-terminated */
	unsigned cat_lines;
};

static bool is_ident(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static char *strip(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		die("out of memory");
	return d;
}

static int kernel_index(const struct list *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->k[i].name, name) == 0)
			return (int)i;
	return -1;
}

static enum hr_launch_kind kind_of(const struct list *l, const char *name)
{
	struct hr_launch_meta m;
	unsigned no;
	char why[160];

	if (!l->launch_lines ||
	    hr_launch_meta_find(l->launch.data, l->launch.len, name, &m, &no, why, sizeof(why)) < 0)
		return HR_LAUNCH_NONE;
	return m.kind;
}

static int stop_at_first(const struct hr_cat_line *cl, void *data)
{
	*(struct hr_cat_line *)data = *cl;
	return 1;
}

/* The first catalogue line of kind for name: true when there is one. */
static bool cat_first(const struct list *l, enum hr_cat_kind kind, const char *name,
                      struct hr_cat_line *out)
{
	unsigned no;
	char why[160];

	return hr_cat_walk(l->cat.data, l->cat.len, kind, name, stop_at_first, out, &no, why,
	                   sizeof(why)) == 1;
}

/* Whether signature sig has an argument name (as a pointer when ptr). */
static bool sig_has(const char *sig, const char *name, bool ptr)
{
	const char *p = sig;

	while (*p) {
		size_t len = strcspn(p, ","), e = len, b;

		while (e && (p[e - 1] == ' ' || p[e - 1] == '\t'))
			e--;
		b = e;
		while (b && (isalnum((unsigned char)p[b - 1]) || p[b - 1] == '_'))
			b--;
		if (e - b == strlen(name) && strncmp(p + b, name, e - b) == 0)
			return !ptr || memchr(p, '*', b);
		p += len + (p[len] ? 1 : 0);
	}
	return false;
}

/*
 * #@bind, #@null, #@check and #@arg name arguments: each name an argument
 * of some kernel the line matches (a #@null one a pointer, a #@check one
 * an argument of every kernel it matches).
 */
static void check_arg_names(const struct list *l, const char *path, const char *line,
                            const struct hr_cat_line *cl)
{
	char text[HR_CAT_MAX_LINE + 1], *save = NULL;

	snprintf(text, sizeof(text), "%s", cl->kind == HR_CAT_ARG ? cl->b : cl->a);
	for (char *w = strtok_r(text, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		char *eq = strchr(w, '='), *names[2] = { w, NULL };

		if (eq) {
			*eq = '\0';
			names[0] = cl->kind == HR_CAT_CHECK ? eq + 1 : w;
			if (cl->kind == HR_CAT_CHECK && (names[1] = strchr(eq + 1, '*')))
				*names[1]++ = '\0';
		}
		for (size_t j = 0; j < 2 && names[j]; j++) {
			size_t some = 0, all = 0, matched = 0;

			for (size_t i = 0; i < l->n; i++) {
				if (fnmatch(cl->pattern, l->k[i].name, 0) != 0)
					continue;
				matched++;
				if (sig_has(l->k[i].sig, names[j], cl->kind == HR_CAT_NULL))
					some++, all++;
			}
			if (!some || (cl->kind == HR_CAT_CHECK && all != matched))
				die("%s: \"%s\": %s is not %s argument of %s kernel it matches", path,
				    line, names[j], cl->kind == HR_CAT_NULL ? "a pointer" : "an",
				    cl->kind == HR_CAT_CHECK ? "every" : "any");
		}
	}
}

/*
 * A #@pre line for kernel name (the first that matches it: the one
 * hanzo_rocm_op_run takes): its pre-pass and its main pass for 1..batch
 * columns are kernels of the list, arg= a pointer argument of each.
 */
static void check_pre(const struct list *l, const char *path, const char *line,
                      const struct hr_cat_line *cl, const char *name)
{
	char main[256];
	int i = kernel_index(l, cl->a);

	if (i < 0 || !sig_has(l->k[i].sig, cl->pre.arg, true))
		die("%s: \"%s\": pre-pass %s is not a kernel with a pointer argument %s", path,
		    line, cl->a, cl->pre.arg);
	for (unsigned b = 1; b <= cl->pre.batch; b++) {
		if (!hr_cat_pre_main(cl->pattern, cl->b, name, b, main, sizeof(main)) ||
		    (i = kernel_index(l, main)) < 0 || !sig_has(l->k[i].sig, cl->pre.arg, true))
			die("%s: \"%s\": main pass %s of %s (%u columns) is not a kernel with a "
			    "pointer argument %s", path, line, main, name, b, cl->pre.arg);
	}
}

/*
 * Every catalogue line matches a kernel; #@ws only on rows-split kernels;
 * a #@forms line gives at least one kernel both forms, the split one
 * rows-split with a #@ws line.
 */
static void check_catalogue(const struct list *l, const char *path)
{
	const char *p = l->cat.data, *end = l->cat.data + l->cat.len;

	while (l->cat_lines && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		char line[HR_CAT_MAX_LINE + 1], why[160];
		size_t n = (size_t)(nl - p);
		struct hr_cat_line cl;
		unsigned used = 0;

		memcpy(line, p, n);
		line[n] = '\0';
		p = nl + 1;
		if (hr_cat_parse(line, &cl, why, sizeof(why)) < 0)
			die("%s: %s: %s", path, line, why);
		if (cl.kind == HR_CAT_BIND || cl.kind == HR_CAT_NULL || cl.kind == HR_CAT_CHECK ||
		    cl.kind == HR_CAT_ARG || cl.kind == HR_CAT_PASSES)
			check_arg_names(l, path, line, &cl);
		for (size_t i = 0; i < l->n; i++) {
			const char *name = l->k[i].name;
			char split[256], second[256];
			struct hr_cat_line ws;

			if (fnmatch(cl.pattern, name, 0) != 0)
				continue;
			if (cl.kind == HR_CAT_WS && cl.ws && kind_of(l, name) != HR_LAUNCH_ROWS_SPLIT)
				die("%s: \"%s\": kernel %s is not rows-split (#@ws is for split kernels)",
				    path, line, name);
			if (cl.kind == HR_CAT_WIDE) {
				if (!hr_cat_sibling(cl.pattern, cl.a, name, split, sizeof(split)) ||
				    kernel_index(l, split) < 0)
					continue;
				if (!cat_first(l, HR_CAT_WS, split, &ws) || !ws.ws_col)
					die("%s: \"%s\": wide form %s of %s needs a '#@ws ... per_col=' line",
					    path, line, split, name);
				used++;
				continue;
			}
			/* a kernel's pre-pass is its first matching #@pre line's */
			if (cl.kind == HR_CAT_PRE && cat_first(l, HR_CAT_PRE, name, &ws) &&
			    strcmp(ws.pattern, cl.pattern) == 0)
				check_pre(l, path, line, &cl, name);
			if (cl.kind != HR_CAT_FORMS) {
				used++;
				continue;
			}
			if (!hr_cat_sibling(cl.pattern, cl.a, name, split, sizeof(split)) ||
			    !hr_cat_sibling(cl.pattern, cl.b, name, second, sizeof(second)) ||
			    kernel_index(l, split) < 0 || kernel_index(l, second) < 0)
				continue;
			if (kind_of(l, split) != HR_LAUNCH_ROWS_SPLIT || !cat_first(l, HR_CAT_WS, split, &ws) ||
			    !ws.ws)
				die("%s: \"%s\": split form %s of %s needs a rows-split #@launch and a #@ws line",
				    path, line, split, name);
			used++;
		}
		if (!used)
			die("%s: \"%s\" matches no kernel%s", path, line,
			    cl.kind == HR_CAT_FORMS ? " that has both forms" :
			    cl.kind == HR_CAT_WIDE ? " that has a wide form" : "");
	}
}

static void parse_list(struct list *l, const char *path)
{
	size_t len;
	char *text = read_file(path, &len), *line;
	unsigned lineno = 0;
	char *p = text;

	while (p && *p) {
		char *nl = strchr(p, '\n'), *name, *sig;

		if (nl)
			*nl = '\0';
		lineno++;
		line = strip(p);
		p = nl ? nl + 1 : NULL;
		if (strncmp(line, HR_LAUNCH_PREFIX, strlen(HR_LAUNCH_PREFIX)) == 0) {
			char pattern[HR_LAUNCH_MAX_PATTERN + 1], why[160];
			struct hr_launch_meta m;

			if (hr_launch_meta_parse(line, pattern, sizeof(pattern), &m, why,
			                         sizeof(why)) < 0)
				die("%s:%u: %s", path, lineno, why);
			buf_add(&l->launch, line, strlen(line));
			buf_add(&l->launch, "\n", 1);
			l->launch_lines++;
			continue;
		}
		if (hr_cat_is_meta(line)) {
			struct hr_cat_line cl;
			char why[160];

			if (hr_cat_parse(line, &cl, why, sizeof(why)) < 0)
				die("%s:%u: %s", path, lineno, why);
			buf_add(&l->cat, line, strlen(line));
			buf_add(&l->cat, "\n", 1);
			l->cat_lines++;
			continue;
		}
		if (!*line || *line == '#')
			continue;
		if (strncmp(line, "@flag", 5) == 0 && (line[5] == ' ' || line[5] == '\t')) {
			char *arg = strip(line + 6);

			if (!*arg)
				die("%s:%u: @flag needs an argument", path, lineno);
			if (l->n_flags == MAX_FLAGS)
				die("%s:%u: more than %d flags", path, lineno, MAX_FLAGS);
			l->flags[l->n_flags++] = xstrdup(arg);
			continue;
		}
		name = line;
		sig = line + strcspn(line, " \t");
		if (*sig)
			*sig++ = '\0';
		sig = strip(sig);
		if (!is_ident(name))
			die("%s:%u: \"%s\" is not a valid kernel name", path, lineno, name);
		for (size_t i = 0; i < l->n; i++)
			if (strcmp(l->k[i].name, name) == 0)
				die("%s:%u: duplicate kernel \"%s\"", path, lineno, name);
		l->k = realloc(l->k, (l->n + 1) * sizeof(*l->k));
		if (!l->k)
			die("out of memory");
		l->k[l->n].name = xstrdup(name);
		l->k[l->n].sig = xstrdup(sig);
		l->n++;
	}
	if (l->n == 0)
		die("%s: lists no kernel", path);
	for (size_t i = 0; l->launch_lines && i < l->n; i++) {
		struct hr_launch_meta m;
		unsigned no;
		char why[160];

		if (hr_launch_meta_find(l->launch.data, l->launch.len, l->k[i].name, &m, &no,
		                        why, sizeof(why)) < 0)
			die("%s: no #@launch line matches kernel \"%s\"", path, l->k[i].name);
	}
	check_catalogue(l, path);
	free(text);
}

/* A C string literal: printable ASCII as is, everything else octal-escaped. */
static void put_cstring(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f || c == '?')  /* '?': no trigraphs */
			fprintf(f, "\\%03o", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void write_c(FILE *f, const char *family, const char *version, const char *hip,
		    const char *lst, const struct buf *src, const struct list *l)
{
	const char *hb = strrchr(hip, '/'), *lb = strrchr(lst, '/');

	fprintf(f, "/* Generated by hanzo-rocm-embed from %s and %s: do not edit. */\n",
		hb ? hb + 1 : hip, lb ? lb + 1 : lst);
	fputs("#include <stddef.h>\n#include \"hanzo-rocm-plugin.h\"\n\n", f);
	fputs("/* The family's HIP source, headers inlined, NUL-terminated. */\n", f);
	fputs("static const char hr_source[] = {", f);
	for (size_t i = 0; i <= src->len; i++) {
		unsigned char c = i < src->len ? (unsigned char)src->data[i] : 0;

		fprintf(f, "%s0x%02x,", i % 16 ? " " : "\n\t", c);
	}
	fputs("\n};\n\n", f);

	fputs("static const struct hanzo_rocm_kernel_info hr_kernels[] = {\n", f);
	for (size_t i = 0; i < l->n; i++) {
		fputs("\t{ ", f);
		put_cstring(f, l->k[i].name);
		fputs(", ", f);
		put_cstring(f, l->k[i].sig);
		fputs(" },\n", f);
	}
	fputs("};\n\n", f);

	fputs("static const char *const hr_flags[] = {\n", f);
	for (size_t i = 0; i < l->n_flags; i++) {
		fputc('\t', f);
		put_cstring(f, l->flags[i]);
		fputs(",\n", f);
	}
	fputs("\tNULL\n};\n\n", f);

	if (l->launch_lines) {
		fputs("/* Launch metadata: the #@launch lines of the list. */\n"
		      "static const char hr_launch[] = {", f);
		for (size_t i = 0; i <= l->launch.len; i++) {
			unsigned char c = i < l->launch.len ? (unsigned char)l->launch.data[i] : 0;

			fprintf(f, "%s0x%02x,", i % 16 ? " " : "\n\t", c);
		}
		fputs("\n};\n\n", f);
	}

	if (l->cat_lines) {
		fputs("/* Catalogue metadata: the #@work, #@ws, #@forms and #@note lines. */\n"
		      "static const char hr_catalogue[] = {", f);
		for (size_t i = 0; i <= l->cat.len; i++) {
			unsigned char c = i < l->cat.len ? (unsigned char)l->cat.data[i] : 0;

			fprintf(f, "%s0x%02x,", i % 16 ? " " : "\n\t", c);
		}
		fputs("\n};\n\n", f);
	}

	fputs("static const struct hanzo_rocm_plugin hr_plugin = {\n"
	      "\t.abi = HANZO_ROCM_PLUGIN_ABI,\n"
	      "\t.struct_size = sizeof(struct hanzo_rocm_plugin),\n"
	      "\t.family = ", f);
	put_cstring(f, family);
	fputs(",\n\t.version = ", f);
	put_cstring(f, version);
	fputs(",\n"
	      "\t.source = hr_source,\n"
	      "\t.source_len = sizeof(hr_source) - 1,\n"
	      "\t.flags = hr_flags,\n"
	      "\t.kernels = hr_kernels,\n"
	      "\t.n_kernels = sizeof(hr_kernels) / sizeof(hr_kernels[0]),\n", f);
	fputs(l->launch_lines ? "\t.launch = hr_launch,\n" : "\t.launch = NULL,\n", f);
	fputs(l->cat_lines ? "\t.catalogue = hr_catalogue,\n" : "\t.catalogue = NULL,\n", f);
	fputs("};\n\n", f);
	fputs("/* The only exported symbol of the plugin. */\n"
	      "__attribute__((visibility(\"default\")))\n"
	      "const struct hanzo_rocm_plugin *hanzo_rocm_plugin_entry(void);\n\n"
	      "const struct hanzo_rocm_plugin *hanzo_rocm_plugin_entry(void)\n"
	      "{\n\treturn &hr_plugin;\n}\n", f);
}

/* Printable ASCII, 1..64 characters (the loader's rule for a version). */
static bool version_is_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 64)
		return false;
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			return false;
	return true;
}

static bool list_has(const struct list *l, const char *name, size_t n)
{
	for (size_t i = 0; i < l->n; i++)
		if (strlen(l->k[i].name) == n && strncmp(l->k[i].name, name, n) == 0)
			return true;
	return false;
}

/*
 * Every kernel the source defines literally - `extern "C" __global__` then,
 * before the first '(', an identifier not built by token pasting - is in
 * the list: a kernel left out of the list could never be launched.
 * Kernels made by macros are proven by --check-cxx in the other direction.
 */
/* The start of the logical line holding p (backslash continuations joined). */
static const char *logical_line(const char *base, const char *p)
{
	for (;;) {
		while (p > base && p[-1] != '\n')
			p--;
		if (p - base < 2 || p[-2] != '\\')
			return p;
		p--;
	}
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* The next whole word __global__ or HR_KERNEL (hr-kernel.h's extern "C" __global__). */
static const char *next_kernel_keyword(const char *p)
{
	const char *start = p;

	for (;;) {
		const char *g = strstr(p, "__global__"), *h = strstr(p, "HR_KERNEL"), *k;
		size_t n;

		k = !g ? h : !h ? g : g < h ? g : h;
		if (!k)
			return NULL;
		n = k == g ? 10 : 9;
		if ((k == start || !ident_char(k[-1])) && !ident_char(k[n]))
			return k;
		p = k + n;
	}
}

static void check_source_kernels(const struct buf *src, const struct list *l, const char *hip)
{
	const char *p = src->data;

	while ((p = next_kernel_keyword(p))) {
		const char *line = logical_line(src->data, p), *paren, *end, *start, *semi, *brace;

		line += strspn(line, " \t");
		p += strncmp(p, "HR_KERNEL", 9) == 0 ? 9 : 10;
		/* A macro's body, a template (no C name), a declaration only: skipped. */
		if (*line == '#' || (memmem(line, (size_t)(p - line), "template", 8)))
			continue;
		paren = strchr(p, '(');
		semi = strchr(p, ';');
		brace = strchr(p, '{');
		if (paren && strncmp(paren - 17 >= p ? paren - 17 : p, "__launch_bounds__", 17) == 0)
			paren = strchr(strchr(paren, ')') ? strchr(paren, ')') : paren, '(');
		if (!paren || (semi && semi < paren) || (brace && brace < paren))
			continue;
		end = paren;
		while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		start = end;
		while (start > p && (isalnum((unsigned char)start[-1]) || start[-1] == '_'))
			start--;
		if (start == end || (start > p + 1 && start[-1] == '#' && start[-2] == '#') ||
		    memchr(p, '#', (size_t)(paren - p)))
			continue;       /* token pasting or a macro body: not literal */
		if (!isalpha((unsigned char)*start) && *start != '_')
			continue;
		if (!list_has(l, start, (size_t)(end - start)))
			die("%s: kernel \"%.*s\" is defined by the source but not in the list "
			    "(add it with its argument list)", hip, (int)(end - start), start);
	}
}

/*
 * --check-cxx: compile the embedded source with its host entries as the
 * library would for host-w64 and host-w32, syntax only.  An entry naming a
 * kernel the source lacks does not compile: the list and the source
 * disagree, and precompile would otherwise report a plugin that cannot run.
 */
static void check_with_cxx(const char *cxx, const struct buf *src, const char *hip)
{
	static const char *const waves[] = { "-DHR_HOST_WAVE=64", "-DHR_HOST_WAVE=32" };
	char tmpl[] = "/tmp/hanzo-rocm-embed.XXXXXX";
	int fd = mkstemp(tmpl);

	if (fd < 0)
		die("cannot create a temporary file: %s", strerror(errno));
	for (size_t off = 0; off < src->len;) {
		ssize_t k = write(fd, src->data + off, src->len - off);

		if (k <= 0) {
			unlink(tmpl);
			die("%s: write error", tmpl);
		}
		off += (size_t)k;
	}
	close(fd);
	for (size_t w = 0; w < 2; w++) {
		const char *argv[] = {
			cxx, "-std=c++17", "-fsyntax-only", "-fPIC", "-fno-strict-aliasing",
			"-Wno-unknown-pragmas", "-DHR_HOST=1", waves[w], "-DHR_HOST_ABI_VERSION=1",
			"-x", "c++", tmpl, NULL,
		};
		int status;
		pid_t pid = fork();

		if (pid < 0) {
			unlink(tmpl);
			die("fork: %s", strerror(errno));
		}
		if (pid == 0) {
			execvp(cxx, (char *const *)argv);
			fprintf(stderr, "hanzo-rocm-embed: %s: %s\n", cxx, strerror(errno));
			_exit(127);
		}
		while (waitpid(pid, &status, 0) < 0)
			if (errno != EINTR) {
				unlink(tmpl);
				die("waitpid: %s", strerror(errno));
			}
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			unlink(tmpl);
			die("%s: the source with its host entries does not compile for the host "
			    "backend (%s, %s): a listed kernel the source does not define, or a "
			    "source that is not portable (see the diagnostics above)", hip, cxx,
			    waves[w] + 2);
		}
	}
	unlink(tmpl);
}

static void usage(FILE *f)
{
	fputs("Usage: hanzo-rocm-embed [-I DIR]... [--plugin-version V] [--check-cxx CXX]\n"
	      "                        -o OUT.c FAMILY SOURCE.hip KERNELS.list\n"
	      "Writes the C source of the kernel-family plugin FAMILY (build it into\n"
	      "FAMILY.so with the cflags of pkg-config hanzo-rocm): SOURCE.hip with its\n"
	      "quoted includes inlined (next to the includer, then in each -I DIR), the\n"
	      "kernels of KERNELS.list, and one host entry per kernel.\n"
	      "  -o OUT.c               the output (replaced atomically)\n"
	      "  -I DIR                 also look for quoted includes in DIR (the SDK's\n"
	      "                         kernel headers: pkg-config --variable=kernelincludedir)\n"
	      "  --plugin-version V     the plugin's version (printable, 1-64 characters;\n"
	      "                         default 0)\n"
	      "  --check-cxx CXX        compile the source and its host entries with CXX\n"
	      "                         (syntax only) and refuse a list the source disagrees with\n"
	      "  --help, --version\n"
	      "See hanzo-rocm-embed(1) and hanzo-rocm-plugin(7).\n", f);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "include", required_argument, NULL, 'I' },
		{ "plugin-version", required_argument, NULL, 'p' },
		{ "check-cxx", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct embed e = { 0 };
	struct list l = { 0 };
	const char *out = NULL, *family, *hip, *lst, *version = "0", *cxx = NULL;
	char *tmp;
	FILE *f;
	int opt;

	while ((opt = getopt_long(argc, argv, "o:I:", opts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			out = optarg;
			break;
		case 'I':
			if (e.n_idirs == MAX_INCLUDE_DIRS)
				die("more than %d -I directories", MAX_INCLUDE_DIRS);
			e.idirs[e.n_idirs++] = optarg;
			break;
		case 'p':
			version = optarg;
			break;
		case 'c':
			cxx = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			puts("hanzo-rocm-embed " PACKAGE_VERSION " (plugin ABI 1)");
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!out || argc - optind != 3) {
		usage(stderr);
		return 2;
	}
	family = argv[optind];
	hip = argv[optind + 1];
	lst = argv[optind + 2];
	if (!hr_name_is_valid(family))
		die("invalid family name \"%s\" (want %s)", family, HR_NAME_RULE);
	if (!version_is_valid(version))
		die("invalid --plugin-version \"%s\" (want 1-64 printable characters)", version);

	{
		const char *b = strrchr(hip, '/');

		inline_file(&e, hip, b ? b + 1 : hip);
	}
	parse_list(&l, lst);
	check_source_kernels(&e.src, &l, hip);
	/*
	 * Entry points for the host backend (kernels/hr-host.h): one per kernel
	 * of the list, so they are part of the source and of its hash.  The GPU
	 * compilers never see them.
	 */
	buf_printf(&e.src, "\n#ifdef HR_HOST\n");
	for (size_t i = 0; i < l.n; i++)
		buf_printf(&e.src, "HR_HOST_ENTRY(%s)\n", l.k[i].name);
	buf_printf(&e.src, "#endif\n");
	if (cxx)
		check_with_cxx(cxx, &e.src, hip);

	if (asprintf(&tmp, "%s.tmp", out) < 0)
		die("out of memory");
	f = fopen(tmp, "we");
	if (!f)
		die("%s: %s", tmp, strerror(errno));
	write_c(f, family, version, hip, lst, &e.src, &l);
	if (fflush(f) != 0 || ferror(f) || fclose(f) != 0) {
		unlink(tmp);
		die("%s: write error", tmp);
	}
	if (rename(tmp, out) < 0) {
		unlink(tmp);
		die("%s: %s", out, strerror(errno));
	}

	free(tmp);
	free(e.src.data);
	for (size_t i = 0; i < l.n; i++) {
		free(l.k[i].name);
		free(l.k[i].sig);
	}
	for (size_t i = 0; i < l.n_flags; i++)
		free(l.flags[i]);
	free(l.k);
	free(l.launch.data);
	free(l.cat.data);
	return 0;
}
