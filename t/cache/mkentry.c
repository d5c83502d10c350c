/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Test helper: publish a code object as a cache entry, as precompile would.
 * cache-mkentry DIR FAMILY TARGET CODE-OBJECT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/cache.h"
#include "shared/util.h"

int main(int argc, char **argv)
{
	struct hr_cache_key key;
	void *obj;
	size_t size;
	int r;

	if (argc != 5) {
		fprintf(stderr, "usage: %s DIR FAMILY TARGET CODE-OBJECT\n", argv[0]);
		return 2;
	}
	if (hr_read_file(argv[4], 1 << 28, &obj, &size) < 0) {
		perror(argv[4]);
		return 1;
	}
	hr_sha256(argv[2], strlen(argv[2]), key.b);
	r = hr_entry_write(NULL, argv[1], argv[2], argv[3], &key, "test-compiler 1.0", obj, size);
	free(obj);
	if (r < 0)
		fprintf(stderr, "cache-mkentry: %s\n", strerror(-r));
	return r < 0 ? 1 : 0;
}
