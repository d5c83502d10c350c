/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Regressions for defects found by `make lint` (clang-tidy):
 *  - the compiler diagnostics filter compared one byte past the literal
 *    "Traceback (most recent call last):", so it only matched at the very
 *    end of the text and never dropped rocm_agent_enumerator's traceback;
 *  - hr_toolchain_find() took a NULL context but then dereferenced it.
 * A stand-in hipcc (a shell script) prints the noise; no real compile.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "context.h"
#include "toolchain/toolchain.h"
#include "tap.h"

static const char fake_hipcc[] =
	"#!/bin/sh\n"
	"cat >&2 <<'EOF'\n"
	"Traceback (most recent call last):\n"
	"  File \"/usr/bin/rocm_agent_enumerator\", line 268, in <module>\n"
	"    main()\n"
	"FileNotFoundError: [Errno 2] No such file or directory: '/dev/kfd'\n"
	"source.hip:2:1: error: use of undeclared identifier 'hr_boom'\n"
	"Traceback (most recent call last):\n"
	"  File \"/usr/lib/other.py\", line 1, in <module>\n"
	"ValueError: not ours, kept\n"
	"EOF\n"
	"exit 1\n";

static void test_filter(const char *dir)
{
	char path[4200];
	struct hr_toolchain tc = { .kind = HR_COMPILER_HIPCC, .timeout_s = 60 };
	void *obj = NULL;
	size_t size = 0;
	char *dg = NULL;
	FILE *f;
	int r;

	snprintf(path, sizeof(path), "%s/hipcc", dir);
	f = fopen(path, "we");
	if (!f || fputs(fake_hipcc, f) < 0 || fclose(f) != 0 || chmod(path, 0755) < 0) {
		skip(4, "cannot write the stand-in hipcc");
		return;
	}
	tc.path = path;
	r = hr_toolchain_compile(NULL, &tc, "x", 1, NULL, NULL, "gfx90a", &obj, &size, &dg);
	is_int(r, -EIO, "failing compiler: -EIO");
	ok(dg && strstr(dg, "error: use of undeclared identifier 'hr_boom'"),
	   "compiler error kept");
	ok(dg && !strstr(dg, "rocm_agent_enumerator") && !strstr(dg, "/dev/kfd"),
	   "rocm_agent_enumerator traceback dropped mid-text");
	ok(dg && strstr(dg, "ValueError: not ours, kept"), "another traceback kept");
	if (dg)
		diag("diagnostics:\n%s", dg);
	free(dg);
	free(obj);
	unlink(path);
}

static void test_null_ctx(void)
{
	struct hr_toolchain *tc = NULL;
	int r = hr_toolchain_find(NULL, HR_COMPILER_HIPCC, &tc);

	ok(r == 0 || r == -ENOENT, "hr_toolchain_find(NULL ctx) returns (%d)", r);
	hr_toolchain_free(tc);
}

int main(void)
{
	char dir[] = "/tmp/hr-lint-fixes-XXXXXX";

	if (!mkdtemp(dir)) {
		skip_all("mkdtemp failed");
		return 0;
	}
	test_filter(dir);
	test_null_ctx();
	rmdir(dir);
	return done_testing();
}
