/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The process runner and the toolchains: real hipcc compiles (gfx90a and
 * gfx1030, checked as AMDGPU ELF with the right mach and the kernel symbol),
 * an unbuildable target with its reason, compiler errors, a missing compiler,
 * a hanging compiler killed at the timeout, and an nvcc cubin when $NVCC is set.
 */
#include <errno.h>
#include <link.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shared/spawn.h"

#include "config/config.h"
#include "hanzo-rocm-tools.h"
#include "context.h"
#include "target/target.h"
#include "toolchain/toolchain.h"
#include "shared/util.h"
#include "../tap.h"

/*
 * The library must never read the package database to find a compiler.
 * kmod's testsuite way: the program re-runs itself under t/target/open-trap.so (a
 * separate LD_PRELOAD object), which logs every open of a path under
 * /var/lib/dpkg; the program itself defines no libc function.
 */
#define DPKG "/var/lib/dpkg"

static char trap_log[4200];

/* A sanitizer runtime this program loaded (it must come first in LD_PRELOAD). */
static int find_asan(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	if (info->dlpi_name && strstr(info->dlpi_name, "/libasan.so")) {
		snprintf(data, 4096, "%s ", info->dlpi_name);
		return 1;
	}
	return 0;
}

static void run_under_open_trap(char **argv)
{
	const char *home = getenv("HOME");
	char preload[4096] = "", lib[8192];

	snprintf(trap_log, sizeof(trap_log), "%s/open-trap.%ld.log", home ? home : "/tmp",
	         (long)getpid());
	if (getenv("HR_TEST_OPEN_TRAP_LOG")) {
		/* Under the trap: the compilers spawned do not inherit it. */
		unsetenv("LD_PRELOAD");
		return;
	}
	unlink(trap_log);
	setenv("HR_TEST_OPEN_TRAP", DPKG, 1);
	setenv("HR_TEST_OPEN_TRAP_LOG", trap_log, 1);
	/* A sanitizer runtime comes first in the preload list (as t/cache/swap.sh). */
	dl_iterate_phdr(find_asan, preload);
	snprintf(lib, sizeof(lib), "%s%s/open-trap.so", preload, HR_TEST_LIBS);
	setenv("LD_PRELOAD", lib, 1);
	execv("/proc/self/exe", argv);
	printf("Bail out! cannot re-run under %s/open-trap.so: %s\n", HR_TEST_LIBS,
	       strerror(errno));
	exit(1);
}

/* The opens under /var/lib/dpkg the trap saw. */
static int trapped_opens(void)
{
	char line[4200];
	int n = 0;
	FILE *f = fopen(trap_log, "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	return n;
}

#define EM_AMDGPU 224
#define EM_CUDA 190

static const char kernel_src[] =
	"#include <hip/hip_runtime.h>\n"
	"extern \"C\" __global__ void hr_test_add1(float *x, int n)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < n)\n"
	"\t\tx[i] += 1.0f;\n"
	"}\n";

/* The same kernel for nvcc, which has no hip_runtime.h. */
static const char cuda_src[] =
	"extern \"C\" __global__ void hr_test_add1(float *x, int n)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < n)\n"
	"\t\tx[i] += 1.0f;\n"
	"}\n";

static const char broken_src[] =
	"#include <hip/hip_runtime.h>\n"
	"extern \"C\" __global__ void broken(float *x) { x[0] = hr_no_such_identifier; }\n";

static char scratch[4096];

static struct hanzo_rocm *new_ctx(const char *conf_text)
{
	char conf[4200];
	struct hanzo_rocm_options o = { .size = sizeof(o) };
	struct hanzo_rocm *ctx = NULL;
	FILE *f;

	snprintf(conf, sizeof(conf), "%s/test.conf", scratch);
	f = fopen(conf, "we");
	if (!f)
		return NULL;
	fputs(conf_text, f);
	fclose(f);
	o.config = conf;
	if (hanzo_rocm_new_with_options(&o, &ctx) < 0)
		return NULL;
	return ctx;
}

static uint16_t get16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Runs a program through hr_spawn; returns its stdout (malloc'd) or NULL. */
static char *run_out(char *const argv[], int *status)
{
	struct hr_spawn s = { .argv = argv, .timeout_ms = 60000 };
	char *out;

	if (hr_spawn_run(&s) < 0)
		return NULL;
	*status = s.exit_status;
	out = s.out;
	s.out = NULL;
	hr_spawn_release(&s);
	return out;
}

/* $LLVM_READELF --syms shows the kernel (or, without it, the name is in the bytes). */
static bool has_symbol(const void *obj, size_t size, const char *sym)
{
	const char *readelf = getenv("LLVM_READELF");
	char path[4200];
	int fd, status = -1;
	char *out;
	bool found;

	if (!readelf || !*readelf)
		return memmem(obj, size, sym, strlen(sym)) != NULL;
	snprintf(path, sizeof(path), "%s/obj.o", scratch);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, obj, size) != (ssize_t)size) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	close(fd);
	{
		char *argv[] = { (char *)readelf, "--syms", path, NULL };

		out = run_out(argv, &status);
	}
	unlink(path);
	found = out && status == 0 && strstr(out, sym) && strstr(out, "FUNC");
	free(out);
	return found;
}

static void test_spawn(void)
{
	char *sh_argv[] = { "/bin/sh", "-c", "echo out; echo err >&2; exit 3", NULL };
	char *cat_argv[] = { "/bin/cat", NULL };
	char *big_argv[] = { "/bin/sh", "-c", "head -c 300000 /dev/zero; echo done >&2", NULL };
	char *sig_argv[] = { "/bin/sh", "-c", "kill -9 $$", NULL };
	char *rel_argv[] = { "sh", "-c", "true", NULL };
	char *missing_argv[] = { "/nonexistent/hr-no-such-program", NULL };
	struct hr_spawn s = { .argv = sh_argv };

	is_int(hr_spawn_run(&s), 0, "spawn: /bin/sh ran");
	is_int(s.exit_status, 3, "spawn: exit status 3");
	is_str(s.out, "out\n", "spawn: stdout captured");
	is_str(s.err, "err\n", "spawn: stderr captured separately");
	hr_spawn_release(&s);

	s = (struct hr_spawn){ .argv = cat_argv, .timeout_ms = 10000 };
	ok(hr_spawn_run(&s) == 0 && s.exit_status == 0 && s.out_len == 0 && !s.timed_out,
	   "spawn: stdin is /dev/null (cat ends at once)");
	hr_spawn_release(&s);

	s = (struct hr_spawn){ .argv = big_argv, .max_output = 1000 };
	ok(hr_spawn_run(&s) == 0 && s.out_len == 1000 && s.out_truncated && s.exit_status == 0 &&
	   strcmp(s.err, "done\n") == 0, "spawn: output capped, child not blocked");
	hr_spawn_release(&s);

	s = (struct hr_spawn){ .argv = sig_argv };
	ok(hr_spawn_run(&s) == 0 && s.exit_status == 128 + 9, "spawn: killed by signal -> 137");
	hr_spawn_release(&s);

	s = (struct hr_spawn){ .argv = rel_argv };
	is_int(hr_spawn_run(&s), -EINVAL, "spawn: relative argv[0] refused (no PATH search)");
	s = (struct hr_spawn){ .argv = missing_argv };
	is_int(hr_spawn_run(&s), -ENOENT, "spawn: missing program -> -ENOENT");
	hr_spawn_release(&s);
}

/*
 * The runner's children are forks of a threaded caller: a libc call there
 * may wait forever on a lock another thread held at the fork (a sanitizer's
 * interceptor did, in make check-tsan).  t/target/open-trap.so hangs any such call
 * made by a child of this process; the runner's reaper and compiler make raw
 * system calls only, so the compile still runs.
 */
static void test_spawn_fork_trap(void)
{
	char *argv[] = { "/bin/sh", "-c", "echo ran", NULL };
	struct hr_spawn s = { .argv = argv, .timeout_ms = 20000 };
	char pid[32];
	pid_t child;
	int r;

	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	setenv("HR_TEST_FORK_TRAP", pid, 1);
	/* The trap works: a plain child calling setpgid() is still there 300 ms on. */
	child = fork();
	if (child == 0) {
		setpgid(0, 0);
		_exit(0);
	}
	usleep(300 * 1000);
	ok(child > 0 && waitpid(child, NULL, WNOHANG) == 0,
	   "spawn: t/target/open-trap.so holds a child that calls libc's setpgid()");
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	r = hr_spawn_run(&s);
	unsetenv("HR_TEST_FORK_TRAP");
	ok(r == 0 && s.exit_status == 0 && s.out && strcmp(s.out, "ran\n") == 0 && !s.timed_out,
	   "spawn: the children call no libc wrapper (ran under the fork trap: %d, %s)", r,
	   s.timed_out ? "timed out" : "in time");
	hr_spawn_release(&s);
}

/* A fake compiler that hangs, with a helper process, until killed. */
static void test_timeout(struct hanzo_rocm *ctx)
{
	char path[4200], pidfile[4200], script[8400], *dg = NULL;
	struct hr_toolchain tc = { .kind = HR_COMPILER_HIPCC, .version = "0", .timeout_s = 1 };
	void *obj = NULL;
	size_t size = 0;
	FILE *f;
	int r;

	snprintf(path, sizeof(path), "%s/hang-hipcc", scratch);
	snprintf(pidfile, sizeof(pidfile), "%s/helper.pid", scratch);
	snprintf(script, sizeof(script), "#!/bin/sh\nsleep 300 &\necho $! > '%s'\nwait\n", pidfile);
	f = fopen(path, "we");
	if (!f) {
		skip(3, "cannot write the fake compiler");
		return;
	}
	fputs(script, f);
	fclose(f);
	chmod(path, 0755);
	tc.path = path;
	r = hr_toolchain_compile(ctx, &tc, kernel_src, sizeof(kernel_src) - 1, NULL, NULL,
	                         "gfx90a", &obj, &size, &dg);
	is_int(r, -ETIMEDOUT, "hanging compiler: -ETIMEDOUT after timeout_s");
	ok(dg && strstr(dg, "timeout"), "hanging compiler: diagnostics say timeout (%s)",
	   dg ? dg : "null");
	{
		char *pidtext = NULL, stat[64];
		size_t n;
		bool gone = true;

		if (hr_read_file(pidfile, 64, (void **)&pidtext, &n) == 0) {
			snprintf(stat, sizeof(stat), "/proc/%ld/stat", strtol(pidtext, NULL, 10));
			/* SIGKILL lands asynchronously: allow it up to 10 s to be gone or a zombie. */
			for (int i = 0; i < 1000; i++) {
				FILE *pf = fopen(stat, "re");
				char line[512] = "";

				/* procfs files have no size: read with stdio */
				gone = !pf || !fgets(line, sizeof(line), pf) || strstr(line, ") Z");
				if (pf)
					fclose(pf);
				if (gone)
					break;
				usleep(10000);
			}
			free(pidtext);
		}
		ok(gone, "hanging compiler: its helper process was killed with its group");
	}
	free(dg);
	unlink(path);
	unlink(pidfile);
}

static void test_missing(struct hanzo_rocm *ctx)
{
	struct hr_toolchain tc = { .kind = HR_COMPILER_HIPCC, .version = "0", .timeout_s = 5,
	                           .path = "/nonexistent/hipcc" };
	struct hr_toolchain *found = NULL;
	struct hanzo_rocm *c2;
	char *dg = NULL;
	void *obj = NULL;
	size_t size;

	is_int(hr_toolchain_compile(ctx, &tc, kernel_src, sizeof(kernel_src) - 1, NULL, NULL,
	                            "gfx90a", &obj, &size, &dg), -ENOENT,
	       "missing compiler: -ENOENT");
	ok(dg && strstr(dg, "/nonexistent/hipcc"), "missing compiler: diagnostics name it");
	free(dg);

	c2 = new_ctx("[compiler]\nhipcc = /nonexistent/hipcc\nnvcc = hr-no-such-nvcc\n");
	ok(c2 != NULL, "context with absent compilers");
	is_int(hr_toolchain_find(c2, HR_COMPILER_HIPCC, &found), -ENOENT, "find absent hipcc: -ENOENT");
	is_int(hr_toolchain_find(c2, HR_COMPILER_NVCC, &found), -ENOENT, "find absent nvcc by name: -ENOENT");
	hanzo_rocm_unref(c2);
	/* The config refuses it (leaves it out: the default name is used). */
	c2 = new_ctx("[compiler]\nhipcc = bin/hipcc\n");
	ok(c2 && strcmp(hr_tools_config(c2)->hipcc, "hipcc") == 0,
	   "relative compiler path refused");
	hanzo_rocm_unref(c2);
}

static void check_amd_object(const void *obj, size_t size, unsigned mach, const char *what)
{
	const unsigned char *b = obj;

	ok(obj && size > 64 && memcmp(b, "\177ELF", 4) == 0 && b[4] == 2,
	   "%s: an ELF64 file (%zu bytes)", what, size);
	if (!obj || size <= 64) {
		skip(3, "no object");
		return;
	}
	is_int(get16(b + 18), EM_AMDGPU, "%s: e_machine EM_AMDGPU", what);
	is_int(get32(b + 48) & 0xff, mach, "%s: EF_AMDGPU_MACH in e_flags", what);
	ok(has_symbol(obj, size, "hr_test_add1"), "%s: kernel symbol present", what);
}

static void test_hipcc(struct hanzo_rocm *ctx)
{
	struct hr_toolchain *tc = NULL;
	char reason[256], *dg = NULL, **list = NULL;
	void *obj = NULL;
	size_t size = 0;
	int r;

	r = hr_toolchain_find(ctx, HR_COMPILER_HIPCC, &tc);
	is_int(r, 0, "find hipcc ($HIPCC)");
	if (r < 0) {
		skip(17, "hipcc not usable");
		return;
	}
	ok(tc->path[0] == '/' && strstr(tc->path, "hipcc"), "hipcc path %s", tc->path);
	ok(tc->version && tc->version[0] >= '1' && tc->version[0] <= '9', "hipcc version %s", tc->version);
	ok(tc->identity && strncmp(tc->identity, "hipcc ", 6) == 0 && strstr(tc->identity, "clang"),
	   "identity '%s'", tc->identity);
	ok(tc->devlib_dir != NULL, "device libraries at %s", tc->devlib_dir ? tc->devlib_dir : "?");
	is_int(hr_toolchain_can_build(tc, "gfx90a", reason, sizeof(reason)), 0, "can build gfx90a");
	is_int(hr_toolchain_can_build(tc, "gfx90a:xnack-", reason, sizeof(reason)), 0,
	       "can build gfx90a:xnack- (features ignored)");
	is_int(hr_toolchain_can_build(tc, "sm_90", reason, sizeof(reason)), -ENOTSUP,
	       "hipcc cannot build sm_90 (%s)", reason);
	is_int(hr_toolchain_can_build(tc, "bogus", reason, sizeof(reason)), -EINVAL, "bogus target: -EINVAL");
	ok(hr_toolchain_targets(tc, &list) == 0 && hr_strv_contains(list, "gfx90a") &&
	   hr_strv_contains(list, "gfx1030"), "buildable list has gfx90a and gfx1030");
	hr_strv_free(list);
	r = hr_toolchain_can_build(tc, "gfx942", reason, sizeof(reason));
	if (r == 0) {
		skip(1, "this ROCm builds gfx942");
	} else {
		ok(r == -ENOTSUP && strstr(reason, "needs ROCm >= 5.7") && strstr(reason, tc->version),
		   "gfx942: -ENOTSUP, '%s'", reason);
	}

	r = hr_toolchain_compile(ctx, tc, kernel_src, sizeof(kernel_src) - 1, NULL, NULL,
	                         "gfx90a", &obj, &size, &dg);
	if (!ok(r == 0, "compile for gfx90a (%d)", r))
		diag("%s", dg ? dg : "");
	check_amd_object(obj, size, 0x3f, "gfx90a");
	free(obj);
	free(dg);
	obj = NULL;
	dg = NULL;

	{
		static const char *const pflags[] = { "-DHR_PLUGIN_FLAG=1", NULL };
		static char *const cflags[] = { "-O2", NULL };

		r = hr_toolchain_compile(ctx, tc, kernel_src, sizeof(kernel_src) - 1, pflags, cflags,
		                         "gfx1030", &obj, &size, &dg);
		is_int(r, 0, "compile for gfx1030 with plugin and config flags");
	}
	check_amd_object(obj, size, 0x36, "gfx1030");
	free(obj);
	free(dg);
	obj = NULL;
	dg = NULL;

	r = hr_toolchain_compile(ctx, tc, broken_src, sizeof(broken_src) - 1, NULL, NULL,
	                         "gfx90a", &obj, &size, &dg);
	is_int(r, -EIO, "broken source: -EIO");
	ok(dg && strstr(dg, "hr_no_such_identifier") && strstr(dg, "error"),
	   "broken source: compiler diagnostics returned");
	ok(dg && !strstr(dg, "Traceback") && !strstr(dg, "rocm_agent_enumerator"),
	   "broken source: rocm_agent_enumerator noise removed");
	ok(obj == NULL, "broken source: no object");
	free(dg);
	hr_toolchain_free(tc);
}

static void test_nvcc(struct hanzo_rocm *ctx)
{
	struct hr_toolchain *tc = NULL;
	char reason[256], *dg = NULL;
	void *obj = NULL;
	size_t size = 0;
	const unsigned char *b;
	uint32_t flags;
	int r;

	r = hr_toolchain_find(ctx, HR_COMPILER_NVCC, &tc);
	is_int(r, 0, "find nvcc ($NVCC)");
	if (r < 0) {
		skip(7, "nvcc not usable");
		return;
	}
	ok(tc->identity && strncmp(tc->identity, "nvcc ", 5) == 0, "identity '%s'", tc->identity);
	is_int(hr_toolchain_can_build(tc, "sm_90", reason, sizeof(reason)), 0, "nvcc can build sm_90");
	is_int(hr_toolchain_can_build(tc, "gfx90a", reason, sizeof(reason)), -ENOTSUP,
	       "nvcc cannot build gfx90a (%s)", reason);
	r = hr_toolchain_compile(ctx, tc, cuda_src, sizeof(cuda_src) - 1, NULL, NULL, "sm_90",
	                         &obj, &size, &dg);
	if (!ok(r == 0, "nvcc compile for sm_90 (%d)", r))
		diag("%s", dg ? dg : "");
	b = obj;
	ok(b && size > 64 && get16(b + 18) == EM_CUDA, "cubin: e_machine EM_CUDA");
	flags = b && size > 64 ? get32(b + 48) : 0;
	/* CUDA's ELF ABI 8 (CUDA 13) keeps the SM in bits 8..15, older ones in bits 0..7. */
	ok((flags & 0xff) == 90 || ((flags >> 8) & 0xff) == 90, "cubin: sm 90 in e_flags (0x%x)", flags);
	ok(obj && has_symbol(obj, size, "hr_test_add1"), "cubin: kernel symbol present");
	free(obj);
	free(dg);
	hr_toolchain_free(tc);
}

static int write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return -1;
	fputs(text, f);
	fclose(f);
	return chmod(path, mode);
}

/*
 * A ROCm 6 layout without a real compiler: /opt/rocm-like prefix with
 * .info/version and device libraries under lib/llvm/lib/clang/N/, reached
 * through a bin/ symlink as /opt/rocm/bin is.
 */
static void test_rocm_layout(void)
{
	static const char *const dirs[] = { "rocm-6.2.0", "rocm-6.2.0/bin", "rocm-6.2.0/.info",
	                                    "rocm-6.2.0/lib", "rocm-6.2.0/lib/llvm",
	                                    "rocm-6.2.0/lib/llvm/lib", "rocm-6.2.0/lib/llvm/lib/clang",
	                                    "rocm-6.2.0/lib/llvm/lib/clang/18",
	                                    "rocm-6.2.0/lib/llvm/lib/clang/18/lib",
	                                    "rocm-6.2.0/lib/llvm/lib/clang/18/lib/amdgcn",
	                                    "rocm-6.2.0/lib/llvm/lib/clang/18/lib/amdgcn/bitcode" };
	char p[4200], conf[4400], reason[256];
	struct hr_toolchain *tc = NULL;
	struct hanzo_rocm *ctx;
	int r;

	for (size_t i = 0; i < HR_ARRAY_SIZE(dirs); i++) {
		snprintf(p, sizeof(p), "%s/%s", scratch, dirs[i]);
		mkdir(p, 0755);
	}
	snprintf(p, sizeof(p), "%s/rocm-6.2.0/bin/hipcc", scratch);
	write_file(p, "#!/bin/sh\necho 'HIP version: 6.2.41133-dd7f95766'\n"
	              "echo 'AMD clang version 18.0.0git (https://github.com/RadeonOpenCompute/llvm-project roc-6.2.0)'\n"
	              "echo 'Traceback (most recent call last):' >&2\nexit 0\n", 0755);
	snprintf(p, sizeof(p), "%s/rocm-6.2.0/.info/version", scratch);
	write_file(p, "6.2.0-66\n", 0644);
	snprintf(p, sizeof(p), "%s/rocm-6.2.0/lib/llvm/lib/clang/18/lib/amdgcn/bitcode/oclc_isa_version_942.bc", scratch);
	write_file(p, "", 0644);
	snprintf(p, sizeof(p), "%s/rocm-6.2.0/lib/llvm/lib/clang/18/lib/amdgcn/bitcode/oclc_isa_version_90a.bc", scratch);
	write_file(p, "", 0644);
	snprintf(p, sizeof(p), "%s/rocm", scratch);
	ok(symlink("rocm-6.2.0", p) == 0, "ROCm 6 layout: /opt/rocm-like symlink made");

	snprintf(conf, sizeof(conf), "[compiler]\nhipcc = %s/rocm/bin/hipcc\n", scratch);
	ctx = new_ctx(conf);
	r = ctx ? hr_toolchain_find(ctx, HR_COMPILER_HIPCC, &tc) : -1;
	is_int(r, 0, "ROCm 6 layout: hipcc found");
	if (r == 0) {
		is_str(tc->version, "6.2.0", "ROCm 6 layout: version from .info/version");
		ok(strstr(tc->identity, "HIP 6.2.41133") && strstr(tc->identity, "clang 18.0.0"),
		   "ROCm 6 layout: identity '%s'", tc->identity);
		ok(tc->devlib_dir && strstr(tc->devlib_dir, "lib/llvm/lib/clang/18/lib/amdgcn/bitcode"),
		   "ROCm 6 layout: device libraries under lib/llvm");
		is_int(hr_toolchain_can_build(tc, "gfx942", reason, sizeof(reason)), 0,
		       "ROCm 6 layout: gfx942 buildable");
		r = hr_toolchain_can_build(tc, "gfx950", reason, sizeof(reason));
		ok(r == -ENOTSUP && strcmp(reason, "needs ROCm >= 6.4 (installed: 6.2.0)") == 0,
		   "ROCm 6 layout: gfx950 skipped: '%s'", reason);
		r = hr_toolchain_can_build(tc, "gfx1030", reason, sizeof(reason));
		ok(r == -ENOTSUP && strstr(reason, "6.2.0"), "no device library, no table entry: '%s'", reason);
		hr_toolchain_free(tc);
	} else {
		skip(6, "no toolchain");
	}
	hanzo_rocm_unref(ctx);
	snprintf(p, sizeof(p), "%s/rocm", scratch);
	unlink(p);
	snprintf(p, sizeof(p), "%s/rocm-6.2.0/lib/llvm/lib/clang/18/lib/amdgcn/bitcode/oclc_isa_version_942.bc", scratch);
	unlink(p);
	snprintf(p, sizeof(p), "%s/rocm-6.2.0/lib/llvm/lib/clang/18/lib/amdgcn/bitcode/oclc_isa_version_90a.bc", scratch);
	unlink(p);
	snprintf(p, sizeof(p), "%s/rocm-6.2.0/bin/hipcc", scratch);
	unlink(p);
	snprintf(p, sizeof(p), "%s/rocm-6.2.0/.info/version", scratch);
	unlink(p);
	for (size_t i = HR_ARRAY_SIZE(dirs); i-- > 0;) {
		snprintf(p, sizeof(p), "%s/%s", scratch, dirs[i]);
		rmdir(p);
	}
}

int main(int argc, char **argv)
{
	const char *home = getenv("HOME"), *hipcc = getenv("HIPCC"), *nvcc = getenv("NVCC");
	char conf[12000], path[4200];
	struct hanzo_rocm *ctx;

	(void)argc;
	run_under_open_trap(argv);
	{
		/* The trap sees an open of this program's own. */
		int fd = open(DPKG "/hr-test-no-such-file", O_RDONLY | O_CLOEXEC);

		if (fd >= 0)
			close(fd);
		is_int(trapped_opens(), 1, "t/target/open-trap.so logs an open under " DPKG);
	}
	unsetenv("HANZO_ROCM_VERSION");
	unsetenv("CANDLE_ROCM_VERSION");
	snprintf(scratch, sizeof(scratch), "%s/test-toolchain-XXXXXX", home ? home : "/tmp");
	if (!mkdtemp(scratch))
		skip_all("cannot create a scratch directory");
	/* Compiler temp dirs go here too: nothing is left in a shared /tmp. */
	setenv("TMPDIR", scratch, 1);

	test_spawn();
	test_spawn_fork_trap();

	snprintf(conf, sizeof(conf), "[compiler]\nhipcc = %s\nnvcc = %s\n",
	         hipcc && *hipcc ? hipcc : "/nonexistent/hipcc",
	         nvcc && *nvcc ? nvcc : "/nonexistent/nvcc");
	ctx = new_ctx(conf);
	if (!ok(ctx != NULL, "context with $HIPCC/$NVCC configured"))
		return done_testing();
	test_timeout(ctx);
	test_missing(ctx);
	test_rocm_layout();
	if (hipcc && *hipcc)
		test_hipcc(ctx);
	else
		skip(30, "no hipcc ($HIPCC unset)");
	if (nvcc && *nvcc)
		test_nvcc(ctx);
	else
		skip(8, "no nvcc ($NVCC unset)");
	is_int(trapped_opens() - 1, 0, "finding the compilers never opens " DPKG);
	unlink(trap_log);

	{
		/* nvcc answers --version at once; hipcc takes a second */
		enum hr_compiler k = nvcc && *nvcc ? HR_COMPILER_NVCC : HR_COMPILER_HIPCC;
		struct hr_toolchain *tc = NULL;

		setenv("HANZO_ROCM_VERSION", "9.9-test", 1);
		hanzo_rocm_unref(ctx);
		ctx = new_ctx(conf);
		if (ctx && hr_toolchain_find(ctx, k, &tc) == 0) {
			is_str(tc->version, "9.9-test", "HANZO_ROCM_VERSION overrides the version label");
			hr_toolchain_free(tc);
		} else {
			skip(1, "no compiler");
		}
		unsetenv("HANZO_ROCM_VERSION");
	}
	hanzo_rocm_unref(ctx);

	/* Every compile removed its private directory: only test.conf is left. */
	snprintf(path, sizeof(path), "%s/test.conf", scratch);
	unlink(path);
	ok(rmdir(scratch) == 0, "no temporary files left behind (%s)", scratch);
	return done_testing();
}
