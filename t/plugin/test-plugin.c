/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The plugin index and lazy loading: with a fresh index a family is answered
 * without dlopen, only the family asked for gets mapped (observed in
 * /proc/self/maps), a stale or tampered index is never believed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "context.h"
#include "plugin/plugin.h"
#include "shared/util.h"
#include "../tap.h"

static char scratch[] = "/tmp/hanzo-rocm-test-plugin.XXXXXX";
static char good[512], cache[512], root[512];

static int copy_file(const char *from, const char *to)
{
	void *data;
	size_t size;
	int r, fd;

	r = hr_read_file(from, 64u << 20, &data, &size);
	if (r < 0)
		return r;
	fd = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size || fchmod(fd, 0644) < 0)
		r = -errno;
	if (fd >= 0)
		close(fd);
	free(data);
	return r;
}

static int install_fixture(const char *name)
{
	char from[1024], to[1024];
	const char *top = getenv("top_builddir");

	snprintf(from, sizeof(from), "%s/t/fixtures/plugins/.libs/%s.so", top ? top : ".", name);
	snprintf(to, sizeof(to), "%s/%s.so", good, name);
	return copy_file(from, to);
}

/* Is a file of ours mapped into this process? */
static bool mapped(const char *name)
{
	char path[1024], line[4096];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.so", good, name);
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, path) != NULL;
	fclose(f);
	return found;
}

static struct hanzo_rocm *new_ctx(void)
{
	struct hanzo_rocm *ctx = NULL;
	int r = hanzo_rocm_new(&ctx);

	if (r < 0) {
		diag("hanzo_rocm_new: %s", hanzo_rocm_strerror(r));
		exit(99);
	}
	return ctx;
}

/* In a child, so the parent never maps what the index writer dlopens. */
static int write_index_in_child(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		struct hanzo_rocm *ctx = new_ctx();
		int r = hr_plugins_write_index(ctx, cache);

		hanzo_rocm_unref(ctx);
		_exit(r < 0 ? 1 : 0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* Replace the first occurrence of from by to in the index (same length). */
static int tamper_index(const char *from, const char *to)
{
	char path[1024];
	char *hit;
	void *data;
	size_t size;
	int r;

	snprintf(path, sizeof(path), "%s/plugins.index", cache);
	r = hr_read_file(path, 1 << 20, &data, &size);
	if (r < 0)
		return r;
	hit = memmem(data, size, from, strlen(from));
	if (hit && strlen(from) == strlen(to))
		memcpy(hit, to, strlen(to));
	r = hit ? hr_write_atomic(cache, "plugins.index", data, size, 0644) : -ENOENT;
	free(data);
	return r;
}

int main(void)
{
	const struct hanzo_rocm_plugin *desc = NULL;
	struct hr_family *fam = NULL, *fam2 = NULL;
	struct hr_plugin_status *st = NULL;
	struct hanzo_rocm *ctx;
	uint8_t sha_index[32];
	char **names = NULL;
	size_t n = 0;
	int r;

	if (!mkdtemp(scratch))
		skip_all("cannot create a scratch directory");
	snprintf(good, sizeof(good), "%s/good", scratch);
	snprintf(cache, sizeof(cache), "%s/cache", scratch);
	snprintf(root, sizeof(root), "%s/root", scratch);
	if (mkdir(good, 0755) < 0 || mkdir(cache, 0700) < 0 || mkdir(root, 0755) < 0 ||
	    chmod(good, 0755) < 0 || install_fixture("alpha") < 0 || install_fixture("beta") < 0) {
		diag("cannot set up %s (fixtures built? top_builddir=%s)", scratch,
		     getenv("top_builddir"));
		return 99;
	}
	/* A private root: no real system index can interfere. */
	setenv("HANZO_ROCM_ROOT", root, 1);
	setenv("HANZO_ROCM_PLUGIN_PATH", good, 1);
	setenv("HANZO_ROCM_CACHE_DIR", cache, 1);

	/* Scanning reports both fixtures as usable. */
	ctx = new_ctx();
	r = hr_plugins_scan(ctx, &st, &n);
	is_int(r, 0, "scan succeeds");
	is_int(n, 2, "scan finds both plugins");
	ok(n == 2 && st[0].ok && st[1].ok && strcmp(st[0].family, "alpha") == 0 &&
	   strcmp(st[1].family, "beta") == 0, "alpha and beta are ok, in order");
	ok(n == 2 && st[1].abi == HANZO_ROCM_PLUGIN_ABI && strcmp(st[1].version, "2.1") == 0,
	   "status carries ABI and version");
	hr_plugin_status_free(st, n);
	hanzo_rocm_unref(ctx);

	/* Index written (by a child), then a fresh context uses it. */
	is_int(write_index_in_child(), 0, "hr_plugins_write_index succeeds");
	ok(!mapped("alpha") && !mapped("beta"), "no plugin mapped before the lookup");
	ctx = new_ctx();
	{
		char *path = NULL, *why = NULL;

		r = hr_plugins_index_state(ctx, &path, &why);
		ok(r == 0 && path && strstr(path, "/cache/plugins.index") && !why,
		   "hr_plugins_index_state reports the fresh index");
		free(path);
		free(why);
	}
	r = hr_plugins_family(ctx, "alpha", &fam);
	is_int(r, 0, "family alpha found");
	ok(fam && !fam->desc, "answered from the index, without dlopen");
	ok(!mapped("alpha") && !mapped("beta"), "nothing mapped after the index lookup");
	ok(fam && fam->kernels && fam->kernels[0] && strcmp(fam->kernels[0], "alpha_k") == 0 &&
	   fam->flags && fam->flags[0] && strcmp(fam->flags[0], "-DFIXTURE=1") == 0,
	   "kernel names and flags come from the index");
	r = hr_plugins_families(ctx, &names);
	ok(r == 0 && hr_strv_len(names) == 2 && strcmp(names[0], "alpha") == 0 &&
	   strcmp(names[1], "beta") == 0, "families listed from the index");
	hr_strv_free(names);
	is_int(hr_plugins_family(ctx, "gamma", &fam2), -ENOENT, "an unknown family is -ENOENT");
	ok(!mapped("beta"), "listing families maps nothing");
	r = fam ? hr_family_load(ctx, fam, &desc) : -1;
	is_int(r, 0, "hr_family_load(alpha) succeeds");
	ok(desc && strcmp(desc->family, "alpha") == 0 && desc->source_len > 0,
	   "the descriptor is alpha's");
	ok(mapped("alpha"), "alpha is mapped after loading it");
	ok(!mapped("beta"), "beta (never asked for) is not mapped");
	if (fam)
		memcpy(sha_index, fam->source_sha256, 32);
	hanzo_rocm_unref(ctx);

	/* The index must describe the plugin: a changed source hash is refused. */
	r = tamper_index("\talpha\t1.0\t1\t", "\talpha\t1.0\t1\t");
	if (r == 0) {
		char hex[65], bad[65];

		for (int i = 0; i < 32; i++)
			snprintf(hex + 2 * i, 3, "%02x", sha_index[i]);
		memcpy(bad, hex, sizeof(bad));
		bad[0] = bad[0] == '0' ? '1' : '0';
		r = tamper_index(hex, bad);
	}
	is_int(r, 0, "index tampered with (source hash of alpha)");
	ctx = new_ctx();
	r = hr_plugins_family(ctx, "alpha", &fam);
	ok(r == 0 && fam && !fam->desc, "the tampered index is still fresh by stat");
	is_int(fam ? hr_family_load(ctx, fam, &desc) : 0, -ESTALE,
	       "loading a plugin that does not match the index fails with -ESTALE");
	hanzo_rocm_unref(ctx);

	/* Stale index (a plugin touched): falls back to scanning, still works. */
	is_int(write_index_in_child(), 0, "index rewritten");
	{
		char p[1024];

		snprintf(p, sizeof(p), "%s/beta.so", good);
		r = utimensat(AT_FDCWD, p, NULL, 0);
	}
	is_int(r, 0, "beta.so touched");
	ctx = new_ctx();
	{
		char *path = NULL, *why = NULL;

		r = hr_plugins_index_state(ctx, &path, &why);
		ok(r == 0 && !path && why && strstr(why, "stale") && strstr(why, "beta.so changed"),
		   "hr_plugins_index_state says why the index is stale");
		if (why)
			diag("%s", why);
		free(path);
		free(why);
	}
	r = hr_plugins_family(ctx, "beta", &fam);
	ok(r == 0 && fam && fam->desc, "a stale index falls back to a scan (descriptor loaded)");
	ok(fam && memcmp(fam->source_sha256, sha_index, 32) != 0,
	   "beta's hash differs from alpha's");
	r = fam ? hr_family_load(ctx, fam, &desc) : -1;
	ok(r == 0 && desc && strcmp(desc->family, "beta") == 0, "beta loads after the scan");
	hanzo_rocm_unref(ctx);

	/* A *.so added since the index was written makes it stale. */
	is_int(write_index_in_child(), 0, "index rewritten");
	{
		char p[1024];
		int fd;

		snprintf(p, sizeof(p), "%s/new.so", good);
		fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		r = fd >= 0 && write(fd, "junk\n", 5) == 5 ? 0 : -1;
		if (fd >= 0)
			close(fd);
		ctx = new_ctx();
		ok(r == 0 && hr_plugins_family(ctx, "alpha", &fam) == 0 && fam->desc,
		   "an added plugin file makes the index stale (scanned instead)");
		hanzo_rocm_unref(ctx);
		unlink(p);
	}

	/* An index that gives a file another family than its name (an older
	 * index, or a forged one) is not believed: alpha.so is alpha's. */
	is_int(write_index_in_child(), 0, "index rewritten");
	r = tamper_index("\talpha\t", "\tzzzzz\t");
	ctx = new_ctx();
	ok(r == 0 && hr_plugins_family(ctx, "zzzzz", &fam) == -ENOENT &&
	   hr_plugins_family(ctx, "alpha", &fam) == 0,
	   "an index naming alpha.so's family zzzzz is ignored (scanned instead)");
	hanzo_rocm_unref(ctx);

	/* An index others can write is not believed. */
	is_int(write_index_in_child(), 0, "index rewritten");
	{
		char p[1024];

		snprintf(p, sizeof(p), "%s/plugins.index", cache);
		r = chmod(p, 0666);
		ctx = new_ctx();
		ok(r == 0 && hr_plugins_family(ctx, "alpha", &fam) == 0 && fam->desc,
		   "a world-writable index is ignored (scanned instead)");
		hanzo_rocm_unref(ctx);
	}

	/* Garbage in the index: ignored, never trusted. */
	{
		static const char junk[] = "hanzo-rocm-plugin-index\t1\nplugin\t/etc/passwd\n";

		r = hr_write_atomic(cache, "plugins.index", junk, sizeof(junk) - 1, 0644);
	}
	ctx = new_ctx();
	r = hr_plugins_family(ctx, "alpha", &fam);
	ok(r == 0 && fam && fam->desc, "a malformed index is ignored (scanned instead)");
	hanzo_rocm_unref(ctx);

	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
		if (system(cmd) != 0)
			diag("could not remove %s", scratch);
	}
	return done_testing();
}
