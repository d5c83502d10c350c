/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ELF code objects: enough parsing to refuse a file before a driver sees it
 * (class, machine, target in e_flags, bounds) and to list kernel symbols.
 * Layer: shared (lib/layers).
 */
#ifndef HR_ELF_H
#define HR_ELF_H

#include <stddef.h>

/*
 * 0 when data is a well-formed 64-bit little-endian ELF whose machine, type
 * and e_flags match target, as target's row of the platform table says
 * (generic processor for AMD, sm for NVIDIA, a loadable shared object for
 * the host); -ENOEXEC otherwise with a one-line reason in why.
 */
int hr_elf_check(const void *data, size_t size, const char *target,
                 char *why, size_t n);
/* The processor named by e_flags, e.g. "gfx90a" or "sm_90" ("host" for
 * the host: its code objects do not say the wave size). */
int hr_elf_target(const void *data, size_t size, char *buf, size_t n);
/* Names of defined function symbols (kernels), NULL-terminated strv. */
int hr_elf_functions(const void *data, size_t size, char ***names);
/*
 * 0 when data is a complete shared object this host can load: class, data
 * encoding, machine and type match, every header and loaded segment lies
 * inside the file and .dynsym defines sym (when not NULL).  Checked before
 * dlopen: a truncated file would fault (SIGBUS) inside the loader.
 */
int hr_elf_check_shared_object(const void *data, size_t size, const char *sym,
                               char *why, size_t n);

#endif
