/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hanzo-rocm config check [FILE]: validate one file, or the effective set
 * (main file + conf.d + environment) exactly as the library would read it.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "hanzo-rocm-tools.h"
#include "tools.h"

/*
 * Messages as compilers print them: "FILE:LINE: message" for errors and
 * "FILE:LINE: warning: message" for warnings, so editors can jump to them.
 */
__attribute__((format(printf, 6, 0)))
static void check_log(void *data, int priority, const char *file, int line,
                      const char *fn, const char *format, va_list args)
{
	char msg[4096];
	const char *p;
	size_t loc = 0;

	(void)data; (void)file; (void)line; (void)fn;
	vsnprintf(msg, sizeof(msg), format, args);
	if (priority > LOG_WARNING) {
		fputs("hanzo-rocm: ", stderr);
		cli_put_safe(msg);
		return;
	}
	if (priority < LOG_WARNING) {
		cli_put_safe(msg);
		return;
	}
	/* Find the end of a leading "FILE:LINE: " to put "warning: " after it. */
	for (p = strstr(msg, ": "); p; p = strstr(p + 1, ": ")) {
		const char *d = p;

		while (d > msg && d[-1] >= '0' && d[-1] <= '9')
			d--;
		if (d < p && d > msg && d[-1] == ':') {
			loc = (size_t)(p - msg) + 2;
			break;
		}
	}
	if (loc) {
		msg[loc - 1] = '\0';
		cli_put_safe(msg);
		fputc(' ', stderr);
	}
	fputs("warning: ", stderr);
	cli_put_safe(msg + loc);
}

static int check(struct cli *cli, const char *file, bool quiet)
{
	static const int levels[] = { LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG };
	int v = cli->verbosity + 1, r;
	/*
	 * A context just for logging, made silent and reading no file:
	 * cli_ctx() would load (and warn about) the very configuration we are
	 * here to check strictly.
	 */
	struct hanzo_rocm_options o = {
		.size = sizeof(o), .config = "/dev/null", .log_fn = check_log,
	};
	struct hanzo_rocm *ctx = NULL;
	struct hr_config *cfg = NULL;

	r = hanzo_rocm_new_with_options(&o, &ctx);
	if (r < 0) {
		cli_error("cannot create a context: %s", hanzo_rocm_strerror(r));
		return EXIT_FAILED;
	}
	hanzo_rocm_set_log_priority(ctx, levels[v < 0 ? 0 : v > 3 ? 3 : v]);
	if (file) {
		r = hr_config_check_file(ctx, file);
		hanzo_rocm_unref(ctx);
		if (r < 0)
			return EXIT_USAGE;
		if (!quiet)
			printf("%s: ok\n", file);
		return EXIT_OK;
	}
	r = hr_config_load(ctx, cli->root, cli->config, true, &cfg);
	hanzo_rocm_unref(ctx);
	if (r < 0)
		return EXIT_USAGE;
	if (!quiet) {
		for (size_t i = 0; cfg->files[i]; i++)
			printf("%s: ok\n", cfg->files[i]);
		if (!cfg->files[0])
			puts("no configuration file found; built-in defaults are in effect");
	}
	hr_config_free(cfg);
	return EXIT_OK;
}

static void usage(FILE *f)
{
	fputs("Usage: hanzo-rocm config check [-q] [FILE]\n"
	      "\n"
	      "Validate FILE, or with no FILE the configuration the library would\n"
	      "read (the main file, its hanzo-rocm.conf.d/*.conf and the environment,\n"
	      "honouring --config and --root).  Problems are printed on standard\n"
	      "error as FILE:LINE: message.\n"
	      "\n"
	      "  -q, --quiet  print nothing when the configuration is valid\n"
	      "\n"
	      "Exit status: 0 valid (warnings allowed), 2 invalid or unreadable.\n", f);
}

int cmd_config(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool quiet = cli->verbosity < 0;
	int c;

	while ((c = getopt_long(argc, argv, "+qh", opts, NULL)) != -1) {
		switch (c) {
		case 'q': quiet = true; break;
		case 'h': usage(stdout); return EXIT_OK;
		default: return cli_try_help("config");
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[optind], "check") != 0) {
		cli_usage_error("config", "unknown subcommand '%s' (expected check)", argv[optind]);
		return EXIT_USAGE;
	}
	optind++;
	argv[0] = (char *)"hanzo-rocm config check";  /* getopt's messages */
	/* Options may also follow the subcommand: config check -q FILE. */
	while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
		switch (c) {
		case 'q': quiet = true; break;
		case 'h': usage(stdout); return EXIT_OK;
		default: return cli_try_help("config check");
		}
	}
	if (argc - optind > 1) {
		cli_usage_error("config check", "unexpected argument '%s'", argv[optind + 1]);
		return EXIT_USAGE;
	}
	return check(cli, optind < argc ? argv[optind] : NULL, quiet);
}
