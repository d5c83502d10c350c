/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * t/remote/stats.sh's helper: looks FAMILY up for TARGET twice through the
 * public API (hanzo_rocm_code_object; HANZO_ROCM_CONF as the environment
 * says), then prints every counter of hanzo_rocm_cache_stat, "name value".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hanzo-rocm.h"

int main(int argc, char **argv)
{
	struct hanzo_rocm *ctx = NULL;
	char name[HANZO_ROCM_STAT_NAME_MAX];
	const void *data;
	size_t size;
	uint64_t v;
	unsigned i;
	int r;

	if (argc != 3) {
		fprintf(stderr, "usage: %s FAMILY TARGET\n", argv[0]);
		return 2;
	}
	r = hanzo_rocm_new(&ctx);
	if (r < 0) {
		fprintf(stderr, "hanzo_rocm_new: %s\n", strerror(-r));
		return 1;
	}
	for (int k = 0; k < 2; k++) {
		r = hanzo_rocm_code_object(ctx, argv[1], argv[2], &data, &size);
		if (r < 0) {
			fprintf(stderr, "hanzo_rocm_code_object %s %s: %s\n", argv[1], argv[2],
			        strerror(-r));
			hanzo_rocm_unref(ctx);
			return 1;
		}
	}
	for (i = 0; hanzo_rocm_cache_stat(ctx, i, name, sizeof(name), &v) == 0; i++)
		printf("%s %" PRIu64 "\n", name, v);
	r = hanzo_rocm_cache_stat(ctx, i, name, sizeof(name), &v) == -ENOENT &&
	    hanzo_rocm_cache_stat(NULL, 0, name, sizeof(name), &v) == -EINVAL &&
	    hanzo_rocm_cache_stat(ctx, 0, NULL, 0, &v) == -EINVAL ? 0 : 1;
	if (r)
		fprintf(stderr, "hanzo_rocm_cache_stat: wrong error codes\n");
	hanzo_rocm_unref(ctx);
	return r;
}
