/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A cold hanzo_rocm_kernel_get (fresh context, code object already in the
 * disk cache, host device) traced with -finstrument-functions: lib/ is
 * compiled with it, this program is not.  Writes "> OFFSET" per function
 * entry and "<" per exit; bench/coldget-walk.py maps them to files.
 * bench/coldget.sh builds and runs it (doc/HACKING.md, "Call walk").
 *
 * "coldget-trace OUT op" traces the first hanzo_rocm_op_run on a handle
 * instead (the kernel fetched untraced): the quantized mat-vec
 * dequantize_mul_mat_vec_q8_0, 37 x 256 weights against 11 columns of y,
 * the operation with a pre-pass and two batches (8 + 3 columns), so its
 * walk includes the pre-pass's and the batches' kernels' cold fetches.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hanzo-rocm.h"

#define NI __attribute__((no_instrument_function))
static FILE *out;
static int on;

NI void __cyg_profile_func_enter(void *fn, void *site)
{
	Dl_info di;
	(void)site;
	if (on && dladdr(fn, &di))
		fprintf(out, "> %lx\n", (unsigned long)((char *)fn - (char *)di.dli_fbase));
}

NI void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn; (void)site;
	if (on)
		fprintf(out, "<\n");
}

/* The first op_run on the quantized mat-vec (zero weights: only the walk counts). */
static int op_walk(struct hanzo_rocm *ctx)
{
	enum { R = 37, C = 256, B = 11 };
	struct hanzo_rocm_kernel *k;
	static unsigned char w[R * C / 32 * 34];
	static float y[B * C], dst[B * R];
	const void *vx = w;
	struct hanzo_rocm_op_arg named = { "vx", &vx, sizeof(vx) };
	struct hanzo_rocm_op_args oa = { .size = sizeof(oa), .src = y, .dst = dst,
	                                 .named = &named, .n_named = 1, .batch = B };
	void *ws;
	size_t bytes = 0;
	int r = hanzo_rocm_kernel_get(ctx, 0, "quantized", "dequantize_mul_mat_vec_q8_0", &k);

	if (r < 0 || (r = hanzo_rocm_op_workspace(k, R, C, &bytes)) < 0)
		return r;
	ws = malloc(bytes ? bytes : 1);
	if (!ws)
		return -1;
	oa.workspace = ws;
	oa.workspace_size = bytes;
	on = 1;
	r = hanzo_rocm_op_run(k, R, C, &oa);
	on = 0;
	printf("op_run %d\n", r);
	free(ws);
	return r;
}

int main(int argc, char **argv)
{
	struct hanzo_rocm *ctx;
	struct hanzo_rocm_kernel *k;
	const char *target;
	int r;

	out = fopen(argc > 1 ? argv[1] : "/dev/null", "w");
	if (hanzo_rocm_new(&ctx) < 0)
		return 2;
	printf("devices %d\n", hanzo_rocm_device_count(ctx));
	hanzo_rocm_device_target(ctx, 0, &target);
	if (argc > 2 && strcmp(argv[2], "op") == 0) {
		r = op_walk(ctx);
		fclose(out);
		hanzo_rocm_unref(ctx);
		return r < 0;
	}
	on = 1;
	r = hanzo_rocm_kernel_get(ctx, 0, "binary", "badd_f32", &k);
	on = 0;
	fclose(out);
	printf("kernel_get %d\n", r);
	hanzo_rocm_unref(ctx);
	return r < 0;
}
