/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The targets `precompile` builds when none are given (layer: precompile):
 * HANZO_ROCM_TARGETS, else detected devices and [targets] extra, else
 * [targets] default.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "devices/devices.h"
#include "context.h"
#include "precompile.h"
#include "target/target.h"
#include "shared/util.h"

/* ---- precompile targets -------------------------------------------------- */

static int push_unique(struct hanzo_rocm *ctx, char ***v, const char *t,
                       const char *from)
{
	if (hr_target_validate(t) < 0) {
		hr_err(ctx, "%s: invalid target '%s'\n", from, t);
		return -EINVAL;
	}
	if (hr_strv_contains(*v, t))
		return 0;
	return hr_strv_push(v, t);
}

static int push_list(struct hanzo_rocm *ctx, char ***v, char *const *list,
                     const char *from)
{
	for (size_t i = 0; list && list[i]; i++) {
		int r = push_unique(ctx, v, list[i], from);

		if (r < 0)
			return r;
	}
	return 0;
}

int hr_targets_for_precompile(struct hanzo_rocm *ctx, char ***targets,
                              const char **why)
{
	const struct hr_config *cfg;
	const struct hr_device *devs;
	char **v;
	size_t n = 0;
	bool detected = false;
	int r;

	if (!ctx || !targets || !hr_ctx_config(ctx))
		return -EINVAL;
	cfg = hr_ctx_config(ctx);
	*targets = NULL;
	v = hr_strv_new();
	if (!v)
		return -ENOMEM;
	if (hr_strv_len(cfg->env_targets) > 0) {
		r = push_list(ctx, &v, cfg->env_targets, "HANZO_ROCM_TARGETS");
		if (why)
			*why = "HANZO_ROCM_TARGETS";
		goto out;
	}
	r = hr_devices_get(ctx, &devs, &n);
	if (r < 0)
		goto out;
	/* Code objects are built feature-any: one per processor serves every mode. */
	for (size_t i = 0; i < n; i++) {
		char generic[HR_TARGET_MAX];

		if (hr_target_generic(devs[i].target, generic, sizeof(generic)) < 0)
			continue;
		r = push_unique(ctx, &v, generic, "detected device");
		if (r < 0)
			goto out;
		detected = true;
	}
	if (hr_strv_len(cfg->extra) > 0) {
		r = push_list(ctx, &v, cfg->extra, "[targets] extra");
		if (why)
			*why = "detected + extra";
		goto out;
	}
	if (detected) {
		if (why)
			*why = "detected";
		goto out;
	}
	r = push_list(ctx, &v, cfg->default_targets, "[targets] default");
	if (why)
		*why = "default list";
out:
	if (r < 0) {
		hr_strv_free(v);
		return r;
	}
	*targets = v;
	return 0;
}

