/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * precompile --system's pruning (layer: top): the entries of families the
 * previous run found installed (its plugins.index) and this run does not
 * - a plugin package removed - leave the system tier (doc/DESIGN.md §6).
 * Only families the index recorded are touched: whatever else the tier
 * holds (another tool's entries) is not this run's to judge.  A family
 * disabled in the configuration is still installed and keeps its entries.
 * And hr_cache_file_is_family(), the one rule naming a tier file's
 * family, which `cache clear --family` uses too.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hanzo-rocm.h"
#include "plugin/plugin.h"
#include "cache/cache.h"
#include "config/config.h"
#include "context.h"
#include "precompile-internal.h"
#include "precompile.h"
#include "shared/util.h"
#include "shared/name.h"

bool hr_cache_file_is_family(const char *name, enum hr_cache_file kind, const char *family)
{
	size_t n = strlen(family);

	switch (kind) {
	case HR_CACHE_ENTRY:            /* F.hrco */
		return strncmp(name, family, n) == 0 && strcmp(name + n, ".hrco") == 0;
	case HR_CACHE_QUARANTINE:       /* F.hrco.bad-PID */
		return strncmp(name, family, n) == 0 && strncmp(name + n, ".hrco.bad-", 10) == 0;
	case HR_CACHE_TEMP:             /* .F.hrco.XXXXXX */
		return name[0] == '.' && strncmp(name + 1, family, n) == 0 &&
		       strncmp(name + 1 + n, ".hrco.", 6) == 0;
	case HR_CACHE_LOCK:             /* .F.lock */
		return name[0] == '.' && strncmp(name + 1, family, n) == 0 &&
		       strcmp(name + 1 + n, ".lock") == 0;
	default:
		return false;
	}
}

struct prune {
	struct hanzo_rocm *ctx;
	char *const *gone;
	unsigned removed;
};

static int prune_one(void *data, const char *path, const char *target, const char *name,
                     enum hr_cache_file kind, const struct stat *st)
{
	struct prune *p = data;

	(void)target;
	(void)st;
	for (size_t i = 0; p->gone[i]; i++) {
		if (!hr_cache_file_is_family(name, kind, p->gone[i]))
			continue;
		if (unlink(path) == 0) {
			p->removed += kind == HR_CACHE_ENTRY;
			hr_dbg(p->ctx, "pruned %s (family '%s' no longer installed)\n", path,
			       p->gone[i]);
		} else if (errno != ENOENT) {
			hr_warn(p->ctx, "cannot remove %s: %s\n", path, strerror(errno));
		}
		break;
	}
	return 0;
}

int hr_precompile_prune(struct hanzo_rocm *ctx, const char *dest, char *const *before,
                        char ***pruned, unsigned *removed)
{
	const struct hr_config *cfg = hr_ctx_config(ctx);
	char **now = NULL, **gone = hr_strv_new();
	struct prune p = { .ctx = ctx };
	int r;

	*pruned = NULL;
	*removed = 0;
	if (!gone)
		return -ENOMEM;
	r = hr_plugins_families(ctx, &now);
	for (size_t i = 0; r == 0 && before && before[i]; i++)
		if (!hr_strv_contains(now, before[i]) && !hr_strv_contains(cfg->disable, before[i]) &&
		    hr_name_is_valid(before[i]) && hr_strv_push(&gone, before[i]) < 0)
			r = -ENOMEM;
	hr_strv_free(now);
	if (r == 0 && gone[0]) {
		p.gone = gone;
		r = hr_cache_scan(dest, NULL, prune_one, &p);
		if (r == -ENOENT)
			r = 0;
		*removed = p.removed;
	}
	if (r < 0) {
		hr_strv_free(gone);
		return r;
	}
	for (size_t i = 0; gone[i]; i++)
		hr_info(ctx, "family '%s' is no longer installed: its entries left %s\n", gone[i],
		        dest);
	*pruned = gone;
	return 0;
}
