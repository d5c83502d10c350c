/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * run-biasgelu: the out-of-tree family biasgelu launched through the public
 * API on the first device, checked against a double-precision reference.
 * Built with pkg-config alone (Makefile); `make check` runs it on the host
 * backend (HANZO_ROCM_HOST=host-w64 / host-w32), where device memory is host
 * memory.  Exit 0 match, 1 mismatch or error, 2 no device.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <hanzo-rocm.h>

int main(int argc, char **argv)
{
	size_t rows = 37, cols = argc > 1 ? strtoull(argv[1], NULL, 0) : 1003, n;
	struct hanzo_rocm *ctx;
	struct hanzo_rocm_kernel *k;
	const char *target = "?";
	float *x, *bias, *out;
	double maxerr = 0;
	int r;

	r = hanzo_rocm_new(&ctx);
	if (r < 0) {
		fprintf(stderr, "hanzo_rocm_new: %s\n", hanzo_rocm_strerror(r));
		return 1;
	}
	if (hanzo_rocm_device_count(ctx) <= 0) {
		fprintf(stderr, "no device (HANZO_ROCM_HOST=host-w64 adds the CPU)\n");
		hanzo_rocm_unref(ctx);
		return 2;
	}
	hanzo_rocm_device_target(ctx, 0, &target);
	if (hanzo_rocm_device_platform(ctx, 0) != HANZO_ROCM_PLATFORM_HOST) {
		fprintf(stderr, "device 0 is %s: this runner allocates host memory, "
		        "run it with HANZO_ROCM_HOST on a machine without a GPU\n", target);
		hanzo_rocm_unref(ctx);
		return 2;
	}
	r = hanzo_rocm_kernel_get(ctx, 0, "biasgelu", "biasgelu_f32", &k);
	if (r < 0) {
		fprintf(stderr, "biasgelu_f32 on %s: %s\n", target, hanzo_rocm_strerror(r));
		hanzo_rocm_unref(ctx);
		return 1;
	}
	n = rows * cols;
	x = malloc(n * sizeof(*x));
	bias = malloc(cols * sizeof(*bias));
	out = malloc(n * sizeof(*out));
	if (!x || !bias || !out)
		return 1;
	for (size_t i = 0; i < n; i++) {
		x[i] = (float)((double)(i % 97) / 16.0 - 3.0);
		out[i] = NAN;
	}
	for (size_t c = 0; c < cols; c++)
		bias[c] = (float)((double)(c % 13) / 8.0 - 0.75);
	{
		uint64_t dx = (uintptr_t)x, db = (uintptr_t)bias, dout = (uintptr_t)out;
		void *args[] = { &rows, &cols, &dx, &db, &dout };

		r = hanzo_rocm_kernel_launch_work(k, rows, cols, NULL, args);
	}
	if (r < 0) {
		fprintf(stderr, "launch: %s\n", hanzo_rocm_strerror(r));
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		double v = (double)x[i] + (double)bias[i % cols];
		double want = 0.5 * v * (1.0 + tanh(0.79788456080286535588 * (v + 0.044715 * v * v * v)));
		/* f32: relative, with an absolute floor of the same size (doc/KERNELS.md). */
		double err = fabs((double)out[i] - want) / (fabs(want) > 1.0 ? fabs(want) : 1.0);

		if (!(err <= maxerr))
			maxerr = err;
	}
	printf("biasgelu_f32 on %s, %zu x %zu: max relative error %.3g: %s\n", target, rows,
	       cols, maxerr, maxerr <= 1e-5 ? "OK" : "WRONG");
	free(x);
	free(bias);
	free(out);
	hanzo_rocm_unref(ctx);
	return maxerr <= 1e-5 ? 0 : 1;
}
