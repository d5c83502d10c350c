/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `info` section: the files read and every effective setting. */
#include <stdio.h>
#include <stdlib.h>

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

static void info_json(const struct hr_config *cfg, struct json *j)
{
	json_key(j, "config");
	json_begin_object(j);
	json_strv(j, "files", cfg->files);
	json_kv_string(j, "root", cfg->root[0] ? cfg->root : NULL);

	json_key(j, "targets");
	json_begin_object(j);
	json_kv_string(j, "override", cfg->override);
	json_key(j, "map");
	json_begin_array(j);
	for (size_t i = 0; i < cfg->n_map; i++) {
		json_begin_object(j);
		json_kv_string(j, "from", cfg->map[i].from);
		json_kv_string(j, "to", cfg->map[i].to);
		json_end_object(j);
	}
	json_end_array(j);
	json_strv(j, "extra", cfg->extra);
	json_strv(j, "default", cfg->default_targets);
	json_strv(j, "host", cfg->host);
	json_kv_string(j, "env_arch", cfg->env_arch);
	json_strv(j, "env_targets", cfg->env_targets);
	json_kv_string(j, "hsa_override", cfg->hsa_override);
	json_end_object(j);

	json_key(j, "cache");
	json_begin_object(j);
	json_kv_string(j, "system_dir", cfg->system_dir);
	json_kv_string(j, "user_dir", cfg->user_dir);
	json_strv(j, "site_dirs", cfg->site_dirs);
	json_kv_string(j, "policy", hr_policy_name(cfg->policy));
	json_kv_string(j, "compile", hr_compile_name(cfg->compile));
	json_kv_uint(j, "max_size", cfg->max_size);
	json_end_object(j);

	json_key(j, "compiler");
	json_begin_object(j);
	json_kv_string(j, "hipcc", cfg->hipcc);
	json_kv_string(j, "nvcc", cfg->nvcc);
	json_kv_string(j, "cxx", cfg->cxx);
	json_strv(j, "flags", cfg->flags);
	json_kv_uint(j, "jobs", cfg->jobs);
	json_kv_uint(j, "timeout", cfg->timeout_s ? cfg->timeout_s : HR_COMPILE_TIMEOUT_S);
	json_kv_string(j, "backend", hr_backend_name(cfg->backend));
	json_kv_string(j, "version_label", cfg->version_label);
	json_end_object(j);

	json_key(j, "plugins");
	json_begin_object(j);
	json_strv(j, "path", cfg->plugin_path);
	json_strv(j, "disable", cfg->disable);
	json_end_object(j);
	json_end_object(j);
}

static void print_strv(const char *label, char *const *v, const char *none)
{
	char *s = v && v[0] ? hr_strv_join(v, " ") : NULL;

	printf("  %-20s %s\n", label, s ? s : none);
	free(s);
}

static void print_str(const char *label, const char *s, const char *none)
{
	printf("  %-20s %s\n", label, s && *s ? s : none);
}

static void info_text(const struct hr_config *cfg)
{
	char size[32];

	puts("Configuration:");
	if (!cfg->files[0])
		print_str("files", NULL, "(none: built-in defaults)");
	for (size_t i = 0; cfg->files[i]; i++)
		print_str(i ? "" : "files", cfg->files[i], "");
	print_str("root", cfg->root, "(none)");
	print_str("targets.override", cfg->override, "(none)");
	if (cfg->n_map == 0)
		print_str("targets.map", NULL, "(none)");
	for (size_t i = 0; i < cfg->n_map; i++)
		printf("  %-20s %s -> %s\n", i ? "" : "targets.map",
		       cfg->map[i].from, cfg->map[i].to);
	print_strv("targets.extra", cfg->extra, "(none)");
	print_strv("targets.default", cfg->default_targets, "(none)");
	print_strv("targets.host", cfg->host, "(none)");
	print_str("cache.system_dir", cfg->system_dir, "(none)");
	print_str("cache.user_dir", cfg->user_dir, "(none: no HOME)");
	print_strv("cache.site_dirs", cfg->site_dirs, "(none)");
	print_str("cache.policy", hr_policy_name(cfg->policy), "");
	print_str("cache.compile", hr_compile_name(cfg->compile), "");
	hr_format_size(cfg->max_size, size, sizeof(size));
	printf("  %-20s %s (%llu bytes)\n", "cache.max_size", size,
	       (unsigned long long)cfg->max_size);
	print_str("compiler.hipcc", cfg->hipcc, "");
	print_str("compiler.nvcc", cfg->nvcc, "");
	print_str("compiler.cxx", cfg->cxx, "");
	print_strv("compiler.flags", cfg->flags, "(none)");
	if (cfg->jobs)
		printf("  %-20s %u\n", "compiler.jobs", cfg->jobs);
	else
		print_str("compiler.jobs", "0 (online CPUs)", "");
	printf("  %-20s %u s%s\n", "compiler.timeout",
	       cfg->timeout_s ? cfg->timeout_s : HR_COMPILE_TIMEOUT_S,
	       cfg->timeout_s ? "" : " (the default)");
	print_str("compiler.backend", hr_backend_name(cfg->backend), "");
	print_strv("plugins.path", cfg->plugin_path, "(none)");
	print_strv("plugins.disable", cfg->disable, "(none)");
	/* The environment only when it changes something: no noise otherwise. */
	if (cfg->env_arch)
		print_str("env arch", cfg->env_arch, "");
	if (cfg->env_targets)
		print_strv("env targets", cfg->env_targets, "");
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
