/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/shared/elf.c against real compiler output: hipcc code objects for gfx90a and
 * gfx1030, an nvcc 13 cubin for sm_90 (new e_flags layout, and the old one
 * derived from it), and hostile inputs that must be refused, not crash on.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/elf.h"
#include "elf-fixture.h"
#include "../tap.h"
#include "shared/util.h"

static char fixdir[4096];

static void fixtures(void)
{
	FILE *p = popen("sh \"$top_srcdir/t/cache/fixtures.sh\"", "r");
	int st;

	if (!p || !fgets(fixdir, sizeof(fixdir), p))
		fixdir[0] = '\0';
	st = p ? pclose(p) : -1;
	if (st != 0 || !fixdir[0])
		skip_all("no hipcc to build test code objects");
	fixdir[strcspn(fixdir, "\n")] = '\0';
}

static void *load(const char *name, size_t *size)
{
	char path[4200];
	void *d = NULL;

	snprintf(path, sizeof(path), "%s/%s", fixdir, name);
	if (hr_read_file(path, 1 << 26, &d, size) < 0)
		return NULL;
	return d;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void test_amd(void)
{
	size_t n90, n1030;
	uint8_t *co90 = load("k-gfx90a.co", &n90), *co1030 = load("k-gfx1030.co", &n1030);
	char why[256], buf[48];
	char **fns = NULL;

	ok(co90 && co1030, "hipcc code objects built");
	if (!co90 || !co1030)
		return;
	is_int(hr_elf_check(co90, n90, "gfx90a", why, sizeof(why)), 0, "gfx90a object accepted for gfx90a");
	is_int(hr_elf_check(co90, n90, "gfx90a:xnack+", why, sizeof(why)), 0,
	       "xnack-any object serves gfx90a:xnack+");
	is_int(hr_elf_check(co90, n90, "gfx1030", why, sizeof(why)), -ENOEXEC, "gfx90a object refused for gfx1030");
	ok(strstr(why, "gfx90a") && strstr(why, "gfx1030"), "reason names both processors: %s", why);
	is_int(hr_elf_check(co90, n90, "sm_90", why, sizeof(why)), -ENOEXEC, "AMD object refused for sm_90");
	is_int(hr_elf_check(co1030, n1030, "gfx1030", why, sizeof(why)), 0, "gfx1030 object accepted");
	is_int(hr_elf_check(co1030, n1030, "gfx90a", why, sizeof(why)), -ENOEXEC, "gfx1030 object refused for gfx90a");
	is_int(hr_elf_target(co90, n90, buf, sizeof(buf)), 0, "target of gfx90a object");
	is_str(buf, "gfx90a", "e_flags mach 0x3f is gfx90a");
	hr_elf_target(co1030, n1030, buf, sizeof(buf));
	is_str(buf, "gfx1030", "e_flags mach 0x36 is gfx1030");

	is_int(hr_elf_functions(co90, n90, &fns), 0, "symbols listed");
	is_int(hr_strv_len(fns), 2, "two functions (no .kd objects)");
	ok(hr_strv_contains(fns, "hr_test_add1") && hr_strv_contains(fns, "hr_test_scale"),
	   "both kernels found");
	hr_strv_free(fns);

	/* The same object claiming xnack off is refused for xnack+. */
	put32(co90 + 48, 0x3f | 0x200 /* xnack off */);
	is_int(hr_elf_check(co90, n90, "gfx90a:xnack+", why, sizeof(why)), -ENOEXEC,
	       "xnack-off object refused for gfx90a:xnack+");
	is_int(hr_elf_check(co90, n90, "gfx90a:xnack-", why, sizeof(why)), 0,
	       "xnack-off object serves gfx90a:xnack-");
	put32(co90 + 48, 0x4c);
	hr_elf_target(co90, n90, buf, sizeof(buf));
	is_str(buf, "gfx942", "mach 0x4c is gfx942");
	put32(co90 + 48, 0x41);
	hr_elf_target(co90, n90, buf, sizeof(buf));
	is_str(buf, "gfx1100", "mach 0x41 is gfx1100");
	put32(co90 + 48, 0x7e);
	is_int(hr_elf_check(co90, n90, "gfx90a", why, sizeof(why)), -ENOEXEC, "unknown mach refused");
	free(co90);
	free(co1030);
}

static void test_cuda(void)
{
	size_t n;
	uint8_t *cubin = getenv("NVCC") && *getenv("NVCC") ? load("k-sm_90.cubin", &n) : NULL;
	char why[256], buf[48];
	char **fns = NULL;

	if (!cubin) {
		skip(8, "no nvcc");
		return;
	}
	is_int(hr_elf_check(cubin, n, "sm_90", why, sizeof(why)), 0, "sm_90 cubin accepted");
	is_int(hr_elf_check(cubin, n, "sm_80", why, sizeof(why)), -ENOEXEC, "sm_90 cubin refused for sm_80");
	is_int(hr_elf_check(cubin, n, "gfx90a", why, sizeof(why)), -ENOEXEC, "cubin refused for gfx90a");
	hr_elf_target(cubin, n, buf, sizeof(buf));
	is_str(buf, "sm_90", "nvcc 13 layout: sm in e_flags bits 8..15");
	is_int(hr_elf_functions(cubin, n, &fns), 0, "cubin symbols listed");
	ok(hr_strv_contains(fns, "hr_test_add1") && hr_strv_contains(fns, "hr_test_scale"),
	   "both kernels found in the cubin");
	hr_strv_free(fns);
	/* The pre-12.8 layout: OS/ABI 0x33, sm in the low byte. */
	cubin[7] = 0x33;
	put32(cubin + 48, 0x005a005a);
	hr_elf_target(cubin, n, buf, sizeof(buf));
	is_str(buf, "sm_90", "old layout: sm in e_flags bits 0..7");
	is_int(hr_elf_check(cubin, n, "sm_90", why, sizeof(why)), 0, "old-layout cubin accepted");
	free(cubin);
}

static void test_hostile(void)
{
	size_t n;
	uint8_t *co = load("k-gfx90a.co", &n), *copy;
	char why[256];
	char **fns;
	int rejected = 0, crashed_not = 1;

	if (!co) {
		skip(6, "no code object");
		return;
	}
	is_int(hr_elf_check(co, 63, "gfx90a", why, sizeof(why)), -ENOEXEC, "63-byte prefix refused");
	is_int(hr_elf_check("garbage", 7, "gfx90a", why, sizeof(why)), -ENOEXEC, "garbage refused");
	is_int(hr_elf_check(NULL, 0, "gfx90a", why, sizeof(why)), -ENOEXEC, "NULL refused");
	copy = malloc(n);
	memcpy(copy, co, n);
	copy[4] = 1; /* ELFCLASS32 */
	is_int(hr_elf_check(copy, n, "gfx90a", why, sizeof(why)), -ENOEXEC, "32-bit ELF refused");
	memcpy(copy, co, n);
	copy[40] = 0xf0; /* e_shoff far beyond the file */
	is_int(hr_elf_check(copy, n, "gfx90a", why, sizeof(why)), -ENOEXEC,
	       "section headers out of bounds refused");
	/* Random damage to the headers: any result but a crash (ASan watches). */
	srand(1);
	for (int i = 0; i < 2000; i++) {
		memcpy(copy, co, n);
		for (int k = 0; k < 4; k++)
			copy[(size_t)rand() % 64] ^= (uint8_t)(1u << (rand() % 8));
		for (int k = 0; k < 2; k++)
			copy[(size_t)rand() % n] = (uint8_t)rand();
		if (hr_elf_check(copy, n, "gfx90a", why, sizeof(why)) < 0)
			rejected++;
		fns = NULL;
		if (hr_elf_functions(copy, (size_t)rand() % (n + 1), &fns) == 0)
			hr_strv_free(fns);
	}
	ok(crashed_not && rejected > 0, "2000 damaged objects survived (%d refused)", rejected);
	free(copy);
	free(co);
}

/*
 * Every payload's segments within its bytes, GPU code
 * objects and host ones alike, before any loader sees it.
 */
static void test_extents(void)
{
	char path[4200], why[256];
	size_t n90 = 0, nso = 0;
	uint8_t *co90 = load("k-gfx90a.co", &n90);
	void *so = NULL;

	snprintf(path, sizeof(path), "%s/t/fixtures/plugins/.libs/beta.so", getenv("top_builddir"));
	if (hr_read_file(path, 1 << 26, &so, &nso) < 0)
		so = NULL;
	if (!co90 || !so) {
		skip(4, "no code object or host shared object");
		free(co90);
		free(so);
		return;
	}
	is_int(hr_elf_check(so, nso, "host-w64", why, sizeof(why)), 0,
	       "a host shared object is a host-w64 code object");
	ok(stretch_segment(co90, n90) == 0 && stretch_segment(so, nso) == 0,
	   "segments stretched past the end");
	is_int(hr_elf_check(co90, n90, "gfx90a", why, sizeof(why)), -ENOEXEC,
	       "AMDGPU object with a segment past its bytes refused (%s)", why);
	is_int(hr_elf_check(so, nso, "host-w64", why, sizeof(why)), -ENOEXEC,
	       "host code object with a segment past its bytes refused (%s)", why);
	free(co90);
	free(so);
}

int main(void)
{
	fixtures();
	test_amd();
	test_cuda();
	test_hostile();
	test_extents();
	return done_testing();
}
