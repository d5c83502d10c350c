/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The visible-devices variables (lib/devices/visible.c) on a fake KFD tree
 * of four mixed GPUs built here (nodes 1-4: gfx90a, gfx942, gfx90a,
 * gfx1100 behind a CPU node 0): hanzo-rocm's device i must be the device
 * HIP numbers i, for every level (ROCR_VISIBLE_DEVICES with indices and
 * UUIDs, GPU_DEVICE_ORDINAL, HIP_VISIBLE_DEVICES over CUDA_VISIBLE_DEVICES)
 * and every way a list ends early (invalid entry, out of range, repeat).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "../tap.h"
#include "context.h"
#include "devices/devices.h"
#include "devices/visible.h"
#include "target/target.h"

static char root[256], logbuf[8192];

__attribute__((format(printf, 6, 0)))
static void log_capture(void *data, int prio, const char *file, int line,
                        const char *fn, const char *fmt, va_list ap)
{
	size_t l = strlen(logbuf);

	(void)data; (void)prio; (void)file; (void)line; (void)fn;
	vsnprintf(logbuf + l, sizeof(logbuf) - l, fmt, ap);
}

static const struct {
	unsigned version;
	const char *uid, *name;
} nodes[] = {
	{ 0, "0", "" },                                         /* the CPU */
	{ 90010, "11714945339482181713", "mi210-a" },           /* 0xa293d8b7c2f41051 */
	{ 90402, "2459565876494606882", "mi300x" },             /* 0x2222222222222222 */
	{ 90010, "3", "mi210-b" },
	{ 110000, "0", "w7900" },                               /* no unique_id */
};

static int make_tree(void)
{
	char path[512];

	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/sys/class/kfd/kfd/topology/nodes/%zu", root, i);
		for (char *p = path + strlen(root) + 1; *p; p++)
			if (*p == '/') {
				*p = 0;
				mkdir(path, 0700);
				*p = '/';
			}
		mkdir(path, 0700);
		strcat(path, "/properties");
		f = fopen(path, "w");
		if (!f)
			return -1;
		fprintf(f, "cpu_cores_count %d\nsimd_count %d\ngfx_target_version %u\nunique_id %s\n",
		        nodes[i].version ? 0 : 8, nodes[i].version ? 416 : 0, nodes[i].version,
		        nodes[i].uid);
		fclose(f);
		snprintf(path, sizeof(path), "%s/sys/class/kfd/kfd/topology/nodes/%zu/name", root, i);
		f = fopen(path, "w");
		if (!f)
			return -1;
		fprintf(f, "%s\n", nodes[i].name);
		fclose(f);
	}
	return 0;
}

static const char *const vars[] = { "ROCR_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL",
	                            "HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES" };

static struct hanzo_rocm *ctx_with(const char *rocr, const char *gdo, const char *hip,
                                   const char *cuda, const char *host)
{
	const char *vals[] = { rocr, gdo, hip, cuda };
	struct hanzo_rocm_options o = { .size = sizeof(o), .root = root, .log_fn = log_capture,
	                                .log_priority = LOG_INFO, .host = host };
	struct hanzo_rocm *ctx = NULL;

	for (size_t i = 0; i < 4; i++)
		if (vals[i])
			setenv(vars[i], vals[i], 1);
		else
			unsetenv(vars[i]);
	logbuf[0] = 0;
	if (hanzo_rocm_new_with_options(&o, &ctx) < 0)
		return NULL;
	return ctx;
}

/* "node/ordinal node/ordinal ..." of the AMD devices, index order checked too. */
static const char *order(struct hanzo_rocm *ctx)
{
	static char buf[256];
	const struct hr_device *d;
	size_t n, len = 0;

	buf[0] = 0;
	if (!ctx || hr_devices_get(ctx, &d, &n) < 0)
		return "error";
	for (size_t i = 0; i < n; i++) {
		if (d[i].index != i)
			return "index out of order";
		if (d[i].platform == HR_PLATFORM_AMD)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%u/%d",
			                        len ? " " : "", (unsigned)d[i].kfd_node, d[i].ordinal);
	}
	return buf;
}

static void check(const char *rocr, const char *gdo, const char *hip, const char *cuda,
                  const char *want, const char *what)
{
	struct hanzo_rocm *ctx = ctx_with(rocr, gdo, hip, cuda, NULL);

	is_str(order(ctx), want, "%s", what);
	hanzo_rocm_unref(ctx);
}

int main(void)
{
	struct hanzo_rocm *ctx;
	const struct hr_visible *v;
	const char *t = NULL;

	snprintf(root, sizeof(root), "/tmp/hr-test-visible-XXXXXX");
	if (!mkdtemp(root) || make_tree() < 0)
		skip_all("cannot build a KFD tree");

	check(NULL, NULL, NULL, NULL, "1/0 2/1 3/2 4/3", "no variable: KFD order, CPU node skipped");
	check("2,0", NULL, NULL, NULL, "3/0 1/1", "ROCR_VISIBLE_DEVICES=2,0 hides and reorders");
	check("GPU-2222222222222222,0", NULL, NULL, NULL, "2/0 1/1",
	      "ROCR_VISIBLE_DEVICES: a UUID (GPU-<unique_id in hex>) then an index");
	check("gpu-A293D8B7C2F41051", NULL, NULL, NULL, "1/0", "UUIDs are matched case-blind");
	check("GPU-3,3", NULL, NULL, NULL, "3/0 4/1", "a short UUID is the unique_id's value");
	check("3,GPU-0", NULL, NULL, NULL, "4/0", "GPU-0 (no unique_id) names no device: the list ends");
	check(NULL, NULL, NULL, "GPU-2222222222222222", "",
	      "UUIDs are ROCr's only: CUDA_VISIBLE_DEVICES=GPU-... names no device");
	check("3,1,2", "2,0", NULL, NULL, "3/0 4/1",
	      "GPU_DEVICE_ORDINAL indexes what ROCr left");
	check("3,1,2", "2,0", "1", NULL, "4/0",
	      "HIP_VISIBLE_DEVICES indexes what ROCclr left");
	check("3,1,2", NULL, "1", "0", "2/0",
	      "HIP_VISIBLE_DEVICES wins over CUDA_VISIBLE_DEVICES");
	check(NULL, NULL, NULL, "1,0", "2/0 1/1", "CUDA_VISIBLE_DEVICES alone applies to HIP");
	check(NULL, NULL, "1,x,0", NULL, "2/0", "an invalid entry ends the list");
	check(NULL, NULL, "0,7,1", NULL, "1/0", "an index out of range ends the list");
	check("1,1,0", NULL, NULL, NULL, "2/0", "a repeated device ends the list");
	check("GPU-2222222222222222,1", NULL, NULL, NULL, "2/0",
	      "a UUID and an index naming the same device: a repeat");
	check(NULL, NULL, "-1", NULL, "", "-1 hides every device");
	check(NULL, NULL, " 1 , 0 ", NULL, "2/0 1/1", "blanks around entries are ignored");
	check(NULL, NULL, "1,", NULL, "2/0", "a trailing comma: an empty entry ends the list");
	check("", NULL, "", "1", "2/0", "empty values count as unset");
	check(NULL, NULL, "01", NULL, "2/0", "01 is index 1");

	ctx = ctx_with("3,1", NULL, "1,0", NULL, "host-w64 host-w32");
	is_str(order(ctx), "2/0 4/1", "ROCR=3,1 then HIP=1,0");
	ok(ctx && hanzo_rocm_device_target(ctx, 0, &t) == 0 && t && strncmp(t, "gfx942:", 7) == 0,
	   "device 0 is the gfx942 (node 2), the device HIP calls 0");
	is_int(ctx ? hanzo_rocm_device_count(ctx) : -1, 4, "two AMD devices, then the two host devices");
	is_int(ctx ? hanzo_rocm_device_platform(ctx, 2) : -1, HANZO_ROCM_PLATFORM_HOST,
	       "host devices are not filtered and come after");
	v = ctx ? hr_devices_visible(ctx) : NULL;
	ok(v && v->n == 2 && v->kfd_gpus == 4, "the record: two levels applied over 4 KFD GPUs");
	if (v && v->n == 2) {
		ok(strcmp(v->level[0].var, "ROCR_VISIBLE_DEVICES") == 0 &&
		   strcmp(v->level[0].value, "3,1") == 0 && v->level[0].before == 4 &&
		   v->level[0].after == 2 && !v->level[0].ended, "level 0: ROCR_VISIBLE_DEVICES=3,1, 4 -> 2");
		ok(strcmp(v->level[1].var, "HIP_VISIBLE_DEVICES") == 0 && v->level[1].after == 2,
		   "level 1: HIP_VISIBLE_DEVICES=1,0, 2 -> 2");
	} else {
		skip(2, "no record");
	}
	hanzo_rocm_unref(ctx);

	ctx = ctx_with(NULL, NULL, NULL, "1,banana,0", NULL);
	is_str(order(ctx), "2/0", "CUDA_VISIBLE_DEVICES=1,banana,0");
	v = ctx ? hr_devices_visible(ctx) : NULL;
	ok(v && v->n == 1 && v->level[0].ended &&
	   strcmp(v->level[0].var, "CUDA_VISIBLE_DEVICES") == 0, "the record says the list ended");
	ok(strstr(logbuf, "CUDA_VISIBLE_DEVICES=1,banana,0: entry 'banana'") != NULL,
	   "a warning names the variable, its value and the entry");
	hanzo_rocm_unref(ctx);

	ctx = ctx_with(NULL, NULL, "0,\033[31m", NULL, NULL);
	v = ctx ? hr_devices_visible(ctx) : NULL;
	ok(v && v->n == 1 && strcmp(v->level[0].value, "0,?[31m") == 0 && v->level[0].after == 1,
	   "a control character in a value is recorded and shown as '?'");
	ok(strstr(logbuf, "\033") == NULL, "and never reaches the log");
	hanzo_rocm_unref(ctx);

	ctx = ctx_with(NULL, NULL, NULL, NULL, NULL);
	v = ctx ? hr_devices_visible(ctx) : NULL;
	ok(v && v->n == 0 && v->kfd_gpus == 4, "no variable: an empty record");
	hanzo_rocm_unref(ctx);
	for (size_t i = 0; i < 4; i++)
		unsetenv(vars[i]);
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd) != 0)
			diag("could not remove %s", root);
	}
	return done_testing();
}
