/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Creating the library context (layer: top): logging set up, then the
 * configuration loaded and published; and the tools' accessors
 * (hanzo-rocm-tools.h).  The context itself, its teardown and logging are
 * lib/context.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/config.h"
#include "context.h"
#include "hanzo-rocm-tools.h"
#include "shared/util.h"

static void config_destroy(void *cfg)
{
	hr_config_free(cfg);
}

HR_EXPORT int hanzo_rocm_new_with_options(const struct hanzo_rocm_options *opts,
                                          struct hanzo_rocm **ret)
{
	struct hanzo_rocm_options o = { 0 };
	struct hanzo_rocm *ctx;
	struct hr_config *cfg = NULL;
	int r;

	if (!ret)
		return -EINVAL;
	*ret = NULL;
	if (opts) {
		if (opts->size < offsetof(struct hanzo_rocm_options, log_priority) + sizeof(int))
			return -EINVAL;
		memcpy(&o, opts, sizeof(o) < opts->size ? sizeof(o) : opts->size);
	}
	r = hr_ctx_new(o.log_fn, o.log_data, o.log_priority, &ctx);
	if (r < 0)
		return r;
	/* Lenient: a bad setting is reported and left out, not fatal. */
	r = hr_config_load(ctx, o.root, o.config, false, &cfg);
	if (r == 0 && o.host)
		r = hr_config_set_host(ctx, cfg, o.host, "options.host");
	if (r == 0 && o.plugin_path)
		r = hr_config_set_plugin_path(ctx, cfg, o.plugin_path, "options.plugin_path");
	if (r < 0) {
		hr_config_free(cfg);
		hanzo_rocm_unref(ctx);
		return r;
	}
	hr_ctx_publish(ctx, HR_SLOT_CONFIG, cfg, config_destroy);
	hr_info(ctx, "context %p created\n", (void *)ctx);
	*ret = ctx;
	return 0;
}

HR_EXPORT int hanzo_rocm_new(struct hanzo_rocm **ret)
{
	return hanzo_rocm_new_with_options(NULL, ret);
}

const struct hr_config *hr_tools_config(struct hanzo_rocm *ctx)
{
	return hr_ctx_config(ctx);
}

void hr_tools_set_cancel(struct hanzo_rocm *ctx, const volatile sig_atomic_t *flag)
{
	hr_ctx_set_cancel(ctx, flag);
}
