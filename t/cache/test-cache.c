/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/cache/entry.c: keys, the entry format round trip, every kind of corruption
 * refused with the right error (and random damage never accepted), write
 * races between processes, locks, the memory tier, tier discovery.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cache/cache.h"
#include "context.h"
#include "../tap.h"
#include "shared/util.h"

/* Entry layout offsets (lib/cache/entry.c) the tests poke at. */
#define OFF_CREATED 88
#define OFF_TARGET 168
#define OFF_HSHA 352
#define HEADER_SIZE 384

static char fixdir[4096], tmp[] = "/tmp/hr-test-cache.XXXXXX";
static void *co90, *co1030;
static size_t n90, n1030;

static void fixtures(void)
{
	FILE *p = popen("sh \"$top_srcdir/t/cache/fixtures.sh\"", "r");
	char path[4200];

	if (!p || !fgets(fixdir, sizeof(fixdir), p) || pclose(p) != 0)
		skip_all("no hipcc to build test code objects");
	fixdir[strcspn(fixdir, "\n")] = '\0';
	snprintf(path, sizeof(path), "%s/k-gfx90a.co", fixdir);
	if (hr_read_file(path, 1 << 26, &co90, &n90) < 0)
		skip_all("no gfx90a code object");
	snprintf(path, sizeof(path), "%s/k-gfx1030.co", fixdir);
	if (hr_read_file(path, 1 << 26, &co1030, &n1030) < 0)
		skip_all("no gfx1030 code object");
}

static void hex_key(const struct hr_cache_key *k, char out[65])
{
	hr_hex(k->b, 32, out);
}

static void test_keys(void)
{
	static const uint8_t src[32] = { 1, 2, 3 };
	uint8_t src2[32] = { 1, 2, 3 }, sum[32];
	const char *pf[] = { "-DA", "-DB", NULL }, *pf2[] = { "-DA", NULL };
	char *cf[] = { "-O3", NULL }, *cf2[] = { "-O2", NULL };
	const char *ab_c[] = { "ab", "c", NULL }, *a_bc[] = { "a", "bc", NULL };
	const char *one[] = { "-x", NULL };
	char *one_c[] = { "-x", NULL };
	struct hr_cache_key k, k2;
	char hex[65];

	hr_sha256("abc", 3, sum);
	hr_hex(sum, 32, hex);
	is_str(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	       "SHA-256 test vector");

	hr_cache_key_compute("fam", src, pf, cf, "gfx90a", &k);
	hr_cache_key_compute("fam", src, pf, cf, "gfx90a", &k2);
	ok(memcmp(k.b, k2.b, 32) == 0, "key is deterministic");
	hex_key(&k, hex);
	/* Pinned: a change here invalidates every cache on every machine. */
	is_str(hex, "d42f6eb07b213347f7a062755e3b1085e78fa68f663711b626e3bc0e2028106a",
	       "key format is stable (v1)");
	hr_cache_key_compute("fan", src, pf, cf, "gfx90a", &k2);
	ok(memcmp(k.b, k2.b, 32) != 0, "family changes the key");
	src2[31] = 1;
	hr_cache_key_compute("fam", src2, pf, cf, "gfx90a", &k2);
	ok(memcmp(k.b, k2.b, 32) != 0, "source hash changes the key");
	hr_cache_key_compute("fam", src, pf2, cf, "gfx90a", &k2);
	ok(memcmp(k.b, k2.b, 32) != 0, "plugin flags change the key");
	hr_cache_key_compute("fam", src, pf, cf2, "gfx90a", &k2);
	ok(memcmp(k.b, k2.b, 32) != 0, "config flags change the key");
	hr_cache_key_compute("fam", src, pf, cf, "gfx90a:xnack+", &k2);
	ok(memcmp(k.b, k2.b, 32) != 0, "target changes the key");
	hr_cache_key_compute("fam", src, ab_c, NULL, "t", &k);
	hr_cache_key_compute("fam", src, a_bc, NULL, "t", &k2);
	ok(memcmp(k.b, k2.b, 32) != 0, "length-prefixed: (ab,c) != (a,bc)");
	hr_cache_key_compute("fam", src, one, NULL, "t", &k);
	hr_cache_key_compute("fam", src, NULL, one_c, "t", &k2);
	ok(memcmp(k.b, k2.b, 32) != 0, "a flag moved from plugin to config changes the key");
}

static char *path_in(const char *dir, const char *target, const char *family)
{
	return hr_entry_path(dir, target, family);
}

static void write_bytes(const char *path, const void *d, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd >= 0) {
		if (write(fd, d, n) != (ssize_t)n)
			diag("short write to %s", path);
		close(fd);
	}
}

static int count_temp(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		if (e->d_name[0] == '.' && strstr(e->d_name, ".hrco."))
			n++;
	if (d)
		closedir(d);
	return n;
}

static void test_entries(struct hanzo_rocm *ctx)
{
	struct hr_cache_key key, other;
	struct hr_entry e;
	char dir[4200], why[256], *p, *p2;
	uint8_t *file;
	size_t size;
	int fails = 0, accepted = 0;

	snprintf(dir, sizeof(dir), "%s/tier", tmp);
	memset(&key, 0x11, sizeof(key));
	memset(&other, 0x22, sizeof(other));
	is_int(hr_entry_write(ctx, dir, "fam", "gfx90a", &key, "hipcc 5.2.3", co90, n90), 0,
	       "entry written");
	p = path_in(dir, "gfx90a", "fam");
	is_int(hr_entry_read(ctx, p, &key, &e), 0, "entry read back with its key");
	ok(e.payload_size == n90 && memcmp(e.payload, co90, n90) == 0, "payload round trip");
	is_str(e.family, "fam", "family stored");
	is_str(e.target, "gfx90a", "target stored");
	is_str(e.compiler, "hipcc 5.2.3", "compiler stored");
	ok(e.created > 1600000000, "creation time stored");
	ok(memcmp(e.key.b, key.b, 32) == 0, "key stored");
	hr_entry_release(&e);
	is_int(hr_entry_read(ctx, p, NULL, &e), 0, "read without an expected key");
	hr_entry_release(&e);
	is_int(hr_entry_read(ctx, p, &other, &e), -ESTALE, "other key: -ESTALE");
	is_int(count_temp(dir), 0, "no temp files left by a write");
	is_int(hr_entry_read(ctx, "/nonexistent/x/y.hrco", NULL, &e), -ENOENT, "missing: -ENOENT");

	is_int(hr_entry_write(ctx, dir, "fam", "gfx1030", &key, "c", co90, n90), -ENOEXEC,
	       "write refuses a gfx90a object for gfx1030");
	is_int(hr_entry_write(ctx, dir, "../x", "gfx90a", &key, "c", co90, n90), -EINVAL,
	       "write refuses an unsafe family");
	is_int(hr_entry_write(ctx, dir, "fam", "gfx90a/..", &key, "c", co90, n90), -EINVAL,
	       "write refuses an unsafe target");

	hr_read_file(p, 1 << 26, (void **)&file, &size);
	p2 = path_in(dir, "gfx90a", "bad");
	/* Each damage: the bad entry is named "bad" so its path matches. */
	memcpy(file + 96, "bad\0", 4);
	hr_sha256(file, OFF_HSHA, file + OFF_HSHA);
	write_bytes(p2, file, size);
	is_int(hr_entry_read(ctx, p2, &key, &e), 0, "renamed copy with fixed header is valid");
	hr_entry_release(&e);

	write_bytes(p2, file, size - 1);
	is_int(hr_entry_read_why(ctx, p2, NULL, &e, why, sizeof(why)), -EBADMSG, "truncated: -EBADMSG (%s)", why);
	write_bytes(p2, file, 100);
	is_int(hr_entry_read_why(ctx, p2, NULL, &e, why, sizeof(why)), -EBADMSG, "truncated header: -EBADMSG (%s)", why);
	write_bytes(p2, file, 0);
	is_int(hr_entry_read_why(ctx, p2, NULL, &e, why, sizeof(why)), -EBADMSG, "empty: -EBADMSG (%s)", why);
	file[HEADER_SIZE + 200] ^= 0x10;
	write_bytes(p2, file, size);
	is_int(hr_entry_read_why(ctx, p2, NULL, &e, why, sizeof(why)), -EBADMSG, "payload bit flip: -EBADMSG (%s)", why);
	file[HEADER_SIZE + 200] ^= 0x10;
	file[OFF_CREATED] ^= 0x01;
	write_bytes(p2, file, size);
	is_int(hr_entry_read_why(ctx, p2, NULL, &e, why, sizeof(why)), -EBADMSG, "header bit flip: -EBADMSG (%s)", why);
	file[OFF_CREATED] ^= 0x01;
	write_bytes(p2, "\177ELF garbage garbage", 20);
	is_int(hr_entry_read_why(ctx, p2, NULL, &e, why, sizeof(why)), -EBADMSG, "garbage: -EBADMSG (%s)", why);
	write_bytes(p2, co90, n90);
	is_int(hr_entry_read_why(ctx, p2, NULL, &e, why, sizeof(why)), -EBADMSG, "bare code object: -EBADMSG (%s)", why);
	free(p2);
	p2 = path_in(dir, "gfx90a", "fam2");
	write_bytes(p2, file, size);
	is_int(hr_entry_read_why(ctx, p2, NULL, &e, why, sizeof(why)), -EBADMSG, "entry under another name: -EBADMSG (%s)", why);
	unlink(p2);
	free(p2);
	p2 = path_in(dir, "gfx90a", "bad");

	/* Random damage: a flip anywhere is caught by a checksum, never accepted. */
	srand(7);
	for (int i = 0; i < 300; i++) {
		size_t at = (size_t)rand() % size;
		uint8_t bit = (uint8_t)(1u << (rand() % 8));
		int r;

		file[at] ^= bit;
		write_bytes(p2, file, i % 10 == 0 ? (size_t)rand() % size : size);
		r = hr_entry_read(ctx, p2, NULL, &e);
		if (r == 0) {
			accepted++;
			hr_entry_release(&e);
		} else if (r != -EBADMSG && r != -ENOEXEC) {
			fails++;
		}
		file[at] ^= bit;
	}
	is_int(accepted, 0, "300 damaged entries: none accepted");
	is_int(fails, 0, "...each refused as corrupt");
	unlink(p2);
	free(p2);
	free(file);

	/* A gfx1030 payload presented as gfx90a, with consistent checksums. */
	is_int(hr_entry_write(ctx, dir, "fam", "gfx1030", &key, "c", co1030, n1030), 0,
	       "gfx1030 entry written");
	free(p);
	p = path_in(dir, "gfx1030", "fam");
	hr_read_file(p, 1 << 26, (void **)&file, &size);
	memset(file + OFF_TARGET, 0, 48);
	memcpy(file + OFF_TARGET, "gfx90a", 6);
	hr_sha256(file, OFF_HSHA, file + OFF_HSHA);
	p2 = path_in(dir, "gfx90a", "wrong");
	memset(file + 96, 0, 72);
	memcpy(file + 96, "wrong", 5);
	hr_sha256(file, OFF_HSHA, file + OFF_HSHA);
	write_bytes(p2, file, size);
	is_int(hr_entry_read_why(ctx, p2, NULL, &e, why, sizeof(why)), -ENOEXEC,
	       "gfx1030 object in the gfx90a dir: -ENOEXEC (%s)", why);
	unlink(p2);
	free(p2);
	free(file);
	free(p);
}

/* 16 processes publish the same entry at once: one valid file, no debris. */
static void test_race(struct hanzo_rocm *ctx)
{
	struct hr_cache_key key;
	struct hr_entry e;
	char dir[4200], tdir[4300], *p;
	int bad = 0;

	snprintf(dir, sizeof(dir), "%s/race", tmp);
	snprintf(tdir, sizeof(tdir), "%s/gfx90a", dir);
	memset(&key, 0x33, sizeof(key));
	for (int i = 0; i < 16; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(hr_entry_write(ctx, dir, "fam", "gfx90a", &key, "c", co90, n90) == 0 ? 0 : 1);
	}
	for (int i = 0; i < 16; i++) {
		int st;

		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			bad++;
	}
	is_int(bad, 0, "16 racing writers all succeeded");
	p = path_in(dir, "gfx90a", "fam");
	is_int(hr_entry_read(ctx, p, &key, &e), 0, "the result is one valid entry");
	hr_entry_release(&e);
	is_int(count_temp(tdir), 0, "no temp files left");
	free(p);
}

static void test_lock(void)
{
	char dir[4200];
	int fd = -1, st = 0;
	pid_t pid;

	snprintf(dir, sizeof(dir), "%s/lock", tmp);
	is_int(hr_entry_lock(dir, "gfx90a", "fam", 0, &fd), 0, "lock taken");
	pid = fork();
	if (pid == 0) {
		int fd2 = -1, r = hr_entry_lock(dir, "gfx90a", "fam", 0, &fd2);

		_exit(r == -ETIMEDOUT ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a second process times out on it");
	hr_entry_unlock(fd);
	pid = fork();
	if (pid == 0) {
		int fd2 = -1, r = hr_entry_lock(dir, "gfx90a", "fam", 0, &fd2);

		_exit(r == 0 ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "and gets it once released");
}

struct lock_try {
	const char *dir;
	int r, fd;
};

static void *try_lock(void *data)
{
	struct lock_try *t = data;
	int fd = -1;

	t->r = hr_entry_lock(t->dir, "gfx90a", "fam", 0, &fd);
	hr_entry_unlock(fd);
	return NULL;
}

/*
 * Within one process: classic POSIX record locks belong to the process, so
 * a second lock (another context, another thread) would be granted at once,
 * and any close() of the file would drop them.  The entry lock must hold.
 */
static void test_lock_in_process(struct hanzo_rocm *ctx)
{
	struct lock_try t = { .r = 1 };
	struct hr_gc_stats gs;
	struct timeval old[2] = { { 0, 0 }, { 0, 0 } };
	char dir[4200], lock[4300];
	int fd = -1, fd2 = -1;
	pthread_t th;

	snprintf(dir, sizeof(dir), "%s/lock-inproc", tmp);
	snprintf(lock, sizeof(lock), "%s/gfx90a/.fam.lock", dir);
	t.dir = dir;
	is_int(hr_entry_lock(dir, "gfx90a", "fam", 0, &fd), 0, "in process: lock taken");
	is_int(hr_entry_lock(dir, "gfx90a", "fam", 0, &fd2), -ETIMEDOUT,
	       "a second lock in the same process (another context) times out");
	hr_entry_unlock(fd2);
	if (pthread_create(&th, NULL, try_lock, &t) == 0) {
		pthread_join(th, NULL);
		is_int(t.r, -ETIMEDOUT, "another thread times out on it");
	} else {
		skip(1, "no thread");
	}
	/* gc probes a stale-looking lock file: the probe must not release it. */
	ok(utimes(lock, old) == 0, "lock file made to look stale");
	is_int(hr_cache_gc(ctx, dir, UINT64_MAX, NULL, &gs), 0, "gc over a held lock");
	ok(access(lock, F_OK) == 0, "gc leaves a held lock file");
	fd2 = -1;
	is_int(hr_entry_lock(dir, "gfx90a", "fam", 0, &fd2), -ETIMEDOUT,
	       "and the lock is still held after gc's probe");
	hr_entry_unlock(fd2);
	hr_entry_unlock(fd);
	fd = -1;
	is_int(hr_entry_lock(dir, "gfx90a", "fam", 0, &fd), 0, "free again once released");
	hr_entry_unlock(fd);
	ok(utimes(lock, old) == 0 &&
	   hr_cache_gc(ctx, dir, UINT64_MAX, NULL, &gs) == 0 && gs.debris == 1 &&
	   access(lock, F_OK) < 0, "gc removes the stale lock nobody holds");
}

static void *wait_lock(void *data)
{
	struct lock_try *t = data;

	t->r = hr_entry_lock(t->dir, "gfx90a", "fam", 30, &t->fd);
	return NULL;
}

/*
 * A failed build removes its lock file (hr_entry_unlock_discard) while a
 * waiter has it open: the waiter must not keep a lock on the removed file
 * (a third caller would create a new one and take it too) but lock the
 * file at the path, so that exclusion holds.
 */
static void test_lock_discard(void)
{
	struct lock_try t = { .r = 1, .fd = -1 };
	char dir[4200], lock[4300];
	struct stat a, b;
	int fd = -1, fd3 = -1;
	pthread_t th;

	snprintf(dir, sizeof(dir), "%s/lock-discard", tmp);
	snprintf(lock, sizeof(lock), "%s/gfx90a/.fam.lock", dir);
	t.dir = dir;
	is_int(hr_entry_lock(dir, "gfx90a", "fam", 0, &fd), 0, "discard: lock taken");
	if (pthread_create(&th, NULL, wait_lock, &t) != 0) {
		skip(4, "no thread");
		hr_entry_unlock(fd);
		return;
	}
	usleep(300 * 1000);     /* the waiter has the file open and polls */
	hr_entry_unlock_discard(dir, "gfx90a", "fam", fd);
	pthread_join(th, NULL);
	is_int(t.r, 0, "the waiter gets the lock once the holder discards it");
	ok(t.fd >= 0 && fstat(t.fd, &a) == 0 && stat(lock, &b) == 0 && a.st_ino == b.st_ino,
	   "on the lock file at the path, not on the removed one");
	is_int(hr_entry_lock(dir, "gfx90a", "fam", 0, &fd3), -ETIMEDOUT,
	       "a third caller still waits for it");
	hr_entry_unlock(fd3);
	hr_entry_unlock_discard(dir, "gfx90a", "fam", t.fd);
	ok(access(lock, F_OK) < 0 && errno == ENOENT, "discarded: no lock file left");
}

static void test_memory(struct hanzo_rocm *ctx)
{
	struct hr_cache *c = hr_cache_get(ctx);
	const void *d;
	size_t n;
	enum hr_tier from;
	char name[32];

	ok(c && c == hr_cache_get(ctx), "memory tier created once");
	is_int(hr_memory_lookup(c, "fam", "gfx90a", 0, &d, &n, &from), -ENOENT, "empty: miss");
	is_int(hr_memory_insert(c, "fam", "gfx90a", strdup("abc"), 4, HR_TIER_USER, 0, &d, &n), 0,
	       "insert");
	is_int(hr_memory_lookup(c, "fam", "gfx90a", 0, &d, &n, &from), 0, "hit");
	ok(n == 4 && strcmp(d, "abc") == 0 && from == HR_TIER_USER, "bytes and origin kept");
	is_int(hr_memory_lookup(c, "fam", "gfx1030", 0, &d, &n, &from), -ENOENT, "other target: miss");
	is_int(hr_memory_lookup(c, "fam", "gfx90a", 1u << HR_TIER_USER, &d, &n, &from), -ENOENT,
	       "origin tier skipped: miss");
	hr_memory_insert(c, "fam", "gfx90a", strdup("xyz"), 4, HR_TIER_COMPILED,
	                 1u << HR_TIER_USER, &d, &n);
	ok(strcmp(d, "xyz") == 0, "skipped entry replaced");
	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		hr_memory_insert(c, name, "gfx90a", strdup(name), strlen(name) + 1,
		                 HR_TIER_SYSTEM, 0, &d, &n);
	}
	is_int(hr_memory_lookup(c, "f123", "gfx90a", 0, &d, &n, &from), 0, "found after growth");
	is_str(d, "f123", "right bytes after growth");
	ok(hr_ctx_warn_once(ctx, "x") && !hr_ctx_warn_once(ctx, "x"), "warn once (the context's set)");
}

static void test_tiers(void)
{
	struct hanzo_rocm_options o = { .size = sizeof(o) };
	struct hanzo_rocm *ctx = NULL;
	struct hr_tier_dir *t = NULL;
	char conf[4200], root[4200], user[4200], buf[8400];
	size_t n = 0;
	FILE *f;

	snprintf(root, sizeof(root), "%s/root", tmp);
	snprintf(user, sizeof(user), "%s/user", tmp);
	snprintf(conf, sizeof(conf), "%s/root/hanzo-rocm.conf", tmp);
	mkdir(root, 0755);
	f = fopen(conf, "w");
	if (f) {
		fprintf(f, "[cache]\nsystem_dir = /sys-cache\nsite_dirs = /site1 /site2\n"
		        "user_dir = %s\n", user);
		fclose(f);
	}
	o.root = root;
	o.config = conf;
	if (hanzo_rocm_new_with_options(&o, &ctx) < 0 || !ctx) {
		skip(8, "no context");
		return;
	}
	is_int(hr_cache_tiers(ctx, &t, &n), 0, "tiers listed");
	is_int(n, 5, "system, 2 sites, package, user");
	if (n == 5) {
		snprintf(buf, sizeof(buf), "%s/sys-cache", root);
		ok(t[0].tier == HR_TIER_SYSTEM && strcmp(t[0].path, buf) == 0, "system first, under root");
		ok(t[1].tier == HR_TIER_SITE && !t[1].writable && t[2].tier == HR_TIER_SITE,
		   "site tiers read-only");
		ok(t[3].tier == HR_TIER_PACKAGE && !t[3].writable &&
		   strncmp(t[3].path, root, strlen(root)) == 0, "package tier read-only, under root");
		ok(t[4].tier == HR_TIER_USER && t[4].writable && strcmp(t[4].path, user) == 0,
		   "user tier last, writable");
	} else {
		skip(4, "wrong tier count");
	}
	hr_cache_tiers_free(t, n);
	/* A user dir others can write is refused. */
	mkdir(user, 0777);
	chmod(user, 0777);
	hr_cache_tiers(ctx, &t, &n);
	ok(n == 4 && t[n - 1].tier != HR_TIER_USER, "group/world-writable user dir refused");
	hr_cache_tiers_free(t, n);
	chmod(user, 0700);
	hr_cache_tiers(ctx, &t, &n);
	ok(n == 5 && t[4].tier == HR_TIER_USER, "private user dir accepted");
	hr_cache_tiers_free(t, n);
	hanzo_rocm_unref(ctx);
}

int main(void)
{
	struct hanzo_rocm_options o = { .size = sizeof(o) };
	struct hanzo_rocm *ctx = NULL;
	char cmd[200];

	fixtures();
	if (!mkdtemp(tmp))
		skip_all("no temporary directory");
	o.root = tmp; /* no config file there: defaults */
	if (hanzo_rocm_new_with_options(&o, &ctx) < 0)
		skip_all("cannot create a context");
	test_keys();
	test_entries(ctx);
	test_race(ctx);
	test_lock();
	test_lock_in_process(ctx);
	test_lock_discard();
	test_memory(ctx);
	test_tiers();
	hanzo_rocm_unref(ctx);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		diag("could not clean %s", tmp);
	free(co90);
	free(co1030);
	return done_testing();
}
