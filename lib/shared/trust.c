/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The trust rule (shared/trust.h), written once: plugins and cache tiers use
 * it alike.  Layer: shared (lib/layers).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trust.h"

#define MEMO_MAX 16

struct hr_trust {
	pthread_mutex_t lock;
	size_t n;
	struct {
		gid_t gid;
		uid_t uid;
		bool private_group;
	} memo[MEMO_MAX];
};

int hr_trust_new(struct hr_trust **ret)
{
	struct hr_trust *t = calloc(1, sizeof(*t));

	*ret = NULL;
	if (!t)
		return -ENOMEM;
	pthread_mutex_init(&t->lock, NULL);
	*ret = t;
	return 0;
}

void hr_trust_free(void *p)
{
	struct hr_trust *t = p;

	if (!t)
		return;
	pthread_mutex_destroy(&t->lock);
	free(t);
}

/* Root can write anything anyway; the user is who we are. */
static bool member_ok(uid_t u, uid_t me)
{
	return u == 0 || u == me;
}

/*
 * Whether every member of group gid is root or me, and there is one (a
 * group with no member at all is what setgid programs use: not private).
 * Members: the names in the group entry, and the users whose primary group
 * it is - those of /etc/passwd (read by our own stream: getpwent's is the
 * process's) and me.  A user of a network directory other than me whose
 * primary group it is would not be seen: that is a private group shared,
 * which is a misconfiguration (OpenSSH's Debian rule has the same limit).
 */
static bool group_is_private(gid_t gid, uid_t me)
{
	struct group gr, *grp = NULL;
	struct passwd pw, *pwp = NULL;
	size_t gsize = 16384;
	char *gbuf = NULL, pbuf[4096];
	unsigned members = 0;
	bool ok = true;
	FILE *f;
	int r;

	for (;;) {
		char *nb = realloc(gbuf, gsize);

		if (!nb) {
			free(gbuf);
			return false;
		}
		gbuf = nb;
		r = getgrgid_r(gid, &gr, gbuf, gsize, &grp);
		if (r != ERANGE || gsize >= (1u << 20))
			break;
		gsize *= 2;
	}
	if (r != 0 || !grp) {
		free(gbuf);
		return false;
	}
	for (char **m = gr.gr_mem; ok && m && *m; m++) {
		pwp = NULL;
		ok = getpwnam_r(*m, &pw, pbuf, sizeof(pbuf), &pwp) == 0 && pwp &&
		     member_ok(pw.pw_uid, me);
		members++;
	}
	free(gbuf);
	if (!ok)
		return false;
	if (getpwuid_r(me, &pw, pbuf, sizeof(pbuf), &pwp) == 0 && pwp &&
	    pw.pw_gid == gid)
		members++;
	f = fopen("/etc/passwd", "re");
	if (!f)
		return false;
	while (ok && (r = fgetpwent_r(f, &pw, pbuf, sizeof(pbuf), &pwp)) == 0) {
		if (pw.pw_gid != gid)
			continue;
		ok = member_ok(pw.pw_uid, me);
		members++;
	}
	/* A line too long to parse is one we could not judge. */
	if (ok && r != ENOENT)
		ok = false;
	fclose(f);
	return ok && members > 0;
}

static bool private_group(struct hr_trust *t, gid_t gid)
{
	uid_t me = geteuid();
	bool p;

	if (t) {
		pthread_mutex_lock(&t->lock);
		for (size_t i = 0; i < t->n; i++)
			if (t->memo[i].gid == gid && t->memo[i].uid == me) {
				p = t->memo[i].private_group;
				pthread_mutex_unlock(&t->lock);
				return p;
			}
		pthread_mutex_unlock(&t->lock);
	}
	/* Looked up unlocked: two threads may both look, both get the same answer. */
	p = group_is_private(gid, me);
	if (t) {
		pthread_mutex_lock(&t->lock);
		if (t->n < MEMO_MAX) {
			t->memo[t->n].gid = gid;
			t->memo[t->n].uid = me;
			t->memo[t->n].private_group = p;
			t->n++;
		}
		pthread_mutex_unlock(&t->lock);
	}
	return p;
}

const char *hr_trust_stat(struct hr_trust *t, const struct stat *st,
                          enum hr_trust_role role, const char *path,
                          char *buf, size_t n)
{
	bool sticky_ok = role == HR_TRUST_ANCESTOR && (st->st_mode & S_ISVTX);
	unsigned mode = (unsigned)(st->st_mode & 07777);
	const char *what = role == HR_TRUST_ANCESTOR ? "without the sticky bit " : "";

	buf[0] = '\0';
	if (st->st_uid != 0 && st->st_uid != geteuid())
		snprintf(buf, n, "owned by uid %u (not root or the current user)",
		         (unsigned)st->st_uid);
	else if ((st->st_mode & S_IWOTH) && !sticky_ok)
		snprintf(buf, n, "world-writable %s(mode %04o)", what, mode);
	else if ((st->st_mode & S_IWGRP) && !sticky_ok &&
	         !private_group(t, st->st_gid))
		snprintf(buf, n, "group-writable %s(mode %04o) by group %u, which has "
		         "members other than root and the current user; fix: chmod g-w %s",
		         what, mode, (unsigned)st->st_gid, path ? path : "it");
	return buf;
}

int hr_trust_open_dir(struct hr_trust *t, const char *path, char *why, size_t n)
{
	char *real, *comp, *next, *save = NULL, msg[PATH_MAX + 256];
	struct stat st;
	int fd, r;
	size_t done;

	why[0] = '\0';
	real = realpath(path, NULL);
	if (!real)
		return -errno;
	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		free(real);
		return r;
	}
	/* real[0..done) is the path of fd; "/" is done = 1. */
	done = 1;
	comp = strtok_r(real + 1, "/", &save);
	for (;;) {
		bool last;

		next = comp ? strtok_r(NULL, "/", &save) : NULL;
		last = comp == NULL;
		if (fstat(fd, &st) < 0) {
			r = -errno;
			goto fail;
		}
		if (!S_ISDIR(st.st_mode)) {
			r = -ENOTDIR;
			goto fail;
		}
		{
			char shown[PATH_MAX];

			snprintf(shown, sizeof(shown), "%.*s", (int)done, real);
			if (*hr_trust_stat(t, &st, last ? HR_TRUST_SELF : HR_TRUST_ANCESTOR,
			                   shown, msg, sizeof(msg))) {
				if (last)
					snprintf(why, n, "%s", msg);
				else
					snprintf(why, n, "under %s, %s%s", shown,
					         strncmp(msg, "owned", 5) == 0 ? "" : "which is ", msg);
				r = -EPERM;
				goto fail;
			}
		}
		if (last)
			break;
		{
			int nfd = openat(fd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW |
			                 O_CLOEXEC);

			if (nfd < 0) {
				r = -errno;
				if (r == -ELOOP || r == -ENOTDIR) {
					snprintf(why, n, "changed while it was checked "
					         "(%.*s/%s is no longer a directory)",
					         done > 1 ? (int)done : 0, real, comp);
					r = -EPERM;
				}
				goto fail;
			}
			close(fd);
			fd = nfd;
		}
		/* Rejoin the component: real[0..done) grows to include it. */
		done = (size_t)(comp - real) + strlen(comp);
		if (next)
			comp[strlen(comp)] = '/';
		comp = next;
	}
	free(real);
	return fd;
fail:
	close(fd);
	free(real);
	return r;
}
