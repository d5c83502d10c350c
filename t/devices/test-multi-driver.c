/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Several devices in one process, on the stand-in CUDA driver t/fakecuda
 * (per-device contexts, modules, memory and streams; doc/DESIGN.md §9), run by
 * t/devices/multi-driver.sh with HR_FAKE_CUDA_DEVICES=3 HR_FAKE_CUDA_CC=80,90,90
 * CUDA_VISIBLE_DEVICES=2,0,1: the driver applies CUDA_VISIBLE_DEVICES and
 * the library must not apply it again (devices sm_90, sm_80, sm_90).
 * Devices 0 and 2 then get their own modules, functions, memory (checked
 * by cuPointerGetAttribute) and streams; a launch on device 2 with device
 * 2's stream writes device 2's memory while threads launch on device 0;
 * a handle of one device launched on another's stream is -EXDEV, not a
 * crash; with nvcc and the affine plugin, kernel_get gives each device its
 * own handle and module.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "../fake-cuda-test.h"
#include "../tap.h"
#include "context.h"
#include "devices/devices.h"
#include "kernel/kernel.h"
#include "runtime/runtime.h"
#include "target/target.h"

enum { ITERS = 3000, WORDS = 64 };

/* The driver's own entry points, for what a framework does itself (streams). */
static struct {
	int (*retain)(void **c, int dev);
	int (*push)(void *c);
	int (*pop)(void **c);
	int (*stream_create)(void **s, unsigned flags);
	int (*stream_destroy)(void *s);
	int (*pointer_attr)(void *data, int attr, unsigned long long p);
	unsigned long (*launches)(int dev);
} cu;

static int driver_syms(void)
{
	void *dl = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);

	if (!dl)
		return -1;
	*(void **)&cu.retain = dlsym(dl, "cuDevicePrimaryCtxRetain");
	*(void **)&cu.push = dlsym(dl, "cuCtxPushCurrent_v2");
	*(void **)&cu.pop = dlsym(dl, "cuCtxPopCurrent_v2");
	*(void **)&cu.stream_create = dlsym(dl, "cuStreamCreate");
	*(void **)&cu.stream_destroy = dlsym(dl, "cuStreamDestroy_v2");
	*(void **)&cu.pointer_attr = dlsym(dl, "cuPointerGetAttribute");
	*(void **)&cu.launches = dlsym(dl, "hr_fake_cuda_launches");
	return cu.retain && cu.push && cu.pop && cu.stream_create && cu.stream_destroy &&
	       cu.pointer_attr && cu.launches ? 0 : -1;
}

/* A stream of the device's primary context, as a framework makes it. */
static void *stream_on(int ordinal)
{
	void *c = NULL, *s = NULL, *prev;

	if (cu.retain(&c, ordinal) || cu.push(c))
		return NULL;
	if (cu.stream_create(&s, 0))
		s = NULL;
	cu.pop(&prev);
	return s;
}

static struct hanzo_rocm *ctx;

struct lane {
	unsigned dev[2];        /* devices it alternates over (the same twice: one device) */
	void *fn[2], *stream[2];
	uint64_t buf[2];
	unsigned tag, bad, errors, done;
};

static void *lane_run(void *arg)
{
	struct lane *l = arg;
	unsigned g[3] = { 1, 1, 1 }, b[3] = { 64, 1, 1 }, out[WORDS];

	for (unsigned i = 0; i < ITERS; i++) {
		unsigned k = i & 1, v = l->tag << 20 | i, n = WORDS;
		void *args[] = { &l->buf[k], &v, &n };

		if (hr_runtime_launch(ctx, l->dev[k], l->fn[k], g, b, 0, l->stream[k], args) < 0 ||
		    hr_runtime_copy_dtoh(ctx, l->dev[k], out, l->buf[k], sizeof(out)) < 0) {
			l->errors++;
			continue;
		}
		for (unsigned j = 0; j < WORDS; j++)
			l->bad += out[j] != v;
		l->done++;
	}
	return NULL;
}

static const char *targets(void)
{
	static char buf[128];
	const struct hr_device *d;
	size_t n, len = 0;

	buf[0] = 0;
	if (hr_devices_get(ctx, &d, &n) < 0)
		return "error";
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s/%d", i ? " " : "",
		                        d[i].target, d[i].ordinal);
	return buf;
}

/* kernel_get per device and the launch-time stream check through the public API. */
static void test_handles(void *s0, void *s2)
{
	struct hanzo_rocm_kernel *k0 = NULL, *k2 = NULL, *again = NULL;
	struct hr_kernel_stats st0, st;
	unsigned g[3] = { 1, 1, 1 };
	void *args[8] = { NULL };

	if (!fake_cuda_affine_ready(7))
		return;
	hr_kernel_stats(ctx, &st0);
	is_int(hanzo_rocm_kernel_get(ctx, 0, "affine", "affine_f32", &k0), 0, "kernel_get on device 0");
	is_int(hanzo_rocm_kernel_get(ctx, 2, "affine", "affine_f32", &k2), 0, "kernel_get on device 2");
	ok(k0 && k2 && k0 != k2, "each device its own handle");
	hr_kernel_stats(ctx, &st);
	is_int((int)(st.modules - st0.modules), 2, "one module per device (same sm_90 code object)");
	ok(hanzo_rocm_kernel_get(ctx, 2, "affine", "affine_f32", &again) == 0 && again == k2,
	   "a second get on device 2: its handle");
	/* Arguments are never read by the fake driver's affine kernels. */
	is_int(k0 ? hanzo_rocm_kernel_launch(k0, g, g, 0, s2, args) : -1, -EXDEV,
	       "device 0's handle on device 2's stream: -EXDEV");
	is_int(k2 ? hanzo_rocm_kernel_launch(k2, g, g, 0, s2, args) : -1, 0,
	       "device 2's handle on its own stream launches");
	(void)s0;
}

int main(void)
{
	struct hanzo_rocm_options o = { .size = sizeof(o), .log_fn = log_capture,
	                                .log_priority = LOG_DEBUG };
	char root[] = "/tmp/hr-multi-drv-XXXXXX", conf[300], *cache;
	unsigned char elf[64];
	void *mod[3] = { NULL }, *fn[3] = { NULL }, *st[3] = { NULL };
	uint64_t buf[3] = { 0 };
	unsigned g[3] = { 1, 1, 1 }, b[3] = { 64, 1, 1 }, out[WORDS], v, n = WORDS;
	unsigned long before0, before2;
	struct lane lanes[3];
	pthread_t th[3];
	FILE *f;

	if (!getenv("HR_FAKE_CUDA"))
		skip_all("run through t/devices/multi-driver.sh");
	if (!mkdtemp(root))
		skip_all("no scratch directory");
	/* An empty root (no KFD: no AMD device), a private cache. */
	snprintf(conf, sizeof(conf), "%s/hr.conf", root);
	cache = conf + strlen(root) + 1;
	f = fopen(conf, "w");
	if (!f)
		skip_all("cannot write a config");
	fprintf(f, "[compiler]\nnvcc = %s\n[cache]\nuser_dir = %s/cache\nsystem_dir = %s/system\n",
	        getenv("NVCC") ? getenv("NVCC") : "nvcc", root, root);
	fclose(f);
	(void)cache;
	o.root = root;
	o.config = conf;
	if (getenv("HR_PLUGINS"))
		setenv("HANZO_ROCM_PLUGIN_PATH", getenv("HR_PLUGINS"), 1);
	if (hanzo_rocm_new_with_options(&o, &ctx) < 0)
		skip_all("no context");

	is_str(targets(), "sm_90/0 sm_80/1 sm_90/2",
	       "CUDA_VISIBLE_DEVICES=2,0,1 applied once, by the driver: sm_90, sm_80, sm_90");
	if (!ok(driver_syms() == 0, "the stand-in driver's entry points"))
		return done_testing();

	fake_elf(elf, sizeof(elf), 190);         /* EM_CUDA */
	for (unsigned d = 0; d < 3; d += 2) {
		int ord = -1, r;
		void *pctx = NULL, *mine = NULL;

		ok(hr_runtime_module_load(ctx, d, elf, sizeof(elf), &mod[d]) == 0 &&
		   hr_runtime_module_function(ctx, d, mod[d], "fake_fill", &fn[d]) == 0,
		   "device %u: module and function", d);
		ok(hr_runtime_alloc(ctx, d, sizeof(out), &buf[d]) == 0, "device %u: memory", d);
		r = cu.pointer_attr(&ord, 9, buf[d]);
		ok(r == 0 && ord == (int)d,
		   "device %u: the memory is on device %u (CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL %d)", d, d, ord);
		ok(cu.pointer_attr(&pctx, 1, buf[d]) == 0 && cu.retain(&mine, (int)d) == 0 && pctx == mine,
		   "device %u: in its primary context (CU_POINTER_ATTRIBUTE_CONTEXT)", d);
		st[d] = stream_on((int)d);
		ok(st[d] != NULL, "device %u: a stream made by the caller", d);
	}
	ok(fn[0] && fn[2] && fn[0] != fn[2] && mod[0] != mod[2], "per-device modules and functions");

	before0 = cu.launches(0);
	before2 = cu.launches(2);
	v = 0xd2;
	{
		void *args[] = { &buf[2], &v, &n };

		is_int(hr_runtime_launch(ctx, 2, fn[2], g, b, 0, st[2], args), 0,
		       "launch on device 2 with device 2's stream");
	}
	memset(out, 0, sizeof(out));
	ok(hr_runtime_copy_dtoh(ctx, 2, out, buf[2], sizeof(out)) == 0 && out[0] == v && out[WORDS - 1] == v,
	   "its result is in device 2's memory");
	ok(cu.launches(2) == before2 + 1 && cu.launches(0) == before0, "it ran on device 2, not 0");
	{
		void *args[] = { &buf[2], &v, &n };

		is_int(hr_runtime_launch(ctx, 2, fn[2], g, b, 0, (void *)2, args), 0,
		       "CU_STREAM_PER_THREAD (2): the device's own default stream, launches");
		is_int(hr_runtime_launch(ctx, 2, fn[2], g, b, 0, (void *)1, args), 0,
		       "CU_STREAM_LEGACY (1) likewise");
		before2 += 2;
	}

	logbuf[0] = 0;
	{
		void *args[] = { &buf[0], &v, &n };

		is_int(hr_runtime_launch(ctx, 0, fn[0], g, b, 0, st[2], args), -EXDEV,
		       "device 0's function on device 2's stream: -EXDEV");
	}
	ok(strstr(logbuf, "another device's stream") != NULL, "the error says why");
	{
		void *args[] = { &buf[2], &v, &n };

		ok(hr_runtime_launch(ctx, 0, fn[0], g, b, 0, st[0], args) < 0,
		   "device 0's kernel on device 2's memory: an error (the driver's), not a crash");
	}
	ok(cu.launches(0) == before0, "neither ran");

	/* One thread per device, and a third switching devices at every launch. */
	before0 = cu.launches(0);
	before2 = cu.launches(2);
	lanes[0] = (struct lane){ .dev = { 0, 0 }, .fn = { fn[0], fn[0] }, .stream = { st[0], st[0] },
	                          .tag = 1 };
	lanes[1] = (struct lane){ .dev = { 2, 2 }, .fn = { fn[2], fn[2] }, .stream = { st[2], st[2] },
	                          .tag = 2 };
	lanes[2] = (struct lane){ .dev = { 0, 2 }, .fn = { fn[0], fn[2] }, .stream = { NULL, st[2] },
	                          .tag = 3 };
	for (int i = 0; i < 3; i++) {
		uint64_t p0 = 0, p2 = 0;

		hr_runtime_alloc(ctx, lanes[i].dev[0], sizeof(out), &p0);
		hr_runtime_alloc(ctx, lanes[i].dev[1], sizeof(out), &p2);
		lanes[i].buf[0] = p0;
		lanes[i].buf[1] = p2;
	}
	for (int i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, lane_run, &lanes[i]);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < 3; i++) {
		ok(lanes[i].errors == 0 && lanes[i].bad == 0 && lanes[i].done == ITERS,
		   "thread %d (devices %u,%u): %u launches, %u errors, %u wrong words", i,
		   lanes[i].dev[0], lanes[i].dev[1], lanes[i].done, lanes[i].errors, lanes[i].bad);
		hr_runtime_mem_free(ctx, lanes[i].dev[0], lanes[i].buf[0]);
		hr_runtime_mem_free(ctx, lanes[i].dev[1], lanes[i].buf[1]);
	}
	ok(cu.launches(0) - before0 == ITERS + ITERS / 2 && cu.launches(2) - before2 == ITERS + ITERS / 2,
	   "every launch ran on its own device (device 0: %lu, device 2: %lu)",
	   cu.launches(0) - before0, cu.launches(2) - before2);

	test_handles(st[0], st[2]);

	for (unsigned d = 0; d < 3; d += 2) {
		hr_runtime_mem_free(ctx, d, buf[d]);
		hr_runtime_module_unload(ctx, d, mod[d]);
		cu.stream_destroy(st[d]);
	}
	if (tap_failed)
		diag("log:\n%s", logbuf);
	hanzo_rocm_unref(ctx);
	snprintf(conf, sizeof(conf), "rm -rf '%s'", root);
	if (system(conf) != 0)
		diag("could not remove %s", root);
	return done_testing();
}
