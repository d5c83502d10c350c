/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The ELF reader: code objects (AMDGPU, CUDA) and host shared objects. */
#include "fuzz.h"
#include "shared/elf.h"
#include "shared/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[256], buf[64], **names = NULL;

	(void)hr_elf_check(data, size, "gfx90a", why, sizeof(why));
	(void)hr_elf_check(data, size, "sm_90", why, sizeof(why));
	(void)hr_elf_target(data, size, buf, sizeof(buf));
	if (hr_elf_functions(data, size, &names) == 0)
		hr_strv_free(names);
	(void)hr_elf_check_shared_object(data, size, "hanzo_rocm_plugin_entry", why, sizeof(why));
	return 0;
}
