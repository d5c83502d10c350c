/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What config.c (reading files and the environment), config/keys.c (the
 * keys and their values) and config/show.c share: the state of one file's
 * parse and how a problem is reported (layer: config; private to
 * lib/config/, whose files only include it).
 */
#ifndef HR_CONFIG_INTERNAL_H
#define HR_CONFIG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "context.h"

/* One file being parsed. */
struct parser {
	struct hanzo_rocm *ctx;
	struct hr_config *cfg;
	const char *root;       /* normalised, "" = none */
	const char *path;
	const char *data;
	size_t size, pos;
	int line;               /* of the line last handed to inih */
	int errors;
	bool strict;
	bool oom;
	bool discover;          /* a pass that only looks for syntax errors */
	int *bad_lines;         /* syntax errors found so far, ascending */
	size_t n_bad;
};

/* A problem with one value: what was wrong (a copy of the offending part). */
struct bad {
	char *value;
};

/*
 * A problem in the configuration: an error when strict, else a warning for
 * the administrator (the setting is left out).  Counted either way.
 */
#define PROBLEM(ctx, strict, errors, ...)                                     \
	do {                                                                  \
		(*(errors))++;                                                \
		if (strict)                                                   \
			hr_err((ctx), __VA_ARGS__);                           \
		else                                                          \
			hr_warn_admin((ctx), __VA_ARGS__);                    \
	} while (0)
#define ERR(p, ...) PROBLEM((p)->ctx, (p)->strict, &(p)->errors, __VA_ARGS__)

/* Problems found outside one file's parse (conf.d, environment). */
struct tally {
	bool strict;
	int errors;
};
#define TALLY(ctx, t, ...) PROBLEM((ctx), (t)->strict, &(t)->errors, __VA_ARGS__)

/* Why a well-formed target such as gfx9999 is left out (its processor is
 * not in lib/shared/targets.def; the CLI's --target lists the known ones). */
#define UNKNOWN_WHY "not a GPU processor this hanzo-rocm knows"

/* inih's handler: sets the key (config/keys.c); always returns 1. */
int hr_config_handler(void *user, const char *section, const char *name,
                      const char *value);
void hr_config_map_free(struct hr_target_map *map, size_t n);
/* Every key's built-in default, through its parser (config/keys.c). */
int hr_config_set_defaults(struct parser *p);
/* Frees every key's field (not the struct). */
void hr_config_free_keys(struct hr_config *cfg);
/* A host device list ("host-w64,host-w32", "none"): 0, -EINVAL, -ENOMEM. */
int hr_config_host_list(const char *v, char ***out);
/* Free what *slot holds and put s (or v) there. */
void hr_config_replace_str(char **slot, char *s);
void hr_config_replace_strv(char ***slot, char **v);

#endif
