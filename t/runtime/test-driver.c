/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The CUDA backend against the stand-in driver t/fakecuda (no GPU needed),
 * run by t/runtime/driver.sh with LD_LIBRARY_PATH pointing at it:
 *   partial  a driver lacking cuLaunchKernel: -ENOSYS naming the symbol
 *   nodev    cuInit says CUDA_ERROR_NO_DEVICE: no device, -ENODEV
 *   fake     two sm_90 devices: enumeration, refused images, memory,
 *            and (with nvcc and the affine plugin, the smallest family) kernel_get/launch from 16 threads
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../fake-cuda-test.h"
#include "../tap.h"
#include "cache/cache.h"
#include "backend/cuda.h"
#include "context.h"
#include "kernel/kernel.h"
#include "runtime/runtime.h"
#include "backend/backend.h"
#include "devices/devices.h"
#include "target/target.h"

static int is_int_ok(int got, int want, const char *what)
{
	is_int(got, want, "%s", what);
	return got == want;
}

static struct hanzo_rocm *new_ctx(void)
{
	struct hanzo_rocm_options o = { .size = sizeof(o), .log_fn = log_capture,
	                                .log_priority = LOG_DEBUG };
	struct hanzo_rocm *ctx = NULL;

	if (hanzo_rocm_new_with_options(&o, &ctx) < 0)
		return NULL;
	return ctx;
}

static void test_partial(struct hanzo_rocm *ctx)
{
	struct hr_device devs[4];
	size_t n = 9;
	struct hr_backend *b;

	is_int(hr_backend_get(ctx, HR_PLATFORM_NVIDIA, &b), -ENOSYS,
	       "a driver lacking a symbol: -ENOSYS");
	ok(strstr(logbuf, "missing symbol cuLaunchKernel") != NULL,
	   "the message names the missing symbol");
	is_int(hr_devices_cuda(ctx, devs, 4, &n), -ENOSYS, "hr_cuda_devices fails cleanly");
	is_int(n, 0, "no device from it");
}

static void test_nodev(struct hanzo_rocm *ctx)
{
	struct hanzo_rocm_kernel *k;
	struct hr_device devs[4];
	size_t n = 9;
	struct hr_backend *b;

	is_int(hr_backend_get(ctx, HR_PLATFORM_NVIDIA, &b), -ENODEV,
	       "cuInit NO_DEVICE: -ENODEV");
	ok(strstr(logbuf, "CUDA_ERROR_NO_DEVICE") != NULL, "the driver's error name is logged");
	is_int(hr_devices_cuda(ctx, devs, 4, &n), 0, "hr_cuda_devices succeeds");
	is_int(n, 0, "with no device");
	if (hanzo_rocm_device_count(ctx) == 0)
		is_int(hanzo_rocm_kernel_get(ctx, 0, "unary", "ucopy_f32", &k), -ENODEV,
		       "kernel_get: -ENODEV");
	else
		skip(1, "an AMD device is present");
}

struct worker {
	struct hanzo_rocm *ctx;
	unsigned device;
	int failures;
	const struct hanzo_rocm_kernel *first;
};

static void *worker(void *arg)
{
	static const char *const names[] = { "affine_f32", "affine_f64", "affine_f16", "affine_bf16" };
	struct worker *w = arg;
	unsigned g[3] = { 4, 1, 1 }, bl[3] = { 256, 1, 1 };

	for (int i = 0; i < 200; i++) {
		struct hanzo_rocm_kernel *k;

		if (hanzo_rocm_kernel_get(w->ctx, w->device, "affine", names[i % 4], &k) < 0 ||
		    hanzo_rocm_kernel_launch(k, g, bl, 0, NULL, NULL) < 0) {
			w->failures++;
			continue;
		}
		if (i == 0)
			w->first = k;
	}
	return NULL;
}

/*
 * A cache entry that passes every cache check but that the driver refuses
 * (NO_BINARY_FOR_GPU): the runtime skips that tier and compiles afresh.
 */
static void test_refused(const char *cachedir, unsigned dev)
{
	struct hanzo_rocm_kernel *k = NULL;
	struct hr_kernel_stats st;
	struct hr_entry ent;
	char dir[4200], *path;
	struct hanzo_rocm *c;
	uint8_t *bad = NULL;
	unsigned g[3] = { 1, 1, 1 };
	int r;

	snprintf(dir, sizeof(dir), "%s/cache", cachedir);
	path = hr_entry_path(dir, "sm_90", "affine");
	c = new_ctx();
	r = path && c ? hr_entry_read(c, path, NULL, &ent) : -ENOMEM;
	if (r == 0) {
		bad = malloc(ent.payload_size);
		memcpy(bad, ent.payload, ent.payload_size);
		bad[8] = 0x7f;
		r = hr_entry_write(c, dir, "affine", "sm_90", &ent.key, ent.compiler, bad,
		                   ent.payload_size);
		hr_entry_release(&ent);
	}
	is_int(r, 0, "planted an entry the cache accepts and the driver refuses");
	logbuf[0] = 0;
	if (!is_int_ok(hanzo_rocm_kernel_get(c, dev, "affine", "affine_f32", &k), 0,
	               "kernel_get still succeeds"))
		diag("log:\n%s", logbuf);
	hr_kernel_stats(c, &st);
	is_int(st.refused, 1, "one refusal");
	is_int(st.modules, 1, "then a module from the next tier (compiled)");
	ok(strstr(logbuf, "refused the code object of family 'affine'") != NULL,
	   "a warning names the family and the tier");
	is_int(hanzo_rocm_kernel_launch(k, g, g, 0, NULL, NULL), 0, "and it launches");
	hanzo_rocm_unref(c);
	free(bad);
	free(path);
}

static void test_kernels(struct hanzo_rocm *ctx, unsigned dev)
{
	const char *nvcc = getenv("NVCC"), *plugins = getenv("HR_PLUGINS");
	char path[4200], cachedir[] = "/tmp/hr-rt-fake.XXXXXX";
	struct hanzo_rocm_kernel *k1 = NULL, *k2 = NULL;
	unsigned g[3] = { 1, 1, 1 }, big[3] = { 2048, 1, 1 };
	struct worker w[16];
	pthread_t th[16];
	struct hr_kernel_stats st;
	struct hanzo_rocm *c2;
	FILE *f;
	int fails = 0;

	if (!fake_cuda_affine_ready(13))
		return;
	if (!mkdtemp(cachedir))
		return;
	snprintf(path, sizeof(path), "%s/hr.conf", cachedir);
	f = fopen(path, "w");
	fprintf(f, "[compiler]\nnvcc = %s\n[cache]\nuser_dir = %s/cache\n", nvcc, cachedir);
	fclose(f);
	setenv("HANZO_ROCM_CONF", path, 1);
	setenv("HANZO_ROCM_PLUGIN_PATH", plugins, 1);
	c2 = new_ctx();
	if (!ok(c2 != NULL, "context with a private cache"))
		return;
	is_int(hanzo_rocm_kernel_get(c2, dev, "affine", "affine_f32", &k1), 0,
	       "kernel_get compiles on miss and loads into the fake device");
	is_int(hanzo_rocm_kernel_get(c2, dev, "affine", "affine_f32", &k2), 0, "second get");
	ok(k1 && k1 == k2, "same handle: a hit");
	is_int(hanzo_rocm_kernel_launch(k1, g, big, 0, NULL, NULL), -EINVAL,
	       "a launch the driver rejects is an error, not a crash");
	for (int i = 0; i < 16; i++) {
		w[i] = (struct worker){ .ctx = c2, .device = dev };
		pthread_create(&th[i], NULL, worker, &w[i]);
	}
	for (int i = 0; i < 16; i++) {
		pthread_join(th[i], NULL);
		fails += w[i].failures + (w[i].first != k1);
	}
	is_int(fails, 0, "16 threads x 200 get+launch: no failure, same handles");
	hr_kernel_stats(c2, &st);
	is_int(st.modules, 1, "one module loaded for the family");
	hanzo_rocm_unref(c2);
	test_refused(cachedir, dev);
	(void)ctx;
}

/*
 * Shared memory above the 48 KiB default: the device's limit is its opt-in
 * one, and a kernel the library loads launches with dynamic shared memory
 * up to it less its static part (the driver refuses a byte more).  With
 * HR_FAKE_CUDA_NO_OPTIN the driver refuses the attribute: the kernel still
 * loads, with a warning, and launches within the default 48 KiB.
 */
static void test_optin(struct hanzo_rocm *ctx, unsigned dev, void *mod)
{
	unsigned g[3] = { 1, 1, 1 };
	struct hr_rt_device *rd = NULL;
	void *fn = NULL, *fs = NULL;

	if (getenv("HR_FAKE_CUDA_NO_OPTIN")) {
		logbuf[0] = 0;
		is_int(hr_runtime_module_function(ctx, dev, mod, "big_k", &fn), 0,
		       "a driver refusing the opt-in: the kernel still loads");
		ok(strstr(logbuf, "kernel big_k keeps the driver's default shared memory limit") != NULL,
		   "  ... with a warning naming it");
		is_int(hr_runtime_launch(ctx, dev, fn, g, g, 48u << 10, NULL, NULL), 0,
		       "  ... and launches with 48 KiB");
		is_int(hr_runtime_launch(ctx, dev, fn, g, g, 64u << 10, NULL, NULL), -EINVAL,
		       "  ... not 64 KiB (the driver's error)");
		return;
	}
	is_int(hr_runtime_device(ctx, dev, &rd, NULL), 0, "the device's slot");
	is_int(rd ? (int)rd->limits.max_shared : 0, 227 << 10,
	       "its shared memory a block: the opt-in limit (227 KiB), not the 48 KiB default");
	is_int(hr_runtime_module_function(ctx, dev, mod, "big_k", &fn), 0, "a kernel loads");
	is_int(hr_runtime_launch(ctx, dev, fn, g, g, 64u << 10, NULL, NULL), 0,
	       "and launches with 64 KiB of dynamic shared memory");
	is_int(hr_runtime_launch(ctx, dev, fn, g, g, 227u << 10, NULL, NULL), 0, "  ... and 227 KiB");
	is_int(hr_runtime_launch(ctx, dev, fn, g, g, (227u << 10) + 1, NULL, NULL), -EINVAL,
	       "  ... not a byte more");
	is_int(hr_runtime_module_function(ctx, dev, mod, "big_smem1k", &fs), 0,
	       "a kernel with 1 KiB of static shared memory loads");
	is_int(hr_runtime_launch(ctx, dev, fs, g, g, 226u << 10, NULL, NULL), 0,
	       "  ... and launches with the rest, 226 KiB, dynamic");
	is_int(hr_runtime_launch(ctx, dev, fs, g, g, (226u << 10) + 1, NULL, NULL), -EINVAL,
	       "  ... not a byte more");
}

static void test_fake(struct hanzo_rocm *ctx)
{
	struct hr_device devs[4];
	unsigned char elf[64];
	char buf[8] = "", out[8] = "";
	uint64_t ptr = 0;
	void *mod = NULL, *fn = NULL, *e1 = NULL, *e2 = NULL;
	size_t n = 0;
	float ms = 0;
	int dev = -1, count;

	is_int(hr_devices_cuda(ctx, devs, 4, &n), 0, "hr_cuda_devices");
	is_int(n, 2, "two devices");
	is_str(devs[0].detected, "sm_90", "compute capability 9.0 is sm_90");
	is_str(devs[1].name, "Fake GPU", "device name");
	is_int(devs[1].ordinal, 1, "ordinal");
	ok(devs[0].platform == HR_PLATFORM_NVIDIA, "platform NVIDIA");
	is_int(hr_devices_cuda(ctx, devs, 1, &n), 0, "max 1");
	is_int(n, 1, "stops at max");

	count = hanzo_rocm_device_count(ctx);
	for (int i = 0; i < count && dev < 0; i++)
		if (hanzo_rocm_device_platform(ctx, (unsigned)i) == HANZO_ROCM_PLATFORM_NVIDIA)
			dev = i;
	if (dev < 0) {
		skip(19, "target.c does not list the NVIDIA devices");
		return;
	}
	fake_elf(elf, sizeof(elf), 224);         /* EM_AMDGPU */
	is_int(hr_runtime_module_load(ctx, (unsigned)dev, elf, sizeof(elf), &mod), -ENOEXEC,
	       "an AMDGPU object is refused: -ENOEXEC");
	is_int(hr_runtime_module_load(ctx, (unsigned)dev, "junkjunkjunk", 12, &mod), -ENOEXEC,
	       "junk is refused: -ENOEXEC");
	is_int(hr_runtime_module_load(ctx, (unsigned)dev, elf, 0, &mod), -EINVAL, "empty image: -EINVAL");
	fake_elf(elf, sizeof(elf), 190);         /* EM_CUDA */
	is_int(hr_runtime_module_load(ctx, (unsigned)dev, elf, sizeof(elf), &mod), 0, "a cubin loads");
	is_int(hr_runtime_module_function(ctx, (unsigned)dev, mod, "missing_k", &fn), -ENOENT,
	       "a missing kernel: -ENOENT");
	is_int(hr_runtime_module_function(ctx, (unsigned)dev, mod, "vadd", &fn), 0, "a kernel is found");
	test_optin(ctx, (unsigned)dev, mod);
	hr_runtime_module_unload(ctx, (unsigned)dev, mod);

	is_int(hr_runtime_alloc(ctx, (unsigned)dev, 8, &ptr), 0, "alloc");
	ok(ptr != 0, "a device pointer");
	memcpy(buf, "hanzo", 6);
	is_int(hr_runtime_copy_htod(ctx, (unsigned)dev, ptr, buf, 6), 0, "htod");
	is_int(hr_runtime_copy_dtoh(ctx, (unsigned)dev, out, ptr, 6), 0, "dtoh");
	is_str(out, "hanzo", "round trip");
	is_int(hr_runtime_mem_free(ctx, (unsigned)dev, ptr), 0, "free");
	is_int(hr_runtime_event_create(ctx, (unsigned)dev, &e1), 0, "event 1");
	is_int(hr_runtime_event_create(ctx, (unsigned)dev, &e2), 0, "event 2");
	hr_runtime_event_record(ctx, (unsigned)dev, e1, NULL);
	hr_runtime_event_record(ctx, (unsigned)dev, e2, NULL);
	is_int(hr_runtime_event_elapsed(ctx, (unsigned)dev, e1, e2, &ms), 0, "elapsed");
	ok(ms == 1.5f, "the driver's milliseconds");
	hr_runtime_event_destroy(ctx, (unsigned)dev, e1);
	hr_runtime_event_destroy(ctx, (unsigned)dev, e2);
	is_int(hr_runtime_synchronize(ctx, (unsigned)dev, NULL), 0, "synchronize");

	test_kernels(ctx, (unsigned)dev);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	struct hanzo_rocm *ctx;

	if (!getenv("HR_FAKE_CUDA"))
		skip_all("run through t/runtime/driver.sh");
	ctx = new_ctx();
	if (!ok(ctx != NULL, "context (%s)", mode))
		return done_testing();
	if (strcmp(mode, "partial") == 0)
		test_partial(ctx);
	else if (strcmp(mode, "nodev") == 0)
		test_nodev(ctx);
	else if (strcmp(mode, "fake") == 0)
		test_fake(ctx);
	else
		ok(0, "unknown mode '%s'", mode);
	hanzo_rocm_unref(ctx);
	return done_testing();
}
