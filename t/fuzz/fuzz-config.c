/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The configuration parser (config check's strict mode). */
#include "fuzz.h"
#include "config/config.h"
#include "hanzo-rocm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hanzo_rocm *ctx;
	struct hanzo_rocm_options o = { .size = sizeof(o), .config = "/dev/null",
	                                 .log_priority = 0 };

	if (!ctx && hanzo_rocm_new_with_options(&o, &ctx) < 0)
		abort();
	(void)hr_config_check_file(ctx, fuzz_file("fuzz.conf", data, size));
	return 0;
}
