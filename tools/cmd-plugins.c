/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hanzo-rocm plugins [--json]: every plugin file along the plugin path with
 * family, version, ABI, path and status (ok / rejected: why / disabled).
 * Listing succeeds (exit 0) however many plugins are rejected.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hanzo-rocm-tools.h"
#include "tools.h"

static void print_table(const struct hr_plugin_status *list, size_t n)
{
	printf("%-16s %-10s %-4s %-8s %s\n", "FAMILY", "VERSION", "ABI", "STATUS", "PATH");
	for (size_t i = 0; i < n; i++) {
		const struct hr_plugin_status *s = &list[i];
		char abi[16] = "-";

		if (s->abi)
			snprintf(abi, sizeof(abi), "%u", s->abi);
		if (s->ok || s->disabled)
			printf("%-16s %-10s %-4s %-8s %s\n", s->family ? s->family : "-",
			       s->version ? s->version : "-", abi,
			       s->ok ? "ok" : "disabled", s->path);
		else
			printf("%-16s %-10s %-4s %-8s %s\n%29s rejected: %s\n",
			       s->family ? s->family : "-", s->version ? s->version : "-",
			       abi, "rejected", s->path, "", s->why);
	}
}

/* Whether lookups use an index (lazy dlopen) or scan, and why. */
static void print_index(struct hanzo_rocm *ctx, struct json *j)
{
	char *path = NULL, *why = NULL;
	int r = hr_plugins_index_state(ctx, &path, &why);

	if (r < 0) {
		cli_error("plugins: cannot check the plugin index: %s", hanzo_rocm_strerror(r));
		return;
	}
	if (j) {
		json_key(j, "index");
		json_begin_object(j);
		json_kv_string(j, "path", path);
		json_kv_bool(j, "fresh", path != NULL);
		json_kv_string(j, "reason", why);
		json_end_object(j);
	} else if (path) {
		printf("\nindex: %s (fresh: families load on first use)\n", path);
	} else {
		printf("\nindex: none used (%s): lookups scan every plugin\n", why);
	}
	free(path);
	free(why);
}

int cmd_plugins(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct hr_plugin_status *list = NULL;
	struct hanzo_rocm *ctx;
	bool as_json = false;
	struct json j;
	size_t n = 0;
	int c, r;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j': as_json = true; break;
		case 'h':
			puts("Usage: hanzo-rocm plugins [--json]\n\n"
			     "List every kernel-family plugin found along the plugin path\n"
			     "([plugins] path, $HANZO_ROCM_PLUGIN_PATH) with its family, version,\n"
			     "ABI, path and status: ok, disabled, or rejected with the reason.");
			return EXIT_OK;
		default: return cli_try_help("plugins");
		}
	}
	if (optind < argc) {
		cli_usage_error("plugins", "unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	ctx = cli_ctx(cli);
	if (!ctx)
		return EXIT_USAGE;
	if (as_json) {
		json_init(&j, stdout);
		json_begin_object(&j);
		json_key(&j, "plugin_path");
		json_begin_array(&j);
		for (size_t i = 0; hr_tools_config(ctx)->plugin_path &&
		                   hr_tools_config(ctx)->plugin_path[i]; i++)
			json_string(&j, hr_tools_config(ctx)->plugin_path[i]);
		json_end_array(&j);
		print_index(ctx, &j);
		info_plugins(cli, &j);
		json_end_object(&j);
		json_finish(&j);
		return EXIT_OK;
	}
	r = hr_plugins_scan(ctx, &list, &n);
	if (r < 0) {
		cli_error("plugins: cannot scan the plugin path: %s", hanzo_rocm_strerror(r));
		return EXIT_FAILED;
	}
	if (n == 0) {
		char *path = hr_strv_join(hr_tools_config(ctx)->plugin_path, ":");

		printf("no plugins found%s%s\n", path ? " in " : "", path ? path : "");
		free(path);
	} else {
		print_table(list, n);
	}
	print_index(ctx, NULL);
	hr_plugin_status_free(list, n);
	return EXIT_OK;
}
