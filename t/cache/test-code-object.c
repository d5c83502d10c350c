/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hr_code_object_find / hanzo_rocm_code_object with the "alpha" fixture
 * plugin: memory tier, tier order, exact then generic target, stale and
 * corrupt entries (quarantined only where we may write), compile = never's
 * error, compile on a miss published to the user tier, an unwritable user
 * tier (one warning, bytes still returned).
 */
#include <errno.h>
#include <stdint.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

#include "cache/cache.h"
#include "kernel/kernel.h"
#include "config/config.h"
#include "hanzo-rocm-tools.h"
#include "context.h"
#include "plugin/plugin.h"
#include "elf-fixture.h"
#include "../tap.h"
#include "shared/util.h"

static char scratch[] = "/tmp/hr-test-co.XXXXXX";
static char plugins[256], root[256], user[256], sys_dir[300];
static char logbuf[65536];
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static void *co90;
static size_t n90;

__attribute__((format(printf, 6, 0)))
static void capture(void *data, int prio, const char *file, int line,
                    const char *fn, const char *fmt, va_list ap)
{
	size_t l;

	(void)data;
	(void)file;
	(void)line;
	(void)fn;
	pthread_mutex_lock(&log_lock);
	l = strlen(logbuf);
	if (prio <= LOG_INFO && l + 2 < sizeof(logbuf)) {
		l += (size_t)snprintf(logbuf + l, sizeof(logbuf) - l, "%s: ",
		                      prio == LOG_WARNING ? "warning" :
		                      prio == LOG_INFO ? "info" : "error");
		if (l < sizeof(logbuf))
			vsnprintf(logbuf + l, sizeof(logbuf) - l, fmt, ap);
	}
	pthread_mutex_unlock(&log_lock);
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static struct hanzo_rocm *new_ctx_with(const char *compile, const char *extra)
{
	struct hanzo_rocm_options o = { .size = sizeof(o), .log_fn = capture,
	                                 .log_priority = LOG_INFO };
	struct hanzo_rocm *ctx = NULL;
	char conf[300];
	FILE *f;

	snprintf(conf, sizeof(conf), "%s/hanzo-rocm.conf", root);
	f = fopen(conf, "w");
	if (!f)
		return NULL;
	fprintf(f, "[cache]\nsystem_dir = /sys\ncompile = %s\n%s", compile, extra);
	fclose(f);
	o.root = root;
	o.config = conf;
	logbuf[0] = '\0';
	return hanzo_rocm_new_with_options(&o, &ctx) < 0 ? NULL : ctx;
}

static struct hanzo_rocm *new_ctx(const char *compile)
{
	return new_ctx_with(compile, "");
}

static int copy(const char *from, const char *to)
{
	void *d;
	size_t n;
	int r = hr_read_file(from, 1 << 26, &d, &n);
	char *dir, *slash;

	if (r < 0)
		return r;
	dir = strdup(to);
	slash = strrchr(dir, '/');
	*slash = '\0';
	r = hr_write_atomic(dir, slash + 1, d, n, 0644);
	free(dir);
	free(d);
	return r;
}

/* 1000 bytes of garbage where an entry should be. */
static void put_garbage(const char *path)
{
	char buf[1000], *dir = strdup(path), *slash = strrchr(dir, '/');

	memset(buf, 'x', sizeof(buf));
	*slash = '\0';
	if (hr_mkdir_p(dir, 0755) < 0 || hr_write_atomic(dir, slash + 1, buf, sizeof(buf), 0644) < 0)
		diag("cannot write %s", path);
	free(dir);
}

static int key_for(struct hanzo_rocm *ctx, const char *target, struct hr_cache_key *key)
{
	struct hr_family *fam;
	int r = hr_plugins_family(ctx, "alpha", &fam);

	if (r == 0)
		hr_cache_key_compute(fam->family, fam->source_sha256,
		                     (const char *const *)fam->flags,
		                     hr_tools_config(ctx)->flags, target, key);
	return r;
}

static void setup(void)
{
	FILE *p = popen("sh \"$top_srcdir/t/cache/fixtures.sh\"", "r");
	char dir[4096], from[4200], to[300];

	if (!p || !fgets(dir, sizeof(dir), p) || pclose(p) != 0)
		skip_all("no hipcc to build test code objects");
	dir[strcspn(dir, "\n")] = '\0';
	snprintf(from, sizeof(from), "%s/k-gfx90a.co", dir);
	if (hr_read_file(from, 1 << 26, &co90, &n90) < 0 || !mkdtemp(scratch))
		skip_all("no fixtures");
	chmod(scratch, 0755);
	snprintf(plugins, sizeof(plugins), "%s/plugins", scratch);
	snprintf(root, sizeof(root), "%s/root", scratch);
	snprintf(user, sizeof(user), "%s/user", scratch);
	snprintf(sys_dir, sizeof(sys_dir), "%s/sys", root);
	mkdir(plugins, 0755);
	mkdir(root, 0755);
	snprintf(from, sizeof(from), "%s/t/fixtures/plugins/.libs/alpha.so",
	         getenv("top_builddir"));
	snprintf(to, sizeof(to), "%s/alpha.so", plugins);
	if (copy(from, to) < 0)
		skip_all("fixture plugin alpha not built");
	setenv("HANZO_ROCM_PLUGIN_PATH", plugins, 1);
	setenv("HANZO_ROCM_CACHE_DIR", user, 1);
}

static void test_lookup(void)
{
	struct hanzo_rocm *ctx = new_ctx("never");
	struct hr_cache_key key, bad_key;
	const void *d = NULL, *d2 = NULL;
	size_t n = 0;
	enum hr_tier from = HR_TIER_MEMORY;
	char path[400];
	struct stat st;

	if (!ctx || key_for(ctx, "gfx90a", &key) < 0) {
		ok(0, "context and family alpha");
		diag("log: %s", logbuf);
		return;
	}
	is_int(hr_code_object_find(ctx, "../x", "gfx90a", 0, &d, &n, &from), -EINVAL, "unsafe family refused");
	is_int(hr_code_object_find(ctx, "alpha", "gfx90a/..", 0, &d, &n, &from), -EINVAL, "bad target refused");
	is_int(hr_code_object_find(ctx, "gamma", "gfx90a", 0, &d, &n, &from), -ENOENT, "unknown family");
	logbuf[0] = '\0';
	is_int(hanzo_rocm_code_object(ctx, "alpha", "gfx90a", &d, &n), -ENOENT,
	       "compile = never, nothing cached: -ENOENT");
	ok(strstr(logbuf, "no code object for alpha on gfx90a in any cache tier (searched: ") &&
	   strstr(logbuf, sys_dir) && strstr(logbuf, user) &&
	   strstr(logbuf, "build it with: hanzo-rocm precompile --target gfx90a --family alpha"),
	   "the error names the tiers searched and the command to fix it");

	is_int(hr_entry_write(ctx, sys_dir, "alpha", "gfx90a", &key, "test", co90, n90), 0,
	       "entry placed in the system tier");
	is_int(hr_code_object_find(ctx, "alpha", "gfx90a", 0, &d, &n, &from), 0, "found");
	ok(from == HR_TIER_SYSTEM && n == n90 && memcmp(d, co90, n) == 0, "from the system tier, same bytes");
	is_int(hr_code_object_find(ctx, "alpha", "gfx90a", 0, &d2, &n, &from), 0, "found again");
	ok(d2 == d, "second lookup served from the memory tier (same pointer)");
	is_int(hr_code_object_find(ctx, "alpha", "gfx90a:xnack+", 0, &d2, &n, &from), 0,
	       "gfx90a:xnack+ served by the generic gfx90a entry");
	is_int(hr_code_object_find(ctx, "alpha", "gfx90a", 1u << HR_TIER_SYSTEM, &d2, &n, &from),
	       -ENOENT, "skipping the system tier: nothing else has it");

	/* A stale key and a corrupt file in the read-only system tier: misses, untouched. */
	memset(&bad_key, 0x5a, sizeof(bad_key));
	hr_entry_write(ctx, sys_dir, "alpha", "gfx908", &bad_key, "test", co90, n90);
	snprintf(path, sizeof(path), "%s/gfx90a", sys_dir);
	logbuf[0] = '\0';
	is_int(hr_code_object_find(ctx, "alpha", "gfx908", 0, &d2, &n, &from), -ENOENT,
	       "stale entry is a miss");
	ok(!strstr(logbuf, "warning"), "a stale entry is not worth a warning");
	snprintf(path, sizeof(path), "%s/gfx906/alpha.hrco", sys_dir);
	put_garbage(path);
	logbuf[0] = '\0';
	hr_code_object_find(ctx, "alpha", "gfx906", 0, &d2, &n, &from);
	is_int(hr_code_object_find(ctx, "alpha", "gfx906", 0, &d2, &n, &from), -ENOENT,
	       "corrupt system entry is a miss");
	is_int(count(logbuf, "warning: ignoring cache entry"), 1, "logged once for two lookups");
	ok(strstr(logbuf, path) != NULL, "the warning names the file");
	ok(stat(path, &st) == 0 && st.st_size == 1000, "read-only tier left as it was");

	/* The same in the user tier: moved aside. */
	snprintf(path, sizeof(path), "%s/gfx906/alpha.hrco", user);
	put_garbage(path);
	hr_code_object_find(ctx, "alpha", "gfx906", 0, &d2, &n, &from);
	snprintf(path + strlen(path), sizeof(path) - strlen(path), ".bad-%ld", (long)getpid());
	ok(stat(path, &st) == 0, "corrupt user entry quarantined as .bad-PID");

	/* A valid user entry the driver refused, compile =
	 * never: moved aside, not loaded again by every process. */
	key_for(ctx, "gfx90a", &key);
	is_int(hr_entry_write(ctx, user, "alpha", "gfx90a", &key, "test", co90, n90), 0,
	       "a valid entry in the user tier");
	logbuf[0] = '\0';
	is_int(hr_code_object_find(ctx, "alpha", "gfx90a", 1u << HR_TIER_USER | 1u << HR_TIER_MEMORY,
	                           &d2, &n, &from), 0, "the driver refused it, compile = never: found");
	ok(from == HR_TIER_SYSTEM, "  ... in the system tier");
	snprintf(path, sizeof(path), "%s/gfx90a/alpha.hrco", user);
	ok(access(path, F_OK) < 0, "  ... the refused entry is gone from the user tier");
	snprintf(path + strlen(path), sizeof(path) - strlen(path), ".bad-%ld", (long)getpid());
	ok(stat(path, &st) == 0 && strstr(logbuf, "the driver refused it"),
	   "  ... quarantined as .bad-PID, with a warning");
	hanzo_rocm_unref(ctx);
}

/*
 * An entry whose payload is bad (what hr_entry_write refuses to publish):
 * published with a good payload of the same size, then the payload replaced
 * and both checksums recomputed - only the ELF check can refuse it.
 */
static int put_bad_entry(const char *dir, const char *target, const struct hr_cache_key *key,
                         const void *good, const void *bad, size_t size)
{
	char *path = hr_entry_path(dir, target, "alpha"), *slash;
	uint8_t *f = NULL;
	size_t n = 0;
	int r = hr_entry_write(NULL, dir, "alpha", target, key, "test", good, size);

	if (r == 0)
		r = hr_read_file(path, 1 << 27, (void **)&f, &n);
	if (r == 0 && n == 384 + size) {
		memcpy(f + 384, bad, size);
		hr_sha256(f + 384, size, f + 48);
		hr_sha256(f, 352, f + 352);
		slash = strrchr(path, '/');
		*slash = '\0';
		r = hr_write_atomic(path, slash + 1, f, n, 0600);
	} else if (r == 0) {
		r = -EIO;
	}
	free(f);
	free(path);
	return r;
}

/*
 * A code object whose segment lies past its bytes (a
 * truncated copy) faults inside the loader that maps it (SIGBUS in
 * dlopen; HIP and CUDA take no size).  In the user tier it is a miss,
 * logged and quarantined - for a GPU target and for a host one.
 */
static void test_extents(void)
{
	char from[600], path[600];
	void *so = NULL;
	size_t nso = 0;
	struct {
		const char *target;
		const void *obj;
		size_t n;
	} cases[2] = { { "gfx90a", co90, n90 }, { "host-w64", NULL, 0 } };

	snprintf(from, sizeof(from), "%s/t/fixtures/plugins/.libs/beta.so", getenv("top_builddir"));
	if (hr_read_file(from, 1 << 26, &so, &nso) == 0) {
		cases[1].obj = so;
		cases[1].n = nso;
	}
	for (int i = 0; i < 2; i++) {
		struct hanzo_rocm *ctx = new_ctx("never");
		struct hr_cache_key key;
		uint8_t *bad = cases[i].obj ? malloc(cases[i].n) : NULL;
		const void *d = NULL;
		enum hr_tier tfrom;
		struct stat st;
		size_t n = 0;

		if (!ctx || !bad || key_for(ctx, cases[i].target, &key) < 0) {
			ok(0, "%s: fixtures", cases[i].target);
			free(bad);
			hanzo_rocm_unref(ctx);
			continue;
		}
		memcpy(bad, cases[i].obj, cases[i].n);
		ok(stretch_segment(bad, cases[i].n) == 0 &&
		   put_bad_entry(user, cases[i].target, &key, cases[i].obj, bad, cases[i].n) == 0,
		   "%s: a user-tier entry whose segment ends past its bytes", cases[i].target);
		is_int(hr_code_object_find(ctx, "alpha", cases[i].target,
		                           (1u << HR_TIER_SYSTEM) | (1u << HR_TIER_SITE) |
		                           (1u << HR_TIER_PACKAGE), &d, &n, &tfrom),
		       -ENOENT, "%s: is a miss, never handed to a loader", cases[i].target);
		ok(strstr(logbuf, "ignoring cache entry") &&
		   strstr(logbuf, "extends past the end of the file"), "%s: logged with why",
		   cases[i].target);
		snprintf(path, sizeof(path), "%s/%s/alpha.hrco.bad-%ld", user, cases[i].target,
		         (long)getpid());
		ok(stat(path, &st) == 0, "%s: quarantined", cases[i].target);
		free(bad);
		hanzo_rocm_unref(ctx);
	}
	free(so);
}

struct result {
	int r;
	const void *d;
	size_t n;
};
static struct result results[4];
static int n_results, from_compiled;

static void *find_thread(void *ctx)
{
	struct result res = { 0 };
	enum hr_tier from = HR_TIER_MEMORY;

	res.r = hr_code_object_find(ctx, "alpha", "gfx1030", 0, &res.d, &res.n, &from);
	pthread_mutex_lock(&log_lock);
	results[n_results++] = res;
	from_compiled += from == HR_TIER_COMPILED;
	pthread_mutex_unlock(&log_lock);
	return NULL;
}

static void test_compile(void)
{
	pthread_t th[4];
	struct hanzo_rocm *ctx;
	struct hr_cache_key key;
	struct hr_entry e;
	const void *d = NULL;
	size_t n = 0;
	enum hr_tier from = HR_TIER_MEMORY;
	char path[400], blocked[300];

	if (!getenv("HIPCC") || !*getenv("HIPCC")) {
		skip(13, "no hipcc");
		return;
	}
	/* An old entry the publish will have to evict to stay under max_size. */
	memset(&key, 0, sizeof(key));
	hr_entry_write(NULL, user, "old", "gfx90a", &key, "test", co90, n90);
	snprintf(path, sizeof(path), "%s/gfx90a/old.hrco", user);
	utime(path, &(struct utimbuf){ 1000000000, 1000000000 });
	ctx = new_ctx_with("auto", "max_size = 1K\n");
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, find_thread, ctx);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	is_int(results[0].r, 0, "compiled on a miss");
	if (results[0].r != 0)
		diag("log: %s", logbuf);
	d = results[0].d;
	n = results[0].n;
	ok(results[1].r == 0 && results[2].r == 0 && results[3].r == 0 &&
	   results[1].d == d && results[2].d == d && results[3].d == d,
	   "4 threads missing at once all get the same bytes");
	is_int(count(logbuf, "info: compiling alpha for gfx1030"), 1, "compiled once");
	is_int(from_compiled, 4, "each reports the origin of the bytes: compiled");
	ok(n > 0, "bytes returned");
	snprintf(path, sizeof(path), "%s/gfx1030/alpha.hrco", user);
	key_for(ctx, "gfx1030", &key);
	is_int(hr_entry_read(ctx, path, &key, &e), 0, "published to the user tier with the key");
	ok(e.payload_size == n && memcmp(e.payload, d, n) == 0, "the same bytes");
	hr_entry_release(&e);
	snprintf(path, sizeof(path), "%s/gfx90a/old.hrco", user);
	ok(access(path, F_OK) < 0, "over max_size: the old entry was evicted, the new one kept");
	hanzo_rocm_unref(ctx);
	ctx = new_ctx("auto");
	hr_code_object_find(ctx, "alpha", "gfx1030", 0, &d, &n, &from);
	ok(from == HR_TIER_USER, "a new context finds it in the user tier");
	/* The runtime's retry when a driver refuses those bytes. */
	is_int(hr_code_object_find(ctx, "alpha", "gfx1030", 1u << HR_TIER_USER |
	                           1u << HR_TIER_MEMORY, &d, &n, &from), 0,
	       "user tier refused: found again");
	ok(from == HR_TIER_COMPILED, "by compiling, not from the refused tier");
	hanzo_rocm_unref(ctx);

	/* User tier under a regular file: cannot exist, so cannot be written. */
	snprintf(blocked, sizeof(blocked), "%s/file", scratch);
	put_garbage(blocked);
	snprintf(path, sizeof(path), "%s/file/cache", scratch);
	setenv("HANZO_ROCM_CACHE_DIR", path, 1);
	ctx = new_ctx("auto");
	is_int(hr_code_object_find(ctx, "alpha", "gfx1030", 0, &d, &n, &from), 0,
	       "unwritable user tier: still compiles and returns the bytes");
	is_int(count(logbuf, "compiled code objects are not cached"), 1,
	       "with exactly one warning");
	hanzo_rocm_unref(ctx);
	setenv("HANZO_ROCM_CACHE_DIR", user, 1);
}

/*
 * A shared tier (or its target directory, or an entry) that
 * someone else can write is never used, with a warning naming the path; a
 * symlinked target directory is never read through, in any tier.
 */
static struct hanzo_rocm *site_ctx(void)
{
	return new_ctx_with("never", "site_dirs = /site\n");
}

static int site_lookup(const char *target, enum hr_tier *from)
{
	struct hanzo_rocm *ctx = site_ctx();
	const void *d = NULL;
	size_t n = 0;
	int r;

	if (!ctx)
		return -EFAULT;
	r = hr_code_object_find(ctx, "alpha", target, 1u << HR_TIER_SYSTEM, &d, &n, from);
	hanzo_rocm_unref(ctx);
	return r;
}

static void test_trust(void)
{
	struct hanzo_rocm *ctx = site_ctx();
	enum hr_tier from = HR_TIER_MEMORY;
	struct hr_cache_key key;
	char site[300], tdir[400], entry[420], link[400];

	snprintf(site, sizeof(site), "%s/site", root);
	snprintf(tdir, sizeof(tdir), "%s/gfx90a", site);
	snprintf(entry, sizeof(entry), "%s/alpha.hrco", tdir);
	if (!ctx || key_for(ctx, "gfx90a", &key) < 0 ||
	    hr_entry_write(ctx, site, "alpha", "gfx90a", &key, "test", co90, n90) < 0) {
		ok(0, "site entry written");
		return;
	}
	hanzo_rocm_unref(ctx);
	chmod(site, 0755);
	chmod(tdir, 0755);
	chmod(entry, 0644);
	ok(site_lookup("gfx90a", &from) == 0 && from == HR_TIER_SITE,
	   "a site tier owned by us, mode 0755, is served");

	chmod(site, 0777);
	is_int(site_lookup("gfx90a", &from), -ENOENT, "a world-writable site tier is not used");
	ok(strstr(logbuf, "site cache ") && strstr(logbuf, site) &&
	   strstr(logbuf, "is world-writable (mode 0777): not used"),
	   "the warning names the site directory and why");
	chmod(site, 01777);
	is_int(site_lookup("gfx90a", &from), -ENOENT, "a sticky world-writable site tier is not used either");
	chmod(site, 0755);

	/* nogroup: no member is root or us (we may chgrp to it as root only). */
	if (chown(tdir, (uid_t)-1, 65534) == 0) {
		chmod(tdir, 0775);
		is_int(site_lookup("gfx90a", &from), -ENOENT,
		       "a target directory writable by a shared group is not used");
		ok(strstr(logbuf, tdir) && strstr(logbuf, "group-writable") &&
		   strstr(logbuf, "fix: chmod g-w "), "the warning names it and the fix");
		chmod(tdir, 0755);
		ok(chown(tdir, (uid_t)-1, getegid()) == 0, "group given back");
	} else {
		skip(3, "not root: no shared group to give a directory to");
	}
	/*
	 * Whoever can rename an ancestor's entries can swap
	 * the tier.  A world-writable ancestor without the sticky bit (any
	 * user can test that one) and an ancestor owned by another user.
	 */
	chmod(root, 0777);
	is_int(site_lookup("gfx90a", &from), -ENOENT,
	       "a site tier under a world-writable directory is not used");
	ok(strstr(logbuf, site) && strstr(logbuf, "is under ") && strstr(logbuf, root) &&
	   strstr(logbuf, "world-writable without the sticky bit (mode 0777)"),
	   "the warning names the tier and the ancestor");
	chmod(root, 01777);
	ok(site_lookup("gfx90a", &from) == 0 && from == HR_TIER_SITE,
	   "under a sticky world-writable directory (as /tmp) it is served");
	chmod(root, 0755);
	if (geteuid() == 0 && chown(root, 65534, (gid_t)-1) == 0) {
		is_int(site_lookup("gfx90a", &from), -ENOENT,
		       "a site tier under another user's directory is not used");
		ok(strstr(logbuf, "owned by uid 65534") != NULL, "the warning says whose it is");
		ok(chown(root, 0, (gid_t)-1) == 0, "ownership given back");
	} else {
		skip(3, "not root: cannot give a directory to another user");
	}

	chmod(entry, 0666);
	is_int(site_lookup("gfx90a", &from), -ENOENT, "a world-writable site entry is not used");
	ok(strstr(logbuf, entry) && strstr(logbuf, "world-writable (mode 0666)"), "the warning names the entry");
	chmod(entry, 0644);

	/* The user tier: its gfx90a directory a symlink to the site's. */
	snprintf(link, sizeof(link), "%s/gfx90a", user);
	hr_mkdir_p(user, 0700);
	{
		char cmd[500];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", link);
		if (system(cmd) != 0)
			diag("cannot remove %s", link);
	}
	ok(symlink(tdir, link) == 0, "user gfx90a is a symlink");
	{
		struct hanzo_rocm *c2 = new_ctx("never");
		const void *d = NULL;
		size_t n = 0;

		is_int(c2 ? hr_code_object_find(c2, "alpha", "gfx90a",
		                                (1u << HR_TIER_SYSTEM) | (1u << HR_TIER_SITE),
		                                &d, &n, &from) : -EFAULT,
		       -ENOENT, "a symlinked user target directory is never read through");
		ok(strstr(logbuf, link) && strstr(logbuf, "is a symlink, not a directory"),
		   "the warning names the symlink");
		is_int(c2 ? hr_entry_write(c2, user, "alpha", "gfx90a", &key, "test", co90, n90) : 0,
		       -ELOOP, "nor written through");
		hanzo_rocm_unref(c2);
	}
	unlink(link);
}

/*
 * Check-then-swap (doc/RELIABILITY.md), run by t/cache/swap.sh with
 * t/swap-preload.so, which exchanges HR_TEST_SWAP_A and HR_TEST_SWAP_B
 * just before the first open of an entry: the site tier's checked target
 * directory and one whose entry nobody may trust (world-writable), holding
 * a payload 64 bytes longer.  What is served must be what was checked.
 */
static void test_swap(void)
{
	struct hanzo_rocm *ctx = site_ctx();
	struct hr_cache_key key;
	char site[300], evil[300], a[400], b[400], evil_entry[420], *padded;
	const void *d = NULL;
	enum hr_tier from;
	struct stat st;
	size_t n = 0;
	int r;

	snprintf(site, sizeof(site), "%s/site", root);
	snprintf(evil, sizeof(evil), "%s/evil", root);
	snprintf(a, sizeof(a), "%s/gfx90a", site);
	snprintf(b, sizeof(b), "%s/gfx90a", evil);
	snprintf(evil_entry, sizeof(evil_entry), "%s/alpha.hrco", b);
	padded = calloc(1, n90 + 64);
	if (!ctx || !padded || key_for(ctx, "gfx90a", &key) < 0 ||
	    hr_entry_write(ctx, site, "alpha", "gfx90a", &key, "test", co90, n90) < 0 ||
	    !memcpy(padded, co90, n90) ||
	    hr_entry_write(ctx, evil, "alpha", "gfx90a", &key, "test", padded, n90 + 64) < 0) {
		ok(0, "swap fixtures written");
		return;
	}
	hanzo_rocm_unref(ctx);
	free(padded);
	chmod(site, 0755);
	chmod(evil, 0755);
	chmod(evil_entry, 0666);
	setenv("HR_TEST_SWAP_A", a, 1);
	setenv("HR_TEST_SWAP_B", b, 1);
	setenv("HR_TEST_SWAP_ON", "alpha.hrco", 1);
	ctx = site_ctx();
	r = ctx ? hr_code_object_find(ctx, "alpha", "gfx90a", 1u << HR_TIER_SYSTEM,
	                              &d, &n, &from) : -EFAULT;
	ok(stat(evil_entry, &st) == 0 && (size_t)st.st_size == n90 + 384,
	   "the interposer swapped the target directories between check and open");
	ok(r == -ENOENT || (r == 0 && n == n90),
	   "what was served is what was checked (%d, %zu bytes; the swapped-in entry has %zu)",
	   r, n, n90 + 64);
	hanzo_rocm_unref(ctx);
}

int main(int argc, char **argv)
{
	char cmd[300];

	setup();
	if (argc > 1 && strcmp(argv[1], "swap") == 0) {
		test_swap();
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
		if (system(cmd) != 0)
			diag("cannot remove %s", scratch);
		free(co90);
		return done_testing();
	}
	test_lookup();
	test_extents();
	test_compile();
	test_trust();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	if (system(cmd) != 0)
		diag("cannot remove %s", scratch);
	free(co90);
	return done_testing();
}
