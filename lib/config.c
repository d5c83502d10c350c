/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Configuration (DESIGN §3): the main file, then <its dir>/hanzo-rocm.conf.d/
 * *.conf in C-locale order (later wins), then the environment.
 *
 * inih's shared library gives its handler no line numbers, so files are read
 * into memory and fed to ini_parse_stream() through our own reader, which
 * counts lines (and catches lines too long for inih's buffer).  Every value
 * is validated when read; all problems in all files are reported as
 * "FILE:LINE: message" before hr_config_load() fails with -EINVAL.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"
#include "libhanzo-rocm-private.h"
#include "target.h"
#include "util.h"

#define CONF_NAME "hanzo-rocm.conf"
#define CONF_D_NAME "hanzo-rocm.conf.d"
#define CONF_MAX_SIZE (1024 * 1024)
#define JOBS_MAX 1024

/* One file being parsed. */
struct parser {
	struct hanzo_rocm *ctx;
	struct hr_config *cfg;
	const char *root;       /* normalised, "" = none */
	const char *path;
	const char *data;
	size_t size, pos;
	int line;               /* of the line last handed to inih */
	int errors;
	bool oom;
	bool in_key;            /* a key line since the last section: continuations */
	int syntax_line;        /* last syntax error we reported ourselves */
};

/* A problem with one value: what was wrong (a copy of the offending part). */
struct bad {
	char *value;
};

#define ERR(p, ...) do { (p)->errors++; hr_err((p)->ctx, __VA_ARGS__); } while (0)

const char *hr_policy_name(enum hr_policy p)
{
	switch (p) {
	case HR_POLICY_READWRITE: return "readwrite";
	case HR_POLICY_READONLY: return "readonly";
	case HR_POLICY_OFF: return "off";
	}
	return "?";
}

const char *hr_compile_name(enum hr_compile c)
{
	switch (c) {
	case HR_COMPILE_AUTO: return "auto";
	case HR_COMPILE_NEVER: return "never";
	}
	return "?";
}

/* ---- value parsers: 0, -EINVAL (bad->value says what), or -ENOMEM ---- */

static int bad_value(struct bad *bad, const char *s, size_t n)
{
	free(bad->value);
	bad->value = strndup(s, n);
	return bad->value ? -EINVAL : -ENOMEM;
}

static int parse_target(const char *s, struct bad *bad)
{
	if (hr_target_validate(s) < 0)
		return bad_value(bad, s, strlen(s));
	return 0;
}

static int parse_target_list(const char *value, const char *seps, char ***out,
                             struct bad *bad)
{
	char **v = hr_strv_split(value, seps);

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; v[i]; i++) {
		int r = parse_target(v[i], bad);

		if (r < 0) {
			hr_strv_free(v);
			return r;
		}
	}
	*out = v;
	return 0;
}

/*
 * "gfx1031:gfx1030" or "gfx90a:xnack+:gfx90a": the source may carry features
 * (which contain ':' too), so split at the last ':' that starts a target.
 */
static int split_map_pair(const char *pair, struct hr_target_map *m,
                          struct bad *bad)
{
	const char *sep = NULL;

	for (const char *p = strchr(pair, ':'); p; p = strchr(p + 1, ':'))
		if (strncmp(p + 1, "gfx", 3) == 0 || strncmp(p + 1, "sm_", 3) == 0)
			sep = p;
	if (!sep || sep == pair)
		return bad_value(bad, pair, strlen(pair));
	m->from = strndup(pair, (size_t)(sep - pair));
	m->to = strdup(sep + 1);
	if (!m->from || !m->to)
		return -ENOMEM;
	if (hr_target_validate(m->from) < 0 || hr_target_validate(m->to) < 0)
		return bad_value(bad, pair, strlen(pair));
	return 0;
}

static void map_free(struct hr_target_map *map, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(map[i].from);
		free(map[i].to);
	}
	free(map);
}

static int parse_map(struct parser *p, const char *value, struct bad *bad)
{
	char **pairs = hr_strv_split(value, " \t");
	struct hr_target_map *map;
	size_t n;
	int r = 0;

	if (!pairs)
		return -ENOMEM;
	n = hr_strv_len(pairs);
	map = calloc(n ? n : 1, sizeof(*map));
	if (!map) {
		hr_strv_free(pairs);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n && r == 0; i++)
		r = split_map_pair(pairs[i], &map[i], bad);
	hr_strv_free(pairs);
	if (r < 0) {
		map_free(map, n);
		return r;
	}
	map_free(p->cfg->map, p->cfg->n_map);
	p->cfg->map = map;
	p->cfg->n_map = n;
	return 0;
}

/* An absolute path; trailing slashes dropped ("/" stays "/"). */
static int parse_abs_path(const char *s, char **out, struct bad *bad)
{
	size_t n = strlen(s);

	if (s[0] != '/')
		return bad_value(bad, s, n);
	while (n > 1 && s[n - 1] == '/')
		n--;
	*out = strndup(s, n);
	return *out ? 0 : -ENOMEM;
}

/* A system path from the configuration: validated, then put under root. */
static int parse_system_path(struct parser *p, const char *s, char **out,
                             struct bad *bad)
{
	char *path;
	int r = parse_abs_path(s, &path, bad);

	if (r < 0)
		return r;
	*out = hr_root_path(p->root, path);
	free(path);
	return *out ? 0 : -ENOMEM;
}

static int parse_system_path_list(struct parser *p, const char *value,
                                  const char *seps, char ***out, struct bad *bad)
{
	char **v = hr_strv_split(value, seps), **res = hr_strv_new();
	int r = 0;

	if (!v || !res) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; v[i] && r == 0; i++) {
		char *path;

		r = parse_system_path(p, v[i], &path, bad);
		if (r == 0) {
			r = hr_strv_push(&res, path);
			free(path);
		}
	}
out:
	hr_strv_free(v);
	if (r < 0) {
		hr_strv_free(res);
		return r;
	}
	*out = res;
	return 0;
}

/* A compiler: a plain name looked up in PATH, or an absolute path. */
static int parse_program(const char *s, char **out, struct bad *bad)
{
	if (s[0] == '/' ? strstr(s, "/../") != NULL
	                : (!hr_name_is_safe(s) || strchr(s, ':')))
		return bad_value(bad, s, strlen(s));
	*out = strdup(s);
	return *out ? 0 : -ENOMEM;
}

static int parse_names(const char *value, char ***out, struct bad *bad)
{
	char **v = hr_strv_split(value, " \t,");

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; v[i]; i++) {
		if (!hr_name_is_safe(v[i]) || strchr(v[i], ':')) {
			int r = bad_value(bad, v[i], strlen(v[i]));

			hr_strv_free(v);
			return r;
		}
	}
	*out = v;
	return 0;
}

static void replace_str(char **slot, char *s)
{
	free(*slot);
	*slot = s;
}

static void replace_strv(char ***slot, char **v)
{
	hr_strv_free(*slot);
	*slot = v;
}

/* ---- the keys ---- */

static int set_override(struct parser *p, const char *v, struct bad *bad)
{
	char *s = NULL;
	int r;

	if (*v) {
		r = parse_target(v, bad);
		if (r < 0)
			return r;
		s = strdup(v);
		if (!s)
			return -ENOMEM;
	}
	replace_str(&p->cfg->override, s);
	return 0;
}

static int set_map(struct parser *p, const char *v, struct bad *bad)
{
	return parse_map(p, v, bad);
}

/* Host devices: host-w64 / host-w32 only, "none" or empty for none. */
static int parse_host_list(const char *v, char ***out)
{
	char **l = hr_strv_split(v, ", \t\n");

	*out = NULL;
	if (!l)
		return -ENOMEM;
	for (size_t i = 0; l[i]; i++) {
		if (strcmp(l[i], "none") == 0 && !l[1])
			break;
		if (hr_target_platform(l[i]) != HR_PLATFORM_HOST) {
			hr_strv_free(l);
			return -EINVAL;
		}
	}
	if (l[0] && strcmp(l[0], "none") == 0)
		l[0] = (free(l[0]), NULL);
	*out = l;
	return 0;
}

static int set_host(struct parser *p, const char *v, struct bad *bad)
{
	char **l;
	int r = parse_host_list(v, &l);

	if (r == -EINVAL)
		return bad_value(bad, v, strlen(v));
	if (r == 0)
		replace_strv(&p->cfg->host, l);
	return r;
}

int hr_config_set_host(struct hanzo_rocm *ctx, struct hr_config *cfg,
                       const char *list, const char *what)
{
	char **l;
	int r = parse_host_list(list, &l);

	if (r == -EINVAL)
		hr_err(ctx, "%s: invalid value '%s' (expected host-w64, host-w32 or none)\n",
		       what, list);
	if (r == 0) {
		hr_strv_free(cfg->host);
		cfg->host = l;
	}
	return r;
}

static int set_cxx(struct parser *p, const char *v, struct bad *bad)
{
	char *s;
	int r = parse_program(v, &s, bad);

	if (r == 0)
		replace_str(&p->cfg->cxx, s);
	return r;
}

static int set_extra(struct parser *p, const char *v, struct bad *bad)
{
	char **l = NULL;
	int r = parse_target_list(v, " \t", &l, bad);

	if (r == 0)
		replace_strv(&p->cfg->extra, l);
	return r;
}

static int set_default(struct parser *p, const char *v, struct bad *bad)
{
	char **l = NULL;
	int r = parse_target_list(v, " \t", &l, bad);

	if (r == 0)
		replace_strv(&p->cfg->default_targets, l);
	return r;
}

static int set_system_dir(struct parser *p, const char *v, struct bad *bad)
{
	char *s;
	int r = parse_system_path(p, v, &s, bad);

	if (r == 0)
		replace_str(&p->cfg->system_dir, s);
	return r;
}

/* The user's own directory: never under root; empty = the default. */
static int set_user_dir(struct parser *p, const char *v, struct bad *bad)
{
	char *s = NULL;
	int r;

	if (*v) {
		r = parse_abs_path(v, &s, bad);
		if (r < 0)
			return r;
	}
	replace_str(&p->cfg->user_dir, s);
	return 0;
}

static int set_site_dirs(struct parser *p, const char *v, struct bad *bad)
{
	char **l = NULL;
	int r = parse_system_path_list(p, v, " \t", &l, bad);

	if (r == 0)
		replace_strv(&p->cfg->site_dirs, l);
	return r;
}

static int set_policy(struct parser *p, const char *v, struct bad *bad)
{
	if (strcmp(v, "readwrite") == 0)
		p->cfg->policy = HR_POLICY_READWRITE;
	else if (strcmp(v, "readonly") == 0)
		p->cfg->policy = HR_POLICY_READONLY;
	else if (strcmp(v, "off") == 0)
		p->cfg->policy = HR_POLICY_OFF;
	else
		return bad_value(bad, v, strlen(v));
	return 0;
}

static int set_compile(struct parser *p, const char *v, struct bad *bad)
{
	if (strcmp(v, "auto") == 0)
		p->cfg->compile = HR_COMPILE_AUTO;
	else if (strcmp(v, "never") == 0)
		p->cfg->compile = HR_COMPILE_NEVER;
	else
		return bad_value(bad, v, strlen(v));
	return 0;
}

static int set_max_size(struct parser *p, const char *v, struct bad *bad)
{
	uint64_t size;

	if (hr_parse_size(v, &size) < 0)
		return bad_value(bad, v, strlen(v));
	p->cfg->max_size = size;
	return 0;
}

static int set_hipcc(struct parser *p, const char *v, struct bad *bad)
{
	char *s;
	int r = parse_program(v, &s, bad);

	if (r == 0)
		replace_str(&p->cfg->hipcc, s);
	return r;
}

static int set_nvcc(struct parser *p, const char *v, struct bad *bad)
{
	char *s;
	int r = parse_program(v, &s, bad);

	if (r == 0)
		replace_str(&p->cfg->nvcc, s);
	return r;
}

/* Compilers get an argv, never a shell line: no quoting to interpret. */
static int set_flags(struct parser *p, const char *v, struct bad *bad)
{
	char **l = hr_strv_split(v, " \t");

	(void)bad;
	if (!l)
		return -ENOMEM;
	replace_strv(&p->cfg->flags, l);
	return 0;
}

static int set_jobs(struct parser *p, const char *v, struct bad *bad)
{
	uint64_t n;

	if (hr_parse_uint(v, JOBS_MAX, &n) < 0)
		return bad_value(bad, v, strlen(v));
	p->cfg->jobs = (unsigned)n;
	return 0;
}

/* Empty = the built-in default (filled in after all files). */
static int set_plugin_path(struct parser *p, const char *v, struct bad *bad)
{
	char **l = NULL;
	int r;

	if (*v) {
		r = parse_system_path_list(p, v, " \t:", &l, bad);
		if (r < 0)
			return r;
		if (!l[0]) {
			hr_strv_free(l);
			l = NULL;
		}
	}
	replace_strv(&p->cfg->plugin_path, l);
	return 0;
}

static int set_disable(struct parser *p, const char *v, struct bad *bad)
{
	char **l = NULL;
	int r = parse_names(v, &l, bad);

	if (r == 0)
		replace_strv(&p->cfg->disable, l);
	return r;
}

static const struct key {
	const char *section, *name;
	int (*set)(struct parser *p, const char *value, struct bad *bad);
	const char *expected;
} keys[] = {
	{ "targets", "override", set_override, "one target ID like gfx90a or sm_90, or empty" },
	{ "targets", "map", set_map, "space-separated FROM:TO target pairs like gfx1031:gfx1030" },
	{ "targets", "extra", set_extra, "space-separated target IDs like gfx90a sm_90" },
	{ "targets", "default", set_default, "space-separated target IDs like gfx90a sm_90" },
	{ "targets", "host", set_host, "host-w64, host-w32, both separated by a space, or none" },
	{ "cache", "system_dir", set_system_dir, "an absolute path" },
	{ "cache", "user_dir", set_user_dir, "an absolute path, or empty for the default" },
	{ "cache", "site_dirs", set_site_dirs, "space-separated absolute paths" },
	{ "cache", "policy", set_policy, "readwrite, readonly or off" },
	{ "cache", "compile", set_compile, "auto or never" },
	{ "cache", "max_size", set_max_size, "a size like 512M or 1G" },
	{ "compiler", "hipcc", set_hipcc, "a program name or an absolute path" },
	{ "compiler", "nvcc", set_nvcc, "a program name or an absolute path" },
	{ "compiler", "cxx", set_cxx, "a program name or an absolute path" },
	{ "compiler", "flags", set_flags, "space-separated compiler flags" },
	{ "compiler", "jobs", set_jobs, "a number from 0 to 1024" },
	{ "plugins", "path", set_plugin_path, "absolute directories separated by spaces or ':'" },
	{ "plugins", "disable", set_disable, "space-separated family names" },
};

static int handler(void *user, const char *section, const char *name,
                   const char *value)
{
	struct parser *p = user;
	struct bad bad = { NULL };

	for (size_t i = 0; i < HR_ARRAY_SIZE(keys); i++) {
		const struct key *k = &keys[i];
		int r;

		if (strcmp(k->section, section) != 0 || strcmp(k->name, name) != 0)
			continue;
		r = k->set(p, value, &bad);
		if (r == -ENOMEM) {
			p->oom = true;
		} else if (r < 0) {
			ERR(p, "%s:%d: invalid value '%s' for %s (expected %s)\n",
			    p->path, p->line, bad.value ? bad.value : value,
			    name, k->expected);
		}
		free(bad.value);
		/* Always "success": inih's own error return means syntax only. */
		return 1;
	}
	hr_warn(p->ctx, "%s:%d: unknown key '%s' in [%s]\n", p->path, p->line,
	        name, section);
	return 1;
}

/* First of chars in s (up to n) outside an inline "<space>;" comment, or NULL. */
static const char *find_before_comment(const char *s, size_t n, const char *chars)
{
	for (size_t i = 0; i < n; i++) {
		if (strchr(chars, s[i]))
			return s + i;
		if (s[i] == ';' && i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t'))
			return NULL;
	}
	return NULL;
}

/*
 * inih only returns the first syntax error; classify each line the way it
 * does so that every one is reported, in order.  Lines inih could take as a
 * multi-line continuation (leading white space after a key) are left to it.
 */
static bool line_is_syntax_error(struct parser *p, const char *s, size_t n)
{
	bool indented = n > 0 && (s[0] == ' ' || s[0] == '\t');

	while (n > 0 && strchr(" \t\r\n", s[n - 1]))
		n--;
	while (n > 0 && (s[0] == ' ' || s[0] == '\t')) {
		s++;
		n--;
	}
	if (n == 0 || s[0] == '#' || s[0] == ';')
		return false;
	if (indented && p->in_key)
		return false;
	if (s[0] == '[') {
		p->in_key = false;
		return !find_before_comment(s + 1, n - 1, "]");
	}
	if (!find_before_comment(s, n, "=:"))
		return true;
	p->in_key = true;
	return false;
}

/*
 * fgets-like reader over the file in memory.  A line that does not fit
 * inih's buffer (num bytes with '\n' and NUL) is reported here, with its
 * number, and handed over as an empty line so parsing goes on.
 */
static char *reader(char *str, int num, void *stream)
{
	struct parser *p = stream;
	const char *start = p->data + p->pos, *nl;
	size_t len, avail = p->size - p->pos;

	if (p->pos >= p->size || num < 2)
		return NULL;
	nl = memchr(start, '\n', avail);
	len = nl ? (size_t)(nl - start) + 1 : avail;
	p->pos += len;
	p->line++;
	if (memchr(start, '\0', len)) {
		ERR(p, "%s:%d: NUL byte in line\n", p->path, p->line);
		len = 0;
	} else if (len + (nl ? 1 : 2) > (size_t)num) {
		ERR(p, "%s:%d: line too long (%zu bytes, at most %d)\n", p->path,
		    p->line, len - (nl ? 1 : 0), num - 2);
		len = 0;
	}
	if (len == 0) {
		str[0] = '\n';
		str[1] = '\0';
		return str;
	}
	if (p->line == 1 && len >= 3 && memcmp(start, "\xef\xbb\xbf", 3) == 0) {
		/* inih skips a UTF-8 BOM itself; do not take it for a key. */
		if (line_is_syntax_error(p, start + 3, len - 3))
			goto syntax;
	} else if (line_is_syntax_error(p, start, len)) {
		goto syntax;
	}
	memcpy(str, start, len);
	str[len] = '\0';
	return str;
syntax:
	ERR(p, "%s:%d: syntax error (expected [section], key = value or a comment)\n",
	    p->path, p->line);
	p->syntax_line = p->line;
	str[0] = '\n';
	str[1] = '\0';
	return str;
}

static const char *read_error(int r)
{
	switch (r) {
	case -EINVAL: return "not a regular file";
	case -EFBIG: return "file too large";
	default: return strerror(-r);
	}
}

/*
 * Parse one file into cfg.  Returns the number of errors found (0 = fine),
 * -ENOENT when missing (not logged: callers decide), -ENOMEM.
 */
static int parse_file(struct hanzo_rocm *ctx, struct hr_config *cfg,
                      const char *root, const char *path)
{
	struct parser p = { .ctx = ctx, .cfg = cfg, .root = root, .path = path };
	void *data;
	size_t size;
	int r;

	r = hr_read_file(path, CONF_MAX_SIZE, &data, &size);
	if (r == -ENOENT || r == -ENOMEM)
		return r;
	if (r < 0) {
		hr_err(ctx, "%s: %s\n", path, read_error(r));
		return 1;
	}
	p.data = data;
	p.size = size;
	hr_dbg(ctx, "reading %s\n", path);
	r = ini_parse_stream(reader, &p, handler, &p);
	free(data);
	if (r == -2 || p.oom)
		return -ENOMEM;
	/* Only when our own classification missed it. */
	if (r > 0 && r != p.syntax_line)
		ERR(&p, "%s:%d: syntax error\n", path, r);
	if (hr_strv_push(&cfg->files, path) < 0)
		return -ENOMEM;
	return p.errors;
}

/* ---- defaults, files, environment ---- */

static struct hr_config *config_new(const char *root)
{
	struct hr_config *cfg = calloc(1, sizeof(*cfg));

	if (!cfg)
		return NULL;
	/* root is normalise_root's result; clang-tidy 14 thinks its -errno may be >= 0. */
	cfg->root = strdup(root); // NOLINT(clang-analyzer-core.NonNullParamChecker)
	cfg->files = hr_strv_new();
	cfg->extra = hr_strv_new();
	cfg->default_targets = hr_strv_split(HR_DEFAULT_TARGETS, " \t");
	cfg->system_dir = hr_root_path(root, HR_CACHEDIR);
	cfg->site_dirs = hr_strv_new();
	cfg->policy = HR_POLICY_READWRITE;
	cfg->compile = HR_COMPILE_AUTO;
	cfg->max_size = UINT64_C(1) << 30;
	cfg->hipcc = strdup("hipcc");
	cfg->nvcc = strdup("nvcc");
	cfg->cxx = strdup("c++");
	cfg->flags = hr_strv_split("-O3", " ");
	cfg->disable = hr_strv_new();
	if (!cfg->root || !cfg->files || !cfg->extra || !cfg->default_targets ||
	    !cfg->system_dir || !cfg->site_dirs || !cfg->hipcc || !cfg->nvcc || !cfg->cxx ||
	    !cfg->flags || !cfg->disable) {
		hr_config_free(cfg);
		return NULL;
	}
	return cfg;
}

void hr_config_free(struct hr_config *cfg)
{
	if (!cfg)
		return;
	free(cfg->root);
	hr_strv_free(cfg->files);
	free(cfg->override);
	map_free(cfg->map, cfg->n_map);
	hr_strv_free(cfg->extra);
	hr_strv_free(cfg->default_targets);
	free(cfg->system_dir);
	free(cfg->user_dir);
	hr_strv_free(cfg->site_dirs);
	free(cfg->hipcc);
	free(cfg->nvcc);
	free(cfg->cxx);
	hr_strv_free(cfg->host);
	hr_strv_free(cfg->flags);
	hr_strv_free(cfg->plugin_path);
	hr_strv_free(cfg->disable);
	free(cfg->env_arch);
	hr_strv_free(cfg->env_targets);
	free(cfg->version_label);
	free(cfg->hsa_override);
	free(cfg);
}

/* "" for none, else absolute, single slashes, no trailing slash. */
static int normalise_root(const char *root, char **out)
{
	char cwd[PATH_MAX], *buf, *w;
	size_t need;

	if (!root)
		root = hr_getenv("HANZO_ROCM_ROOT");
	if (!root)
		root = "";
	if (*root && *root != '/') {
		if (!getcwd(cwd, sizeof(cwd)))
			return -errno;
	} else {
		cwd[0] = '\0';
	}
	need = strlen(cwd) + strlen(root) + 2;
	buf = malloc(need);
	if (!buf)
		return -ENOMEM;
	snprintf(buf, need, "%s%s%s", cwd, *cwd ? "/" : "", root);
	w = buf;
	for (const char *r = buf; *r; r++)
		if (*r != '/' || w == buf || w[-1] != '/')
			*w++ = *r;
	while (w > buf && w[-1] == '/')
		w--;
	*w = '\0';
	*out = buf;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_conf_name(const char *name)
{
	size_t n = strlen(name);

	return name[0] != '.' && n > 5 && strcmp(name + n - 5, ".conf") == 0;
}

/* <dir of main>/hanzo-rocm.conf.d/NAME.conf, sorted with strcmp. */
static int list_conf_d(struct hanzo_rocm *ctx, const char *main_path,
                       char ***out, int *errors)
{
	const char *slash = strrchr(main_path, '/');
	char *dir = NULL, **files = hr_strv_new();
	struct dirent *e;
	DIR *d = NULL;
	int fd, r = 0;

	*out = NULL;
	if (!files)
		return -ENOMEM;
	if (asprintf(&dir, "%.*s/" CONF_D_NAME,
	             slash ? (int)(slash - main_path) : 1,
	             slash ? main_path : ".") < 0) {
		dir = NULL;
		r = -ENOMEM;
		goto out;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT && errno != ENOTDIR) {
			hr_err(ctx, "%s: %s\n", dir, strerror(errno));
			(*errors)++;
		}
		goto out;
	}
	d = fdopendir(fd);
	if (!d) {
		r = -errno;
		close(fd);
		goto out;
	}
	while ((e = readdir(d))) {
		struct stat st;
		char *path;

		if (!is_conf_name(e->d_name))
			continue;
		path = hr_path_join(dir, e->d_name);
		if (!path) {
			r = -ENOMEM;
			goto out;
		}
		/* Symlinks to files are fine; directories named x.conf are not files. */
		if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
			hr_warn(ctx, "%s: not a regular file, ignored\n", path);
			free(path);
			continue;
		}
		r = hr_strv_push(&files, path);
		free(path);
		if (r < 0)
			goto out;
	}
	qsort(files, hr_strv_len(files), sizeof(*files), cmp_str);
out:
	if (d)
		closedir(d);
	free(dir);
	if (r < 0) {
		hr_strv_free(files);
		return r;
	}
	*out = files;
	return 0;
}

static const char *getenv_alias(const char *name, const char *alias,
                                const char **which)
{
	const char *v = hr_getenv(name);

	*which = name;
	if (!v && alias) {
		v = hr_getenv(alias);
		*which = alias;
	}
	return v;
}

static int env_abs_path(struct hanzo_rocm *ctx, const char *var, const char *v,
                        char **out, int *errors)
{
	if (v[0] != '/') {
		hr_err(ctx, "%s: invalid value '%s' (expected an absolute path)\n", var, v);
		(*errors)++;
		return 0;
	}
	*out = strdup(v);
	return *out ? 0 : -ENOMEM;
}

/* Paths: env beats the files; the files beat the built-in defaults. */
static int apply_env_paths(struct hanzo_rocm *ctx, struct hr_config *cfg,
                           int *errors)
{
	const char *v;
	char *s = NULL;
	int r;

	v = hr_getenv("HANZO_ROCM_CACHE_DIR");
	if (v) {
		r = env_abs_path(ctx, "HANZO_ROCM_CACHE_DIR", v, &s, errors);
		if (r < 0)
			return r;
		if (s)
			replace_str(&cfg->user_dir, s);
	}
	if (!cfg->user_dir) {
		const char *xdg = hr_getenv("XDG_CACHE_HOME"), *home = hr_getenv("HOME");

		/* The XDG spec says a relative value is to be ignored. */
		if (xdg && xdg[0] == '/')
			cfg->user_dir = hr_path_join(xdg, "hanzo-rocm");
		else if (home && home[0] == '/')
			cfg->user_dir = hr_path_join(home, ".cache/hanzo-rocm");
		if ((xdg && xdg[0] == '/') || (home && home[0] == '/'))
			if (!cfg->user_dir)
				return -ENOMEM;
	}

	v = hr_getenv("HANZO_ROCM_PLUGIN_PATH");
	if (v) {
		char **l = hr_strv_split(v, ":");

		if (!l)
			return -ENOMEM;
		for (size_t i = 0; l[i]; i++) {
			if (l[i][0] != '/') {
				hr_err(ctx, "HANZO_ROCM_PLUGIN_PATH: invalid value '%s' (expected absolute directories separated by ':')\n",
				       l[i]);
				(*errors)++;
			}
		}
		if (l[0])
			replace_strv(&cfg->plugin_path, l);
		else
			hr_strv_free(l);
	}
	if (!cfg->plugin_path) {
		cfg->plugin_path = hr_strv_new();
		s = hr_root_path(cfg->root, HR_PLUGINDIR);
		if (!cfg->plugin_path || !s || hr_strv_push(&cfg->plugin_path, s) < 0) {
			free(s);
			return -ENOMEM;
		}
		free(s);
	}
	return 0;
}

static int apply_env_targets(struct hanzo_rocm *ctx, struct hr_config *cfg,
                             int *errors)
{
	const char *v, *var;

	v = getenv_alias("HANZO_ROCM_ARCH", "CANDLE_ROCM_ARCH", &var);
	if (v) {
		if (hr_target_validate(v) < 0) {
			hr_err(ctx, "%s: invalid value '%s' (expected a target ID like gfx90a or sm_90)\n",
			       var, v);
			(*errors)++;
		} else if (!(cfg->env_arch = strdup(v))) {
			return -ENOMEM;
		}
	}
	v = hr_getenv("HANZO_ROCM_TARGETS");
	if (v) {
		char **l = hr_strv_split(v, ", \t\n");

		if (!l)
			return -ENOMEM;
		for (size_t i = 0; l[i]; i++) {
			if (hr_target_validate(l[i]) < 0) {
				hr_err(ctx, "HANZO_ROCM_TARGETS: invalid value '%s' (expected target IDs like gfx90a or sm_90, separated by commas or spaces)\n",
				       l[i]);
				(*errors)++;
			}
		}
		if (l[0])
			cfg->env_targets = l;
		else
			hr_strv_free(l);
	}
	v = getenv_alias("HANZO_ROCM_VERSION", "CANDLE_ROCM_VERSION", &var);
	if (v) {
		/* It becomes part of cache paths and keys: keep it a safe name. */
		if (!hr_name_is_safe(v)) {
			hr_err(ctx, "%s: invalid value '%s' (expected a version label like 6.1)\n",
			       var, v);
			(*errors)++;
		} else if (!(cfg->version_label = strdup(v))) {
			return -ENOMEM;
		}
	}
	v = hr_getenv("HANZO_ROCM_HOST");
	if (v && hr_config_set_host(ctx, cfg, v, "HANZO_ROCM_HOST") < 0)
		(*errors)++;
	v = hr_getenv("HSA_OVERRIDE_GFX_VERSION");
	if (v && !(cfg->hsa_override = strdup(v)))
		return -ENOMEM;
	return 0;
}

static int read_conf_d(struct hanzo_rocm *ctx, struct hr_config *cfg,
                       const char *main_path, int *errors)
{
	char **files;
	int r = list_conf_d(ctx, main_path, &files, errors);

	if (r < 0)
		return r;
	for (size_t i = 0; files[i]; i++) {
		r = parse_file(ctx, cfg, cfg->root, files[i]);
		if (r == -ENOENT) { /* removed since listed */
			r = 0;
			continue;
		}
		if (r < 0)
			break;
		*errors += r;
		r = 0;
	}
	hr_strv_free(files);
	return r;
}

int hr_config_load(struct hanzo_rocm *ctx, const char *root,
                   const char *conf_path, struct hr_config **ret)
{
	struct hr_config *cfg = NULL;
	char *norm = NULL, *main_path = NULL;
	bool explicit_path = true;
	int errors = 0, r;

	*ret = NULL;
	r = normalise_root(root, &norm);
	if (r < 0) {
		hr_err(ctx, "cannot resolve root '%s': %s\n", root ? root : "", strerror(-r));
		return r;
	}
	cfg = config_new(norm);
	r = -ENOMEM;
	if (!cfg)
		goto out;
	if (!conf_path)
		conf_path = hr_getenv("HANZO_ROCM_CONF");
	if (conf_path) {
		main_path = strdup(conf_path);
	} else {
		explicit_path = false;
		main_path = hr_root_path(cfg->root, HR_SYSCONFDIR "/" CONF_NAME);
	}
	if (!main_path)
		goto out;

	r = parse_file(ctx, cfg, cfg->root, main_path);
	if (r == -ENOENT) {
		if (explicit_path) {
			hr_err(ctx, "%s: %s\n", main_path, strerror(ENOENT));
			goto out;
		}
		hr_dbg(ctx, "%s: missing, using defaults\n", main_path);
		r = 0;
	}
	if (r < 0)
		goto out;
	errors += r;
	r = read_conf_d(ctx, cfg, main_path, &errors);
	if (r < 0)
		goto out;
	r = apply_env_paths(ctx, cfg, &errors);
	if (r < 0)
		goto out;
	r = apply_env_targets(ctx, cfg, &errors);
	if (r < 0)
		goto out;
	r = errors ? -EINVAL : 0;
out:
	if (r == -ENOMEM)
		hr_err(ctx, "out of memory reading the configuration\n");
	free(norm);
	free(main_path);
	if (r < 0) {
		hr_config_free(cfg);
		return r;
	}
	*ret = cfg;
	return 0;
}

int hr_config_check_file(struct hanzo_rocm *ctx, const char *path)
{
	struct hr_config *cfg = config_new("");
	int r;

	if (!cfg)
		return -ENOMEM;
	r = parse_file(ctx, cfg, "", path);
	if (r == -ENOENT)
		hr_err(ctx, "%s: %s\n", path, strerror(ENOENT));
	hr_config_free(cfg);
	if (r < 0)
		return r;
	return r > 0 ? -EINVAL : 0;
}
