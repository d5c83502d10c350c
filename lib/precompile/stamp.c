/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Toolchain stamps for precompile (layer: top).
 *
 * Compiler identity without a spawn: after a probe we write a stamp
 * (<dest>/.toolchain-hipcc) holding the compiler's real path, its stat data
 * (dev, inode, size, mtime, ctime), that of the files its version comes from
 * (<prefix>/.info/version, <prefix>/share/hip/version), the
 * HANZO_ROCM_VERSION label, and
 * the toolchain's version, device-library dir and identity.  A later run
 * that finds all of it unchanged trusts the stamp; any difference means a
 * probe.  Replacing a compiler changes inode or times, so the stamp cannot
 * outlive it; --force ignores it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache/cache.h"
#include "config/config.h"
#include "context.h"
#include "plugin/plugin.h"
#include "precompile-internal.h"
#include "precompile.h"
#include "devices/devices.h"
#include "target/target.h"
#include "toolchain/toolchain.h"
#include "shared/util.h"

#define STAMP_MAGIC "hanzo-rocm toolchain stamp 1"

/*
 * A compiler name as configured -> its real path, without spawning, by
 * hr_toolchain_locate() as hr_toolchain_find() looks it up.
 */
static char *exe_resolve(const char *name, enum hr_compiler k)
{
	char *path = NULL, *real = NULL;

	if (hr_toolchain_locate(name, k, &path) == 0)
		real = realpath(path, NULL);
	free(path);
	return real;
}

/*
 * "path size mtime ctime" of a file the identity also depends on: the
 * compiler driver may be unchanged while HIP's or a ROCm tree's version
 * file moved on.
 */
static char *stat_line(const char *path)
{
	struct stat st;
	char *s = NULL;

	if (stat(path, &st) < 0)
		return asprintf(&s, "%s -", path) < 0 ? NULL : s;
	if (asprintf(&s, "%s %jd %jd.%09ld %jd.%09ld", path, (intmax_t)st.st_size,
	             (intmax_t)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
	             (intmax_t)st.st_ctim.tv_sec, st.st_ctim.tv_nsec) < 0)
		return NULL;
	return s;
}

static char *deps_line(const char *exe)
{
	char *prefix = strdup(exe), *slash, *info = NULL, *hip = NULL, *a = NULL,
	     *b = NULL, *s = NULL;

	/*
	 * <prefix>/bin/hipcc -> <prefix>/.info/version (ROCm's release) and
	 * <prefix>/share/hip/version (HIP's, also in distribution packages):
	 * an update of either changes the identity the compiler reports.
	 */
	if (prefix && (slash = strrchr(prefix, '/'))) {
		*slash = '\0';
		if ((slash = strrchr(prefix, '/')))
			*slash = '\0';
		info = hr_path_join(*prefix ? prefix : "/", ".info/version");
		hip = hr_path_join(*prefix ? prefix : "/", "share/hip/version");
	}
	if (info && hip) {
		a = stat_line(info);
		b = stat_line(hip);
	}
	if (a && b && asprintf(&s, "deps=%s; %s\n", a, b) < 0)
		s = NULL;
	free(a);
	free(b);
	free(info);
	free(hip);
	free(prefix);
	return s;
}

/* The part of a stamp that must match the compiler found now. */
static char *stamp_head(const struct hr_config *cfg, const char *exe)
{
	struct stat st;
	char *s = NULL, *deps;

	if (stat(exe, &st) < 0 || !(deps = deps_line(exe)))
		return NULL;
	if (asprintf(&s, STAMP_MAGIC "\npath=%s\nstat=%ju %ju %jd %jd.%09ld %jd.%09ld\n%slabel=%s\n",
	             exe, (uintmax_t)st.st_dev, (uintmax_t)st.st_ino,
	             (intmax_t)st.st_size, (intmax_t)st.st_mtim.tv_sec,
	             st.st_mtim.tv_nsec, (intmax_t)st.st_ctim.tv_sec,
	             st.st_ctim.tv_nsec, deps,
	             cfg->version_label ? cfg->version_label : "") < 0)
		s = NULL;
	free(deps);
	return s;
}

const char *hr_precompile_compiler_name(const struct hr_config *cfg, enum hr_compiler k)
{
	const char *n = hr_toolchain_program(cfg, k);

	return n ? n : hr_compiler_name(k);
}

static char *stamp_name(enum hr_compiler k)
{
	char *s = NULL;

	return asprintf(&s, ".toolchain-%s", hr_compiler_name(k)) < 0 ? NULL : s;
}

static char *stamp_field(const char *body, const char *key)
{
	size_t kl = strlen(key);

	for (const char *l = body; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, key, kl) == 0 && l[kl] == '=') {
			const char *v = l + kl + 1;

			return strndup(v, strcspn(v, "\n"));
		}
	}
	return NULL;
}

/*
 * The toolchain as remembered in dest, if the compiler binary is still the
 * one that was probed; NULL otherwise (not an error: we probe then).
 */
struct hr_toolchain *hr_stamp_load(const struct hr_config *cfg,
                                       const char *dest, enum hr_compiler k)
{
	char *exe = exe_resolve(hr_precompile_compiler_name(cfg, k), k);
	char *head = exe ? stamp_head(cfg, exe) : NULL;
	char *name = stamp_name(k), *path = name ? hr_path_join(dest, name) : NULL;
	struct hr_toolchain *tc = NULL;
	void *data = NULL;
	size_t size = 0;

	if (head && path && hr_read_file(path, 64 * 1024, &data, &size) == 0 &&
	    size > strlen(head) && memchr(data, '\0', size) == NULL) {
		char *body = strndup(data, size);

		if (body && strncmp(body, head, strlen(head)) == 0) {
			const char *rest = body + strlen(head);

			tc = calloc(1, sizeof(*tc));
			if (tc) {
				tc->kind = k;
				tc->path = strdup(exe);
				tc->version = stamp_field(rest, "version");
				tc->identity = stamp_field(rest, "identity");
				tc->devlib_dir = stamp_field(rest, "devlib");
				if (tc->devlib_dir && !*tc->devlib_dir) {
					free(tc->devlib_dir);
					tc->devlib_dir = NULL;
				}
				/*
				 * Never trust a negative answer: libraries missing
				 * then (or gone now) mean a fresh probe, which finds
				 * them once their package is installed.
				 */
				if (!tc->path || !tc->version || !tc->identity ||
				    !*tc->identity ||
				    (k == HR_COMPILER_HIPCC &&
				     (!tc->devlib_dir || access(tc->devlib_dir, R_OK | X_OK) < 0))) {
					hr_toolchain_free(tc);
					tc = NULL;
				}
			}
		}
		free(body);
	}
	free(data);
	free(path);
	free(name);
	free(head);
	free(exe);
	return tc;
}

void hr_stamp_save(struct hanzo_rocm *ctx, const struct hr_config *cfg,
                       const char *dest, const struct hr_toolchain *tc)
{
	char *exe = tc->path ? realpath(tc->path, NULL) : NULL;
	char *head = exe ? stamp_head(cfg, exe) : NULL;
	char *name = stamp_name(tc->kind), *body = NULL;
	int r = -ENOMEM;

	if (head && name &&
	    asprintf(&body, "%sversion=%s\ndevlib=%s\nidentity=%s\n", head,
	             tc->version ? tc->version : "",
	             tc->devlib_dir ? tc->devlib_dir : "",
	             tc->identity ? tc->identity : "") >= 0) {
		/* Fields are one line each; a newline would forge the next one. */
		if (strchr(tc->identity ? tc->identity : "", '\n') ||
		    strchr(tc->version ? tc->version : "", '\n') ||
		    strchr(tc->devlib_dir ? tc->devlib_dir : "", '\n'))
			r = -EINVAL;
		else
			r = hr_write_atomic(dest, name, body, strlen(body), 0644);
	}
	if (r < 0)
		hr_dbg(ctx, "no toolchain stamp in %s: %s\n", dest, strerror(-r));
	free(body);
	free(name);
	free(head);
	free(exe);
}
