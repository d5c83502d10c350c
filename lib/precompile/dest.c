/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Where precompile writes (layer: top): the destination tier chosen by the
 * options (system, user, --output) made ready, or found read-only; and the
 * read-only tiers searched before it, whose entries need no rebuild.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache/cache.h"
#include "config/config.h"
#include "context.h"
#include "precompile-internal.h"
#include "precompile.h"
#include "shared/util.h"
#include "shared/trust.h"

static bool user_tier_usable(struct hanzo_rocm *ctx)
{
	struct hr_tier_dir *tiers = NULL;
	size_t n = 0;
	bool found = false;

	if (hr_cache_tiers(ctx, &tiers, &n) < 0)
		return false;
	for (size_t i = 0; i < n; i++)
		found = found || tiers[i].tier == HR_TIER_USER;
	hr_cache_tiers_free(tiers, n);
	return found;
}

int hr_precompile_dest(struct hanzo_rocm *ctx, const struct hr_config *cfg,
                       const struct hr_precompile_opts *o, const char **dir,
                       bool *readonly)
{
	const char *d = NULL, *what = "output";
	mode_t mode = 0755;
	struct stat st;
	int r;

	switch (o->dest) {
	case HR_PRECOMPILE_SYSTEM:
		d = cfg->system_dir;
		what = "system cache";
		break;
	case HR_PRECOMPILE_USER:
		d = cfg->user_dir;
		what = "user cache";
		mode = 0700; /* per user (doc/DESIGN.md §5) */
		if (cfg->policy == HR_POLICY_OFF)
			hr_warn(ctx, "[cache] policy = off: the library will not read the user cache this fills\n");
		if (!d) {
			hr_err(ctx, "no user cache directory: set HOME, XDG_CACHE_HOME or HANZO_ROCM_CACHE_DIR\n");
			return -ENOENT;
		}
		/* Fill only a tier the library would read: no trees under a missing HOME. */
		if (cfg->policy != HR_POLICY_OFF && !user_tier_usable(ctx)) {
			hr_err(ctx, "user cache %s is disabled (see the warning above)\n", d);
			return -ENOENT;
		}
		break;
	case HR_PRECOMPILE_OUTPUT:
		d = o->output;
		break;
	}
	if (!d || !*d) {
		hr_err(ctx, "precompile: no %s directory given\n", what);
		return -EINVAL;
	}
	r = hr_mkdir_p(d, mode);
	if (r < 0 && r != -EEXIST) {
		hr_err(ctx, "cannot create %s directory %s: %s%s\n", what, d,
		       strerror(-r),
		       o->dest == HR_PRECOMPILE_SYSTEM && (r == -EACCES || r == -EPERM)
		               ? " (precompile --system needs root)" : "");
		return r == -EPERM ? -EACCES : r;
	}
	if (stat(d, &st) < 0 || !S_ISDIR(st.st_mode)) {
		r = stat(d, &st) < 0 ? -errno : -ENOTDIR;
		hr_err(ctx, "%s %s: %s\n", what, d, strerror(-r));
		return r;
	}
	if (access(d, W_OK | X_OK) < 0) {
		r = -errno;
		/*
		 * A read-only user cache (a shared home mounted read-only, a
		 * locked-down node) that already holds every pair is fine:
		 * only a pair that needs building fails.
		 */
		if (o->dest == HR_PRECOMPILE_USER && (r == -EACCES || r == -EROFS)) {
			hr_dbg(ctx, "%s %s is not writable: checking only\n", what, d);
			*readonly = true;
			*dir = d;
			return 0;
		}
		hr_err(ctx, "%s %s is not writable: %s%s\n", what, d, strerror(-r),
		       o->dest == HR_PRECOMPILE_SYSTEM ? " (precompile --system needs root)" : "");
		return r;
	}
	*dir = d;
	return 0;
}

/*
 * Read-only tiers searched before the destination: an entry there already
 * serves every process, so building it again would only waste disk (this is
 * how Debian cache packages avoid recompiles).  --output gets none: it is
 * for building packages and images, which must be complete.
 */
int hr_precompile_ro_dirs(struct hanzo_rocm *ctx, const struct hr_config *cfg,
                          const struct hr_precompile_opts *o, const char *dest,
                          char ***ret)
{
	struct hr_tier_dir *tiers = NULL;
	size_t n = 0;
	char **v = hr_strv_new();
	char *pkg;
	int r = 0;

	if (!v)
		return -ENOMEM;
	*ret = v;
	if (o->dest == HR_PRECOMPILE_OUTPUT)
		return 0;
	if (hr_cache_tiers(ctx, &tiers, &n) < 0) {
		hr_warn(ctx, "cannot list cache tiers; not looking for provided entries\n");
		n = 0;
	}
	for (size_t i = 0; i < n && r == 0; i++) {
		if (tiers[i].tier == HR_TIER_USER || tiers[i].tier == HR_TIER_MEMORY)
			continue;
		if (tiers[i].tier == HR_TIER_SYSTEM && o->dest == HR_PRECOMPILE_SYSTEM)
			continue;
		if (strcmp(tiers[i].path, dest) != 0 && !hr_strv_contains(v, tiers[i].path))
			r = hr_strv_push(&v, tiers[i].path);
	}
	hr_cache_tiers_free(tiers, n);
	/*
	 * The packaged tier (cache packages install here), under the rule of
	 * the shared tiers (hr_cache_tiers applied it to system and site).
	 */
	pkg = hr_root_path(cfg->root, HR_PLUGINCACHEDIR);
	if (!pkg) {
		r = -ENOMEM;
	} else if (r == 0 && strcmp(pkg, dest) != 0 && !hr_strv_contains(v, pkg)) {
		char buf[PATH_MAX + 256];
		int fd = hr_trust_open_dir(hr_ctx_trust(ctx), pkg, buf, sizeof(buf));

		/* (hr_cache_tiers has warned about it) */
		if (fd >= 0)
			close(fd);
		if (fd != -EPERM)
			r = hr_strv_push(&v, pkg);
	}
	free(pkg);
	*ret = v;
	return r;
}
