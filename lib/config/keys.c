/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The configuration keys (layer: config): each key of each section, its
 * value's grammar and validation, and inih's handler that sets them.  What
 * a bad value does (error or warning) is config-internal.h's PROBLEM.
 */
#include <errno.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config-internal.h"
#include "context.h"
#include "target/target.h"
#include "shared/util.h"
#include "shared/name.h"

#define JOBS_MAX 1024

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

const char *hr_backend_name(enum hr_compile_backend b)
{
	switch (b) {
	case HR_BACKEND_AUTO: return "auto";
	case HR_BACKEND_HIPCC: return "hipcc";
	case HR_BACKEND_HIPRTC: return "hiprtc";
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
 * A well-formed target whose processor lib/shared/targets.def does not know
 * (gfx9999): a typo that would otherwise be "skipped" on every precompile.
 * Reported with the file and line and left out of the list (the others
 * stay); config check (strict) makes it an error.
 */
#define UNKNOWN_TARGET "%s:%d: unknown processor '%s' for %s, left out (" UNKNOWN_WHY ")\n"

static void drop_unknown_targets(struct parser *p, const char *name, char **v)
{
	size_t j = 0;

	for (size_t i = 0; v[i]; i++) {
		if (hr_target_known(v[i])) {
			v[j++] = v[i];
			continue;
		}
		ERR(p, UNKNOWN_TARGET, p->path, p->line, v[i], name);
		free(v[i]);
	}
	v[j] = NULL;
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

void hr_config_map_free(struct hr_target_map *map, size_t n)
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
		hr_config_map_free(map, n);
		return r;
	}
	/* FROM may be a device newer than the table (that is what a map is
	 * for); TO is what gets built, so it must be a known processor. */
	for (size_t i = 0, k = 0, all = n; i < all; i++) {
		if (hr_target_known(map[i].to)) {
			map[k++] = map[i];
			continue;
		}
		ERR(p, UNKNOWN_TARGET, p->path, p->line, map[i].to, "map");
		free(map[i].from);
		free(map[i].to);
		n--;
	}
	hr_config_map_free(p->cfg->map, p->cfg->n_map);
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
		if (!hr_name_is_valid(v[i])) {   /* family names */
			int r = bad_value(bad, v[i], strlen(v[i]));

			hr_strv_free(v);
			return r;
		}
	}
	*out = v;
	return 0;
}

void hr_config_replace_str(char **slot, char *s)
{
	free(*slot);
	*slot = s;
}

void hr_config_replace_strv(char ***slot, char **v)
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
		if (!hr_target_known(v)) {
			ERR(p, UNKNOWN_TARGET, p->path, p->line, v, "override");
			return 0;
		}
		s = strdup(v);
		if (!s)
			return -ENOMEM;
	}
	hr_config_replace_str(&p->cfg->override, s);
	return 0;
}

static int set_map(struct parser *p, const char *v, struct bad *bad)
{
	return parse_map(p, v, bad);
}

/* Host devices: host-w64 / host-w32 only, "none" or empty for none. */
int hr_config_host_list(const char *v, char ***out)
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
	int r = hr_config_host_list(v, &l);

	if (r == -EINVAL)
		return bad_value(bad, v, strlen(v));
	if (r == 0)
		hr_config_replace_strv(&p->cfg->host, l);
	return r;
}

int hr_config_set_host(struct hanzo_rocm *ctx, struct hr_config *cfg,
                       const char *list, const char *what)
{
	char **l;
	int r = hr_config_host_list(list, &l);

	if (r == -EINVAL)
		hr_err(ctx, "%s: invalid value '%s' (expected host-w64, host-w32 or none)\n",
		       what, list);
	if (r == 0)
		hr_config_replace_strv(&cfg->host, l);
	return r;
}

static int set_cxx(struct parser *p, const char *v, struct bad *bad)
{
	char *s;
	int r = parse_program(v, &s, bad);

	if (r == 0)
		hr_config_replace_str(&p->cfg->cxx, s);
	return r;
}

static int set_extra(struct parser *p, const char *v, struct bad *bad)
{
	char **l = NULL;
	int r = parse_target_list(v, " \t", &l, bad);

	if (r == 0) {
		drop_unknown_targets(p, "extra", l);
		hr_config_replace_strv(&p->cfg->extra, l);
	}
	return r;
}

static int set_default(struct parser *p, const char *v, struct bad *bad)
{
	char **l = NULL;
	int r = parse_target_list(v, " \t", &l, bad);

	if (r == 0) {
		drop_unknown_targets(p, "default", l);
		hr_config_replace_strv(&p->cfg->default_targets, l);
	}
	return r;
}

static int set_system_dir(struct parser *p, const char *v, struct bad *bad)
{
	char *s;
	int r = parse_system_path(p, v, &s, bad);

	if (r == 0)
		hr_config_replace_str(&p->cfg->system_dir, s);
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
	hr_config_replace_str(&p->cfg->user_dir, s);
	return 0;
}

static int set_site_dirs(struct parser *p, const char *v, struct bad *bad)
{
	char **l = NULL;
	int r = parse_system_path_list(p, v, " \t", &l, bad);

	if (r == 0)
		hr_config_replace_strv(&p->cfg->site_dirs, l);
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
		hr_config_replace_str(&p->cfg->hipcc, s);
	return r;
}

static int set_nvcc(struct parser *p, const char *v, struct bad *bad)
{
	char *s;
	int r = parse_program(v, &s, bad);

	if (r == 0)
		hr_config_replace_str(&p->cfg->nvcc, s);
	return r;
}

/* Compilers get an argv, never a shell line: no quoting to interpret. */
static int set_flags(struct parser *p, const char *v, struct bad *bad)
{
	char **l = hr_strv_split(v, " \t");

	(void)bad;
	if (!l)
		return -ENOMEM;
	hr_config_replace_strv(&p->cfg->flags, l);
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

/* Who compiles: the compiler programs, or hipRTC/NVRTC in-process. */
static int set_backend(struct parser *p, const char *v, struct bad *bad)
{
	if (strcmp(v, "auto") == 0)
		p->cfg->backend = HR_BACKEND_AUTO;
	else if (strcmp(v, "hipcc") == 0)
		p->cfg->backend = HR_BACKEND_HIPCC;
	else if (strcmp(v, "hiprtc") == 0)
		p->cfg->backend = HR_BACKEND_HIPRTC;
	else
		return bad_value(bad, v, strlen(v));
	return 0;
}

/* A hung compiler is killed after this long (tests and slow machines set it). */
static int set_timeout(struct parser *p, const char *v, struct bad *bad)
{
	uint64_t n;

	if (hr_parse_uint(v, 86400, &n) < 0 || n == 0)
		return bad_value(bad, v, strlen(v));
	p->cfg->timeout_s = (unsigned)n;
	return 0;
}

/* Empty = the built-in default (filled in after all files); a '+' first
 * keeps the default after the directories listed. */
static int set_plugin_path(struct parser *p, const char *v, struct bad *bad)
{
	bool keep = v[0] == '+';
	char **l = NULL;
	int r;

	v += keep;
	v += strspn(v, " \t");
	if (*v) {
		r = parse_system_path_list(p, v, " \t:", &l, bad);
		if (r < 0)
			return r;
		if (!l[0]) {
			hr_strv_free(l);
			l = NULL;
		}
	}
	if (keep && !l && !(l = hr_strv_new()))
		return -ENOMEM;
	hr_config_replace_strv(&p->cfg->plugin_path, l);
	p->cfg->plugin_path_keep_default = keep;
	return 0;
}

static int set_disable(struct parser *p, const char *v, struct bad *bad)
{
	char **l = NULL;
	int r = parse_names(v, &l, bad);

	if (r == 0)
		hr_config_replace_strv(&p->cfg->disable, l);
	return r;
}

/* [remote] url: http:// or https:// base URLs, without a trailing '/'. */
int hr_config_url_list(const char *v, char ***out, const char **bad_word)
{
	char **l = hr_strv_split(v, " \t");

	*out = NULL;
	if (!l)
		return -ENOMEM;
	for (size_t i = 0; l[i]; i++) {
		size_t n = strlen(l[i]);
		bool ok = (strncmp(l[i], "http://", 7) == 0 && n > 7) ||
		          (strncmp(l[i], "https://", 8) == 0 && n > 8);

		for (size_t k = 0; ok && k < n; k++) {
			unsigned char c = (unsigned char)l[i][k];

			ok = c > 0x20 && c < 0x7f && !strchr("?#\"'<>\\", c);
		}
		if (!ok || n > 1024) {
			/* The word's offset in v, for the error. */
			*bad_word = v + (strstr(v, l[i]) ? strstr(v, l[i]) - v : 0);
			hr_strv_free(l);
			return -EINVAL;
		}
		while (n > 0 && l[i][n - 1] == '/')
			l[i][--n] = '\0';
	}
	*out = l;
	return 0;
}

static int set_remote_url(struct parser *p, const char *v, struct bad *bad)
{
	const char *w = v;
	char **l;
	int r = hr_config_url_list(v, &l, &w);

	if (r == -EINVAL)
		return bad_value(bad, w, strcspn(w, " \t"));
	if (r == 0)
		hr_config_replace_strv(&p->cfg->remote_url, l);
	return r;
}

/* NAME:BASE64 words (their keys are decoded and checked when used). */
static int set_remote_trusted_keys(struct parser *p, const char *v, struct bad *bad)
{
	char **l = hr_strv_split(v, " \t");

	if (!l)
		return -ENOMEM;
	for (size_t i = 0; l[i]; i++) {
		const char *c = strchr(l[i], ':');

		if (!c || c == l[i] || !c[1] ||
		    strspn(c + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") !=
		    strlen(c + 1)) {
			int r = bad_value(bad, l[i], strlen(l[i]));

			hr_strv_free(l);
			return r;
		}
	}
	hr_config_replace_strv(&p->cfg->remote_trusted_keys, l);
	return 0;
}

static int set_remote_signing_key(struct parser *p, const char *v, struct bad *bad)
{
	char *s = NULL;
	int r;

	if (*v) {
		r = parse_abs_path(v, &s, bad);
		if (r < 0)
			return r;
	}
	hr_config_replace_str(&p->cfg->remote_signing_key, s);
	return 0;
}

/* An absolute path, or empty for none. */
static int set_opt_path(char **field, const char *v, struct bad *bad)
{
	char *s = NULL;
	int r;

	if (*v) {
		r = parse_abs_path(v, &s, bad);
		if (r < 0)
			return r;
	}
	hr_config_replace_str(field, s);
	return 0;
}

static int set_remote_auth_file(struct parser *p, const char *v, struct bad *bad)
{
	return set_opt_path(&p->cfg->remote_auth_file, v, bad);
}

static int set_remote_ca_file(struct parser *p, const char *v, struct bad *bad)
{
	return set_opt_path(&p->cfg->remote_ca_file, v, bad);
}

static int set_remote_client_cert(struct parser *p, const char *v, struct bad *bad)
{
	return set_opt_path(&p->cfg->remote_client_cert, v, bad);
}

static int set_remote_client_key(struct parser *p, const char *v, struct bad *bad)
{
	return set_opt_path(&p->cfg->remote_client_key, v, bad);
}

/* Empty: the built-in path. */
static int set_remote_module(struct parser *p, const char *v, struct bad *bad)
{
	char *s;
	int r = parse_abs_path(*v ? v : HR_REMOTEMODULE, &s, bad);

	if (r == 0)
		hr_config_replace_str(&p->cfg->remote_module, s);
	return r;
}

/* Milliseconds from 1 to max. */
static int parse_ms(const char *v, uint64_t max, unsigned *out, struct bad *bad)
{
	uint64_t n;

	if (hr_parse_uint(v, max, &n) < 0 || n == 0)
		return bad_value(bad, v, strlen(v));
	*out = (unsigned)n;
	return 0;
}

static int set_remote_connect(struct parser *p, const char *v, struct bad *bad)
{
	return parse_ms(v, 60000, &p->cfg->remote_connect_ms, bad);
}

static int set_remote_timeout(struct parser *p, const char *v, struct bad *bad)
{
	return parse_ms(v, 600000, &p->cfg->remote_timeout_ms, bad);
}

static int set_remote_budget(struct parser *p, const char *v, struct bad *bad)
{
	return parse_ms(v, 3600000, &p->cfg->remote_budget_ms, bad);
}

/* [remote] redis: redis://HOST:PORT (hiredis's TCP connect; no auth, no TLS yet). */
static int set_remote_redis(struct parser *p, const char *v, struct bad *bad)
{
	const char *h = v + 8, *c = strrchr(v, ':');
	uint64_t port;
	char *s;

	if (!*v) {
		hr_config_replace_str(&p->cfg->remote_redis, NULL);
		return 0;
	}
	if (strncmp(v, "redis://", 8) != 0 || !c || c <= h || strlen(v) > 300 ||
	    strpbrk(h, "/@?#\"\'<> \t") || hr_parse_uint(c + 1, 65535, &port) < 0 || port == 0)
		return bad_value(bad, v, strlen(v));
	s = strdup(v);
	if (!s)
		return -ENOMEM;
	hr_config_replace_str(&p->cfg->remote_redis, s);
	return 0;
}

static int set_remote_lease(struct parser *p, const char *v, struct bad *bad)
{
	return parse_ms(v, 3600000, &p->cfg->remote_lease_ms, bad);
}

/*
 * The keys: what config.c, the handler below, `hanzo-rocm info` and
 * t/config/test-keys read.  A key is added here (and documented in
 * etc/hanzo-rocm.conf and hanzo-rocm.conf(5), which the test checks).
 */
#define HR_STR_(x) #x
#define HR_STR(x) HR_STR_(x)
#define AT(field) offsetof(struct hr_config, field)

static const struct key {
	struct hr_config_key k;
	int (*set)(struct parser *p, const char *value, struct bad *bad);
} keys[] = {
	{ { "targets", "override", HR_CONFIG_STR, AT(override), NULL, "",
	    "one target ID like gfx90a or sm_90, or empty",
	    "One target ID used for every AMD device instead of the detected one.",
	    "(none)", "", 0 }, set_override },
	{ { "targets", "map", HR_CONFIG_MAP, AT(map), NULL, "gfx1031:gfx1030",
	    "space-separated FROM:TO target pairs like gfx1031:gfx1030",
	    "Substitutions FROM:TO applied to detected targets, space separated.",
	    "(none)", "", 0 }, set_map },
	{ { "targets", "extra", HR_CONFIG_STRV, AT(extra), "", "",
	    "space-separated target IDs like gfx90a sm_90",
	    "Targets to precompile in addition to the detected ones.",
	    "(none)", "", 0 }, set_extra },
	{ { "targets", "default", HR_CONFIG_STRV, AT(default_targets), HR_DEFAULT_TARGETS,
	    "gfx90a gfx942 gfx1100 gfx1030",
	    "space-separated target IDs like gfx90a sm_90",
	    "Targets to precompile when no GPU is detected and no extra is set.",
	    "(none)", "", 0 }, set_default },
	{ { "targets", "host", HR_CONFIG_STRV, AT(host), NULL, "",
	    "host-w64, host-w32, both separated by a space, or none",
	    "Host (CPU) devices for tests and debugging: host-w64 (wave 64) and/or "
	    "host-w32 (wave 32), or none.  Never used unless listed here or asked for.",
	    "(none)", "", 0 }, set_host },
	{ { "cache", "system_dir", HR_CONFIG_STR, AT(system_dir), HR_CACHEDIR,
	    "/var/cache/hanzo-rocm", "an absolute path",
	    "System tier, written only by `hanzo-rocm precompile --system` "
	    "(built-in default: the build's cache dir, /var/cache/hanzo-rocm in packages).",
	    "(none)", "", 0 }, set_system_dir },
	{ { "cache", "user_dir", HR_CONFIG_STR, AT(user_dir), NULL, "",
	    "an absolute path, or empty for the default",
	    "Per-user tier; empty means $XDG_CACHE_HOME/hanzo-rocm or ~/.cache/hanzo-rocm.",
	    "(none: no HOME)", "", 0 }, set_user_dir },
	{ { "cache", "site_dirs", HR_CONFIG_STRV, AT(site_dirs), "", "",
	    "space-separated absolute paths",
	    "Extra read-only tiers searched after the system tier (e.g. an NFS share).",
	    "(none)", "", 0 }, set_site_dirs },
	{ { "cache", "policy", HR_CONFIG_POLICY, AT(policy), "readwrite", "readwrite",
	    "readwrite, readonly or off",
	    "User tier: readwrite, readonly or off.", "", "", 0 }, set_policy },
	{ { "cache", "compile", HR_CONFIG_COMPILE, AT(compile), "auto", "auto",
	    "auto or never",
	    "Compile on a cache miss: auto, or never to fail fast on production nodes.",
	    "", "", 0 }, set_compile },
	{ { "cache", "max_size", HR_CONFIG_SIZE, AT(max_size), "1G", "1G",
	    "a size like 512M or 1G",
	    "Upper bound of the user tier, with K/M/G suffixes.", "", "", 0 }, set_max_size },
	{ { "compiler", "hipcc", HR_CONFIG_STR, AT(hipcc), "hipcc", "hipcc",
	    "a program name or an absolute path",
	    "HIP compiler: a program name searched in PATH, or an absolute path.",
	    "", "", 0 }, set_hipcc },
	{ { "compiler", "nvcc", HR_CONFIG_STR, AT(nvcc), "nvcc", "nvcc",
	    "a program name or an absolute path",
	    "CUDA compiler: a program name searched in PATH, or an absolute path.",
	    "", "", 0 }, set_nvcc },
	{ { "compiler", "cxx", HR_CONFIG_STR, AT(cxx), "c++", "c++",
	    "a program name or an absolute path",
	    "C++ compiler for host code objects (host devices): a name or an absolute path.",
	    "", "", 0 }, set_cxx },
	{ { "compiler", "flags", HR_CONFIG_STRV, AT(flags), "-O3", "-O3",
	    "space-separated compiler flags",
	    "Extra flags for every kernel compile, space separated.",
	    "(none)", "", 0 }, set_flags },
	{ { "compiler", "jobs", HR_CONFIG_UINT, AT(jobs), "0", "0",
	    "a number from 0 to 1024",
	    "Parallel compiles; 0 means the number of online CPUs.",
	    "0 (online CPUs)", "", 0 }, set_jobs },
	{ { "compiler", "timeout", HR_CONFIG_UINT, AT(timeout_s), NULL,
	    HR_STR(HR_COMPILE_TIMEOUT_S), "seconds, from 1 to 86400",
	    "Seconds after which a hung compile is killed (1 to 86400).",
	    HR_STR(HR_COMPILE_TIMEOUT_S) " s (the default)", " s", HR_COMPILE_TIMEOUT_S },
	  set_timeout },
	{ { "compiler", "backend", HR_CONFIG_BACKEND, AT(backend), "auto", "auto",
	    "auto, hipcc or hiprtc",
	    "Who compiles application source (hanzo_rocm_module_get): auto (hipcc/nvcc "
	    "where found, else hipRTC/NVRTC in-process), hipcc (the programs only) or "
	    "hiprtc (hipRTC/NVRTC only).",
	    "", "", 0 }, set_backend },
	{ { "remote", "url", HR_CONFIG_STRV, AT(remote_url), "", "",
	    "space-separated http:// or https:// URLs",
	    "Remote cache tiers (Bazel HTTP cache layout, ac/ and cas/), tried in order "
	    "after the local tiers and before a compile; empty means none.",
	    "(none)", "", 0 }, set_remote_url },
	{ { "remote", "trusted_keys", HR_CONFIG_STRV, AT(remote_trusted_keys), "", "",
	    "space-separated NAME:BASE64 public keys",
	    "Public keys (from `hanzo-rocm cache keygen`) whose signed entries are accepted.",
	    "(none)", "", 0 }, set_remote_trusted_keys },
	{ { "remote", "signing_key", HR_CONFIG_STR, AT(remote_signing_key), NULL, "",
	    "an absolute path, or empty",
	    "A builder's secret key file (mode 0600) for `hanzo-rocm cache push`; "
	    "empty on nodes that only read.",
	    "(none: read only)", "", 0 }, set_remote_signing_key },
	{ { "remote", "module", HR_CONFIG_STR, AT(remote_module), HR_REMOTEMODULE,
	    "", "an absolute path",
	    "The HTTP(S) module, loaded only when url is set; empty means the built-in "
	    "path (pkglibdir/remote.so).",
	    "", "", 0 }, set_remote_module },
	{ { "remote", "connect_timeout", HR_CONFIG_UINT, AT(remote_connect_ms), "250", "250",
	    "milliseconds, from 1 to 60000",
	    "Milliseconds to wait for a connection to a remote.",
	    "", " ms", 0 }, set_remote_connect },
	{ { "remote", "timeout", HR_CONFIG_UINT, AT(remote_timeout_ms), "5000", "5000",
	    "milliseconds, from 1 to 600000",
	    "Milliseconds a remote request may take in all.",
	    "", " ms", 0 }, set_remote_timeout },
	{ { "remote", "budget", HR_CONFIG_UINT, AT(remote_budget_ms), "10000", "10000",
	    "milliseconds, from 1 to 3600000",
	    "Milliseconds a process may spend waiting on remotes in all; then they are skipped.",
	    "", " ms", 0 }, set_remote_budget },
	{ { "remote", "redis", HR_CONFIG_STR, AT(remote_redis), NULL, "",
	    "redis://HOST:PORT, or empty",
	    "A Redis server for leases, so that one node compiles a missing entry and pushes "
	    "it while the others wait for it; empty: a jittered re-check before compiling.",
	    "(none)", "", 0 }, set_remote_redis },
	{ { "remote", "lease", HR_CONFIG_UINT, AT(remote_lease_ms), "60000", "60000",
	    "milliseconds, from 1 to 3600000",
	    "Milliseconds a lease lasts: the longest other nodes wait for its holder's push "
	    "(within budget).",
	    "", " ms", 0 }, set_remote_lease },
	{ { "remote", "auth_file", HR_CONFIG_STR, AT(remote_auth_file), NULL, "",
	    "an absolute path, or empty",
	    "A file whose one line is the credential sent to every url: \"Bearer TOKEN\" or "
	    "\"Basic USER:PASSWORD\"; not accessible by others, not writable by the group.",
	    "(none)", "", 0 }, set_remote_auth_file },
	{ { "remote", "ca_file", HR_CONFIG_STR, AT(remote_ca_file), NULL, "",
	    "an absolute path, or empty",
	    "TLS: the CA certificates (PEM) that https:// urls must chain to; empty: the "
	    "system's.",
	    "(the system's)", "", 0 }, set_remote_ca_file },
	{ { "remote", "client_cert", HR_CONFIG_STR, AT(remote_client_cert), NULL, "",
	    "an absolute path, or empty",
	    "TLS: a client certificate (PEM) presented to https:// urls.",
	    "(none)", "", 0 }, set_remote_client_cert },
	{ { "remote", "client_key", HR_CONFIG_STR, AT(remote_client_key), NULL, "",
	    "an absolute path, or empty",
	    "TLS: the client certificate's key (PEM); not accessible by others, not writable "
	    "by the group.",
	    "(none)", "", 0 }, set_remote_client_key },
	{ { "plugins", "path", HR_CONFIG_STRV, AT(plugin_path), NULL, "",
	    "absolute directories separated by spaces or ':'",
	    "Plugin directories, separated by spaces or ':'; empty means the built-in one; "
	    "a '+' before the first keeps the built-in one after them (+/opt/app/plugins).",
	    "(none)", "", 0 }, set_plugin_path },
	{ { "plugins", "disable", HR_CONFIG_STRV, AT(disable), "", "",
	    "space-separated family names",
	    "Kernel families not to load, space separated.", "(none)", "", 0 }, set_disable },
};

const struct hr_config_key *hr_config_key_at(size_t i)
{
	return i < HR_ARRAY_SIZE(keys) ? &keys[i].k : NULL;
}

/*
 * The built-in defaults, through the keys' own parsers (so a default obeys
 * the grammar of a configured value): 0, -ENOMEM, or -EINVAL (logged) for
 * a default the build got wrong.
 */
int hr_config_set_defaults(struct parser *p)
{
	for (size_t i = 0; i < HR_ARRAY_SIZE(keys); i++) {
		struct bad bad = { NULL };
		int r;

		if (!keys[i].k.def)
			continue;
		r = keys[i].set(p, keys[i].k.def, &bad);
		if (r == -EINVAL)
			hr_err(p->ctx, "built-in default of %s.%s: invalid value '%s' (expected %s)\n",
			       keys[i].k.section, keys[i].k.name, keys[i].k.def, keys[i].k.expected);
		free(bad.value);
		if (r < 0)
			return r;
	}
	return 0;
}

int hr_config_handler(void *user, const char *section, const char *name,
                      const char *value)
{
	struct parser *p = user;
	struct bad bad = { NULL };

	if (p->discover)
		return 1;
	for (size_t i = 0; i < HR_ARRAY_SIZE(keys); i++) {
		const struct key *k = &keys[i];
		int r;

		if (strcmp(k->k.section, section) != 0 || strcmp(k->k.name, name) != 0)
			continue;
		r = k->set(p, value, &bad);
		if (r == -ENOMEM) {
			p->oom = true;
		} else if (r < 0) {
			ERR(p, "%s:%d: invalid value '%s' for %s (expected %s)\n",
			    p->path, p->line, bad.value ? bad.value : value,
			    name, k->k.expected);
		}
		free(bad.value);
		/* Always "success": inih's own error return means syntax only. */
		return 1;
	}
	hr_warn(p->ctx, "%s:%d: unknown key '%s' in [%s]\n", p->path, p->line,
	        name, section);
	return 1;
}
