/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What is done to every key by its type (layer: config): freeing the
 * fields and printing a value (`hanzo-rocm info`), looping over the key
 * table of config/keys.c through hr_config_key_at().
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config-internal.h"
#include "shared/util.h"

/* Frees what every key's field holds. */
void hr_config_free_keys(struct hr_config *cfg)
{
	const struct hr_config_key *k;

	for (size_t i = 0; (k = hr_config_key_at(i)) != NULL; i++) {
		void *f = (char *)cfg + k->offset;

		switch (k->type) {
		case HR_CONFIG_STR:
			free(*(char **)f);
			break;
		case HR_CONFIG_STRV:
			hr_strv_free(*(char ***)f);
			break;
		case HR_CONFIG_MAP:
			hr_config_map_free(cfg->map, cfg->n_map);
			break;
		case HR_CONFIG_POLICY:
		case HR_CONFIG_COMPILE:
		case HR_CONFIG_BACKEND:
		case HR_CONFIG_SIZE:
		case HR_CONFIG_UINT:
			break;
		}
	}
}

static char *strv_text(char *const *v, const char *none)
{
	return v && v[0] ? hr_strv_join(v, " ") : strdup(none);
}

char *hr_config_key_text(const struct hr_config *cfg, const struct hr_config_key *k)
{
	const void *f = hr_config_field(cfg, k);
	char buf[96], size[32];

	switch (k->type) {
	case HR_CONFIG_STR: {
		const char *s = *(char *const *)f;

		return strdup(s && *s ? s : k->none);
	}
	case HR_CONFIG_STRV:
		return strv_text(*(char **const *)f, k->none);
	case HR_CONFIG_MAP: {
		char **v = hr_strv_new(), *s;

		for (size_t i = 0; v && i < cfg->n_map; i++) {
			char pair[512];

			snprintf(pair, sizeof(pair), "%s -> %s", cfg->map[i].from, cfg->map[i].to);
			if (hr_strv_push(&v, pair) < 0) {
				hr_strv_free(v);
				return NULL;
			}
		}
		if (!v)
			return NULL;
		s = v[0] ? hr_strv_join(v, ", ") : strdup(k->none);
		hr_strv_free(v);
		return s;
	}
	case HR_CONFIG_POLICY:
		return strdup(hr_policy_name(*(const enum hr_policy *)f));
	case HR_CONFIG_COMPILE:
		return strdup(hr_compile_name(*(const enum hr_compile *)f));
	case HR_CONFIG_BACKEND:
		return strdup(hr_backend_name(*(const enum hr_compile_backend *)f));
	case HR_CONFIG_SIZE:
		hr_format_size(*(const uint64_t *)f, size, sizeof(size));
		snprintf(buf, sizeof(buf), "%s (%llu bytes)", size,
		         (unsigned long long)*(const uint64_t *)f);
		return strdup(buf);
	case HR_CONFIG_UINT:
		if (*(const unsigned *)f == 0 && *k->none)
			return strdup(k->none);
		snprintf(buf, sizeof(buf), "%u%s", *(const unsigned *)f, k->unit);
		return strdup(buf);
	}
	return NULL;
}
