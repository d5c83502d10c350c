/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Cache entries: header, sizes, checksums, then the payload's ELF. */
#include "fuzz.h"
#include "cache/cache.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hr_entry e;
	char why[256];

	if (hr_entry_read_why(NULL, fuzz_file("alpha.hrco", data, size), NULL, &e,
	                      why, sizeof(why)) == 0)
		hr_entry_release(&e);
	return 0;
}
