/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* hanzo-rocm: global options and command dispatch. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "tools.h"

static const struct command commands[] = {
	{ "info", cmd_info, "show devices, toolchains, configuration, cache tiers and plugins" },
	{ "precompile", cmd_precompile, "build code objects for every target and family into a cache tier" },
	{ "cache", cmd_cache, "list | verify [--repair] | gc [--max-size SIZE] | clear" },
	{ "plugins", cmd_plugins, "list kernel-family plugins and whether each was accepted" },
	{ "kernels", cmd_kernels, "describe every installed kernel: arguments, work, forms, workspace" },
	{ "config", cmd_config, "check [FILE]: validate a configuration file" },
	{ "selftest", cmd_selftest, "run every kernel on each GPU against a CPU reference" },
};

/* Length of the valid UTF-8 sequence at s (1..4), 0 when invalid. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t n;
	unsigned char lo = 0x80, hi = 0xbf;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0; /* overlong */
	else if (c == 0xed)
		hi = 0x9f; /* surrogates */
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f; /* beyond U+10FFFF */
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/*
 * Messages echo user input (arguments, config values, paths, compiler
 * output): control characters (but newline and tab) and invalid UTF-8 are
 * written as \xNN so that nothing reaches the terminal as an escape
 * sequence.
 */
void cli_put_safe(const char *msg)
{
	const unsigned char *s = (const unsigned char *)msg;

	while (*s) {
		size_t n = utf8_len(s);

		if (n == 0 || (n == 1 && ((*s < 0x20 && *s != '\n' && *s != '\t') || *s == 0x7f))) {
			fprintf(stderr, "\\x%02x", *s);
			s++;
			continue;
		}
		fwrite(s, 1, n, stderr);
		s += n;
	}
}

__attribute__((format(printf, 1, 0)))
static void vput_safe(const char *fmt, va_list ap)
{
	char *msg;

	if (vasprintf(&msg, fmt, ap) < 0) {
		fputs("(out of memory formatting a message)\n", stderr);
		return;
	}
	cli_put_safe(msg);
	free(msg);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;

	fputs("hanzo-rocm: ", stderr);
	va_start(ap, fmt);
	vput_safe(fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "hanzo-rocm %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return cli_try_help(cmd);
}

int cli_try_help(const char *cmd)
{
	fprintf(stderr, "Try 'hanzo-rocm%s%s --help' for more information.\n",
	        cmd ? " " : "", cmd ? cmd : "");
	return EXIT_USAGE;
}

__attribute__((format(printf, 6, 0)))
static void cli_log(void *data, int priority, const char *file, int line,
                    const char *fn, const char *format, va_list args)
{
	(void)data;
	if (priority >= LOG_DEBUG)
		fprintf(stderr, "hanzo-rocm: debug: %s:%d %s: ", file, line, fn);
	else if (priority >= LOG_INFO)
		fputs("hanzo-rocm: ", stderr);
	else if (priority == LOG_WARNING)
		fputs("hanzo-rocm: warning: ", stderr);
	else
		fputs("hanzo-rocm: error: ", stderr);
	vput_safe(format, args);
}

struct hanzo_rocm *cli_ctx(struct cli *cli)
{
	static const int levels[] = { LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG };
	struct hanzo_rocm_options o = { .size = sizeof(o) };
	int v = cli->verbosity + 1, r;

	if (cli->ctx)
		return cli->ctx;
	if (v < 0)
		v = 0;
	if (v > 3)
		v = 3;
	o.root = cli->root;
	o.config = cli->config;
	o.host = cli->host;
	o.log_fn = cli_log;
	o.log_priority = levels[v];
	r = hanzo_rocm_new_with_options(&o, &cli->ctx);
	if (r < 0) {
		cli_error("cannot initialise: %s", hanzo_rocm_strerror(r));
		return NULL;
	}
	/* HANZO_ROCM_LOG may have raised it; the command line wins. */
	if (cli->verbosity != 0 || !getenv("HANZO_ROCM_LOG"))
		hanzo_rocm_set_log_priority(cli->ctx, levels[v]);
	return cli->ctx;
}

static void usage(FILE *f)
{
	fputs("Usage: hanzo-rocm [--config FILE] [--root DIR] [-v|-q] COMMAND [ARGS]\n"
	      "\n"
	      "Precompiled, cached GPU kernels for AMD (HIP) and NVIDIA GPUs.\n"
	      "\n"
	      "Commands:\n", f);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-11s %s\n", commands[i].name, commands[i].help);
	fputs("\n"
	      "Options:\n"
	      "  --config FILE  main configuration file (default " HR_SYSCONFDIR "/hanzo-rocm.conf)\n"
	      "  --root DIR     resolve every system path (config, /sys, caches, plugins) under DIR\n"
	      "  -v, --verbose  more messages (repeat for debug)\n"
	      "  -q, --quiet    errors only\n"
	      "  -h, --help     this help; COMMAND --help for a command's\n"
	      "  -V, --version  print the version\n"
	      "\n"
	      "Exit status (every command): 0 success; 1 the operation failed (or found\n"
	      "corruption); 2 usage or configuration error, and for selftest no GPU.\n"
	      "See hanzo-rocm(1) and hanzo-rocm.conf(5).\n", f);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "root", required_argument, NULL, 'r' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli cli = { 0 };
	char prog[64];
	int c, r;

	/* getopt's messages read "hanzo-rocm: ..."; prog outlives every reader. */
	// cppcheck-suppress autoVariables
	argv[0] = prog;
	snprintf(prog, sizeof(prog), "hanzo-rocm");
	/* '+': options after the command belong to the command. */
	while ((c = getopt_long(argc, argv, "+c:r:vqhV", opts, NULL)) != -1) {
		switch (c) {
		case 'c': cli.config = optarg; break;
		case 'r': cli.root = optarg; break;
		case 'v': cli.verbosity++; break;
		case 'q': cli.verbosity--; break;
		case 'h': usage(stdout); return EXIT_OK;
		case 'V': puts(PACKAGE_NAME " " PACKAGE_VERSION); return EXIT_OK;
		default: return cli_try_help(NULL);
		}
	}
	if (optind >= argc) {
		cli_error("no command given");
		return cli_try_help(NULL);
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[optind], commands[i].name) != 0)
			continue;
		argc -= optind;
		argv += optind;
		/* getopt's messages then read "hanzo-rocm CMD: ...". */
		snprintf(prog, sizeof(prog), "hanzo-rocm %s", commands[i].name);
		// cppcheck-suppress autoVariables
		argv[0] = prog;
		optind = 0; /* reset getopt for the command's own parsing */
		r = commands[i].run(&cli, argc, argv);
		hanzo_rocm_unref(cli.ctx);
		if (fflush(stdout) != 0 || ferror(stdout)) {
			cli_error("write error on standard output: %s", strerror(errno));
			return EXIT_FAILED;
		}
		return r;
	}
	cli_error("unknown command '%s'", argv[optind]);
	return cli_try_help(NULL);
}
