/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ELF code objects: just enough parsing to refuse a file before a GPU driver
 * sees it.  Every offset read from the file is bounds-checked against the
 * buffer: cache files are untrusted input.
 *
 * AMD: e_machine EM_AMDGPU, processor in e_flags & EF_AMDGPU_MACH (values
 * from LLVM's include/llvm/BinaryFormat/ELF.h), xnack/sramecc in the V4 bits.
 * NVIDIA: e_machine EM_CUDA; the sm number sits in e_flags bits 0..7 for the
 * old cubin ABI (OS/ABI 0x33 / 0x29) and in bits 8..15 for the one CUDA 12.8+
 * writes (OS/ABI 0x41, ABI version 8: nvcc 13 -arch=sm_90 gives 0x06005a04).
 * Layer: util (lib/layers).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util-platform.h"
#include "util-elf.h"
#include "util.h"
#include "util-targets.h"

#define EHDR_SIZE 64
#define SHDR_SIZE 64
#define PHDR_SIZE 56
#define SYM_SIZE 24
#define SHT_SYMTAB 2
#define SHT_STRTAB 3
#define SHT_NOBITS 8
#define STT_FUNC 2

#define ELFOSABI_AMDGPU_HSA 64
#define ELFOSABI_CUDA_NEW 0x41  /* cubins from CUDA >= 12.8 */
#define EF_AMDGPU_MACH 0xff
#define EF_AMDGPU_XNACK_V4 0x300
#define EF_AMDGPU_SRAMECC_V4 0xc00

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

static const char *amdgpu_mach_name(uint8_t mach)
{
	const struct hr_amd_target *t = hr_amd_target_by_mach(mach);

	return t ? t->name : NULL;
}

/* The sm number of a cubin, by the layout its OS/ABI selects. */
static unsigned cuda_sm(const struct elf *e)
{
	if (e->osabi == ELFOSABI_CUDA_NEW)
		return (e->flags >> 8) & 0xff;
	return e->flags & 0xff;
}

static int elf_processor(const struct elf *e, char *buf, size_t n)
{
	const char *name;
	int k;

	switch (e->machine) {
	case HR_EM_AMDGPU:
		name = amdgpu_mach_name(e->flags & EF_AMDGPU_MACH);
		if (!name)
			return -ENOEXEC;
		k = snprintf(buf, n, "%s", name);
		break;
	case HR_EM_CUDA:
		if (cuda_sm(e) < 10)
			return -ENOEXEC;
		k = snprintf(buf, n, "sm_%u", cuda_sm(e));
		break;
	default:
		/* A host code object does not say its wave size: name the CPU only. */
		if (e->machine != hr_platform_host.elf_machine || !e->machine)
			return -ENOEXEC;
		k = snprintf(buf, n, "host");
		break;
	}
	return k < 0 || (size_t)k >= n ? -ENOSPC : 0;
}

int hr_elf_target(const void *data, size_t size, char *buf, size_t n)
{
	struct elf e;
	int r = elf_open(&e, data, size, NULL, 0);

	return r < 0 ? r : elf_processor(&e, buf, n);
}

/*
 * A feature the target asks for ("xnack+") against the object's V4 setting:
 * "any" and "unsupported" serve both; only an explicit opposite is refused.
 */
static bool amd_feature_ok(const char *target, const char *feature,
                           uint32_t setting, uint32_t on, uint32_t off)
{
	char plus[32], minus[32];

	snprintf(plus, sizeof(plus), ":%s+", feature);
	snprintf(minus, sizeof(minus), ":%s-", feature);
	if (strstr(target, plus) && setting == off)
		return false;
	if (strstr(target, minus) && setting == on)
		return false;
	return true;
}

static int check_amd(const struct elf *e, const char *target, char *why, size_t n)
{
	char want[48];
	const char *have = amdgpu_mach_name(e->flags & EF_AMDGPU_MACH);
	size_t len = strcspn(target, ":");

	if (len >= sizeof(want) || strncmp(target, "gfx", 3) != 0) {
		WHY("AMDGPU code object for non-AMD target '%s'", target);
		return -ENOEXEC;
	}
	memcpy(want, target, len);
	want[len] = '\0';
	if (!have) {
		WHY("unknown AMDGPU processor 0x%02x in e_flags", e->flags & EF_AMDGPU_MACH);
		return -ENOEXEC;
	}
	if (strcmp(have, want) != 0) {
		WHY("code object is for %s, not %s", have, want);
		return -ENOEXEC;
	}
	/* Feature bits have this meaning from code object V4 (ABI version 2) on. */
	if (e->osabi == ELFOSABI_AMDGPU_HSA && e->abiversion >= 2 &&
	    (!amd_feature_ok(target, "xnack", e->flags & EF_AMDGPU_XNACK_V4, 0x300, 0x200) ||
	     !amd_feature_ok(target, "sramecc", e->flags & EF_AMDGPU_SRAMECC_V4, 0xc00, 0x800))) {
		WHY("code object features (e_flags 0x%x) do not match %s", e->flags, target);
		return -ENOEXEC;
	}
	return 0;
}

static int check_cuda(const struct elf *e, const char *target, char *why, size_t n)
{
	unsigned want = 0, have = cuda_sm(e);
	const char *p;

	if (strncmp(target, "sm_", 3) != 0 || target[3] < '1' || target[3] > '9') {
		WHY("CUDA cubin for non-NVIDIA target '%s'", target);
		return -ENOEXEC;
	}
	/* sm_90a shares e_flags with sm_90: compare the number only. */
	for (p = target + 3; *p >= '0' && *p <= '9' && want < 10000; p++)
		want = want * 10 + (unsigned)(*p - '0');
	if (have != want) {
		WHY("cubin is for sm_%u, not %s", have, target);
		return -ENOEXEC;
	}
	return 0;
}

int hr_elf_check(const void *data, size_t size, const char *target,
                 char *why, size_t n)
{
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
	if (hr_platform_of(target) == &hr_platform_host) {
		/* Host code object: a shared object for the CPU this library runs on. */
		if (e.machine != hr_platform_host.elf_machine || !e.machine) {
			WHY("ELF machine %u is not this CPU's (%u) for %s", e.machine,
			    hr_platform_host.elf_machine, target);
			return -ENOEXEC;
		}
		if (rd16(e.d + 16) != 3 /* ET_DYN */) {
			WHY("host code object for %s is not a shared object (ELF type %u)",
			    target, rd16(e.d + 16));
			return -ENOEXEC;
		}
		/* What dlopen needs: the plugins' check, one function. */
		return hr_elf_check_shared_object(data, size, NULL, why, n);
	}
	switch (e.machine) {
	case HR_EM_AMDGPU:
		return check_amd(&e, target, why, n);
	case HR_EM_CUDA:
		return check_cuda(&e, target, why, n);
	default:
		WHY("ELF machine %u is neither AMDGPU (%d) nor CUDA (%d)",
		    e.machine, HR_EM_AMDGPU, HR_EM_CUDA);
		return -ENOEXEC;
	}
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

#define ET_DYN 3
#define SHT_DYNSYM 11

#if defined(__x86_64__)
#define HOST_EM 62
#elif defined(__aarch64__)
#define HOST_EM 183
#elif defined(__powerpc64__)
#define HOST_EM 21
#elif defined(__riscv) && __riscv_xlen == 64
#define HOST_EM 243
#elif defined(__s390x__)
#define HOST_EM 22
#else
#define HOST_EM 0 /* unknown host: the machine is left to dlopen */
#endif

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
	if (HOST_EM && e.machine != HOST_EM) {
		WHY("ELF machine %u is not this host's (%d)", e.machine, HOST_EM);
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

