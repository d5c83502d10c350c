/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Cache entry locks (layer: cache): one open-file-description lock per
 * (tier, target, family) so that one compile fills an entry while other
 * processes, contexts and threads wait, and gc can tell a held lock file.
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
#include "cache-internal.h"
#include "config/config.h"
#include "shared/elf.h"
#include "context.h"
#include "shared/util.h"
#include "shared/name.h"


/* ---- locks ------------------------------------------------------------- */

int hr_entry_lock(const char *dir, const char *target, const char *family,
                  unsigned timeout_s, int *fd)
{
	/* l_pid must be 0 for an open-file-description lock. */
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_pid = 0 };
	struct timespec nap = { 0, 50 * 1000 * 1000 };
	char *tdir = NULL, *path = NULL;
	mode_t mode;
	time_t deadline = time(NULL) + (time_t)timeout_s;
	int r, f = -1;

	*fd = -1;
	if (!dir || !hr_name_is_valid(target) || !hr_name_stem_is_valid(family))
		return -EINVAL;
	if (asprintf(&tdir, "%s/%s", dir, target) < 0)
		return -ENOMEM;
	r = hr_cache_target_dir(dir, tdir, &mode);
	if (r < 0)
		goto out;
	if (asprintf(&path, "%s/.%s.lock", tdir, family) < 0) {
		path = NULL;
		r = -ENOMEM;
		goto out;
	}
	/*
	 * Open-file-description locks: they work on NFS and die with their fd
	 * (no stale owner), and unlike classic POSIX record locks they belong
	 * to this open file, not to the process, so two contexts or threads of
	 * one process exclude each other, and another close() of the same file
	 * (gc's probe) does not drop them.  A lock taken on a file that is no
	 * longer the one at path (removed by hr_entry_unlock_discard while this
	 * one waited) is let go, and the file at path opened again.
	 */
	for (;;) {
		struct stat a, b;

		if (f < 0) {
			f = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
			if (f < 0) {
				r = -errno;
				break;
			}
		}
		if (fcntl(f, F_OFD_SETLK, &fl) == 0) {
			if (fstat(f, &a) == 0 && lstat(path, &b) == 0 && a.st_dev == b.st_dev &&
			    a.st_ino == b.st_ino) {
				/* Touch it so gc can tell a live lock file from a stale one. */
				(void)futimens(f, NULL);
				*fd = f;
				f = -1;
				r = 0;
				break;
			}
			close(f);
			f = -1;
		} else if (errno != EAGAIN && errno != EACCES && errno != EINTR) {
			r = -errno;
			break;
		}
		if (time(NULL) >= deadline) {
			r = -ETIMEDOUT;
			break;
		}
		nanosleep(&nap, NULL);
	}
out:
	if (f >= 0)
		close(f);
	free(path);
	free(tdir);
	return r;
}

void hr_entry_unlock(int fd)
{
	/* The file stays beside the entry (gc removes it once stale). */
	if (fd >= 0)
		close(fd);
}

void hr_entry_unlock_discard(const char *dir, const char *target, const char *family, int fd)
{
	struct stat a, b;
	char *path;

	if (fd < 0)
		return;
	/* Removed while still held: a waiter that opened it sees it gone (hr_entry_lock). */
	if (asprintf(&path, "%s/%s/.%s.lock", dir, target, family) >= 0) {
		if (fstat(fd, &a) == 0 && lstat(path, &b) == 0 && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino)
			(void)unlink(path);
		free(path);
	}
	close(fd);
}
