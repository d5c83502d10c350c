/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Kernel-family plugins: discovery along the plugin path, trust checks
 * (ownership, permissions, ELF, ABI), and lazy loading through an index
 * written by precompile so a family's plugin is dlopen-ed on first use only.
 * Layer: build (lib/layers).
 */
#ifndef HR_PLUGIN_H
#define HR_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hanzo-rocm-plugin.h"

struct hanzo_rocm;

struct hr_family {
	char *family;
	char *version;
	char *path;                       /* the plugin's shared object */
	uint8_t source_sha256[32];
	char **flags;                     /* the plugin's compile flags (copied) */
	char **kernels;                   /* kernel names */
	const struct hanzo_rocm_plugin *desc; /* NULL until hr_family_load */
};

struct hr_plugin_status {
	char *path;
	char *family;                     /* NULL if it could not be read */
	char *version;
	uint32_t abi;
	bool ok;
	bool disabled;                    /* found but listed in [plugins] disable */
	char *why;                        /* reason when !ok ("disabled" when disabled) */
};

/*
 * A family by name, from a fresh index without dlopen when possible, else by
 * scanning.  -ENOENT for an unknown or disabled family.  Owned by ctx.
 */
int hr_plugins_family(struct hanzo_rocm *ctx, const char *family,
                      struct hr_family **ret);
/* dlopen the family's plugin (once) and return its descriptor. */
int hr_family_load(struct hanzo_rocm *ctx, struct hr_family *fam,
                   const struct hanzo_rocm_plugin **desc);
/* Every usable, enabled family name, sorted (scans or uses the index). */
int hr_plugins_families(struct hanzo_rocm *ctx, char ***families);
/* Every plugin file found, usable or not, with its status (dlopens all). */
int hr_plugins_scan(struct hanzo_rocm *ctx, struct hr_plugin_status **list,
                    size_t *n);
void hr_plugin_status_free(struct hr_plugin_status *list, size_t n);
/*
 * Which index a new lookup would use: *path (malloc'd) when one is fresh,
 * else NULL and *why (malloc'd) says why families are found by scanning.
 */
int hr_plugins_index_state(struct hanzo_rocm *ctx, char **path, char **why);
/*
 * Whether <dir>/plugins.index is readable and well formed (freshness aside):
 * 0, -ENOENT none, -EBADMSG corrupt or untrusted (why says why), -ENOMEM.
 */
int hr_plugins_index_verify(const char *dir, char *why, size_t why_size);
/*
 * The usable families <dir>/plugins.index names (what the last precompile
 * into dir found installed): 0, -ENOENT no index, -EBADMSG unusable, -ENOMEM.
 */
int hr_plugins_index_families(const char *dir, char ***families);
/* Write the plugin index into dir (atomically); precompile calls this. */
int hr_plugins_write_index(struct hanzo_rocm *ctx, const char *dir);

#endif
