/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A cold hanzo_rocm_kernel_get (fresh context, code object already in the
 * disk cache, host device) traced with -finstrument-functions: lib/ is
 * compiled with it, this program is not.  Writes "> OFFSET" per function
 * entry and "<" per exit; bench/coldget-walk.py maps them to files.
 * bench/coldget.sh builds and runs it (doc/HACKING.md, "Call walk").
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
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
	on = 1;
	r = hanzo_rocm_kernel_get(ctx, 0, "binary", "badd_f32", &k);
	on = 0;
	fclose(out);
	printf("kernel_get %d\n", r);
	hanzo_rocm_unref(ctx);
	return r < 0;
}
