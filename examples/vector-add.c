/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * vector-add: the hanzo-rocm API end to end, using only <hanzo-rocm.h>.
 *
 * From the checkout, after `sh tools/setup.sh` (the build tree, uninstalled):
 *   cc examples/vector-add.c $(pkg-config --cflags --libs \
 *       _build/main/hanzo-rocm-uninstalled.pc) -ldl -o vector-add
 *   _build/main/hanzo-rocm --run ./vector-add [N]
 * After `make install` (README, "From source"):
 *   cc examples/vector-add.c $(pkg-config --cflags --libs hanzo-rocm) -ldl -o vector-add
 *   ./vector-add [N]
 * Without a GPU, HANZO_ROCM_HOST=host-w64 adds a host device (the CPU) to
 * run on; with no device at all it exits 2.
 *
 * The application owns its memory and streams (here through the CUDA driver
 * or the HIP runtime, opened with dlopen so this builds without either SDK);
 * hanzo-rocm owns the kernels: hanzo_rocm_kernel_get() finds the family's
 * code object in the cache (compiling it on a miss), loads it once, and
 * returns a handle that later calls get back from a hash lookup;
 * hanzo_rocm_kernel_launch_work() launches it for an amount of work, the
 * library choosing grid and block for the kernel and the device.
 */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hanzo-rocm.h>

/* The few memory calls the application makes itself. */
struct gpu_mem {
	int (*alloc)(struct gpu_mem *m, uint64_t *p, size_t n);
	int (*htod)(struct gpu_mem *m, uint64_t d, const void *s, size_t n);
	int (*dtoh)(struct gpu_mem *m, void *d, uint64_t s, size_t n);
	int (*release)(struct gpu_mem *m, uint64_t p);
	void *dl;
	void *f[6];
	int ordinal;
};

/* ---- NVIDIA: the CUDA driver, in the device's primary context ---- */
static int cu_alloc(struct gpu_mem *m, uint64_t *p, size_t n) { return ((int (*)(uint64_t *, size_t))m->f[0])(p, n); }
static int cu_htod(struct gpu_mem *m, uint64_t d, const void *s, size_t n) { return ((int (*)(uint64_t, const void *, size_t))m->f[1])(d, s, n); }
static int cu_dtoh(struct gpu_mem *m, void *d, uint64_t s, size_t n) { return ((int (*)(void *, uint64_t, size_t))m->f[2])(d, s, n); }
static int cu_free(struct gpu_mem *m, uint64_t p) { return ((int (*)(uint64_t))m->f[3])(p); }

static int cuda_init(struct gpu_mem *m)
{
	static const char *const names[] = { "cuMemAlloc_v2", "cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2",
	                                     "cuMemFree_v2", "cuDevicePrimaryCtxRetain", "cuCtxSetCurrent" };
	void *pctx;

	m->dl = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!m->dl)
		return -1;
	for (int i = 0; i < 6; i++)
		if (!(m->f[i] = dlsym(m->dl, names[i])))
			return -1;
	/* cuInit was called by hanzo-rocm; memory lives in the primary context. */
	if (((int (*)(void **, int))m->f[4])(&pctx, m->ordinal) != 0 ||
	    ((int (*)(void *))m->f[5])(pctx) != 0)
		return -1;
	m->alloc = cu_alloc; m->htod = cu_htod; m->dtoh = cu_dtoh; m->release = cu_free;
	return 0;
}

/* ---- AMD: the HIP runtime ---- */
static int hip_alloc(struct gpu_mem *m, uint64_t *p, size_t n)
{
	void *q = NULL;
	int r = ((int (*)(void **, size_t))m->f[0])(&q, n);

	*p = (uint64_t)(uintptr_t)q;
	return r;
}
static int hip_htod(struct gpu_mem *m, uint64_t d, const void *s, size_t n) { return ((int (*)(void *, const void *, size_t, int))m->f[1])((void *)(uintptr_t)d, s, n, 1); }
static int hip_dtoh(struct gpu_mem *m, void *d, uint64_t s, size_t n) { return ((int (*)(void *, const void *, size_t, int))m->f[1])(d, (void *)(uintptr_t)s, n, 2); }
static int hip_free(struct gpu_mem *m, uint64_t p) { return ((int (*)(void *))m->f[2])((void *)(uintptr_t)p); }

static int hip_init(struct gpu_mem *m)
{
	static const char *const names[] = { "hipMalloc", "hipMemcpy", "hipFree", "hipSetDevice" };

	m->dl = dlopen("libamdhip64.so.6", RTLD_NOW | RTLD_LOCAL);
	if (!m->dl)
		m->dl = dlopen("libamdhip64.so.5", RTLD_NOW | RTLD_LOCAL);
	if (!m->dl)
		return -1;
	for (int i = 0; i < 4; i++)
		if (!(m->f[i] = dlsym(m->dl, names[i])))
			return -1;
	if (((int (*)(int))m->f[3])(m->ordinal) != 0)
		return -1;
	m->alloc = hip_alloc; m->htod = hip_htod; m->dtoh = hip_dtoh; m->release = hip_free;
	return 0;
}

/* ---- the host backend (HANZO_ROCM_HOST=host-w64): device memory is host memory ---- */
static int host_alloc(struct gpu_mem *m, uint64_t *p, size_t n)
{
	(void)m;
	*p = (uint64_t)(uintptr_t)malloc(n ? n : 1);
	return *p ? 0 : -1;
}
static int host_htod(struct gpu_mem *m, uint64_t d, const void *s, size_t n) { (void)m; memcpy((void *)(uintptr_t)d, s, n); return 0; }
static int host_dtoh(struct gpu_mem *m, void *d, uint64_t s, size_t n) { (void)m; memcpy(d, (const void *)(uintptr_t)s, n); return 0; }
static int host_free(struct gpu_mem *m, uint64_t p) { (void)m; free((void *)(uintptr_t)p); return 0; }

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 1000003, bytes, numel, dims;
	struct hanzo_rocm *ctx;
	struct hanzo_rocm_kernel *add;
	struct gpu_mem mem = { 0 };
	struct hanzo_rocm_layout info;
	struct hanzo_rocm_geometry geo;
	const char *target;
	const void *code;
	size_t code_size;
	uint64_t da = 0, db = 0, dc = 0;
	float *a, *b, *c;
	double maxerr = 0;
	int r, count;

	r = hanzo_rocm_new(&ctx);
	if (r < 0) {
		fprintf(stderr, "hanzo_rocm_new: %s\n", hanzo_rocm_strerror(r));
		return 1;
	}
	count = hanzo_rocm_device_count(ctx);
	if (count <= 0) {
		/* Nothing ran: not a success.  The CPU can stand in for a GPU. */
		fprintf(stderr, "no GPU and no host device: nothing to run; "
		        "HANZO_ROCM_HOST=host-w64 runs it on the CPU (the host backend)\n");
		hanzo_rocm_unref(ctx);
		return 2;
	}
	hanzo_rocm_device_target(ctx, 0, &target);
	printf("device 0: %s\n", target);

	/* The code object itself, for applications that load modules on their own. */
	r = hanzo_rocm_code_object(ctx, "binary", target, &code, &code_size);
	if (r < 0) {
		fprintf(stderr, "binary family for %s: %s\n", target, hanzo_rocm_strerror(r));
		return 1;
	}
	printf("binary family for %s: %zu-byte code object\n", target, code_size);

	/* A handle to badd_f32 on device 0; the second get is a hash lookup. */
	r = hanzo_rocm_kernel_get(ctx, 0, "binary", "badd_f32", &add);
	if (r < 0) {
		fprintf(stderr, "badd_f32: %s\n", hanzo_rocm_strerror(r));
		return 1;
	}

	/*
	 * Devices are AMD first (HIP ordinal order), then NVIDIA (CUDA ordinal
	 * order): device 0 is ordinal 0 of its platform.
	 */
	mem.ordinal = 0;
	if (hanzo_rocm_device_platform(ctx, 0) == HANZO_ROCM_PLATFORM_NVIDIA) {
		r = cuda_init(&mem);
	} else if (hanzo_rocm_device_platform(ctx, 0) == HANZO_ROCM_PLATFORM_HOST) {
		mem.alloc = host_alloc; mem.htod = host_htod; mem.dtoh = host_dtoh; mem.release = host_free;
		r = 0;
	} else {
		r = hip_init(&mem);
	}
	if (r < 0) {
		fprintf(stderr, "cannot set up device memory\n");
		return 1;
	}
	bytes = n * sizeof(float);
	a = malloc(bytes);
	b = malloc(bytes);
	c = malloc(bytes);
	for (size_t i = 0; i < n; i++) {
		a[i] = (float)i * 0.5f;
		b[i] = 1.0f / (float)(i + 1);
		c[i] = NAN;
	}
	if (mem.alloc(&mem, &da, bytes) || mem.alloc(&mem, &db, bytes) || mem.alloc(&mem, &dc, bytes) ||
	    mem.htod(&mem, da, a, bytes) || mem.htod(&mem, db, b, bytes) || mem.htod(&mem, dc, c, bytes)) {
		fprintf(stderr, "device memory failed\n");
		return 1;
	}

	/*
	 * badd_f32(numel, num_dims, layout, lhs, rhs, out): the layout holds
	 * the dims and each input's strides (0 = broadcast), by value.  Here
	 * one dim, both inputs contiguous (NULL strides); a candle port would
	 * call hanzo_rocm_layout_from_candle(&info, num_dims, 2,
	 * dims_and_strides) with its own packed array.
	 */
	numel = n;
	dims = 1;
	r = hanzo_rocm_layout_init(&info, dims, &n, 2, NULL);
	if (r < 0) {
		fprintf(stderr, "layout: %s\n", hanzo_rocm_strerror(r));
		return 1;
	}
	void *args[] = { &numel, &dims, &info, &da, &db, &dc };

	/* Work = n elements: the library picks grid and block (and tells). */
	if (hanzo_rocm_kernel_geometry(add, n, 1, &geo) == 0)
		printf("launch: grid %u x block %u for %zu elements\n", geo.grid[0], geo.block[0], n);
	r = hanzo_rocm_kernel_launch_work(add, n, 1, NULL, args);
	if (r < 0) {
		fprintf(stderr, "launch: %s\n", hanzo_rocm_strerror(r));
		return 1;
	}
	/* A blocking copy on the default stream waits for the kernel. */
	if (mem.dtoh(&mem, c, dc, bytes)) {
		fprintf(stderr, "copy back failed\n");
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		double want = (double)a[i] + (double)b[i];
		double err = fabs(c[i] - want) / (fabs(want) > 1e-30 ? fabs(want) : 1e-30);

		if (!(err <= maxerr))
			maxerr = err;
	}
	printf("c = a + b on %zu floats: max relative error %.3g: %s\n", n, maxerr,
	       maxerr <= 1e-6 ? "OK" : "WRONG");
	mem.release(&mem, da);
	mem.release(&mem, db);
	mem.release(&mem, dc);
	free(a); free(b); free(c);
	hanzo_rocm_unref(ctx);
	return maxerr <= 1e-6 ? 0 : 1;
}
