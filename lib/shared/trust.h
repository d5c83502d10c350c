/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one trust rule for what the library reads from shared places (plugin
 * directories and files, plugin indexes, the system, site and package cache
 * tiers and their entries), and the descriptor walk that applies it to a
 * directory and every ancestor (doc/DESIGN.md §5, §6).  Layer: shared (lib/layers).
 *
 * Owned by root or the current (effective) user, and writable by nobody
 * else: not world-writable; group-writable only when the group is private
 * (its only members are the current user and root: the "user private
 * group" of Debian, Ubuntu and Fedora, whose umask 002 makes checkouts
 * group-writable).  An ancestor may also be writable by others when it has
 * the sticky bit (as /tmp): then nobody but the owner can rename what is in it.
 */
#ifndef HR_UTIL_TRUST_H
#define HR_UTIL_TRUST_H

#include <stddef.h>
#include <sys/stat.h>

/*
 * A memo of the private-group decisions (a name-service lookup each),
 * one per context; NULL everywhere means "no memo" (looked up each time).
 * Thread-safe.
 */
struct hr_trust;
int hr_trust_new(struct hr_trust **ret);
void hr_trust_free(void *t);

enum hr_trust_role {
	HR_TRUST_SELF,          /* the directory or file that is read */
	HR_TRUST_ANCESTOR,      /* a directory above it (sticky allows others) */
};

/*
 * "" when st (of path, named in the reason; may be NULL) passes the rule
 * for role, else buf holding why not, with the fix when there is one
 * ("chmod g-w PATH").  Returns buf.
 */
const char *hr_trust_stat(struct hr_trust *t, const struct stat *st,
                          enum hr_trust_role role, const char *path,
                          char *buf, size_t n);

/*
 * Open directory path (resolved once by realpath) by a walk of descriptors
 * from "/": each component opened with O_PATH|O_NOFOLLOW|O_DIRECTORY
 * (search permission is enough, as for a path) under the previous one,
 * fstat-ed and checked (ancestors as HR_TRUST_ANCESTOR, the last as
 * HR_TRUST_SELF).  What was checked is what is returned: a component
 * swapped for a symlink is refused, not followed.  Returns the directory's
 * O_PATH descriptor (for openat and fstat), or -EPERM with why
 * ("world-writable (mode 0777)", "under /a, which is ...": the caller puts
 * "PATH is " in front), -ENOENT/-ENOTDIR when absent, another negative errno.
 */
int hr_trust_open_dir(struct hr_trust *t, const char *path, char *why, size_t n);

#endif
