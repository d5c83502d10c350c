/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `info` section: the files read and every effective setting. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hanzo-rocm-tools.h"
#include "tools.h"

static void json_strv(struct json *j, const char *key, char *const *v)
{
	json_key(j, key);
	if (!v) {
		json_null(j);
		return;
	}
	json_begin_array(j);
	for (size_t i = 0; v[i]; i++)
		json_string(j, v[i]);
	json_end_array(j);
}

/* One key's value, typed (the table's type says which field it is). */
static void json_key_value(struct json *j, const struct hr_config *cfg,
                           const struct hr_config_key *k)
{
	const void *f = hr_config_field(cfg, k);

	switch (k->type) {
	case HR_CONFIG_STR:
		json_kv_string(j, k->name, *(char *const *)f);
		break;
	case HR_CONFIG_STRV:
		json_strv(j, k->name, *(char **const *)f);
		break;
	case HR_CONFIG_MAP:
		json_key(j, k->name);
		json_begin_array(j);
		for (size_t i = 0; i < cfg->n_map; i++) {
			json_begin_object(j);
			json_kv_string(j, "from", cfg->map[i].from);
			json_kv_string(j, "to", cfg->map[i].to);
			json_end_object(j);
		}
		json_end_array(j);
		break;
	case HR_CONFIG_POLICY:
		json_kv_string(j, k->name, hr_policy_name(*(const enum hr_policy *)f));
		break;
	case HR_CONFIG_COMPILE:
		json_kv_string(j, k->name, hr_compile_name(*(const enum hr_compile *)f));
		break;
	case HR_CONFIG_BACKEND:
		json_kv_string(j, k->name, hr_backend_name(*(const enum hr_compile_backend *)f));
		break;
	case HR_CONFIG_SIZE:
		json_kv_uint(j, k->name, *(const uint64_t *)f);
		break;
	case HR_CONFIG_UINT:
		/* The effective value: the timeout's 0 means its default. */
		json_kv_uint(j, k->name, *(const unsigned *)f ? *(const unsigned *)f : k->zero);
		break;
	}
}

/* Every key of the table, one object per section, then the environment's
 * settings in the section they change. */
static void info_json(const struct hr_config *cfg, struct json *j)
{
	const struct hr_config_key *k;
	const char *section = NULL;

	json_key(j, "config");
	json_begin_object(j);
	json_strv(j, "files", cfg->files);
	json_kv_string(j, "root", cfg->root[0] ? cfg->root : NULL);
	for (size_t i = 0; (k = hr_config_key_at(i)) != NULL; i++) {
		if (!section || strcmp(section, k->section) != 0) {
			if (section)
				json_end_object(j);
			section = k->section;
			json_key(j, section);
			json_begin_object(j);
		}
		json_key_value(j, cfg, k);
		if (hr_config_key_at(i + 1) && strcmp(hr_config_key_at(i + 1)->section, section) == 0)
			continue;
		if (strcmp(section, "targets") == 0) {
			json_kv_string(j, "env_arch", cfg->env_arch);
			json_strv(j, "env_targets", cfg->env_targets);
			json_kv_string(j, "hsa_override", cfg->hsa_override);
		} else if (strcmp(section, "compiler") == 0) {
			json_kv_string(j, "version_label", cfg->version_label);
		}
	}
	if (section)
		json_end_object(j);
	json_end_object(j);
}

static void print_str(const char *label, const char *s, const char *none)
{
	printf("  %-20s %s\n", label, s && *s ? s : none);
}

static void info_text(const struct hr_config *cfg)
{
	const struct hr_config_key *k;

	puts("Configuration:");
	if (!cfg->files[0])
		print_str("files", NULL, "(none: built-in defaults)");
	for (size_t i = 0; cfg->files[i]; i++)
		print_str(i ? "" : "files", cfg->files[i], "");
	print_str("root", cfg->root, "(none)");
	for (size_t i = 0; (k = hr_config_key_at(i)) != NULL; i++) {
		char label[64], *v = hr_config_key_text(cfg, k);

		snprintf(label, sizeof(label), "%s.%s", k->section, k->name);
		print_str(label, v ? v : "(out of memory)", "");
		free(v);
	}
	/* The environment only when it changes something: no noise otherwise. */
	if (cfg->env_arch)
		print_str("env arch", cfg->env_arch, "");
	if (cfg->env_targets) {
		char *s = hr_strv_join(cfg->env_targets, " ");

		print_str("env targets", s, "");
		free(s);
	}
	if (cfg->version_label)
		print_str("env version label", cfg->version_label, "");
	if (cfg->hsa_override)
		print_str("env HSA override", cfg->hsa_override, "");
	putchar('\n');
}

void info_config(struct cli *cli, struct json *j)
{
	struct hanzo_rocm *ctx = cli_ctx(cli);

	if (!ctx)
		return;
	if (j)
		info_json(hr_tools_config(ctx), j);
	else
		info_text(hr_tools_config(ctx));
}
