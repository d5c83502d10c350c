/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The plugin index (what cache verify checks before any lookup trusts it). */
#include "fuzz.h"
#include "plugin/plugin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[256];

	fuzz_file("plugins.index", data, size);
	(void)hr_plugins_index_verify(fuzz_dir(), why, sizeof(why));
	return 0;
}
