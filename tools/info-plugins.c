/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The plugins section of `hanzo-rocm info`: the plugin path and every plugin
 * file found with its status, as a "Plugins:" text block or the JSON member
 * "plugins": [{family, version, abi, path, status, reason}, ...].
 * `hanzo-rocm plugins --json` prints the same member.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hanzo-rocm-tools.h"
#include "tools.h"

static const char *status_word(const struct hr_plugin_status *s)
{
	return s->ok ? "ok" : s->disabled ? "disabled" : "rejected";
}

static void plugin_json(struct json *j, const struct hr_plugin_status *s)
{
	json_begin_object(j);
	json_kv_string(j, "family", s->family);
	json_kv_string(j, "version", s->version);
	json_key(j, "abi");
	if (s->abi)
		json_uint(j, s->abi);
	else
		json_null(j);     /* the descriptor could not be read */
	json_kv_string(j, "path", s->path);
	json_kv_string(j, "status", status_word(s));
	json_kv_string(j, "reason", s->ok || s->disabled ? NULL : s->why);
	json_end_object(j);
}

void info_plugins(struct cli *cli, struct json *j)
{
	struct hanzo_rocm *ctx = cli_ctx(cli);
	struct hr_plugin_status *list = NULL;
	char *path = NULL;
	size_t n = 0;
	int r = -EINVAL;

	if (ctx)
		r = hr_plugins_scan(ctx, &list, &n);
	if (r < 0)
		cli_error("plugins: cannot scan: %s", hanzo_rocm_strerror(r));
	if (j) {
		json_key(j, "plugins");
		json_begin_array(j);
		for (size_t i = 0; i < n; i++)
			plugin_json(j, &list[i]);
		json_end_array(j);
		hr_plugin_status_free(list, n);
		return;
	}
	if (ctx)
		path = hr_strv_join(hr_tools_config(ctx)->plugin_path, ":");
	printf("Plugins:%s%s\n", path ? " path " : "", path ? path : "");
	if (r == 0 && n == 0)
		puts("  none found");
	for (size_t i = 0; i < n; i++) {
		const struct hr_plugin_status *s = &list[i];

		printf("  %-16s %-10s %s: %s%s%s\n", s->family ? s->family : "-",
		       s->version ? s->version : "-", s->path, status_word(s),
		       s->ok || s->disabled ? "" : ": ", s->ok || s->disabled ? "" : s->why);
	}
	putchar('\n');
	free(path);
	hr_plugin_status_free(list, n);
}
