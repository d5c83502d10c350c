/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* hanzo-rocm info: one view of everything, assembled from per-module sections. */
#include <getopt.h>
#include <string.h>

#include "tools.h"

int cmd_info(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool as_json = false;
	struct json j;
	int c;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j': as_json = true; break;
		case 'h':
			puts("Usage: hanzo-rocm info [--json]\n\n"
			     "Show devices, toolchains, configuration files and settings,\n"
			     "cache tiers and plugins.  --json prints one JSON object.");
			return EXIT_OK;
		default: return cli_try_help("info");
		}
	}
	if (optind < argc) {
		cli_usage_error("info", "unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	if (!cli_ctx(cli))
		return EXIT_USAGE;
	if (!as_json) {
		info_devices(cli, NULL);
		info_toolchains(cli, NULL);
		info_config(cli, NULL);
		info_cache(cli, NULL);
		info_plugins(cli, NULL);
		return EXIT_OK;
	}
	json_init(&j, stdout);
	json_begin_object(&j);
	json_kv_string(&j, "version", PACKAGE_VERSION);
	info_devices(cli, &j);
	info_toolchains(cli, &j);
	info_config(cli, &j);
	info_cache(cli, &j);
	info_plugins(cli, &j);
	json_end_object(&j);
	json_finish(&j);
	return EXIT_OK;
}
