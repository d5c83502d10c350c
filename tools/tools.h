/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The hanzo-rocm CLI: shared state of one invocation and small helpers. */
#ifndef HR_TOOLS_H
#define HR_TOOLS_H

#include <stdbool.h>
#include <stdio.h>

#include "hanzo-rocm.h"

/* Exit codes (DESIGN §4). */
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

struct command {
	const char *name;
	int (*run)(struct cli *cli, int argc, char **argv);
	const char *help;         /* one line for --help */
};

int cmd_info(struct cli *cli, int argc, char **argv);
int cmd_precompile(struct cli *cli, int argc, char **argv);
int cmd_cache(struct cli *cli, int argc, char **argv);
int cmd_plugins(struct cli *cli, int argc, char **argv);
int cmd_config(struct cli *cli, int argc, char **argv);
int cmd_selftest(struct cli *cli, int argc, char **argv);

/*
 * A small streaming JSON writer: keeps commas and nesting right and escapes
 * strings, so every --json output is valid whatever the data holds.
 */
struct json {
	FILE *f;
	int depth;
	bool need_comma[32];
	bool after_key;
};
void json_init(struct json *j, FILE *f);
void json_begin_object(struct json *j);
void json_end_object(struct json *j);
void json_begin_array(struct json *j);
void json_end_array(struct json *j);
void json_key(struct json *j, const char *key);
void json_string(struct json *j, const char *s);  /* NULL -> null */
void json_int(struct json *j, long long v);
void json_uint(struct json *j, unsigned long long v);
void json_double(struct json *j, double v);       /* non-finite -> null */
void json_bool(struct json *j, bool v);
void json_null(struct json *j);
/* Convenience: key + value. */
void json_kv_string(struct json *j, const char *key, const char *s);
void json_kv_int(struct json *j, const char *key, long long v);
void json_kv_uint(struct json *j, const char *key, unsigned long long v);
void json_kv_bool(struct json *j, const char *key, bool v);
void json_finish(struct json *j);                 /* trailing newline */

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
