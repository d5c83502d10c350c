/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rows: softmax, rmsnorm, layernorm and a row sum the way a framework calls
 * them - through the operation calls of <hanzo-rocm.h> only, at any shape,
 * without choosing a kernel form or computing a workspace size - checked
 * against a float64 reference.
 *
 *   ./rows [ROWS COLS]       (default: 37 x 5125, then 1 x 40000)
 * From the checkout: _build/main/hanzo-rocm --run examples/rows; on the CPU
 * backend: HANZO_ROCM_HOST=host-w64 ./rows.
 *
 * For each kernel: hanzo_rocm_op_workspace() says how many workspace bytes
 * rows x cols needs on this device (0 when the library will run the
 * one-pass kernel; more when few long rows make it run the split form),
 * the application allocates them, and hanzo_rocm_op_run() runs every pass.
 * The names and arguments come from `hanzo-rocm kernels --family norm`
 * (and reduce): src/x, dst, alpha, beta, eps; the library fills in ncols,
 * block_size, the reduction's layout and the workspace's arguments.
 */
#include <dlfcn.h>
#include <errno.h>
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

static int mem_init(struct hanzo_rocm *ctx, struct gpu_mem *mem)
{
	mem->ordinal = 0;
	switch (hanzo_rocm_device_platform(ctx, 0)) {
	case HANZO_ROCM_PLATFORM_NVIDIA:
		return cuda_init(mem);
	case HANZO_ROCM_PLATFORM_HOST:
		mem->alloc = host_alloc; mem->htod = host_htod; mem->dtoh = host_dtoh;
		mem->release = host_free;
		return 0;
	default:
		return hip_init(mem);
	}
}

enum op { SOFTMAX, RMSNORM, LAYERNORM, SUM };
static const struct {
	const char *family, *kernel;
} ops[] = {
	[SOFTMAX] = { "norm", "softmax_f32" },
	[RMSNORM] = { "norm", "rmsnorm_f32" },
	[LAYERNORM] = { "norm", "layernorm_f32" },
	[SUM] = { "reduce", "fast_sum_f32" },
};

/* float64 reference of one row; returns the scale errors are measured against. */
static void reference(enum op op, const float *x, const float *alpha, const float *beta,
                      size_t cols, float eps, double *want)
{
	double s = 0, m = 0, v = 0, mx = -INFINITY;

	switch (op) {
	case SOFTMAX:
		for (size_t c = 0; c < cols; c++)
			mx = fmax(mx, x[c]);
		for (size_t c = 0; c < cols; c++)
			s += exp((double)x[c] - mx);
		for (size_t c = 0; c < cols; c++)
			want[c] = exp((double)x[c] - mx) / s;
		break;
	case RMSNORM:
		for (size_t c = 0; c < cols; c++)
			s += (double)x[c] * x[c];
		s = 1 / sqrt(s / (double)cols + eps);
		for (size_t c = 0; c < cols; c++)
			want[c] = x[c] * s * alpha[c];
		break;
	case LAYERNORM:
		for (size_t c = 0; c < cols; c++)
			m += x[c];
		m /= (double)cols;
		for (size_t c = 0; c < cols; c++)
			v += ((double)x[c] - m) * ((double)x[c] - m);
		v = 1 / sqrt(v / (double)cols + eps);
		for (size_t c = 0; c < cols; c++)
			want[c] = ((double)x[c] - m) * v * alpha[c] + beta[c];
		break;
	case SUM:
		for (size_t c = 0; c < cols; c++)
			s += x[c];
		want[0] = s;
		break;
	}
}

/* One operation over rows x cols: 0 right, 1 wrong, -1 could not run. */
static int run(struct hanzo_rocm *ctx, struct gpu_mem *mem, enum op op, size_t rows, size_t cols)
{
	size_t n = rows * cols, out_n = op == SUM ? rows : n, ws = 0, out_cols = op == SUM ? 1 : cols;
	float *x = malloc(n * sizeof(float)), *w = malloc(cols * sizeof(float));
	float *b = malloc(cols * sizeof(float)), *y = malloc(out_n * sizeof(float));
	double *want = malloc(cols * sizeof(double)), maxerr = 0;
	uint64_t dx = 0, dw = 0, db = 0, dy = 0, dws = 0;
	struct hanzo_rocm_kernel *k;
	const float eps = 1e-5f;
	int r, ret = -1;

	if (!x || !w || !b || !y || !want)
		goto out;
	srand(7);
	for (size_t i = 0; i < n; i++)
		x[i] = (float)rand() / (float)RAND_MAX * 8.0f - 4.0f;
	for (size_t c = 0; c < cols; c++) {
		w[c] = 0.5f + (float)c / (float)cols;
		b[c] = 0.25f - (float)(c % 7) / 16.0f;
	}
	for (size_t i = 0; i < out_n; i++)
		y[i] = NAN;             /* poison: an unwritten output fails */
	r = hanzo_rocm_kernel_get(ctx, 0, ops[op].family, ops[op].kernel, &k);
	if (r == 0)
		r = hanzo_rocm_op_workspace(k, rows, cols, &ws);
	if (r < 0) {
		fprintf(stderr, "%s: %s\n", ops[op].kernel, hanzo_rocm_strerror(r));
		goto out;
	}
	if (mem->alloc(mem, &dx, n * sizeof(float)) || mem->alloc(mem, &dw, cols * sizeof(float)) ||
	    mem->alloc(mem, &db, cols * sizeof(float)) || mem->alloc(mem, &dy, out_n * sizeof(float)) ||
	    (ws && mem->alloc(mem, &dws, ws)) ||
	    mem->htod(mem, dx, x, n * sizeof(float)) || mem->htod(mem, dw, w, cols * sizeof(float)) ||
	    mem->htod(mem, db, b, cols * sizeof(float)) || mem->htod(mem, dy, y, out_n * sizeof(float))) {
		fprintf(stderr, "device memory failed\n");
		goto out;
	}
	struct hanzo_rocm_op_args a = {
		.size = sizeof(a),
		.src = (const void *)(uintptr_t)dx,
		.dst = (void *)(uintptr_t)dy,
		.alpha = (const void *)(uintptr_t)dw,
		.beta = (const void *)(uintptr_t)db,
		.eps = eps,
		.workspace = (void *)(uintptr_t)dws,
		.workspace_size = ws,
	};
	if (ws) {
		/* One byte short is refused before anything runs. */
		a.workspace_size = ws - 1;
		r = hanzo_rocm_op_run(k, rows, cols, &a);
		printf("%s %zu x %zu: workspace of %zu - 1 bytes: %s\n", ops[op].kernel, rows, cols,
		       ws, r == -ENOSPC ? "refused" : "NOT REFUSED");
		if (r != -ENOSPC)
			ret = 1;
		a.workspace_size = ws;
	}
	r = hanzo_rocm_op_run(k, rows, cols, &a);
	if (r < 0 || mem->dtoh(mem, y, dy, out_n * sizeof(float))) {
		fprintf(stderr, "%s: %s\n", ops[op].kernel, hanzo_rocm_strerror(r));
		goto out;
	}
	for (size_t row = 0; row < rows; row++) {
		const float *xr = x + row * cols;
		double scale = 0;

		reference(op, xr, w, b, cols, eps, want);
		if (op == SUM)
			for (size_t c = 0; c < cols; c++)
				scale += fabs(xr[c]);
		for (size_t c = 0; c < out_cols; c++) {
			double got = y[row * out_cols + c];
			double den = op == SOFTMAX ? fabs(want[c]) : op == SUM ? scale : fabs(want[c]) + 1;
			double err = fabs(got - want[c]) / den;

			if (!(err <= maxerr))
				maxerr = err;   /* NaN sticks */
		}
	}
	printf("%s %zu x %zu: workspace %zu bytes, max error %.3g vs float64: %s\n", ops[op].kernel,
	       rows, cols, ws, maxerr, maxerr <= 1e-5 ? "OK" : "WRONG");
	if (ret != 1)
		ret = maxerr <= 1e-5 ? 0 : 1;
out:
	if (dx) mem->release(mem, dx);
	if (dw) mem->release(mem, dw);
	if (db) mem->release(mem, db);
	if (dy) mem->release(mem, dy);
	if (dws) mem->release(mem, dws);
	free(x); free(w); free(b); free(y); free(want);
	return ret;
}

int main(int argc, char **argv)
{
	size_t shapes[2][2] = { { 37, 5125 }, { 1, 40000 } }, n_shapes = 2;
	struct gpu_mem mem = { 0 };
	struct hanzo_rocm *ctx;
	int r, bad = 0;

	if (argc == 3) {
		shapes[0][0] = strtoull(argv[1], NULL, 0);
		shapes[0][1] = strtoull(argv[2], NULL, 0);
		n_shapes = 1;
	}
	r = hanzo_rocm_new(&ctx);
	if (r < 0) {
		fprintf(stderr, "hanzo_rocm_new: %s\n", hanzo_rocm_strerror(r));
		return 1;
	}
	if (hanzo_rocm_device_count(ctx) <= 0) {
		printf("no device: nothing to run\n");
		hanzo_rocm_unref(ctx);
		return 0;
	}
	if (mem_init(ctx, &mem) < 0) {
		fprintf(stderr, "cannot set up device memory\n");
		hanzo_rocm_unref(ctx);
		return 1;
	}
	for (size_t s = 0; s < n_shapes; s++)
		for (int op = SOFTMAX; op <= SUM; op++)
			if (run(ctx, &mem, (enum op)op, shapes[s][0], shapes[s][1]) != 0)
				bad = 1;
	hanzo_rocm_unref(ctx);
	return bad;
}
