/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Host target facts (layer: util), pure: the target-ID grammar, the ELF
 * check, the toolchain and the cache key use them without reaching up to
 * the host backend (lib/backend-host.h).
 */
#ifndef HR_UTIL_PLATFORM_HOST_H
#define HR_UTIL_PLATFORM_HOST_H

/* The wave size of a host target ID (64 or 32), 0 when t is none. */
unsigned hr_host_target_wave(const char *t);

/* e_machine of the code objects this library can load (its own). */
unsigned hr_host_elf_machine(void);

/*
 * Compiler arguments for a host target, between the compiler and the
 * source: the same list feeds the compile and the cache key (sanitizer
 * flags of a sanitized library build included).  NULL-terminated, static.
 */
const char *const *hr_host_compile_flags(const char *target);

#endif
