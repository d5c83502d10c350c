/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `hanzo-rocm precompile --source FILE --name NAME [--flags ...]`: caller
 * source precompiled into a tier (the system tier by an admin, so that an
 * application's hanzo_rocm_module_get finds it where no compiler runs),
 * one result per target as for the families.  An entry whose key matches is
 * up to date and spawns nothing.  Layer: top (lib/layers).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "source/source.h"
#include "source/key.h"
#include "config/config.h"
#include "context.h"
#include "target/target.h"
#include "precompile-internal.h"
#include "precompile.h"
#include "shared/util.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * One target into dir (a tier root: system, or --output), under the entry's
 * lock: 1 built, 0 up to date (a valid entry with this key is there and
 * !force), or an error.  *out_size: the code object's bytes.
 */
static int precompile_one(struct hanzo_rocm *ctx, const struct hr_source_spec *s,
                          const char *target, const char *dir, bool force,
                          uint64_t *out_size, char **diag)
{
	struct hr_source_key k;
	struct hr_entry e;
	char *identity = NULL, *path;
	void *obj = NULL;
	size_t size = 0;
	int r, fd = -1;

	*diag = NULL;
	*out_size = 0;
	if (hr_target_validate(target) < 0) {
		hr_err(ctx, "invalid target '%s'\n", target);
		return -EINVAL;
	}
	r = hr_source_key(ctx, s, target, &k);
	if (r < 0)
		return r;
	path = hr_entry_path(dir, target, k.entry);
	if (!path)
		return -ENOMEM;
	(void)hr_entry_lock(dir, target, k.entry, HR_COMPILE_TIMEOUT_S + 5, &fd);
	if (!force && hr_entry_read(ctx, path, &k.key, &e) == 0) {
		*out_size = e.payload_size;
		hr_entry_release(&e);
		r = 0;
		goto out;
	}
	r = hr_source_compile(ctx, s, target, &obj, &size, &identity, diag);
	if (r == 0)
		r = hr_entry_write(ctx, dir, k.entry, target, &k.key, identity, obj, size);
	if (r == 0) {
		*out_size = size;
		r = 1;
	}
out:
	if (r < 0)
		hr_entry_unlock_discard(dir, target, k.entry, fd);
	else
		hr_entry_unlock(fd);
	free(identity);
	free(obj);
	free(path);
	return r;
}

int hr_precompile_source(struct hanzo_rocm *ctx, const struct hr_precompile_opts *o,
                         const struct hr_source_spec *s,
                         struct hr_precompile_summary *sum)
{
	const struct hr_config *cfg = hr_ctx_config(ctx);
	char **owned = NULL;
	char *const *targets = o->targets;
	const char *dir = NULL;
	bool readonly = false;
	int r;

	memset(sum, 0, sizeof(*sum));
	if (!cfg)
		return -EINVAL;
	r = hr_source_check(ctx, s);
	if (r < 0)
		return r;
	if (!targets || !targets[0]) {
		r = hr_targets_for_precompile(ctx, &owned, &sum->targets_why);
		if (r < 0)
			return r;
		targets = owned;
	} else {
		sum->targets_why = "--target";
	}
	r = hr_precompile_dest(ctx, cfg, o, &dir, &readonly);
	if (r == 0 && readonly) {
		hr_err(ctx, "%s is read-only ([cache] policy): nothing can be precompiled there\n", dir);
		r = -EROFS;
	}
	if (r == 0 && !(sum->dir = strdup(dir)))
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && targets[i]; i++) {
		struct hr_precompile_result res = { .target = targets[i], .family = s->name };
		char *diag = NULL, why[128] = "";
		double t0 = now_s();
		int b;

		if (o->on_progress)
			o->on_progress(o->data, (unsigned)i, (unsigned)hr_strv_len(targets),
			               targets[i], s->name);
		b = precompile_one(ctx, s, targets[i], dir, o->force, &res.size, &diag);
		res.seconds = now_s() - t0;
		if (b == 1) {
			res.status = HR_PRECOMPILE_BUILT;
			sum->built++;
		} else if (b == 0) {
			res.status = HR_PRECOMPILE_UP_TO_DATE;
			sum->up_to_date++;
		} else if (b == -ENOTSUP) {
			res.status = HR_PRECOMPILE_SKIPPED;
			res.reason = "the installed compiler cannot build this target";
			sum->skipped++;
		} else {
			res.status = HR_PRECOMPILE_FAILED;
			snprintf(why, sizeof(why), "%s", b == -EILSEQ ? "compile error" :
			         b == -ENOENT ? "no compiler for this target" : hanzo_rocm_strerror(b));
			res.reason = why;
			res.diag = diag;
			sum->failed++;
		}
		if (o->on_result)
			o->on_result(o->data, &res);
		free(diag);
		if (b == -ECANCELED || (hr_ctx_cancel(ctx) && *hr_ctx_cancel(ctx)))
			break;
	}
	hr_strv_free(owned);
	if (r < 0) {
		free(sum->dir);
		sum->dir = NULL;
	}
	return r;
}
