/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The on-disk tiers a context reads, in order (layer: cache): system, site,
 * package, user, with the user tier's ownership and mode checks.
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
#include "config-api.h"
#include "util-elf.h"
#include "context.h"
#include "util.h"
#include "util-trust.h"


/* ---- tiers ------------------------------------------------------------- */

/* Writable now, or creatable: the nearest existing ancestor is writable. */
static bool dir_writable(const char *path)
{
	char *p = strdup(path), *slash;
	bool ok = false;

	if (!p)
		return false;
	for (;;) {
		struct stat st;

		if (stat(p, &st) == 0) {
			ok = S_ISDIR(st.st_mode) && access(p, W_OK | X_OK) == 0;
			break;
		}
		if (errno != ENOENT)
			break;
		slash = strrchr(p, '/');
		if (!slash)
			break;
		if (slash == p) {
			p[1] = '\0';
		} else {
			*slash = '\0';
		}
	}
	free(p);
	return ok;
}

static HR_PRINTF(2, 3) void warn_once(struct hanzo_rocm *ctx, const char *fmt, ...)
{
	char msg[PATH_MAX + 256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (hr_ctx_warn_once(ctx, msg))
		hr_warn(ctx, "%s\n", msg);
}

/*
 * The user tier, if usable: policy allows it, it is ours and private (a
 * directory someone else can write could feed us code objects: the trust
 * rule of util-trust.h, so umask 002 with a private group is fine), and its
 * home exists (no cache trees grown at "/nonexistent" for system users).
 */
static int user_tier(struct hanzo_rocm *ctx, const struct hr_config *cfg,
                     struct hr_tier_dir *t)
{
	const char *home = hr_getenv("HOME");
	struct stat st;
	size_t hl;

	if (cfg->policy == HR_POLICY_OFF)
		return 0;
	if (!cfg->user_dir) {
		warn_once(ctx, "%s", "no user cache directory (HOME is not set): caching disabled");
		return 0;
	}
	hl = home ? strlen(home) : 0;
	if (hl > 1 && strncmp(cfg->user_dir, home, hl) == 0 &&
	    cfg->user_dir[hl] == '/' && stat(home, &st) < 0) {
		warn_once(ctx, "home directory %s does not exist: user cache disabled", home);
		return 0;
	}
	if (stat(cfg->user_dir, &st) == 0) {
		char why[PATH_MAX + 256] = "";

		/* The trust rule (a private group's write bit is fine), and ours. */
		if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
		    *hr_trust_stat(hr_ctx_trust(ctx), &st, HR_TRUST_SELF, cfg->user_dir,
		                   why, sizeof(why))) {
			warn_once(ctx, "user cache %s is not a private directory owned by "
			          "this user (%s): caching disabled", cfg->user_dir,
			          why[0] ? why : !S_ISDIR(st.st_mode) ? "not a directory" :
			          "owned by another user");
			return 0;
		}
	}
	t->tier = HR_TIER_USER;
	t->path = strdup(cfg->user_dir);
	if (!t->path)
		return -ENOMEM;
	t->writable = cfg->policy == HR_POLICY_READWRITE && dir_writable(cfg->user_dir);
	return 1;
}

/*
 * A configured shared (system, site, package) tier that exists but fails
 * the trust rule (util-trust.h: it and every ancestor) is skipped, loudly.
 * Whoever else could write it, or swap it by renaming an ancestor's
 * entries, could substitute the code of every job that reads it.  Lookups
 * apply the rule again on the descriptors they read (hr_entry_read_tier).
 */
static bool shared_tier_ok(struct hanzo_rocm *ctx, enum hr_tier tier, const char *path)
{
	char why[PATH_MAX + 256];
	int fd = hr_trust_open_dir(hr_ctx_trust(ctx), path, why, sizeof(why));

	if (fd >= 0) {
		close(fd);
		return true;
	}
	if (fd != -EPERM)
		return true; /* nothing to read there (yet) */
	warn_once(ctx, "%s cache %s is %s: not used", hr_tier_name(tier), path, why);
	return false;
}

static int push_tier(struct hr_tier_dir **v, size_t *n, enum hr_tier tier,
                     const char *path, bool writable)
{
	struct hr_tier_dir *nv;

	/* The same directory twice (site = system, say) is searched once. */
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*v)[i].path, path) == 0)
			return 0;
	nv = realloc(*v, (*n + 1) * sizeof(**v));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n].tier = tier;
	nv[*n].writable = writable;
	nv[*n].path = strdup(path);
	if (!nv[*n].path)
		return -ENOMEM;
	(*n)++;
	return 0;
}

void hr_cache_tiers_free(struct hr_tier_dir *tiers, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(tiers[i].path);
	free(tiers);
}

int hr_cache_tiers(struct hanzo_rocm *ctx, struct hr_tier_dir **tiers, size_t *n)
{
	const struct hr_config *cfg = ctx ? hr_ctx_config(ctx) : NULL;
	struct hr_tier_dir *v = NULL, user = { 0 };
	size_t k = 0;
	char *pkg = NULL;
	int r = 0;

	*tiers = NULL;
	*n = 0;
	if (!cfg)
		return 0;
	if (cfg->system_dir && *cfg->system_dir &&
	    shared_tier_ok(ctx, HR_TIER_SYSTEM, cfg->system_dir))
		r = push_tier(&v, &k, HR_TIER_SYSTEM, cfg->system_dir,
		              dir_writable(cfg->system_dir));
	for (size_t i = 0; r == 0 && cfg->site_dirs && cfg->site_dirs[i]; i++)
		if (shared_tier_ok(ctx, HR_TIER_SITE, cfg->site_dirs[i]))
			r = push_tier(&v, &k, HR_TIER_SITE, cfg->site_dirs[i], false);
	if (r == 0) {
		pkg = hr_root_path(cfg->root, HR_PLUGINCACHEDIR);
		if (!pkg)
			r = -ENOMEM;
		else if (shared_tier_ok(ctx, HR_TIER_PACKAGE, pkg))
			r = push_tier(&v, &k, HR_TIER_PACKAGE, pkg, false);
		free(pkg);
	}
	if (r == 0) {
		r = user_tier(ctx, cfg, &user);
		if (r > 0) {
			r = push_tier(&v, &k, HR_TIER_USER, user.path, user.writable);
			free(user.path);
		}
	}
	if (r < 0) {
		hr_cache_tiers_free(v, k);
		return r;
	}
	*tiers = v;
	*n = k;
	return 0;
}
