/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Targets: ID parsing, KFD detection from fixture roots (t/fixtures/kfd/),
 * every precedence rule, HSA_OVERRIDE_GFX_VERSION parsing, and the target
 * list precompile uses.  No GPU needed.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config.h"
#include "context.h"
#include "devices/devices.h"
#include "precompile/precompile.h"
#include "target/target.h"
#include "shared/util.h"
#include "../tap.h"

static char logbuf[16384];

__attribute__((format(printf, 6, 0)))
static void capture_log(void *data, int priority, const char *file, int line,
                        const char *fn, const char *format, va_list args)
{
	size_t len = strlen(logbuf);

	(void)data; (void)priority; (void)file; (void)line; (void)fn;
	if (len < sizeof(logbuf) - 1)
		vsnprintf(logbuf + len, sizeof(logbuf) - len, format, args);
}

static char fixtures[4096], scratch[4096];

static void clear_env(void)
{
	unsetenv("HANZO_ROCM_ARCH");
	unsetenv("CANDLE_ROCM_ARCH");
	unsetenv("HSA_OVERRIDE_GFX_VERSION");
	unsetenv("HANZO_ROCM_TARGETS");
	unsetenv("HSA_XNACK");
	unsetenv("HANZO_ROCM_CONF");
	unsetenv("HANZO_ROCM_ROOT");
}

/* A context on fixture tree `tree` ("" = an empty root), with optional config text. */
static struct hanzo_rocm *new_ctx(const char *tree, const char *conf_text)
{
	char root[4200], conf[4200];
	struct hanzo_rocm_options o = { .size = sizeof(o), .log_fn = capture_log,
	                                .log_priority = LOG_WARNING };
	struct hanzo_rocm *ctx = NULL;
	int r;

	snprintf(root, sizeof(root), "%s/%s", tree[0] ? fixtures : scratch,
	         tree[0] ? tree : "empty-root");
	o.root = root;
	if (conf_text) {
		FILE *f;

		snprintf(conf, sizeof(conf), "%s/test.conf", scratch);
		f = fopen(conf, "we");
		if (!f)
			return NULL;
		fputs(conf_text, f);
		fclose(f);
		o.config = conf;
	}
	logbuf[0] = '\0';
	r = hanzo_rocm_new_with_options(&o, &ctx);
	if (r < 0)
		diag("hanzo_rocm_new(%s): %s; log: %s", tree, strerror(-r), logbuf);
	return ctx;
}

/* The AMD devices' targets (or detected IDs), space separated; NVIDIA ones are the host's business. */
static const char *amd_list(struct hanzo_rocm *ctx, bool detected)
{
	static char buf[1024];
	const struct hr_device *d;
	size_t n;

	buf[0] = '\0';
	if (hr_devices_get(ctx, &d, &n) < 0)
		return "(error)";
	for (size_t i = 0; i < n; i++) {
		if (d[i].platform != HR_PLATFORM_AMD)
			continue;
		if (buf[0])
			strcat(buf, " ");
		strcat(buf, detected ? d[i].detected : d[i].target);
	}
	return buf;
}

static const char *amd_targets(struct hanzo_rocm *ctx) { return amd_list(ctx, false); }

static const char *precompile_list(struct hanzo_rocm *ctx, const char **why)
{
	static char buf[1024];
	char **v = NULL;
	int r = hr_targets_for_precompile(ctx, &v, why);

	if (r < 0) {
		snprintf(buf, sizeof(buf), "(error %d)", r);
		return buf;
	}
	buf[0] = '\0';
	for (size_t i = 0; v[i]; i++) {
		if (strncmp(v[i], "sm_", 3) == 0 && !getenv("HANZO_ROCM_TARGETS"))
			continue; /* a real NVIDIA GPU on this host */
		if (buf[0])
			strcat(buf, " ");
		strcat(buf, v[i]);
	}
	hr_strv_free(v);
	return buf;
}

static void test_ids(void)
{
	static const char *const good[] = { "gfx90a", "gfx1030", "gfx942", "gfx1100",
	                                    "gfx90a:xnack+", "gfx90a:sramecc+:xnack-",
	                                    "gfx9-generic", "gfx10-3-generic", "sm_90",
	                                    "sm_90a", "sm_100", "sm_75" };
	static const char *const bad[] = { "", "gfx", "gfx9", "gfx90z", "gfx90a:", "gfx90a:xnack",
	                                   "gfx90a:xnack*", "gfx12345", "sm_9", "sm_9000",
	                                   "sm_90b", "../gfx90a", "gfx90a/x", "GFX90A",
	                                   "gfx90a xnack+", "-generic", "gfx-generic",
	                                   /* unknown or repeated features */
	                                   "gfx90a:bogus+", "gfx90a:xnack+:xnack-",
	                                   "gfx90a:sramecc+:sramecc+", "gfx1030:xnack+",
	                                   "gfx1100:sramecc-" };
	char buf[HR_TARGET_MAX];

	for (size_t i = 0; i < HR_ARRAY_SIZE(good); i++)
		is_int(hr_target_validate(good[i]), 0, "valid target '%s'", good[i]);
	for (size_t i = 0; i < HR_ARRAY_SIZE(bad); i++)
		is_int(hr_target_validate(bad[i]), -EINVAL, "invalid target '%s'", bad[i]);
	is_int(hr_target_validate(NULL), -EINVAL, "NULL target is invalid");
	is_int(hr_target_platform("gfx90a:xnack+"), HR_PLATFORM_AMD, "gfx is AMD");
	is_int(hr_target_platform("sm_90"), HR_PLATFORM_NVIDIA, "sm is NVIDIA");
	is_int(hr_target_platform("x86"), HR_PLATFORM_NONE, "junk has no platform");
	ok(hr_target_generic("gfx90a:sramecc+:xnack-", buf, sizeof(buf)) == 0 &&
	   strcmp(buf, "gfx90a") == 0, "generic of gfx90a:sramecc+:xnack- is gfx90a");
	is_int(hr_target_generic("gfx90a:xnack+", buf, 4), -ENOSPC, "generic into a short buffer");

	static const struct { uint32_t v; const char *t; } vers[] = {
		{ 90010, "gfx90a" }, { 90402, "gfx942" }, { 100300, "gfx1030" },
		{ 110000, "gfx1100" }, { 90008, "gfx908" }, { 90006, "gfx906" },
		{ 120001, "gfx1201" }, { 90500, "gfx950" },
	};
	for (size_t i = 0; i < HR_ARRAY_SIZE(vers); i++) {
		int r = hr_target_from_gfx_version(vers[i].v, buf, sizeof(buf));

		ok(r == 0 && strcmp(buf, vers[i].t) == 0, "gfx_target_version %u -> %s (got %s)",
		   vers[i].v, vers[i].t, r == 0 ? buf : "error");
	}
	is_int(hr_target_from_gfx_version(0, buf, sizeof(buf)), -EINVAL, "version 0 is a CPU");
	is_int(hr_target_from_gfx_version(91700, buf, sizeof(buf)), -EINVAL, "minor 17 has no hex digit");
	is_int(hr_target_from_gfx_version(4294967295u, buf, sizeof(buf)), -EINVAL, "huge version");

	static const struct { const char *s, *t; } hsa[] = {
		{ "10.3.0", "gfx1030" }, { "9.0.10", "gfx90a" }, { "11.0.0", "gfx1100" },
		{ "9.4.2", "gfx942" }, { "9.0.6", "gfx906" },
	};
	for (size_t i = 0; i < HR_ARRAY_SIZE(hsa); i++) {
		int r = hr_target_from_hsa_override(hsa[i].s, buf, sizeof(buf));

		ok(r == 0 && strcmp(buf, hsa[i].t) == 0, "HSA override %s -> %s", hsa[i].s, hsa[i].t);
	}
	static const char *const junk[] = { "", "banana", "10.3", "10.3.0.1", "10.3.0x", "-1.0.0",
	                                    "10.16.0", "10..0", "10.3.", " 10.3.0", "1000.0.0",
	                                    "5.0.0" };
	for (size_t i = 0; i < HR_ARRAY_SIZE(junk); i++)
		is_int(hr_target_from_hsa_override(junk[i], buf, sizeof(buf)), -EINVAL,
		       "HSA override junk '%s' is -EINVAL", junk[i]);
}

static void test_detect(void)
{
	struct hanzo_rocm *ctx;
	const struct hr_device *d;
	const char *t = NULL;
	size_t n = 0;

	ctx = new_ctx("two-gpus", NULL);
	ok(ctx != NULL, "context on two-gpus");
	if (!ctx)
		return;
	is_int(hr_devices_get(ctx, &d, &n), 0, "devices detected");
	ok(n >= 2, "two AMD GPUs, CPU node skipped (n=%zu)", n);
	if (n >= 2) {
		is_int(d[0].platform, HR_PLATFORM_AMD, "device 0 is AMD");
		is_str(d[0].detected, "gfx90a:sramecc+", "node 1: gfx90a with SRAM ECC on");
		is_str(d[0].target, "gfx90a:sramecc+", "no override: target = detected");
		is_str(d[0].name, "aldebaran", "name from nodes/1/name");
		is_int(d[0].kfd_node, 1, "KFD node 1");
		is_int(d[0].ordinal, 0, "HIP ordinal 0");
		is_str(d[1].detected, "gfx1030", "node 2: gfx1030 (no sramecc feature)");
		is_int(d[1].kfd_node, 2, "KFD node 2");
		is_int(d[1].ordinal, 1, "HIP ordinal 1");
		is_int(d[1].index, 1, "index 1");
	}
	ok(hanzo_rocm_device_count(ctx) >= 2, "hanzo_rocm_device_count");
	ok(hanzo_rocm_device_target(ctx, 1, &t) == 0 && t && strcmp(t, "gfx1030") == 0,
	   "hanzo_rocm_device_target(1) = gfx1030");
	is_int(hanzo_rocm_device_platform(ctx, 0), HANZO_ROCM_PLATFORM_AMD, "hanzo_rocm_device_platform(0)");
	is_int(hanzo_rocm_device_target(ctx, 1000, &t), -ENODEV, "device 1000: -ENODEV");
	is_int(hanzo_rocm_device_platform(ctx, 1000), -ENODEV, "platform of device 1000: -ENODEV");
	{
		const struct hr_device *d2;
		size_t n2;

		ok(hr_devices_get(ctx, &d2, &n2) == 0 && d2 == d && n2 == n, "device list is cached");
	}
	hanzo_rocm_unref(ctx);

	setenv("HSA_XNACK", "1", 1);
	ctx = new_ctx("two-gpus", NULL);
	is_str(ctx ? amd_list(ctx, true) : NULL, "gfx90a:sramecc+:xnack+ gfx1030",
	       "HSA_XNACK=1: xnack+ on processors with an XNACK mode");
	hanzo_rocm_unref(ctx);
	setenv("HSA_XNACK", "0", 1);
	ctx = new_ctx("two-gpus", NULL);
	is_str(ctx ? amd_list(ctx, true) : NULL, "gfx90a:sramecc+:xnack- gfx1030", "HSA_XNACK=0: xnack-");
	hanzo_rocm_unref(ctx);
	unsetenv("HSA_XNACK");

	ctx = new_ctx("variants", NULL);
	is_str(ctx ? amd_list(ctx, true) : NULL,
	       "gfx908:sramecc- gfx906:sramecc+ gfx1100 gfx942:sramecc+",
	       "variants: numeric node order, retired SRAM ECC bit ignored, old-kernel node skipped");
	ok(strstr(logbuf, "nodes/3/properties: no gfx_target_version") != NULL,
	   "warning names the node without gfx_target_version");
	if (ctx && hr_devices_get(ctx, &d, &n) == 0 && n >= 4) {
		is_str(d[1].name, "gfx906", "empty name file: name falls back to the target");
		is_int(d[3].kfd_node, 10, "node 10 sorts after node 9");
	} else {
		skip(2, "variants not detected");
	}
	hanzo_rocm_unref(ctx);

	ctx = new_ctx("garbage", NULL);
	is_str(ctx ? amd_targets(ctx) : NULL, "gfx1030", "garbage: only the good node survives");
	ok(strstr(logbuf, "nodes/1/properties: binary data") != NULL,
	   "binary junk: warning names the file");
	ok(strstr(logbuf, "nodes/2/properties:19:") != NULL, "bad value: warning names file:line");
	ok(strstr(logbuf, "nodes/3/properties: invalid gfx_target_version 91700") != NULL,
	   "unrepresentable version: warning names file and value");
	ok(strstr(logbuf, "nodes/4/properties:2:") != NULL, "bad key line: warning names file:line");
	if (!ok(ctx != NULL && strstr(logbuf, "nodes/1/") && strstr(logbuf, "nodes/4/"), "garbage log complete"))
		diag("log: %s", logbuf);
	hanzo_rocm_unref(ctx);

	ctx = new_ctx("", NULL);
	is_str(ctx ? amd_targets(ctx) : NULL, "", "no KFD under the root: no AMD device");
	hanzo_rocm_unref(ctx);
}

static void test_precedence(void)
{
	struct hanzo_rocm *ctx;
	const char *all = "[targets]\noverride = gfx942\nmap = gfx90a:gfx908 gfx1030:gfx1031\n";

	setenv("HANZO_ROCM_ARCH", "gfx1100", 1);
	setenv("HSA_OVERRIDE_GFX_VERSION", "10.3.0", 1);
	ctx = new_ctx("two-gpus", all);
	is_str(ctx ? amd_targets(ctx) : NULL, "gfx1100 gfx1100", "HANZO_ROCM_ARCH beats everything");
	ok(ctx && strcmp(amd_list(ctx, true), "gfx90a:sramecc+ gfx1030") == 0,
	   "detected IDs are kept next to the override");
	hanzo_rocm_unref(ctx);
	unsetenv("HANZO_ROCM_ARCH");

	setenv("CANDLE_ROCM_ARCH", "gfx1101", 1);
	ctx = new_ctx("two-gpus", all);
	is_str(ctx ? amd_targets(ctx) : NULL, "gfx1101 gfx1101", "CANDLE_ROCM_ARCH alias");
	hanzo_rocm_unref(ctx);
	unsetenv("CANDLE_ROCM_ARCH");

	ctx = new_ctx("two-gpus", all);
	is_str(ctx ? amd_targets(ctx) : NULL, "gfx942 gfx942", "[targets] override beats HSA and map");
	hanzo_rocm_unref(ctx);

	ctx = new_ctx("two-gpus", "[targets]\nmap = gfx90a:gfx908 gfx1030:gfx1031\n");
	is_str(ctx ? amd_targets(ctx) : NULL, "gfx1030 gfx1030", "HSA_OVERRIDE_GFX_VERSION beats map");
	hanzo_rocm_unref(ctx);

	setenv("HSA_OVERRIDE_GFX_VERSION", "9.0.10", 1);
	ctx = new_ctx("two-gpus", NULL);
	is_str(ctx ? amd_targets(ctx) : NULL, "gfx90a gfx90a", "HSA 9.0.10 -> gfx90a");
	hanzo_rocm_unref(ctx);

	setenv("HSA_OVERRIDE_GFX_VERSION", "banana", 1);
	ctx = new_ctx("two-gpus", NULL);
	is_str(ctx ? amd_targets(ctx) : NULL, "gfx90a:sramecc+ gfx1030",
	       "junk HSA override: devices keep their detected target");
	ok(strstr(logbuf, "HSA_OVERRIDE_GFX_VERSION") && strstr(logbuf, "'banana'"),
	   "junk HSA override: error names the value");
	hanzo_rocm_unref(ctx);

	setenv("HSA_OVERRIDE_GFX_VERSION", "banana", 1);
	ctx = new_ctx("two-gpus", "[targets]\nmap = gfx90a:gfx908\n");
	is_str(ctx ? amd_targets(ctx) : NULL, "gfx908 gfx1030", "junk HSA override falls through to map");
	hanzo_rocm_unref(ctx);
	unsetenv("HSA_OVERRIDE_GFX_VERSION");

	ctx = new_ctx("two-gpus", "[targets]\nmap = gfx1030:gfx1031 gfx90a:gfx908\n");
	is_str(ctx ? amd_targets(ctx) : NULL, "gfx908 gfx1031", "map substitutes by generic processor");
	hanzo_rocm_unref(ctx);

	ctx = new_ctx("two-gpus", "[targets]\noverride = sm_90\n");
	is_str(ctx ? amd_targets(ctx) : NULL, "gfx90a:sramecc+ gfx1030",
	       "an NVIDIA override does not apply to AMD devices");
	ok(strstr(logbuf, "'sm_90' is not an AMD target") != NULL, "and says so");
	hanzo_rocm_unref(ctx);
}

static void test_precompile_targets(void)
{
	struct hanzo_rocm *ctx;
	const char *why = NULL;

	setenv("HANZO_ROCM_TARGETS", "gfx942,sm_90 gfx942", 1);
	ctx = new_ctx("two-gpus", "[targets]\nextra = gfx1100\n");
	is_str(ctx ? precompile_list(ctx, &why) : NULL, "gfx942 sm_90", "HANZO_ROCM_TARGETS, deduplicated");
	is_str(why, "HANZO_ROCM_TARGETS", "why: HANZO_ROCM_TARGETS");
	hanzo_rocm_unref(ctx);
	unsetenv("HANZO_ROCM_TARGETS");

	ctx = new_ctx("two-gpus", NULL);
	is_str(ctx ? precompile_list(ctx, &why) : NULL, "gfx90a gfx1030", "detected, feature-any");
	is_str(why, "detected", "why: detected");
	hanzo_rocm_unref(ctx);

	ctx = new_ctx("two-gpus", "[targets]\nextra = gfx942 gfx90a\n");
	is_str(ctx ? precompile_list(ctx, &why) : NULL, "gfx90a gfx1030 gfx942", "detected + extra, deduplicated");
	is_str(why, "detected + extra", "why: detected + extra");
	hanzo_rocm_unref(ctx);

	ctx = new_ctx("", "[targets]\nextra = gfx1100\ndefault = gfx90a\n");
	is_str(ctx ? precompile_list(ctx, &why) : NULL, "gfx1100", "no GPU, extra: extra only");
	is_str(why, "detected + extra", "why: detected + extra (nothing detected)");
	hanzo_rocm_unref(ctx);

	ctx = new_ctx("", "[targets]\ndefault = gfx90a gfx942 gfx90a\n");
	if (ctx && hanzo_rocm_device_count(ctx) > 0) {
		skip(2, "this host has an NVIDIA GPU: its target is detected");
	} else {
		is_str(ctx ? precompile_list(ctx, &why) : NULL, "gfx90a gfx942",
		       "no GPU, no extra: default list");
		is_str(why, "default list", "why: default list");
	}
	hanzo_rocm_unref(ctx);

	setenv("HSA_OVERRIDE_GFX_VERSION", "10.3.0", 1);
	ctx = new_ctx("two-gpus", NULL);
	is_str(ctx ? precompile_list(ctx, &why) : NULL, "gfx1030", "effective targets after override, once");
	hanzo_rocm_unref(ctx);
	unsetenv("HSA_OVERRIDE_GFX_VERSION");
}

int main(void)
{
	const char *top = getenv("top_srcdir"), *home = getenv("HOME");
	char emptyroot[4200];

	clear_env();
	snprintf(fixtures, sizeof(fixtures), "%s/t/fixtures/kfd", top ? top : ".");
	snprintf(scratch, sizeof(scratch), "%s/test-target-XXXXXX", home ? home : "/tmp");
	if (!mkdtemp(scratch))
		skip_all("cannot create a scratch directory");
	snprintf(emptyroot, sizeof(emptyroot), "%s/empty-root", scratch);
	mkdir(emptyroot, 0700);

	test_ids();
	test_detect();
	test_precedence();
	test_precompile_targets();

	snprintf(emptyroot, sizeof(emptyroot), "%s/test.conf", scratch);
	unlink(emptyroot);
	snprintf(emptyroot, sizeof(emptyroot), "%s/empty-root", scratch);
	rmdir(emptyroot);
	rmdir(scratch);
	return done_testing();
}
