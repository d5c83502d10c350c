/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * First kernel in a new process, three ways (run each in a fresh process;
 * bench/gpu-bench.sh repeats them and takes medians):
 *   gpu-coldstart lib FAMILY KERNEL       hanzo_rocm_new + kernel_get (warm cache)
 *   gpu-coldstart driver FILE KERNEL      dlopen libcuda, init, primary context,
 *                                          read FILE, cuModuleLoadData, GetFunction
 *   gpu-coldstart extract FAMILY OUT      write the family's code object for
 *                                          device 0 (the bytes "driver" loads)
 * FILE may be a cubin or PTX (then the driver JIT-compiles it, or takes it
 * from its compute cache, as embedded-PTX frameworks do).  Prints one line:
 *   <mode> init_ms <ms> load_ms <ms> total_ms <ms>
 * where init is everything up to a usable device context (device detection
 * for the library) and load the rest, so the library's own overhead shows.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hanzo-rocm.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static int lib_mode(const char *family, const char *kernel)
{
	struct hanzo_rocm *ctx;
	struct hanzo_rocm_kernel *k;
	double t0 = now_ms(), t1, t2;
	int r;

	r = hanzo_rocm_new(&ctx);
	if (r < 0 || hanzo_rocm_device_count(ctx) <= 0) {
		fprintf(stderr, "lib: no context or no GPU: %s\n", hanzo_rocm_strerror(r));
		return 1;
	}
	t1 = now_ms();
	r = hanzo_rocm_kernel_get(ctx, 0, family, kernel, &k);
	t2 = now_ms();
	if (r < 0) {
		fprintf(stderr, "lib: kernel_get %s/%s: %s\n", family, kernel, hanzo_rocm_strerror(r));
		return 1;
	}
	printf("lib init_ms %.3f load_ms %.3f total_ms %.3f\n", t1 - t0, t2 - t1, t2 - t0);
	hanzo_rocm_unref(ctx);
	return 0;
}

static int extract_mode(const char *family, const char *out)
{
	struct hanzo_rocm *ctx;
	const char *target;
	const void *data;
	size_t size;
	FILE *f;
	int r;

	if (hanzo_rocm_new(&ctx) < 0 || hanzo_rocm_device_count(ctx) <= 0 ||
	    hanzo_rocm_device_target(ctx, 0, &target) < 0) {
		fprintf(stderr, "extract: no GPU\n");
		return 1;
	}
	r = hanzo_rocm_code_object(ctx, family, target, &data, &size);
	if (r < 0) {
		fprintf(stderr, "extract: %s for %s: %s\n", family, target, hanzo_rocm_strerror(r));
		return 1;
	}
	f = fopen(out, "we");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
		perror(out);
		return 1;
	}
	printf("extract %s %s %zu bytes\n", family, target, size);
	hanzo_rocm_unref(ctx);
	return 0;
}

typedef int (*cu_init_t)(unsigned);
typedef int (*cu_dev_get_t)(int *, int);
typedef int (*cu_retain_t)(void **, int);
typedef int (*cu_push_t)(void *);
typedef int (*cu_load_t)(void **, const void *);
typedef int (*cu_getfn_t)(void **, void *, const char *);

static int driver_mode(const char *file, const char *kernel)
{
	double t0 = now_ms(), t1, t2;
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL), *ctx, *mod, *fn;
	cu_init_t init;
	cu_dev_get_t dev_get;
	cu_retain_t retain;
	cu_push_t push;
	cu_load_t load;
	cu_getfn_t getfn;
	char *buf;
	long n;
	FILE *f;
	int dev;

	if (!h) {
		fprintf(stderr, "driver: %s\n", dlerror());
		return 1;
	}
	init = (cu_init_t)dlsym(h, "cuInit");
	dev_get = (cu_dev_get_t)dlsym(h, "cuDeviceGet");
	retain = (cu_retain_t)dlsym(h, "cuDevicePrimaryCtxRetain");
	push = (cu_push_t)dlsym(h, "cuCtxPushCurrent_v2");
	load = (cu_load_t)dlsym(h, "cuModuleLoadData");
	getfn = (cu_getfn_t)dlsym(h, "cuModuleGetFunction");
	if (!init || !dev_get || !retain || !push || !load || !getfn ||
	    init(0) || dev_get(&dev, 0) || retain(&ctx, dev) || push(ctx)) {
		fprintf(stderr, "driver: init failed\n");
		return 1;
	}
	t1 = now_ms();
	f = fopen(file, "re");
	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) ||
	    !(buf = malloc((size_t)n + 1)) || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		perror(file);
		return 1;
	}
	fclose(f);
	buf[n] = '\0';          /* PTX is a NUL-terminated string */
	if (load(&mod, buf) || getfn(&fn, mod, kernel)) {
		fprintf(stderr, "driver: cannot load %s / %s\n", file, kernel);
		return 1;
	}
	t2 = now_ms();
	printf("driver init_ms %.3f load_ms %.3f total_ms %.3f\n", t1 - t0, t2 - t1, t2 - t0);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "lib") == 0)
		return lib_mode(argv[2], argv[3]);
	if (argc == 4 && strcmp(argv[1], "driver") == 0)
		return driver_mode(argv[2], argv[3]);
	if (argc == 4 && strcmp(argv[1], "extract") == 0)
		return extract_mode(argv[2], argv[3]);
	fprintf(stderr, "usage: gpu-coldstart lib FAMILY KERNEL | driver FILE KERNEL | "
	        "extract FAMILY OUT\n");
	return 2;
}
