/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `info` sections for devices (detection + overrides) and toolchains. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hanzo-rocm-tools.h"
#include "tools.h"

static const char *platform_name(enum hr_platform p)
{
	const struct hr_platform_facts *f = hr_platform_facts(p);

	return f ? f->name : "none";
}

/*
 * The visible-devices variables applied to the AMD devices (lib/devices/visible.c):
 * JSON "visible_devices": [{variable, value, before, after, ended}], text one line each.
 */
static void info_visible(struct hanzo_rocm *ctx, struct json *j)
{
	const struct hr_visible *v = hr_devices_visible(ctx);
	unsigned n = v ? v->n : 0;

	if (j) {
		json_key(j, "visible_devices");
		json_begin_array(j);
		for (unsigned i = 0; i < n; i++) {
			json_begin_object(j);
			json_kv_string(j, "variable", v->level[i].var);
			json_kv_string(j, "value", v->level[i].value);
			json_kv_uint(j, "before", v->level[i].before);
			json_kv_uint(j, "after", v->level[i].after);
			json_kv_bool(j, "ended", v->level[i].ended);
			json_end_object(j);
		}
		json_end_array(j);
		return;
	}
	if (!n)
		return;
	printf("  AMD devices visible: %zu of %zu KFD GPUs (device i is HIP's device i)\n",
	       v->level[n - 1].after, v->kfd_gpus);
	for (unsigned i = 0; i < n; i++)
		printf("    %s=%s: %zu of %zu kept%s\n", v->level[i].var, v->level[i].value,
		       v->level[i].after, v->level[i].before,
		       v->level[i].ended ? " (an invalid or repeated entry ended the list)" : "");
}

void info_devices(struct cli *cli, struct json *j)
{
	struct hanzo_rocm *ctx = cli_ctx(cli);
	const struct hr_device *devs = NULL;
	size_t n = 0;
	int r;

	if (!ctx)
		return;
	r = hr_devices_get(ctx, &devs, &n);
	if (r < 0)
		n = 0;
	if (j) {
		json_key(j, "devices");
		json_begin_array(j);
		for (size_t i = 0; i < n; i++) {
			json_begin_object(j);
			json_kv_uint(j, "index", devs[i].index);
			json_kv_string(j, "platform", platform_name(devs[i].platform));
			json_kv_string(j, "target", devs[i].target);
			json_kv_string(j, "detected", devs[i].detected);
			json_kv_string(j, "name", devs[i].name);
			if (devs[i].platform == HR_PLATFORM_AMD) {
				json_kv_uint(j, "kfd_node", devs[i].kfd_node);
				json_kv_uint(j, "hip_ordinal", (unsigned)devs[i].ordinal);
			}
			json_end_object(j);
		}
		json_end_array(j);
		info_visible(ctx, j);
		return;
	}
	printf("Devices:\n");
	if (r < 0)
		printf("  (detection failed: %s)\n", hanzo_rocm_strerror(r));
	else if (n == 0)
		printf("  none detected\n");
	for (size_t i = 0; i < n; i++) {
		printf("  %u  %-6s  %-16s  %s", devs[i].index, platform_name(devs[i].platform),
		       devs[i].target, devs[i].name);
		if (strcmp(devs[i].target, devs[i].detected) != 0)
			printf("  (detected %s)", devs[i].detected);
		if (devs[i].platform == HR_PLATFORM_AMD)
			printf("  [KFD node %u]", (unsigned)devs[i].kfd_node);
		putchar('\n');
	}
	if (r == 0)
		info_visible(ctx, NULL);
}

/* The targets someone here cares about: what precompile would build, plus the devices'. */
static char **wanted_targets(struct hanzo_rocm *ctx)
{
	const struct hr_device *devs;
	char **v = NULL;
	size_t n = 0;

	if (hr_targets_for_precompile(ctx, &v, NULL) < 0 || !v)
		v = hr_strv_new();
	if (v && hr_devices_get(ctx, &devs, &n) == 0)
		for (size_t i = 0; i < n; i++) {
			char g[HR_TARGET_MAX];

			if (hr_target_generic(devs[i].target, g, sizeof(g)) == 0 &&
			    !hr_strv_contains(v, g))
				hr_strv_push(&v, g);
		}
	return v;
}

static void one_toolchain(struct hanzo_rocm *ctx, const struct hr_platform_facts *f,
                          char *const *wanted, struct json *j)
{
	enum hr_compiler kind = f->cc->kind;
	const char *kname = hr_compiler_name(kind);
	enum hr_platform plat = f->id;
	struct hr_toolchain *tc = NULL;
	char **buildable = NULL, *list;
	int r = hr_toolchain_find(ctx, kind, &tc);

	if (r < 0) {
		if (!j)
			printf("  %-6s not found%s%s\n", kname, r == -ENOENT ? "" : ": ",
			       r == -ENOENT ? "" : hanzo_rocm_strerror(r));
		return;
	}
	hr_toolchain_targets(tc, &buildable);
	if (j) {
		json_begin_object(j);
		json_kv_string(j, "kind", kname);
		json_kv_string(j, "path", tc->path);
		json_kv_string(j, "version", tc->version);
		json_kv_string(j, "identity", tc->identity);
		json_key(j, "buildable");
		json_begin_array(j);
		for (size_t i = 0; buildable && buildable[i]; i++)
			json_string(j, buildable[i]);
		json_end_array(j);
		json_key(j, "skipped");
		json_begin_array(j);
	} else {
		list = buildable ? hr_strv_join(buildable, " ") : NULL;
		printf("  %-6s %s\n         version %s, %s\n         builds: %s\n", kname,
		       tc->path, tc->version, tc->identity, list ? list : "(unknown)");
		free(list);
	}
	for (size_t i = 0; wanted && wanted[i]; i++) {
		char reason[256];

		if (hr_target_platform(wanted[i]) != plat ||
		    hr_toolchain_can_build(tc, wanted[i], reason, sizeof(reason)) == 0)
			continue;
		if (j) {
			json_begin_object(j);
			json_kv_string(j, "target", wanted[i]);
			json_kv_string(j, "reason", reason);
			json_end_object(j);
		} else {
			printf("         skips %s: %s\n", wanted[i], reason);
		}
	}
	if (j) {
		json_end_array(j);
		json_end_object(j);
	}
	hr_strv_free(buildable);
	hr_toolchain_free(tc);
}

void info_toolchains(struct cli *cli, struct json *j)
{
	struct hanzo_rocm *ctx = cli_ctx(cli);
	char **wanted;

	if (!ctx)
		return;
	wanted = wanted_targets(ctx);
	if (j) {
		json_key(j, "toolchains");
		json_begin_array(j);
	} else {
		printf("Toolchains:\n");
	}
	/* A platform's compiler in the table's order; an opt-in platform's
	 * (the host's) only when host devices were asked for. */
	for (size_t i = 0; hr_platform_at(i); i++)
		if (!hr_platform_at(i)->opt_in ||
		    (hr_tools_config(ctx) && hr_strv_len(hr_tools_config(ctx)->host) > 0))
			one_toolchain(ctx, hr_platform_at(i), wanted, j);
	if (j)
		json_end_array(j);
	hr_strv_free(wanted);
}
