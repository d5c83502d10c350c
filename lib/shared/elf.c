/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ELF code objects: just enough parsing to refuse a file before a GPU driver
 * sees it.  Every offset read from the file is bounds-checked against the
 * buffer: cache files are untrusted input.
 *
 * The machine, the type and the meaning of e_flags are the platform's: its
 * row of the platform table (lib/platform/: amd.c, nvidia.c, host.c) names
 * and checks the processor; this file reads and bounds-checks the bytes.
 * Layer: shared (lib/layers).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/platform.h"
#include "elf.h"
#include "util.h"

#define EHDR_SIZE 64
#define SHDR_SIZE 64
#define PHDR_SIZE 56
#define SYM_SIZE 24
#define SHT_SYMTAB 2
#define SHT_STRTAB 3
#define SHT_NOBITS 8
#define STT_FUNC 2
#define ET_DYN 3


struct elf {
	const uint8_t *d;
	size_t size;
	uint8_t osabi, abiversion;
	uint16_t machine;
	uint32_t flags;
	uint64_t shoff;
	uint16_t shnum, shstrndx;
};

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const uint8_t *p) { return (uint32_t)rd16(p) | (uint32_t)rd16(p + 2) << 16; }
static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* off + len within size, without overflow. */
static bool in_bounds(uint64_t off, uint64_t len, size_t size)
{
	return off <= size && len <= size - off;
}

#define WHY(...) (why && n ? (void)snprintf(why, n, __VA_ARGS__) : (void)0)

static int elf_open(struct elf *e, const void *data, size_t size, char *why,
                    size_t n)
{
	const uint8_t *d = data;
	uint64_t phoff;
	uint16_t phnum, phentsize, shentsize;

	memset(e, 0, sizeof(*e));
	if (!d || size < EHDR_SIZE || memcmp(d, "\177ELF", 4) != 0) {
		WHY("not an ELF file");
		return -ENOEXEC;
	}
	if (d[4] != 2 || d[5] != 1 || d[6] != 1) {
		WHY("not a 64-bit little-endian ELF (class %u, data %u, version %u)",
		    d[4], d[5], d[6]);
		return -ENOEXEC;
	}
	e->d = d;
	e->size = size;
	e->osabi = d[7];
	e->abiversion = d[8];
	e->machine = rd16(d + 18);
	e->flags = rd32(d + 48);
	phoff = rd64(d + 32);
	e->shoff = rd64(d + 40);
	phentsize = rd16(d + 54);
	phnum = rd16(d + 56);
	shentsize = rd16(d + 58);
	e->shnum = rd16(d + 60);
	e->shstrndx = rd16(d + 62);
	if (rd16(d + 52) != EHDR_SIZE) {
		WHY("bad ELF header size %u", rd16(d + 52));
		return -ENOEXEC;
	}
	if (phnum && (phentsize != PHDR_SIZE ||
	              !in_bounds(phoff, (uint64_t)phnum * PHDR_SIZE, size))) {
		WHY("program headers out of bounds");
		return -ENOEXEC;
	}
	if (e->shnum && (shentsize != SHDR_SIZE ||
	                 !in_bounds(e->shoff, (uint64_t)e->shnum * SHDR_SIZE, size))) {
		WHY("section headers out of bounds");
		return -ENOEXEC;
	}
	if (e->shnum && e->shstrndx >= e->shnum) {
		WHY("bad section name table index %u", e->shstrndx);
		return -ENOEXEC;
	}
	for (unsigned i = 0; i < e->shnum; i++) {
		const uint8_t *sh = d + e->shoff + (uint64_t)i * SHDR_SIZE;

		if (rd32(sh + 4) != SHT_NOBITS &&
		    !in_bounds(rd64(sh + 24), rd64(sh + 32), size)) {
			WHY("section %u out of bounds", i);
			return -ENOEXEC;
		}
	}
	/*
	 * Every segment's file bytes inside the file, whatever its type and
	 * whoever loads it (dlopen, HIP, CUDA): a segment past the end is what
	 * faults (SIGBUS) inside a loader that maps the file.
	 */
	for (unsigned i = 0; i < phnum; i++) {
		const uint8_t *ph = d + phoff + (uint64_t)i * PHDR_SIZE;

		if (!in_bounds(rd64(ph + 8), rd64(ph + 32), size)) {
			WHY("segment %u extends past the end of the file (truncated?)", i);
			return -ENOEXEC;
		}
	}
	return 0;
}

static struct hr_elf_ident ident(const struct elf *e)
{
	struct hr_elf_ident id = {
		.machine = e->machine, .type = rd16(e->d + 16), .flags = e->flags,
		.osabi = e->osabi, .abiversion = e->abiversion,
	};

	return id;
}

int hr_elf_target(const void *data, size_t size, char *buf, size_t n)
{
	const struct hr_platform_facts *f;
	struct hr_elf_ident id;
	struct elf e;
	int r = elf_open(&e, data, size, NULL, 0);

	if (r < 0)
		return r;
	id = ident(&e);
	f = hr_platform_by_elf_machine(id.machine);
	return f ? f->elf_processor(&id, buf, n) : -ENOEXEC;
}

int hr_elf_check(const void *data, size_t size, const char *target,
                 char *why, size_t n)
{
	const struct hr_platform_facts *f = hr_platform_of(target);
	struct hr_elf_ident id;
	struct elf e;
	int r;

	if (why && n)
		why[0] = '\0';
	if (!target) {
		WHY("no target");
		return -ENOEXEC;
	}
	r = elf_open(&e, data, size, why, n);
	if (r < 0)
		return r;
	id = ident(&e);
	if (!f) {
		WHY("no platform has the target '%s'", target);
		return -ENOEXEC;
	}
	if (!f->elf_machine || id.machine != f->elf_machine) {
		const struct hr_platform_facts *g = hr_platform_by_elf_machine(id.machine);

		WHY("ELF machine %u (%s) is not the %s platform's (%u) for %s", id.machine,
		    g ? g->label : "unknown", f->label, f->elf_machine, target);
		return -ENOEXEC;
	}
	if (f->elf_type && id.type != f->elf_type) {
		WHY("%s code object for %s has ELF type %u, not %u", f->label, target, id.type,
		    f->elf_type);
		return -ENOEXEC;
	}
	r = f->elf_check(&id, target, why, n);
	if (r < 0)
		return r;
	/* Loaded by dlopen (the host): what dlopen needs, the plugins' check. */
	return f->elf_type == ET_DYN ? hr_elf_check_shared_object(data, size, NULL, why, n) : 0;
}

static const uint8_t *section(const struct elf *e, unsigned i)
{
	return e->d + e->shoff + (uint64_t)i * SHDR_SIZE;
}

/* A NUL-terminated name at off inside the string table section strndx. */
static const char *strtab_name(const struct elf *e, unsigned strndx, uint32_t off)
{
	const uint8_t *sh;
	uint64_t base, len;

	if (strndx >= e->shnum)
		return NULL;
	sh = section(e, strndx);
	if (rd32(sh + 4) != SHT_STRTAB)
		return NULL;
	base = rd64(sh + 24);
	len = rd64(sh + 32);
	if (off >= len || !memchr(e->d + base + off, '\0', len - off))
		return NULL;
	return (const char *)e->d + base + off;
}

int hr_elf_functions(const void *data, size_t size, char ***names)
{
	struct elf e;
	char **v;
	int r = elf_open(&e, data, size, NULL, 0);

	if (r < 0)
		return r;
	v = hr_strv_new();
	if (!v)
		return -ENOMEM;
	for (unsigned i = 0; i < e.shnum; i++) {
		const uint8_t *sh = section(&e, i);
		uint64_t off = rd64(sh + 24), len = rd64(sh + 32);

		if (rd32(sh + 4) != SHT_SYMTAB)
			continue;
		if (rd64(sh + 56) != SYM_SIZE) {
			r = -ENOEXEC;
			goto fail;
		}
		for (uint64_t s = SYM_SIZE; s + SYM_SIZE <= len; s += SYM_SIZE) {
			const uint8_t *sym = e.d + off + s;
			const char *name;

			if ((sym[4] & 0xf) != STT_FUNC || rd16(sym + 6) == 0)
				continue;
			name = strtab_name(&e, rd32(sh + 40), rd32(sym));
			if (!name) {
				r = -ENOEXEC;
				goto fail;
			}
			if (*name && !hr_strv_contains(v, name) &&
			    (r = hr_strv_push(&v, name)) < 0)
				goto fail;
		}
	}
	*names = v;
	return 0;
fail:
	hr_strv_free(v);
	return r;
}

/* ---- host shared objects (plugins) --------------------------------------- */

#define SHT_DYNSYM 11

/* Whether .dynsym defines a function or object named sym. */
static bool dynsym_defines(const struct elf *e, const char *sym)
{
	for (unsigned i = 0; i < e->shnum; i++) {
		const uint8_t *sh = section(e, i);
		uint64_t off = rd64(sh + 24), len = rd64(sh + 32);

		if (rd32(sh + 4) != SHT_DYNSYM || rd64(sh + 56) != SYM_SIZE)
			continue;
		for (uint64_t s = SYM_SIZE; s + SYM_SIZE <= len; s += SYM_SIZE) {
			const uint8_t *y = e->d + off + s;
			const char *name;

			if (rd16(y + 6) == 0) /* SHN_UNDEF */
				continue;
			name = strtab_name(e, rd32(sh + 40), rd32(y));
			if (name && strcmp(name, sym) == 0)
				return true;
		}
	}
	return false;
}

int hr_elf_check_shared_object(const void *data, size_t size, const char *sym,
                               char *why, size_t n)
{
	const uint8_t *d = data;
	struct elf e;
	int r;

	if (!d) {
		WHY("not an ELF file");
		return -ENOEXEC;
	}
	if (size >= 16 && memcmp(d, "\177ELF", 4) == 0 && d[4] != 2) {
		WHY("%s ELF (class %u); this host loads 64-bit shared objects",
		    d[4] == 1 ? "32-bit" : "unknown-class", d[4]);
		return -ENOEXEC;
	}
	if (size >= 16 && memcmp(d, "\177ELF", 4) == 0 && d[5] != 1) {
		WHY("big-endian or unknown ELF data encoding %u", d[5]);
		return -ENOEXEC;
	}
	if (size >= 4 && size < EHDR_SIZE && memcmp(d, "\177ELF", 4) == 0) {
		WHY("truncated ELF file (%zu bytes, shorter than its header)", size);
		return -ENOEXEC;
	}
	r = elf_open(&e, data, size, why, n);
	if (r < 0)
		return r;
	/* 0: a CPU the platform table does not know; the machine is left to dlopen. */
	if (hr_platform_cpu_machine() && e.machine != hr_platform_cpu_machine()) {
		WHY("ELF machine %u is not this host's (%u)", e.machine, hr_platform_cpu_machine());
		return -ENOEXEC;
	}
	if (rd16(d + 16) != ET_DYN) {
		WHY("ELF type %u is not a shared object (%d)", rd16(d + 16), ET_DYN);
		return -ENOEXEC;
	}
	/* Every segment lies inside the file: elf_open checked it. */
	if (rd16(d + 56) == 0 || e.shnum == 0) {
		WHY("no %s headers", rd16(d + 56) == 0 ? "program" : "section");
		return -ENOEXEC;
	}
	if (sym && !dynsym_defines(&e, sym)) {
		WHY("no entry symbol '%s' in .dynsym", sym);
		return -ENOEXEC;
	}
	return 0;
}

