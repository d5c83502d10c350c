/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer targets (make fuzz, clang): each feeds untrusted bytes to one
 * parser of the library.  Parsers that read a file get the bytes through a
 * private temp file (the library's one file-reading rule applies to them).
 */
#ifndef HR_FUZZ_H
#define HR_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A private directory for this process, made once. */
static inline const char *fuzz_dir(void)
{
	static char dir[] = "/tmp/hr-fuzz.XXXXXX";
	static int made;

	if (!made) {
		if (!mkdtemp(dir))
			abort();
		made = 1;
	}
	return dir;
}

/* Writes data to dir/name, returns the path (static). */
static inline const char *fuzz_file(const char *name, const uint8_t *data, size_t size)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fuzz_dir(), name);
	f = fopen(path, "wb");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
		abort();
	return path;
}

#endif
