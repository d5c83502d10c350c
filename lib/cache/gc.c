/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Walking a cache tier and bounding its size (layer: cache): classify the
 * files of <tier>/<target>/, evict least recently used entries, remove the
 * debris of dead processes (stale temp and lock files, quarantined entries).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "config/config.h"
#include "shared/elf.h"
#include "context.h"
#include "target/target.h"
#include "shared/util.h"


/* ---- walking a tier --------------------------------------------------- */

static bool has_suffix(const char *s, const char *suffix)
{
	size_t l = strlen(s), k = strlen(suffix);

	return l >= k && strcmp(s + l - k, suffix) == 0;
}

static bool classify(const char *name, enum hr_cache_file *kind)
{
	if (name[0] == '.') {
		if (has_suffix(name, ".lock"))
			*kind = HR_CACHE_LOCK;
		else if (strstr(name, ".hrco."))
			*kind = HR_CACHE_TEMP;
		else
			return false;
		return true;
	}
	if (has_suffix(name, ".hrco"))
		*kind = HR_CACHE_ENTRY;
	else if (strstr(name, ".hrco.bad-"))
		*kind = HR_CACHE_QUARANTINE;
	else
		return false;
	return true;
}

static int scan_target(int tfd, const char *dir, const char *target,
                       hr_cache_scan_fn fn, void *data)
{
	DIR *d = fdopendir(tfd);
	struct dirent *de;
	int r = 0;

	if (!d) {
		close(tfd);
		return -errno;
	}
	while (r >= 0 && (de = readdir(d))) {
		enum hr_cache_file kind;
		struct stat st;
		char *path;

		if (!classify(de->d_name, &kind) ||
		    fstatat(tfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		/* An entry lookups will refuse: maintenance must see it too. */
		if (!S_ISREG(st.st_mode)) {
			if (kind != HR_CACHE_ENTRY)
				continue;
			kind = HR_CACHE_IRREGULAR;
		}
		if (asprintf(&path, "%s/%s/%s", dir, target, de->d_name) < 0)
			return closedir(d), -ENOMEM;
		r = fn(data, path, target, de->d_name, kind, &st);
		free(path);
	}
	closedir(d);
	return r;
}

/*
 * The tier root's own atomic writes (hr_write_atomic: ".<name>.XXXXXX") of
 * the plugin index and the toolchain stamps: an interrupted one is debris
 * like a target directory's temp file.
 */
static bool is_root_temp(const char *name)
{
	const char *dot = strrchr(name, '.');

	if (!dot || strlen(dot + 1) != 6 ||
	    strspn(dot + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") != 6)
		return false;
	return strncmp(name, ".plugins.index.", 15) == 0 ||
	       strncmp(name, "..toolchain-", 12) == 0;
}

static int scan_root_temp(int dfd, const char *dir, const char *name,
                          hr_cache_scan_fn fn, void *data)
{
	struct stat st;
	char *path;
	int r;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
		return 0;
	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return -ENOMEM;
	r = fn(data, path, "", name, HR_CACHE_TEMP, &st);
	free(path);
	return r;
}

/*
 * A target directory lookups and writes refuse (a symlink, a file, a FIFO
 * named like a target): maintenance must see it too, as one irregular file
 * with an empty name, so that verify reports it and --repair removes it
 * (the link, never what it points to).
 */
static int scan_odd_target(int dfd, const char *dir, const char *name,
                           hr_cache_scan_fn fn, void *data)
{
	struct stat st;
	char *path;
	int r;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || S_ISDIR(st.st_mode) ||
	    hr_target_validate(name) < 0)
		return 0;
	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return -ENOMEM;
	r = fn(data, path, name, "", HR_CACHE_IRREGULAR, &st);
	free(path);
	return r;
}

int hr_cache_scan(const char *dir, const char *target, hr_cache_scan_fn fn,
                  void *data)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), r = 0;
	struct dirent *de;
	DIR *d;

	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while (r >= 0 && (de = readdir(d))) {
		int tfd;

		if (!target && is_root_temp(de->d_name)) {
			r = scan_root_temp(fd, dir, de->d_name, fn, data);
			continue;
		}
		if (!hr_name_is_safe(de->d_name) ||
		    (target && strcmp(target, de->d_name) != 0))
			continue;
		tfd = openat(fd, de->d_name,
		             O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (tfd < 0) {
			r = scan_odd_target(fd, dir, de->d_name, fn, data);
			continue;
		}
		r = scan_target(tfd, dir, de->d_name, fn, data);
	}
	closedir(d);
	return r;
}

/* ---- size bound ------------------------------------------------------- */

/* Temp and lock files untouched this long belong to a dead process. */
#define STALE_SECONDS 3600

struct gc_file {
	char *path;
	uint64_t size;
	time_t used;
};

struct gc_state {
	time_t now;
	const char *keep;
	struct gc_file *files;
	size_t n, alloc;
	struct hr_gc_stats *st;
};

/*
 * A lock file nobody holds (OFD locks die with their fd) is debris.  The
 * probe is an OFD lock of its own: a classic POSIX lock would succeed over
 * this process's own lock, and closing the probe fd would release it.
 */
static bool lock_is_free(const char *path)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_pid = 0 };
	int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	bool free_ = false;

	if (fd >= 0) {
		free_ = fcntl(fd, F_OFD_SETLK, &fl) == 0;
		close(fd);
	}
	return free_;
}

static int gc_one(void *data, const char *path, const char *target,
                  const char *name, enum hr_cache_file kind,
                  const struct stat *st)
{
	struct gc_state *s = data;
	struct gc_file *f;

	(void)target;
	(void)name;
	if (kind != HR_CACHE_ENTRY) {
		bool stale = s->now - st->st_mtime > STALE_SECONDS;

		if ((kind == HR_CACHE_QUARANTINE ||
		     (stale && (kind != HR_CACHE_LOCK || lock_is_free(path)))) &&
		    unlink(path) == 0)
			s->st->debris++;
		return 0;
	}
	s->st->total += (uint64_t)st->st_size;
	if (s->keep && strcmp(s->keep, path) == 0)
		return 0;
	if (s->n == s->alloc) {
		size_t na = s->alloc ? 2 * s->alloc : 64;

		f = realloc(s->files, na * sizeof(*f));
		if (!f)
			return -ENOMEM;
		s->files = f;
		s->alloc = na;
	}
	f = &s->files[s->n];
	f->path = strdup(path);
	if (!f->path)
		return -ENOMEM;
	f->size = (uint64_t)st->st_size;
	/* A read refreshes atime (relatime: about daily), a write mtime. */
	f->used = st->st_atime > st->st_mtime ? st->st_atime : st->st_mtime;
	s->n++;
	return 0;
}

static int by_use(const void *a, const void *b)
{
	const struct gc_file *x = a, *y = b;

	if (x->used != y->used)
		return x->used < y->used ? -1 : 1;
	return strcmp(x->path, y->path);
}

int hr_cache_gc(struct hanzo_rocm *ctx, const char *dir, uint64_t max_size,
                const char *keep, struct hr_gc_stats *st)
{
	struct gc_state s = { .now = time(NULL), .keep = keep, .st = st };
	int r;

	memset(st, 0, sizeof(*st));
	r = hr_cache_scan(dir, NULL, gc_one, &s);
	/* An empty cache leaves s.files NULL, which qsort must not get. */
	if (r == 0 && s.n > 0)
		qsort(s.files, s.n, sizeof(*s.files), by_use);
	for (size_t i = 0; r == 0 && i < s.n && st->total > max_size; i++) {
		if (unlink(s.files[i].path) < 0) {
			if (errno == ENOENT)
				continue; /* someone else's gc got there first */
			r = -errno;
			hr_err(ctx, "cannot remove %s: %s\n", s.files[i].path, strerror(errno));
			break;
		}
		hr_dbg(ctx, "evicted %s\n", s.files[i].path);
		st->total -= s.files[i].size;
		st->freed += s.files[i].size;
		st->evicted++;
	}
	for (size_t i = 0; i < s.n; i++)
		free(s.files[i].path);
	free(s.files);
	return r;
}
