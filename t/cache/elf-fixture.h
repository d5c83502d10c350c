/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Damage made to a valid ELF64 code object for the tests of the checks that
 * run before any loader sees one (t/cache/test-elf.c, t/cache/test-code-object.c;
 * header-only, like t/gpu-test.h).
 */
#ifndef HR_ELF_FIXTURE_H
#define HR_ELF_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

/*
 * The first PT_LOAD segment with file bytes made to end one byte past the
 * end of the file (what a truncated copy of a code object looks like to a
 * loader that maps it); sections and headers left in bounds.  0 when done.
 */
static inline int stretch_segment(uint8_t *elf, size_t size)
{
	uint64_t phoff = 0;
	unsigned phnum = (unsigned)(elf[56] | elf[57] << 8);

	for (int i = 7; i >= 0; i--)
		phoff = phoff << 8 | elf[32 + i];
	for (unsigned i = 0; i < phnum && phoff + (i + 1) * 56ull <= size; i++) {
		uint8_t *ph = elf + phoff + i * 56ull;
		uint64_t off = 0, filesz;

		if (ph[0] != 1 || ph[1] || ph[2] || ph[3]) /* PT_LOAD */
			continue;
		for (int k = 7; k >= 0; k--)
			off = off << 8 | ph[8 + k];
		filesz = size - off + 1;
		for (int k = 0; k < 8; k++)
			ph[32 + k] = (uint8_t)(filesz >> (8 * k));
		return 0;
	}
	return -1;
}

#endif
