/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Configuration (doc/DESIGN.md §3): the main file, then <its dir>/hanzo-rocm.conf.d/
 * *.conf in C-locale order (later wins), then the environment.
 *
 * inih is the only grammar.  Its shared library gives the handler no line
 * numbers, so files are read into memory and fed to ini_parse_stream()
 * through our own reader, which counts lines (and catches lines too long for
 * inih's buffer); inih's line count is the reader's.  inih names only the
 * first syntax error, so a file with one is parsed again with that line
 * handed over blank (inih's state does not change on a bad line) until none
 * is left, and the final pass reports them all in order.
 *
 * Every value is validated when read; each problem is reported as
 * "FILE:LINE: message" (or "VARIABLE: message").  Strict loading (config
 * check) fails with -EINVAL; the library's own loading warns and leaves the
 * bad setting out.
 * Layer: config (lib/layers).
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

#include "config.h"
#include "config-internal.h"
#include "context.h"
#include "target/target.h"
#include "shared/util.h"

#define CONF_NAME "hanzo-rocm.conf"
#define CONF_D_NAME "hanzo-rocm.conf.d"
#define CONF_MAX_SIZE (1024 * 1024)
/* Parses of one file spent finding syntax errors: bounds the work. */
#define SYNTAX_PASSES_MAX 32

static bool is_bad_line(const struct parser *p, int line)
{
	for (size_t i = 0; i < p->n_bad; i++)
		if (p->bad_lines[i] == line)
			return true;
	return false;
}

/*
 * fgets-like reader over the file in memory.  A line that does not fit
 * inih's buffer (num bytes with '\n' and NUL) is reported here, with its
 * number, and handed over as an empty line so parsing goes on; so is a line
 * inih found a syntax error in (reported here so that all come in order).
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
		if (!p->discover)
			ERR(p, "%s:%d: NUL byte in line\n", p->path, p->line);
		len = 0;
	} else if (len + (nl ? 1 : 2) > (size_t)num) {
		if (!p->discover)
			ERR(p, "%s:%d: line too long (%zu bytes, at most %d)\n", p->path,
			    p->line, len - (nl ? 1 : 0), num - 2);
		len = 0;
	} else if (is_bad_line(p, p->line)) {
		if (!p->discover)
			ERR(p, "%s:%d: syntax error (expected [section], key = value or a comment)\n",
			    p->path, p->line);
		len = 0;
	}
	if (len == 0) {
		str[0] = '\n';
		str[1] = '\0';
		return str;
	}
	memcpy(str, start, len);
	str[len] = '\0';
	return str;
}

/*
 * Parse passes that only collect the lines inih calls syntax errors, each
 * pass with the ones found so far blanked, so that every one is reported.
 */
static int find_syntax_errors(struct parser *p)
{
	p->discover = true;
	for (int pass = 0; pass < SYNTAX_PASSES_MAX; pass++) {
		int *v, r;

		p->pos = 0;
		p->line = 0;
		r = ini_parse_stream(reader, p, hr_config_handler, p);
		if (r == -2)
			return -ENOMEM;
		if (r <= 0 || is_bad_line(p, r))
			break;
		v = realloc(p->bad_lines, (p->n_bad + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		v[p->n_bad++] = r;
		p->bad_lines = v;
	}
	p->discover = false;
	p->pos = 0;
	p->line = 0;
	return 0;
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
                      const char *root, const char *path, bool strict)
{
	struct parser p = { .ctx = ctx, .cfg = cfg, .root = root, .path = path,
	                    .strict = strict };
	void *data;
	size_t size;
	int r;

	r = hr_read_file(path, CONF_MAX_SIZE, &data, &size);
	if (r == -ENOENT || r == -ENOMEM)
		return r;
	if (r < 0) {
		ERR(&p, "%s: %s\n", path, read_error(r));
		return p.errors;
	}
	p.data = data;
	p.size = size;
	hr_dbg(ctx, "reading %s\n", path);
	r = find_syntax_errors(&p);
	if (r == 0)
		r = ini_parse_stream(reader, &p, hr_config_handler, &p);
	free(data);
	free(p.bad_lines);
	if (r == -2 || r == -ENOMEM || p.oom)
		return -ENOMEM;
	/* Only past SYNTAX_PASSES_MAX errors: the rest are not listed. */
	if (r > 0)
		ERR(&p, "%s:%d: syntax error (and more not listed)\n", path, r);
	if (hr_strv_push(&cfg->files, path) < 0)
		return -ENOMEM;
	return p.errors;
}

/* ---- defaults, files, environment ---- */

/* A configuration holding the built-in defaults (config/keys.c's table). */
static struct hr_config *config_new(struct hanzo_rocm *ctx, const char *root)
{
	struct hr_config *cfg = calloc(1, sizeof(*cfg));
	struct parser p = { .ctx = ctx, .cfg = cfg, .root = root,
	                    .path = "(built-in default)", .strict = true };

	if (!cfg)
		return NULL;
	/* root is normalise_root's result; clang-tidy 14 thinks its -errno may be >= 0. */
	cfg->root = strdup(root); // NOLINT(clang-analyzer-core.NonNullParamChecker)
	cfg->files = hr_strv_new();
	if (!cfg->root || !cfg->files || hr_config_set_defaults(&p) < 0) {
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
	hr_config_free_keys(cfg);
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

static bool is_conf_name(const char *name)
{
	size_t n = strlen(name);

	return name[0] != '.' && n > 5 && strcmp(name + n - 5, ".conf") == 0;
}

/* <dir of main>/hanzo-rocm.conf.d/NAME.conf, sorted with strcmp. */
static int list_conf_d(struct hanzo_rocm *ctx, const char *main_path,
                       char ***out, struct tally *t)
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
			TALLY(ctx, t, "%s: %s\n", dir, strerror(errno));
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
	hr_strv_sort(files);
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
                        char **out, struct tally *t)
{
	if (v[0] != '/') {
		TALLY(ctx, t, "%s: invalid value '%s' (expected an absolute path)\n", var, v);
		return 0;
	}
	*out = strdup(v);
	return *out ? 0 : -ENOMEM;
}

/*
 * The remote tier from the environment (a job pointing at its rack's
 * mirror, a per-job credential): HANZO_ROCM_REMOTE_URL and
 * HANZO_ROCM_REMOTE_AUTH_FILE beat [remote] url and auth_file.  Trust
 * (trusted_keys, signing_key, module) is the files' only.
 */
static int apply_env_remote(struct hanzo_rocm *ctx, struct hr_config *cfg, struct tally *t)
{
	const char *v = hr_getenv("HANZO_ROCM_REMOTE_URL"), *w = NULL;
	char **l = NULL, *s = NULL;
	int r;

	if (v) {
		r = hr_config_url_list(v, &l, &w);
		if (r == -EINVAL)
			TALLY(ctx, t, "HANZO_ROCM_REMOTE_URL: invalid value '%s' (expected http:// or "
			      "https:// URLs separated by spaces)\n", v);
		else if (r < 0)
			return r;
		else
			hr_config_replace_strv(&cfg->remote_url, l);
	}
	v = hr_getenv("HANZO_ROCM_REMOTE_AUTH_FILE");
	if (v) {
		r = env_abs_path(ctx, "HANZO_ROCM_REMOTE_AUTH_FILE", v, &s, t);
		if (r < 0)
			return r;
		if (s)
			hr_config_replace_str(&cfg->remote_auth_file, s);
	}
	return 0;
}

static int plugin_path_split(const char *v, char ***out, bool *keep);
static int plugin_path_finish(struct hr_config *cfg);

/* Paths: env beats the files; the files beat the built-in defaults. */
static int apply_env_paths(struct hanzo_rocm *ctx, struct hr_config *cfg,
                           struct tally *t)
{
	const char *v;
	char *s = NULL;
	int r;

	v = hr_getenv("HANZO_ROCM_CACHE_DIR");
	if (v) {
		r = env_abs_path(ctx, "HANZO_ROCM_CACHE_DIR", v, &s, t);
		if (r < 0)
			return r;
		if (s)
			hr_config_replace_str(&cfg->user_dir, s);
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
		char **l;
		bool keep;

		r = plugin_path_split(v, &l, &keep);
		if (r == -EINVAL)
			TALLY(ctx, t, "HANZO_ROCM_PLUGIN_PATH: invalid value '%s' (expected absolute directories separated by ':', '+' first to keep the default directory)\n",
			      v);
		else if (r < 0)
			return r;
		else if (l[0] || keep) {
			hr_config_replace_strv(&cfg->plugin_path, l);
			cfg->plugin_path_keep_default = keep;
		} else
			hr_strv_free(l);
	}
	return plugin_path_finish(cfg);
}

/*
 * A plugin path value: absolute directories separated by ':' (and, in a
 * file, blanks); a '+' before the first keeps the default directory after
 * them ("+" alone: the default only).
 */
static int plugin_path_split(const char *v, char ***out, bool *keep)
{
	char **l;

	*out = NULL;
	*keep = v[0] == '+';
	l = hr_strv_split(v + *keep, ":");
	if (!l)
		return -ENOMEM;
	for (size_t i = 0; l[i]; i++) {
		if (l[i][0] != '/') {
			hr_strv_free(l);
			return -EINVAL;
		}
	}
	*out = l;
	return 0;
}

/* No path set, or one with '+': the default directory (root-prefixed) last. */
static int plugin_path_finish(struct hr_config *cfg)
{
	char *s;
	int r;

	if (cfg->plugin_path && !cfg->plugin_path_keep_default)
		return 0;
	if (!cfg->plugin_path && !(cfg->plugin_path = hr_strv_new()))
		return -ENOMEM;
	s = hr_root_path(cfg->root, HR_PLUGINDIR);
	if (!s)
		return -ENOMEM;
	r = hr_strv_contains(cfg->plugin_path, s) ? 0 : hr_strv_push(&cfg->plugin_path, s);
	free(s);
	cfg->plugin_path_keep_default = false;
	return r < 0 ? -ENOMEM : 0;
}

int hr_config_set_plugin_path(struct hanzo_rocm *ctx, struct hr_config *cfg,
                              const char *list, const char *what)
{
	char **l;
	bool keep;
	int r = plugin_path_split(list, &l, &keep);

	if (r == -EINVAL)
		hr_err(ctx, "%s: invalid value '%s' (expected absolute directories "
		       "separated by ':', '+' first to keep the default directory)\n",
		       what, list);
	if (r < 0)
		return r;
	hr_config_replace_strv(&cfg->plugin_path, l);
	cfg->plugin_path_keep_default = keep;
	return plugin_path_finish(cfg);
	return 0;
}

static int apply_env_targets(struct hanzo_rocm *ctx, struct hr_config *cfg,
                             struct tally *t)
{
	const char *v, *var;

	v = getenv_alias("HANZO_ROCM_ARCH", "CANDLE_ROCM_ARCH", &var);
	if (v) {
		if (hr_target_validate(v) < 0) {
			TALLY(ctx, t, "%s: invalid value '%s' (expected a target ID like gfx90a or sm_90)\n",
			      var, v);
		} else if (!hr_target_known(v)) {
			TALLY(ctx, t, "%s: unknown processor '%s', left out (" UNKNOWN_WHY ")\n", var, v);
		} else if (!(cfg->env_arch = strdup(v))) {
			return -ENOMEM;
		}
	}
	v = hr_getenv("HANZO_ROCM_TARGETS");
	if (v) {
		char **l = hr_strv_split(v, ", \t\n");
		bool bad = false;
		size_t k = 0;

		if (!l)
			return -ENOMEM;
		for (size_t i = 0; l[i]; i++) {
			if (hr_target_validate(l[i]) < 0) {
				TALLY(ctx, t, "HANZO_ROCM_TARGETS: invalid value '%s' (expected target IDs like gfx90a or sm_90, separated by commas or spaces)\n",
				      l[i]);
				bad = true;
			}
		}
		/* Well-formed but not in lib/shared/targets.def: only that one goes. */
		for (size_t i = 0; !bad && l[i]; i++) {
			if (hr_target_known(l[i])) {
				l[k++] = l[i];
			} else {
				TALLY(ctx, t, "HANZO_ROCM_TARGETS: unknown processor '%s', left out (" UNKNOWN_WHY ")\n",
				      l[i]);
				free(l[i]);
			}
		}
		if (!bad)
			l[k] = NULL;
		if (l[0] && !bad)
			cfg->env_targets = l;
		else
			hr_strv_free(l);
	}
	v = getenv_alias("HANZO_ROCM_VERSION", "CANDLE_ROCM_VERSION", &var);
	if (v) {
		/* It becomes part of cache paths and keys: keep it a safe name. */
		if (!hr_name_is_safe(v)) {
			TALLY(ctx, t, "%s: invalid value '%s' (expected a version label like 6.1)\n",
			      var, v);
		} else if (!(cfg->version_label = strdup(v))) {
			return -ENOMEM;
		}
	}
	v = hr_getenv("HANZO_ROCM_HOST");
	if (v) {
		char **l;
		int r = hr_config_host_list(v, &l);

		if (r == -ENOMEM)
			return r;
		if (r < 0)
			TALLY(ctx, t, "HANZO_ROCM_HOST: invalid value '%s' (expected host-w64, host-w32 or none)\n",
			      v);
		else
			hr_config_replace_strv(&cfg->host, l);
	}
	v = hr_getenv("HSA_OVERRIDE_GFX_VERSION");
	if (v && !(cfg->hsa_override = strdup(v)))
		return -ENOMEM;
	return 0;
}

static int read_conf_d(struct hanzo_rocm *ctx, struct hr_config *cfg,
                       const char *main_path, struct tally *t)
{
	char **files;
	int r = list_conf_d(ctx, main_path, &files, t);

	if (r < 0)
		return r;
	for (size_t i = 0; files[i]; i++) {
		r = parse_file(ctx, cfg, cfg->root, files[i], t->strict);
		if (r == -ENOENT) { /* removed since listed */
			r = 0;
			continue;
		}
		if (r < 0)
			break;
		t->errors += r;
		r = 0;
	}
	hr_strv_free(files);
	return r;
}

int hr_config_load(struct hanzo_rocm *ctx, const char *root,
                   const char *conf_path, bool strict, struct hr_config **ret)
{
	struct hr_config *cfg = NULL;
	char *norm = NULL, *main_path = NULL;
	bool explicit_path = true;
	struct tally t = { .strict = strict };
	int r;

	*ret = NULL;
	r = normalise_root(root, &norm);
	if (r < 0) {
		hr_err(ctx, "cannot resolve root '%s': %s\n", root ? root : "", strerror(-r));
		return r;
	}
	cfg = config_new(ctx, norm);
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

	r = parse_file(ctx, cfg, cfg->root, main_path, strict);
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
	t.errors += r;
	r = read_conf_d(ctx, cfg, main_path, &t);
	if (r < 0)
		goto out;
	r = apply_env_paths(ctx, cfg, &t);
	if (r < 0)
		goto out;
	r = apply_env_targets(ctx, cfg, &t);
	if (r < 0)
		goto out;
	r = apply_env_remote(ctx, cfg, &t);
	if (r < 0)
		goto out;
	if (t.errors && strict)
		r = -EINVAL;
	else if (t.errors)
		hr_warn_admin(ctx, "%d bad setting%s left out of the configuration (defaults used); see 'hanzo-rocm config check'\n",
		              t.errors, t.errors == 1 ? "" : "s");
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
	struct hr_config *cfg = config_new(ctx, "");
	int r;

	if (!cfg)
		return -ENOMEM;
	r = parse_file(ctx, cfg, "", path, true);
	if (r == -ENOENT)
		hr_err(ctx, "%s: %s\n", path, strerror(ENOENT));
	hr_config_free(cfg);
	if (r < 0)
		return r;
	return r > 0 ? -EINVAL : 0;
}
