/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Configuration (doc/DESIGN.md §3): every error with its file and line, conf.d
 * order, root prefixing, environment precedence, defaults.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tap.h"
#include "config/config.h"
#include "hanzo-rocm-tools.h"
#include "context.h"
#include "shared/util.h"

/* Every message the library logs, one after the other. */
static char logbuf[65536];

__attribute__((format(printf, 6, 0)))
static void capture(void *data, int priority, const char *file, int line,
                    const char *fn, const char *format, va_list args)
{
	size_t n = strlen(logbuf);
	const char *tag = priority <= LOG_ERR ? "E " : priority == LOG_WARNING ? "W " : "I ";

	(void)data; (void)file; (void)line; (void)fn;
	if (n + 3 >= sizeof(logbuf))
		return;
	strcpy(logbuf + n, tag);
	vsnprintf(logbuf + n + 2, sizeof(logbuf) - n - 2, format, args);
}

/* A real context reading no file, logging into logbuf at warning level. */
static struct hanzo_rocm *ctx;

static void make_ctx(void)
{
	struct hanzo_rocm_options o = {
		.size = sizeof(o), .config = "/dev/null", .log_fn = capture,
	};

	if (hanzo_rocm_new_with_options(&o, &ctx) < 0)
		abort();
	hanzo_rocm_set_log_priority(ctx, LOG_WARNING);
}

static char *fixture(const char *name)
{
	const char *src = getenv("top_srcdir");
	char *p;

	if (asprintf(&p, "%s/t/fixtures/config/%s", src ? src : ".", name) < 0)
		abort();
	return p;
}

static int count(const char *tag)
{
	int n = 0;

	for (const char *p = logbuf; (p = strstr(p, tag)); p++)
		n++;
	return n;
}

/* "E FILE:LINE: message" is in the log. */
static void logged(const char *tag, const char *file, int line, const char *msg)
{
	char want[1024];

	snprintf(want, sizeof(want), "%s %s:%d: %s", tag, file, line, msg);
	if (!ok(strstr(logbuf, want) != NULL, "logged: %s:%d: %s", strrchr(file, '/') + 1, line, msg))
		diag("log was:\n%s", logbuf);
}

static void copy_file(const char *from, const char *dir, const char *name)
{
	void *data;
	size_t size;

	if (hr_read_file(from, 1 << 20, &data, &size) < 0 ||
	    hr_write_atomic(dir, name, data, size, 0644) < 0)
		abort();
	free(data);
}

static int load(const char *root, const char *conf, struct hr_config **cfg)
{
	logbuf[0] = '\0';
	return hr_config_load(ctx, root, conf, true, cfg);
}

static void test_bad_files(void)
{
	char *f = fixture("bad-many.conf");
	struct hr_config *cfg = (void *)1;
	int r;

	r = load("", f, &cfg);
	is_int(r, -EINVAL, "a file with bad values fails with -EINVAL");
	ok(cfg == NULL, "and returns no configuration");
	logged("E", f, 5, "invalid value 'gfxzz' for extra");
	logged("E", f, 6, "invalid value 'nonsense' for map");
	logged("E", f, 8, "invalid value 'sometimes' for policy (expected readwrite, readonly or off)");
	logged("E", f, 9, "invalid value 'lots' for max_size (expected a size like 512M or 1G)");
	logged("W", f, 10, "unknown key 'frobnicate' in [cache]");
	logged("E", f, 11, "invalid value 'relative/path' for system_dir");
	logged("E", f, 12, "syntax error");
	logged("E", f, 14, "invalid value '5000' for jobs");
	logged("E", f, 15, "invalid value '../hipcc' for hipcc");
	logged("E", f, 16, "line too long");
	logged("E", f, 18, "invalid value 'relative' for path");
	logged("E", f, 19, "invalid value 'bad/name' for disable");
	logged("W", f, 21, "unknown key 'key' in [nosuchsection]");
	logged("E", f, 22, "syntax error");
	is_int(count("E "), 12, "every error is reported, not just the first");

	logbuf[0] = '\0';
	is_int(hr_config_check_file(ctx, f), -EINVAL, "check_file: same file is invalid");
	is_int(count("E "), 12, "check_file reports the same errors");
	free(f);

	f = fixture("bad-size.conf");
	logbuf[0] = '\0';
	is_int(hr_config_check_file(ctx, f), -EINVAL, "check_file: bad-size.conf is invalid");
	logged("E", f, 7, "invalid value 'lots' for max_size");
	free(f);

	f = fixture("good.conf");
	logbuf[0] = '\0';
	is_int(hr_config_check_file(ctx, f), 0, "check_file: good.conf is valid");
	is_str(logbuf, "", "and says nothing");
	free(f);
}

static void test_good_file(void)
{
	char *f = fixture("good.conf");
	struct hr_config *cfg = NULL;
	char *s;

	is_int(load("", f, &cfg), 0, "good.conf loads");
	if (!cfg) {
		skip(17, "no configuration");
		free(f);
		return;
	}
	is_str(cfg->files[0], f, "the file is listed as read");
	is_str(cfg->override, "gfx90a:xnack+", "override with a feature");
	is_int(cfg->n_map, 2, "two map pairs");
	if (cfg->n_map == 2) {
		is_str(cfg->map[0].from, "gfx1031", "map[0] from");
		is_str(cfg->map[1].from, "gfx90a:xnack+", "map[1] from keeps the feature (split at the last ':gfx')");
		is_str(cfg->map[1].to, "gfx90a", "map[1] to");
	} else {
		skip(3, "map");
	}
	s = hr_strv_join(cfg->extra, " ");
	is_str(s, "gfx942 sm_90", "extra");
	free(s);
	is_str(cfg->system_dir, "/srv/hr/system", "system_dir, trailing slash dropped");
	is_str(cfg->user_dir, "/srv/hr/user", "user_dir from the file");
	is_int(hr_strv_len(cfg->site_dirs), 2, "two site dirs");
	is_int(cfg->policy, HR_POLICY_READONLY, "policy");
	is_int(cfg->compile, HR_COMPILE_NEVER, "compile");
	is_int(cfg->max_size, 512ull << 20, "max_size 512M");
	is_str(cfg->hipcc, "/opt/rocm/bin/hipcc", "hipcc path");
	s = hr_strv_join(cfg->flags, "|");
	is_str(s, "-O2|-g", "flags");
	free(s);
	is_int(cfg->jobs, 8, "jobs");
	is_int(cfg->timeout_s, 45, "compile timeout");
	s = hr_strv_join(cfg->plugin_path, "|");
	is_str(s, "/opt/hr/plugins|/usr/lib/hr/plugins|/srv/hr/plugins", "plugin path: ':' and spaces");
	free(s);
	hr_config_free(cfg);
	free(f);
}

static void test_warnings(void)
{
	char *f = fixture("warn.conf");
	struct hr_config *cfg = NULL;

	is_int(load("", f, &cfg), 0, "unknown keys and sections still load");
	logged("W", f, 3, "unknown key 'colour' in [cache]");
	logged("W", f, 6, "unknown key 'option' in [future]");
	ok(cfg && cfg->max_size == 2ull << 30, "the known key after them is applied");
	hr_config_free(cfg);
	free(f);
}

/* A root tree with the fixture's etc/ under this build's sysconfdir. */
static char *make_root(const char *tmp)
{
	static const char *const d_files[] = { "10-a.conf", "20-b.conf", "README", "30-c.conf.disabled" };
	char *root, *etc, *confd, *src;

	if (asprintf(&root, "%s/root", tmp) < 0 ||
	    asprintf(&etc, "%s%s", root, HR_SYSCONFDIR) < 0 ||
	    asprintf(&confd, "%s/hanzo-rocm.conf.d", etc) < 0 ||
	    hr_mkdir_p(confd, 0755) < 0)
		abort();
	src = fixture("root-a/etc/hanzo-rocm.conf");
	copy_file(src, etc, "hanzo-rocm.conf");
	free(src);
	for (size_t i = 0; i < HR_ARRAY_SIZE(d_files); i++) {
		char *name;

		if (asprintf(&name, "root-a/etc/hanzo-rocm.conf.d/%s", d_files[i]) < 0)
			abort();
		src = fixture(name);
		copy_file(src, confd, d_files[i]);
		free(src);
		free(name);
	}
	free(etc);
	free(confd);
	return root;
}

static void test_root_and_conf_d(const char *tmp)
{
	char *root = make_root(tmp), *want, *rel;
	struct hr_config *cfg = NULL;

	if (asprintf(&rel, "%s//", root) < 0)
		abort();
	is_int(load(rel, NULL, &cfg), 0, "root tree with conf.d loads");
	free(rel);
	if (!cfg) {
		skip(10, "no configuration");
		free(root);
		return;
	}
	is_str(cfg->root, root, "root normalised (no trailing slashes)");
	is_int(hr_strv_len(cfg->files), 3, "main + 2 conf.d files read (README, *.disabled ignored)");
	if (hr_strv_len(cfg->files) == 3) {
		ok(strstr(cfg->files[1], "/10-a.conf") != NULL, "10-a.conf read first");
		ok(strstr(cfg->files[2], "/20-b.conf") != NULL, "20-b.conf read last");
	} else {
		skip(2, "files");
	}
	is_int(cfg->max_size, 4ull << 30, "later file wins (20-b.conf: 4G)");
	is_int(cfg->policy, HR_POLICY_OFF, "10-a.conf overrides the main file");
	if (asprintf(&want, "%s/srv/hr-site", root) < 0)
		abort();
	ok(cfg->site_dirs[0] && strcmp(cfg->site_dirs[0], want) == 0, "site_dirs prefixed with root");
	free(want);
	if (asprintf(&want, "%s%s", root, HR_CACHEDIR) < 0)
		abort();
	is_str(cfg->system_dir, want, "default system_dir prefixed with root");
	free(want);
	if (asprintf(&want, "%s/opt/hr/plugins", root) < 0)
		abort();
	is_str(cfg->plugin_path[0], want, "plugin path from the file prefixed with root");
	free(want);
	is_str(cfg->extra[0], "gfx90a", "extra from the main file kept");
	hr_config_free(cfg);

	/* The environment names the root and a plugin path, which stays as is. */
	setenv("HANZO_ROCM_ROOT", root, 1);
	setenv("HANZO_ROCM_PLUGIN_PATH", "/env/a::/env/b", 1);
	setenv("HANZO_ROCM_CACHE_DIR", "/env/cache", 1);
	is_int(load(NULL, NULL, &cfg), 0, "HANZO_ROCM_ROOT is used when no root is given");
	if (cfg) {
		is_str(cfg->root, root, "root from HANZO_ROCM_ROOT");
		want = hr_strv_join(cfg->plugin_path, ":");
		is_str(want, "/env/a:/env/b", "HANZO_ROCM_PLUGIN_PATH beats the file, not prefixed");
		free(want);
		is_str(cfg->user_dir, "/env/cache", "HANZO_ROCM_CACHE_DIR, not prefixed");
	} else {
		skip(3, "no configuration");
	}
	hr_config_free(cfg);
	unsetenv("HANZO_ROCM_ROOT");
	unsetenv("HANZO_ROCM_PLUGIN_PATH");
	unsetenv("HANZO_ROCM_CACHE_DIR");
	free(root);
}

static void test_defaults_and_missing(const char *tmp)
{
	struct hr_config *cfg = NULL;
	char *want, *missing;

	setenv("HOME", "/home/tester", 1);
	setenv("XDG_CACHE_HOME", "relative/ignored", 1);
	is_int(load(tmp, NULL, &cfg), 0, "no file at all: defaults");
	if (cfg) {
		is_int(hr_strv_len(cfg->files), 0, "no files read");
		is_int(cfg->max_size, 1ull << 30, "max_size 1G");
		is_int(cfg->policy, HR_POLICY_READWRITE, "policy readwrite");
		is_int(cfg->compile, HR_COMPILE_AUTO, "compile auto");
		is_str(cfg->hipcc, "hipcc", "hipcc");
		is_str(cfg->flags[0], "-O3", "flags -O3");
		want = hr_strv_join(cfg->default_targets, " ");
		is_str(want, HR_DEFAULT_TARGETS, "default targets");
		free(want);
		is_str(cfg->user_dir, "/home/tester/.cache/hanzo-rocm", "user_dir from HOME (relative XDG ignored)");
		if (asprintf(&want, "%s%s", tmp, HR_PLUGINDIR) < 0)
			abort();
		is_str(cfg->plugin_path[0], want, "default plugin dir under root");
		free(want);
		ok(cfg->override == NULL && cfg->n_map == 0 && !cfg->env_arch && !cfg->env_targets,
		   "no override, map or environment targets");
	} else {
		skip(10, "no configuration");
	}
	hr_config_free(cfg);

	setenv("XDG_CACHE_HOME", "/xdg", 1);
	load(tmp, NULL, &cfg);
	is_str(cfg ? cfg->user_dir : NULL, "/xdg/hanzo-rocm", "absolute XDG_CACHE_HOME is used");
	hr_config_free(cfg);
	unsetenv("XDG_CACHE_HOME");

	if (asprintf(&missing, "%s/nope.conf", tmp) < 0)
		abort();
	is_int(load("", missing, &cfg), -ENOENT, "an explicit missing file is -ENOENT");
	ok(strstr(logbuf, missing) != NULL, "and the error names it");
	setenv("HANZO_ROCM_CONF", missing, 1);
	is_int(load("", NULL, &cfg), -ENOENT, "a missing $HANZO_ROCM_CONF is -ENOENT");
	unsetenv("HANZO_ROCM_CONF");
	free(missing);

	/* A directory where the file should be: "FILE: message". */
	if (asprintf(&missing, "%s/dir.conf", tmp) < 0 || mkdir(missing, 0755) < 0)
		abort();
	logbuf[0] = '\0';
	is_int(hr_config_check_file(ctx, missing), -EINVAL, "an unreadable file is an error");
	if (asprintf(&want, "E %s: not a regular file", missing) < 0)
		abort();
	ok(strstr(logbuf, want) != NULL, "reported as FILE: message");
	free(want);
	rmdir(missing);
	free(missing);
}

static void test_env(const char *tmp)
{
	struct hr_config *cfg = NULL;
	char *s;

	setenv("CANDLE_ROCM_ARCH", "gfx1030", 1);
	setenv("HANZO_ROCM_TARGETS", "gfx90a, gfx942 sm_90", 1);
	setenv("CANDLE_ROCM_VERSION", "6.1", 1);
	setenv("HSA_OVERRIDE_GFX_VERSION", "10.3.0", 1);
	is_int(load(tmp, NULL, &cfg), 0, "environment loads");
	if (cfg) {
		is_str(cfg->env_arch, "gfx1030", "CANDLE_ROCM_ARCH alias");
		s = hr_strv_join(cfg->env_targets, " ");
		is_str(s, "gfx90a gfx942 sm_90", "HANZO_ROCM_TARGETS, commas and spaces");
		free(s);
		is_str(cfg->version_label, "6.1", "CANDLE_ROCM_VERSION alias");
		is_str(cfg->hsa_override, "10.3.0", "HSA_OVERRIDE_GFX_VERSION kept for target.c");
	} else {
		skip(4, "no configuration");
	}
	hr_config_free(cfg);

	setenv("HANZO_ROCM_ARCH", "gfx1100", 1);
	load(tmp, NULL, &cfg);
	is_str(cfg ? cfg->env_arch : NULL, "gfx1100", "HANZO_ROCM_ARCH beats its alias");
	hr_config_free(cfg);

	setenv("HANZO_ROCM_ARCH", "radeon", 1);
	is_int(load(tmp, NULL, &cfg), -EINVAL, "a bad HANZO_ROCM_ARCH is an error");
	ok(strstr(logbuf, "HANZO_ROCM_ARCH: invalid value 'radeon'") != NULL, "naming the variable and value");
	unsetenv("HANZO_ROCM_ARCH");
	unsetenv("CANDLE_ROCM_ARCH");

	setenv("HANZO_ROCM_TARGETS", "gfx90a,bogus", 1);
	is_int(load(tmp, NULL, &cfg), -EINVAL, "a bad HANZO_ROCM_TARGETS is an error");
	ok(strstr(logbuf, "HANZO_ROCM_TARGETS: invalid value 'bogus'") != NULL, "naming the bad target");
	unsetenv("HANZO_ROCM_TARGETS");
	unsetenv("CANDLE_ROCM_VERSION");
	unsetenv("HSA_OVERRIDE_GFX_VERSION");
}

/* The library's own reading: a bad setting warns and is left out. */
static void test_context(void)
{
	char *f = fixture("bad-size.conf");
	struct hanzo_rocm_options o = { .size = sizeof(o), .config = f, .log_fn = capture,
	                                .log_priority = LOG_WARNING };
	struct hanzo_rocm *c = NULL;

	logbuf[0] = '\0';
	is_int(hanzo_rocm_new_with_options(&o, &c), 0,
	       "hanzo_rocm_new succeeds despite a bad value in the configuration");
	logged("W", f, 7, "invalid value 'lots' for max_size");
	ok(strstr(logbuf, "W 1 bad setting left out of the configuration") != NULL,
	   "and says it was left out");
	if (c && hr_tools_config(c))
		is_int(hr_tools_config(c)->max_size, (long long)(UINT64_C(1) << 30),
		       "max_size keeps its default");
	else
		skip(1, "no context");
	hanzo_rocm_unref(c);

	/* Silent application logger: its threshold is obeyed. */
	o.log_priority = LOG_ERR;
	logbuf[0] = '\0';
	is_int(hanzo_rocm_new_with_options(&o, &c), 0, "silent logger: created");
	is_str(logbuf, "", "and the application's threshold is obeyed");
	hanzo_rocm_unref(c);
	free(f);
}

/*
 * No log function of the application's (the default logger) and no log
 * level: the administrator's warning still reaches standard error.
 */
static void test_lenient(const char *tmp)
{
	char *f = fixture("bad-many.conf"), *errf = NULL, *text = NULL;
	struct hanzo_rocm_options o = { .size = sizeof(o), .config = f };
	size_t n = 0;
	int st = 0;
	pid_t pid;

	if (asprintf(&errf, "%s/stderr", tmp) < 0)
		abort();
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct hanzo_rocm *c = NULL;
		int fd = open(errf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

		unsetenv("HANZO_ROCM_LOG");
		setenv("HANZO_ROCM_ARCH", "radeon", 1);
		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(3);
		_exit(hanzo_rocm_new_with_options(&o, &c) == 0 && c &&
		      hr_tools_config(c) && !hr_tools_config(c)->env_arch &&
		      hr_tools_config(c)->policy == HR_POLICY_READWRITE ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	   "default logger: created; bad policy and HANZO_ROCM_ARCH left out");
	if (hr_read_file(errf, 1 << 20, (void **)&text, &n) == 0) {
		char want[4200];

		text = realloc(text, n + 1);
		if (!text)
			abort();
		text[n] = '\0';
		snprintf(want, sizeof(want), "hanzo-rocm: warning: %s:8: invalid value 'sometimes' for policy", f);
		ok(strstr(text, want) != NULL, "the warning is on stderr with FILE:LINE");
		ok(strstr(text, "hanzo-rocm: warning: HANZO_ROCM_ARCH: invalid value 'radeon'") != NULL,
		   "an environment variable's too");
		snprintf(want, sizeof(want), "%s:22: syntax error", f);
		ok(strstr(text, want) != NULL, "and the last syntax error");
		if (!ok(strstr(text, "13 bad settings left out") != NULL, "with a summary"))
			diag("stderr was:\n%s", text);
	} else {
		skip(4, "no stderr captured");
	}
	free(text);
	free(errf);
	free(f);
}

/*
 * Well-formed targets whose processor lib/shared/targets.def does not know: an
 * error naming FILE:LINE (or the variable) for config check, a warning at
 * run time that leaves only that target out.
 */
static void test_unknown_targets(const char *tmp)
{
	char *f = fixture("unknown-target.conf"), *s;
	struct hanzo_rocm_options o = { .size = sizeof(o), .config = f, .log_fn = capture,
	                                .log_priority = LOG_WARNING };
	struct hanzo_rocm *c = NULL;
	struct hr_config *cfg = NULL;

	is_int(load("", f, &cfg), -EINVAL, "unknown processors: config check fails");
	logged("E", f, 4, "unknown processor 'gfx9999' for override, left out");
	logged("E", f, 5, "unknown processor 'gfx7777' for map, left out");
	logged("E", f, 6, "unknown processor 'gfx9999' for extra, left out");
	logged("E", f, 7, "unknown processor 'gfx9999:xnack+' for default, left out");
	is_int(count("E "), 4, "four errors, nothing else");
	hr_config_free(cfg);

	logbuf[0] = '\0';
	is_int(hanzo_rocm_new_with_options(&o, &c), 0, "run time: the context is created");
	logged("W", f, 6, "unknown processor 'gfx9999' for extra, left out");
	if (c && hr_tools_config(c)) {
		const struct hr_config *k = hr_tools_config(c);

		ok(k->override == NULL, "override left out");
		s = hr_strv_join(k->extra, " ");
		is_str(s, "gfx90a sm_90", "extra keeps its known targets");
		free(s);
		s = hr_strv_join(k->default_targets, " ");
		is_str(s, "gfx1030", "default keeps its known targets");
		free(s);
		ok(k->n_map == 2 && strcmp(k->map[0].to, "gfx1030") == 0 &&
		   strcmp(k->map[1].from, "gfx9998") == 0 && strcmp(k->map[1].to, "gfx90a") == 0,
		   "map keeps its pairs to known targets (an unknown FROM is what a map is for)");
	} else {
		skip(4, "no context");
	}
	hanzo_rocm_unref(c);
	c = NULL;

	setenv("HANZO_ROCM_TARGETS", "gfx90a gfx9999,sm_90", 1);
	is_int(load(tmp, NULL, &cfg), -EINVAL, "HANZO_ROCM_TARGETS with an unknown processor: config check fails");
	ok(strstr(logbuf, "E HANZO_ROCM_TARGETS: unknown processor 'gfx9999', left out") != NULL,
	   "naming the variable and the target");
	hr_config_free(cfg);
	setenv("HANZO_ROCM_ARCH", "gfx9999", 1);
	is_int(load(tmp, NULL, &cfg), -EINVAL, "HANZO_ROCM_ARCH=gfx9999: config check fails");
	ok(strstr(logbuf, "E HANZO_ROCM_ARCH: unknown processor 'gfx9999'") != NULL,
	   "naming the variable");
	hr_config_free(cfg);
	unsetenv("HANZO_ROCM_ARCH");

	o.config = "/dev/null";
	logbuf[0] = '\0';
	is_int(hanzo_rocm_new_with_options(&o, &c), 0, "run time with HANZO_ROCM_TARGETS=gfx90a gfx9999,sm_90");
	ok(strstr(logbuf, "W HANZO_ROCM_TARGETS: unknown processor 'gfx9999', left out") != NULL,
	   "warns naming the variable");
	s = c && hr_tools_config(c) ? hr_strv_join(hr_tools_config(c)->env_targets, " ") : NULL;
	is_str(s, "gfx90a sm_90", "and keeps the known targets");
	free(s);
	hanzo_rocm_unref(c);
	unsetenv("HANZO_ROCM_TARGETS");
	free(f);
}

/* Plugin paths compose (doc/DESIGN.md §6): '+' keeps the default directory;
 * options.plugin_path beats the variable, which beats the files. */
static void test_plugin_path(const char *tmp)
{
	char *conf, *s;
	struct hr_config *cfg = NULL;
	struct hanzo_rocm *c = NULL;
	struct hanzo_rocm_options o = { .size = sizeof(o), .config = "/dev/null" };
	FILE *f;

	if (asprintf(&conf, "%s/pp.conf", tmp) < 0 || !(f = fopen(conf, "w")))
		abort();
	fputs("[plugins]\npath = +/opt/a /opt/b\n", f);
	fclose(f);
	is_int(load("", conf, &cfg), 0, "[plugins] path = +/opt/a /opt/b loads");
	s = cfg ? hr_strv_join(cfg->plugin_path, ":") : NULL;
	is_str(s, "/opt/a:/opt/b:" HR_PLUGINDIR, "'+' in the file keeps the default directory last");
	free(s);
	hr_config_free(cfg);

	setenv("HANZO_ROCM_PLUGIN_PATH", "+/env/a", 1);
	is_int(load("", conf, &cfg), 0, "HANZO_ROCM_PLUGIN_PATH=+/env/a loads");
	s = cfg ? hr_strv_join(cfg->plugin_path, ":") : NULL;
	is_str(s, "/env/a:" HR_PLUGINDIR, "'+' in the variable: it, then the default");
	free(s);
	hr_config_free(cfg);
	setenv("HANZO_ROCM_PLUGIN_PATH", "/env/a", 1);
	is_int(load("", conf, &cfg), 0, "HANZO_ROCM_PLUGIN_PATH=/env/a loads");
	s = cfg ? hr_strv_join(cfg->plugin_path, ":") : NULL;
	is_str(s, "/env/a", "without '+' the variable replaces the default");
	free(s);
	hr_config_free(cfg);
	setenv("HANZO_ROCM_PLUGIN_PATH", "+", 1);
	is_int(load("", conf, &cfg), 0, "HANZO_ROCM_PLUGIN_PATH=+ loads");
	s = cfg ? hr_strv_join(cfg->plugin_path, ":") : NULL;
	is_str(s, HR_PLUGINDIR, "'+' alone: the default directory only");
	free(s);
	hr_config_free(cfg);

	setenv("HANZO_ROCM_PLUGIN_PATH", "/env/a", 1);
	o.plugin_path = "+/opt/app:/opt/app2";
	is_int(hanzo_rocm_new_with_options(&o, &c), 0, "options.plugin_path: created");
	s = c ? hr_strv_join(hr_tools_config(c)->plugin_path, ":") : NULL;
	is_str(s, "/opt/app:/opt/app2:" HR_PLUGINDIR, "options.plugin_path beats the variable, '+' keeps the default");
	free(s);
	hanzo_rocm_unref(c);
	c = NULL;
	o.plugin_path = "relative/dir";
	is_int(hanzo_rocm_new_with_options(&o, &c), -EINVAL, "options.plugin_path with a relative directory is -EINVAL");
	unsetenv("HANZO_ROCM_PLUGIN_PATH");
	free(conf);
}

int main(void)
{
	char tmp[] = "/tmp/hr-config.XXXXXX";

	if (!mkdtemp(tmp))
		abort();
	make_ctx();
	test_bad_files();
	test_good_file();
	test_warnings();
	test_root_and_conf_d(tmp);
	test_defaults_and_missing(tmp);
	test_env(tmp);
	test_context();
	test_lenient(tmp);
	test_unknown_targets(tmp);
	test_plugin_path(tmp);
	hanzo_rocm_unref(ctx);
	{
		char cmd[64];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
		if (system(cmd) != 0)
			diag("could not remove %s", tmp);
	}
	return done_testing();
}
