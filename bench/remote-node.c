/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One node of bench/remote-cluster.py: a new process that loads the first
 * kernel of each family given (FAMILY/KERNEL ...) on device 0 (a host
 * device from its configuration) and prints, one line each:
 *   entry FAMILY NS HOW        the kernel_get's ns, and where it came from
 *                              (local, remote, wait: a remote hit after a
 *                              lease wait, compile)
 *   first NS                   process start (before hanzo_rocm_new) to the
 *                              first kernel
 *   stat NAME VALUE            every hanzo_rocm_cache_stat counter
 * Exit 0 when every kernel loaded.  Only the public API.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "hanzo-rocm.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t stat_of(struct hanzo_rocm *ctx, const char *want)
{
	char name[64];
	uint64_t v;

	for (unsigned i = 0; hanzo_rocm_cache_stat(ctx, i, name, sizeof(name), &v) == 0; i++)
		if (strcmp(name, want) == 0)
			return v;
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t t0 = now_ns(), first = 0;
	struct hanzo_rocm *ctx;
	int r = hanzo_rocm_new(&ctx), failed = 0;
	char name[64];
	uint64_t v;

	if (r < 0) {
		fprintf(stderr, "hanzo_rocm_new: %s\n", hanzo_rocm_strerror(r));
		return 1;
	}
	for (int a = 1; a < argc; a++) {
		char family[64], *kernel;
		struct hanzo_rocm_kernel *k;
		uint64_t c0, h0, w0, t;

		snprintf(family, sizeof(family), "%s", argv[a]);
		kernel = strchr(family, '/');
		if (!kernel) {
			fprintf(stderr, "remote-node: '%s' is not FAMILY/KERNEL\n", argv[a]);
			return 2;
		}
		*kernel++ = '\0';
		c0 = stat_of(ctx, "compile.count");
		h0 = stat_of(ctx, "remote.hits");
		w0 = stat_of(ctx, "remote.wait_hits");
		t = now_ns();
		r = hanzo_rocm_kernel_get(ctx, 0, family, kernel, &k);
		t = now_ns() - t;
		if (r < 0) {
			fprintf(stderr, "kernel_get(%s, %s): %s\n", family, kernel, hanzo_rocm_strerror(r));
			failed = 1;
			continue;
		}
		if (!first)
			first = now_ns() - t0;
		printf("entry %s %llu %s\n", family, (unsigned long long)t,
		       stat_of(ctx, "compile.count") > c0   ? "compile"
		       : stat_of(ctx, "remote.wait_hits") > w0 ? "wait"
		       : stat_of(ctx, "remote.hits") > h0      ? "remote"
		                                               : "local");
	}
	printf("first %llu\n", (unsigned long long)first);
	for (unsigned i = 0; hanzo_rocm_cache_stat(ctx, i, name, sizeof(name), &v) == 0; i++)
		printf("stat %s %llu\n", name, (unsigned long long)v);
	hanzo_rocm_unref(ctx);
	return failed;
}
