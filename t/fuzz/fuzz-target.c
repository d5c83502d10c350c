/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Target IDs: the grammar and the conversions from KFD/HSA strings. */
#include "fuzz.h"
#include "target/target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[256], buf[HR_TARGET_MAX];

	if (size >= sizeof(s))
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (hr_target_validate(s) == 0) {
		(void)hr_target_platform(s);
		if (hr_target_generic(s, buf, sizeof(buf)) == 0 && hr_target_validate(buf) != 0)
			abort(); /* a valid ID's processor is a valid ID */
	}
	(void)hr_target_from_hsa_override(s, buf, sizeof(buf));
	return 0;
}
