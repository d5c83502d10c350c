/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The hanzo-rocm CLI: shared state of one invocation and small helpers. */
#ifndef HR_TOOLS_H
#define HR_TOOLS_H

#include <stdbool.h>
#include <stdio.h>

#include "hanzo-rocm.h"

/* Exit codes (doc/DESIGN.md §4). */
enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2 };

struct cli {
	const char *root;         /* --root */
	const char *config;       /* --config */
	int verbosity;            /* -v: +1, -q: -1 */
	const char *host;         /* host devices asked for by the command (selftest --device host) */
	struct hanzo_rocm *ctx;   /* created on first cli_ctx() */
};

/* The library context for this run; NULL (message printed) on bad config. */
struct hanzo_rocm *cli_ctx(struct cli *cli);

/* Prints "hanzo-rocm: <message>" to stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* msg to stderr, control characters and invalid UTF-8 as \xNN. */
void cli_put_safe(const char *msg);

/*
 * Usage errors, one style for every command (CMD: "precompile", "cache list"):
 *   hanzo-rocm CMD: <message>
 *   Try 'hanzo-rocm CMD --help' for more information.
 * on stderr; both return EXIT_USAGE.  cli_try_help() prints only the second
 * line, after getopt has printed the first (the command's argv[0] is
 * "hanzo-rocm CMD", so getopt's messages carry that prefix).
 */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int cli_try_help(const char *cmd);

struct command {
	const char *name;
	int (*run)(struct cli *cli, int argc, char **argv);
	const char *help;         /* one line for --help */
};

int cmd_info(struct cli *cli, int argc, char **argv);
int cmd_precompile(struct cli *cli, int argc, char **argv);
int cmd_cache(struct cli *cli, int argc, char **argv);
/* cache keygen, cache push (cmd-cache-remote.c) */
int cache_keygen(struct cli *cli, int argc, char **argv);
int cache_push(struct cli *cli, int argc, char **argv);
/* Sign and push the valid entries of dir for target (and family, NULL:
 * all) to every [remote] url; counts added to *pushed and *failed. */
int remote_push_dir(struct hanzo_rocm *ctx, const char *dir, const char *target,
                    const char *family, unsigned *pushed, unsigned *failed);
/* cache verify --remote: targets, families NULL for the defaults. */
int cache_verify_remote(struct cli *cli, char **targets, char **families);
int cache_stats(struct cli *cli, int argc, char **argv);
struct json;
void info_remote(struct hanzo_rocm *ctx, struct json *j);
int cmd_plugins(struct cli *cli, int argc, char **argv);
int cmd_kernels(struct cli *cli, int argc, char **argv);
int cmd_config(struct cli *cli, int argc, char **argv);
int cmd_selftest(struct cli *cli, int argc, char **argv);

#include "json.h"

/*
 * `info` is assembled from sections owned by the module they describe.
 * Each prints human text, or, with j != NULL, one JSON member (key + value).
 */
void info_config(struct cli *cli, struct json *j);
void info_devices(struct cli *cli, struct json *j);
void info_toolchains(struct cli *cli, struct json *j);
void info_cache(struct cli *cli, struct json *j);
void info_plugins(struct cli *cli, struct json *j);

#endif
