/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The source-text API (hanzo_rocm_module_get, _module_kernel,
 * _source_code_object) with the replaced crate's own usage: the candle-style
 * binary-ops source t/fixtures/source/binary.hip compiled through the call
 * and launched on host-w64 and host-w32 with results checked; a second call
 * is a lookup and a second context loads the cached entry with no compiler
 * at all; a compile error is -HANZO_ROCM_ECOMPILE with the diagnostics; two
 * processes racing on one key compile once; an admin's `precompile --source`
 * into the system tier serves a node with [cache] compile = never.  Where
 * hipcc exists: gfx90a code objects (valid ELF, every kernel symbol), and
 * the same from hipRTC in-process with hipcc made unavailable, cached.
 */
#include <dlfcn.h>
#include <errno.h>
#include <glob.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include "../tap.h"
#include "hanzo-rocm.h"
#include "hanzo-rocm-plugin.h"
#include "source/source.h"
#include "cache/cache.h"
#include "runtime/runtime.h"
#include "shared/util.h"
#include "shared/elf.h"

static char logbuf[1 << 16];
/* The library logs from every thread that calls it, side by side. */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static void log_capture(void *data, int prio, const char *file, int line,
                        const char *fn, const char *fmt, va_list ap)
{
	size_t len;

	(void)data; (void)prio; (void)file; (void)line; (void)fn;
	pthread_mutex_lock(&log_lock);
	len = strlen(logbuf);
	if (len < sizeof(logbuf) - 1)
		vsnprintf(logbuf + len, sizeof(logbuf) - len, fmt, ap);
	pthread_mutex_unlock(&log_lock);
}

static unsigned count(const char *what)
{
	unsigned n = 0;

	for (const char *p = logbuf; (p = strstr(p, what)); p++)
		n++;
	return n;
}

static char dir[] = "/tmp/hr-test-source-XXXXXX";
static char *src;
static size_t src_len;

static const char *const ops[] = { "add", "sub", "mul", "div", "minimum", "maximum" };

static double ref(const char *op, double x, double y)
{
	return !strcmp(op, "add") ? x + y : !strcmp(op, "sub") ? x - y :
	       !strcmp(op, "mul") ? x * y : !strcmp(op, "div") ? x / y :
	       !strcmp(op, "minimum") ? (x < y ? x : y) : (x > y ? x : y);
}

/* A config in dir: name, then extra lines. */
static char *conf(const char *name, const char *extra)
{
	static char path[3][512];
	static int i;
	char *p = path[i++ % 3];
	FILE *f;

	snprintf(p, sizeof(path[0]), "%s/%s.conf", dir, name);
	f = fopen(p, "w");
	if (!f)
		return NULL;
	fprintf(f, "[cache]\nuser_dir = %s/cache\nsystem_dir = %s/system\n%s", dir, dir,
	        extra ? extra : "");
	fclose(f);
	return p;
}

static struct hanzo_rocm *new_ctx(const char *config)
{
	struct hanzo_rocm_options o = { .size = sizeof(o), .log_fn = log_capture,
	                                .log_priority = LOG_INFO, .config = config,
	                                .host = "host-w64 host-w32" };
	struct hanzo_rocm *ctx = NULL;

	return hanzo_rocm_new_with_options(&o, &ctx) < 0 ? NULL : ctx;
}

/* Device buffers of the running test_ops, freed at its end. */
static uint64_t bufs[16];
static size_t n_bufs;

static void *dev_copy(struct hanzo_rocm *ctx, unsigned dev, const void *p, size_t n)
{
	uint64_t d = 0;

	if (n_bufs == HR_ARRAY_SIZE(bufs) || hr_runtime_alloc(ctx, dev, n, &d) < 0)
		return NULL;
	bufs[n_bufs++] = d;
	if (p)
		hr_runtime_copy_htod(ctx, dev, d, p, n);
	return (void *)(uintptr_t)d;
}

/* Every op in f32 (raw launches), broadcasting rhs over rows for mul. */
static void test_ops(struct hanzo_rocm *ctx, unsigned dev, struct hanzo_rocm_module *m)
{
	enum { N = 300 };
	float a[N], b[N], out[N];
	float *da = dev_copy(ctx, dev, NULL, sizeof(a)), *db = dev_copy(ctx, dev, NULL, sizeof(b)),
	      *dout = dev_copy(ctx, dev, NULL, sizeof(out));
	unsigned grid[3] = { 3, 1, 1 }, block[3] = { 64, 1, 1 };

	for (int i = 0; i < N; i++) {
		a[i] = (float)(i % 17) - 8.0f;
		b[i] = (float)(i % 5) + 0.5f;
	}
	hr_runtime_copy_htod(ctx, dev, (uint64_t)(uintptr_t)da, a, sizeof(a));
	hr_runtime_copy_htod(ctx, dev, (uint64_t)(uintptr_t)db, b, sizeof(b));
	for (size_t o = 0; o < HR_ARRAY_SIZE(ops); o++) {
		char name[32];
		struct hanzo_rocm_kernel *k = NULL;
		size_t numel = N, nd = 0;
		const size_t *info = NULL;
		void *args[] = { &numel, &nd, &info, &da, &db, &dout };
		int bad = 0, r;

		snprintf(name, sizeof(name), "b%s_f32", ops[o]);
		r = hanzo_rocm_module_kernel(m, name, &k);
		if (r == 0)
			r = hanzo_rocm_kernel_launch(k, grid, block, 0, NULL, args);
		if (r == 0)
			r = hr_runtime_copy_dtoh(ctx, dev, out, (uint64_t)(uintptr_t)dout, sizeof(out));
		for (int i = 0; r == 0 && i < N; i++)
			bad += out[i] != (float)ref(ops[o], a[i], b[i]);
		ok(r == 0 && bad == 0, "device %u: %s over %d elements (r=%d, %d wrong)", dev, name,
		   N, r, bad);
	}
	{
		/* dims (3, 4): lhs contiguous, rhs a row broadcast (strides 0, 1). */
		const size_t host_info[6] = { 3, 4, 4, 1, 0, 1 };
		size_t *info = dev_copy(ctx, dev, host_info, sizeof(host_info)), numel = 12, nd = 2;
		void *args[] = { &numel, &nd, &info, &da, &db, &dout };
		struct hanzo_rocm_kernel *k;
		int bad = 0, r = hanzo_rocm_module_kernel(m, "bmul_f32", &k);

		if (r == 0)
			r = hanzo_rocm_kernel_launch_work(k, 12, 1, NULL, args);
		if (r == 0)
			r = hr_runtime_copy_dtoh(ctx, dev, out, (uint64_t)(uintptr_t)dout, 12 * sizeof(float));
		for (int i = 0; r == 0 && i < 12; i++)
			bad += out[i] != a[i] * b[i % 4];
		ok(r == 0 && bad == 0, "device %u: bmul_f32 with a broadcast rhs, launched by work "
		   "from the source's #@launch line (r=%d, %d wrong)", dev, r, bad);
	}
	{
		double x[4] = { 1, -2, 3.5, 1e300 }, y[4] = { 3, 7, -0.5, 1e300 }, z[4];
		double *dx = dev_copy(ctx, dev, x, sizeof(x)), *dy = dev_copy(ctx, dev, y, sizeof(y)),
		       *dz = dev_copy(ctx, dev, NULL, sizeof(z));
		uint32_t u[3] = { 7, 1, 0xffffffffu }, v[3] = { 9, 1, 2 }, w[3];
		uint32_t *du = dev_copy(ctx, dev, u, sizeof(u)), *dv = dev_copy(ctx, dev, v, sizeof(v)),
		         *dw = dev_copy(ctx, dev, NULL, sizeof(w));
		size_t n4 = 4, n3 = 3, nd = 0;
		const size_t *info = NULL;
		void *a4[] = { &n4, &nd, &info, &dx, &dy, &dz }, *a3[] = { &n3, &nd, &info, &du, &dv, &dw };
		struct hanzo_rocm_kernel *kd, *ku;
		int r = hanzo_rocm_module_kernel(m, "bsub_f64", &kd);

		if (r == 0)
			r = hanzo_rocm_kernel_launch_work(kd, 4, 1, NULL, a4);
		if (r == 0)
			r = hr_runtime_copy_dtoh(ctx, dev, z, (uint64_t)(uintptr_t)dz, sizeof(z));
		ok(r == 0 && z[0] == -2 && z[1] == -9 && z[2] == 4 && z[3] == 0,
		   "device %u: bsub_f64 (r=%d)", dev, r);
		r = hanzo_rocm_module_kernel(m, "badd_u32", &ku);
		if (r == 0)
			r = hanzo_rocm_kernel_launch_work(ku, 3, 1, NULL, a3);
		if (r == 0)
			r = hr_runtime_copy_dtoh(ctx, dev, w, (uint64_t)(uintptr_t)dw, sizeof(w));
		ok(r == 0 && w[0] == 16 && w[1] == 2 && w[2] == 1,
		   "device %u: badd_u32 wraps (r=%d)", dev, r);
	}
	hr_runtime_synchronize(ctx, dev, NULL);
	while (n_bufs)
		hr_runtime_mem_free(ctx, dev, bufs[--n_bufs]);
}

static void test_host(void)
{
	struct hanzo_rocm *ctx = new_ctx(conf("main", NULL));
	struct hanzo_rocm_module *m[2] = { NULL, NULL }, *again = NULL;
	struct hanzo_rocm_kernel *k1 = NULL, *k2 = NULL;
	char *msgs = (char *)"unset";
	int r;

	if (!ctx) {
		skip(1, "no context");
		return;
	}
	for (unsigned dev = 0; dev < 2; dev++) {
		r = hanzo_rocm_module_get(ctx, dev, "binary", src, src_len, NULL, &m[dev], &msgs);
		ok(r == 0 && m[dev] && msgs == NULL, "device %u (%s): the binary-ops source compiles "
		   "and loads (r=%d)", dev, dev ? "host-w32" : "host-w64", r);
		if (r < 0) {
			diag("log:\n%s", logbuf);
			hanzo_rocm_unref(ctx);
			return;
		}
		test_ops(ctx, dev, m[dev]);
	}
	is_int(count("compiling source 'binary'"), 2, "one compile per target, none more");
	r = hanzo_rocm_module_get(ctx, 0, "binary", src, src_len, NULL, &again, NULL);
	ok(r == 0 && again == m[0], "the same (device, name, source, flags) again is the same module");
	r = hanzo_rocm_module_kernel(m[0], "bdiv_f32", &k1);
	if (r == 0)
		r = hanzo_rocm_module_kernel(m[0], "bdiv_f32", &k2);
	ok(r == 0 && k1 == k2, "and the same kernel handle");
	is_int(count("compiling source 'binary'"), 2, "a second call compiles nothing");
	r = hanzo_rocm_module_kernel(m[0], "bpow_f32", &k1);
	is_int(r, -ENOENT, "a kernel the source does not have: -ENOENT");
	{
		struct hanzo_rocm_geometry g;

		r = hanzo_rocm_module_kernel(m[1], "bmaximum_u32", &k1);
		if (r == 0)
			r = hanzo_rocm_kernel_geometry(k1, 1000, 1, &g);
		ok(r == 0 && g.grid[0] >= 1 && g.block[0] % 32 == 0,
		   "geometry from the #@launch line (r=%d, grid %u block %u)", r, g.grid[0], g.block[0]);
	}
	{
		const char *bad_flags[] = { "-DX=1", "stray.hip", NULL };

		r = hanzo_rocm_module_get(ctx, 0, "../etc", src, src_len, NULL, &again, NULL);
		is_int(r, -EINVAL, "a name with a path in it: -EINVAL");
		static const char *const files[] = {
			"-MD", "-MMD", "-MF/tmp/x.d", "-MF", "-MT", "-MTx", "-MQx", "-o/tmp/x", "--output=/tmp/x",
			"-save-temps", "-save-temps=obj", "@/tmp/flags", "-I/etc", "-include/etc/passwd",
			"-fplugin=/tmp/p.so", "-Wl,-o,/tmp/x", "-Wp,-MD,/tmp/x", "-mllvm", "-x",
			"--offload-arch=gfx90a", "-fprofile-generate=/tmp", "-ftime-trace",
		};
		static const char *const fine[] = { "-DX=1", "-UY", "-O3", "-g", "-std=c++17",
		                                     "-Wall", "-Wno-unused", "-ffast-math",
		                                     "-fno-unroll-loops", "-mcumode", "-w" };

		r = hanzo_rocm_module_get(ctx, 0, "binary", src, src_len, bad_flags, &again, NULL);
		is_int(r, -EINVAL, "a flag that is not an option (an input file): -EINVAL");
		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			const char *one[] = { files[i], NULL };

			r = hanzo_rocm_module_get(ctx, 0, "binary", src, src_len, one, &again, NULL);
			is_int(r, -EINVAL, "flag %s (names or writes a file, or is not allowed): -EINVAL",
			       files[i]);
		}
		for (size_t i = 0; i < sizeof(fine) / sizeof(fine[0]); i++) {
			const char *one[] = { fine[i], NULL };
			struct hr_source_spec spec = { .name = "binary", .source = src,
			                               .source_len = src_len, .flags = one };

			is_int(hr_source_check(ctx, &spec), 0, "flag %s passes the allow-list", fine[i]);
		}
	}
	{
		static const char broken[] = "extern \"C\" __global__ void broken(int *p)\n"
		                             "{\n\tp[0] = no_such_name;\n}\n";

		r = hanzo_rocm_module_get(ctx, 0, "broken", broken, sizeof(broken) - 1, NULL,
		                          &again, &msgs);
		is_int(r, -HANZO_ROCM_ECOMPILE, "a compile error is -HANZO_ROCM_ECOMPILE");
		ok(msgs && strstr(msgs, "no_such_name") && strstr(msgs, "broken.hip:3"),
		   "with the compiler's diagnostics, naming the caller's line");
		if (msgs && !strstr(msgs, "no_such_name"))
			diag("diagnostics: %s", msgs);
		free(msgs);
		{
			char pat[600];
			glob_t g;
			int gr;

			snprintf(pat, sizeof(pat), "%s/cache/host-w64/.broken.*", dir);
			gr = glob(pat, 0, NULL, &g);
			ok(gr == GLOB_NOMATCH, "the failed compile leaves no lock file (%s)",
			   gr == 0 ? g.gl_pathv[0] : "none");
			if (gr == 0)
				globfree(&g);
		}
		ok(strcmp(hanzo_rocm_strerror(-HANZO_ROCM_ECOMPILE), strerror(HANZO_ROCM_ECOMPILE)) != 0,
		   "hanzo_rocm_strerror names it: %s", hanzo_rocm_strerror(-HANZO_ROCM_ECOMPILE));
	}
	{
		void *data = NULL;
		size_t size = 0;

		r = hanzo_rocm_source_code_object(ctx, "host-w64", "binary", src, src_len, NULL,
		                                  &data, &size, NULL);
		ok(r == 0 && size > 64 && memcmp(data, "\177ELF", 4) == 0,
		   "hanzo_rocm_source_code_object: the host code object's bytes (%zu)", size);
		free(data);
	}
	hanzo_rocm_unref(ctx);

	/* A new process's view: the user tier, with no compiler to run at all. */
	logbuf[0] = '\0';
	ctx = new_ctx(conf("nocxx", "[compiler]\ncxx = /nonexistent/c++\nhipcc = /nonexistent/hipcc\n"));
	r = ctx ? hanzo_rocm_module_get(ctx, 1, "binary", src, src_len, NULL, &m[1], NULL) : -1;
	ok(r == 0 && count("compiling") == 0,
	   "a second context loads it from the user tier, no compiler needed (r=%d)", r);
	if (r == 0)
		test_ops(ctx, 1, m[1]);
	hanzo_rocm_unref(ctx);
}

struct thread_arg {
	struct hanzo_rocm *ctx;
	struct hanzo_rocm_module *m;
	int r;
};

/* The one user-tier entry of source 'binary' for target (test_host's). */
static char *entry_of(const char *target)
{
	char pat[600], *r = NULL;
	glob_t g;

	snprintf(pat, sizeof(pat), "%s/cache/%s/binary.*.hrco", dir, target);
	if (glob(pat, 0, NULL, &g) == 0 && g.gl_pathc == 1)
		r = strdup(g.gl_pathv[0]);
	globfree(&g);
	return r;
}

/*
 * A user-tier entry that passes every cache check but that the driver
 * refuses: host-w32's entry holding host-w64's code object (same ELF
 * machine; the host backend refuses its wave).  The module comes from the
 * next tier, here a fresh compile that replaces the entry; before, the
 * refusal was the caller's error.
 */
static void test_refused(void)
{
	char *w64 = entry_of("host-w64"), *w32 = entry_of("host-w32"), name[256], *dot;
	struct hanzo_rocm *ctx = new_ctx(conf("refused", NULL));
	struct hanzo_rocm_module *m = NULL;
	struct hr_entry e64, e32;
	char cache[600];
	int r = -ENOENT;
	unsigned before;

	if (!ctx || !w64 || !w32) {
		skip(5, "no context or no entries from test_host");
		goto out;
	}
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	snprintf(name, sizeof(name), "%s", strrchr(w32, '/') + 1);
	dot = strstr(name, ".hrco");
	if (dot)
		*dot = '\0';
	r = hr_entry_read(ctx, w64, NULL, &e64);
	if (r == 0) {
		r = hr_entry_read(ctx, w32, NULL, &e32);
		if (r == 0) {
			r = hr_entry_write(ctx, cache, name, "host-w32", &e32.key, e32.compiler,
			                   e64.payload, e64.payload_size);
			hr_entry_release(&e32);
		}
		hr_entry_release(&e64);
	}
	is_int(r, 0, "planted host-w64's code object as host-w32's user-tier entry");
	logbuf[0] = '\0';
	before = count("compiling source 'binary'");
	r = hanzo_rocm_module_get(ctx, 1, "binary", src, src_len, NULL, &m, NULL);
	if (!ok(r == 0 && m, "device 1 (host-w32): the refused entry falls through to a compile (r=%d)", r))
		diag("log:\n%s", logbuf);
	ok(strstr(logbuf, "refused source 'binary' for host-w32 from the user tier; trying the next tier") != NULL,
	   "a warning names the source and the tier");
	is_int(count("compiling source 'binary'") - before, 1, "one compile");
	if (m)
		test_ops(ctx, 1, m);
	hanzo_rocm_unref(ctx);
	ctx = new_ctx(conf("refused", NULL));
	logbuf[0] = '\0';
	m = NULL;
	r = ctx ? hanzo_rocm_module_get(ctx, 1, "binary", src, src_len, NULL, &m, NULL) : -1;
	ok(r == 0 && !strstr(logbuf, "refused"), "the compile replaced the entry: the next context loads it");
out:
	if (ctx)
		hanzo_rocm_unref(ctx);
	free(w64);
	free(w32);
}

static void *get_thread(void *p)
{
	static const char *const flags[] = { "-DHR_T_THREADS=1", NULL };
	struct thread_arg *a = p;

	a->r = hanzo_rocm_module_get(a->ctx, 0, "binary", src, src_len, flags, &a->m, NULL);
	return NULL;
}

/* Four threads, one new key: one compile, one module. */
static void test_threads(void)
{
	struct hanzo_rocm *ctx = new_ctx(conf("threads", NULL));
	struct thread_arg a[4] = { { 0 } };
	pthread_t th[4];
	int same = 0, okays = 0;

	logbuf[0] = '\0';
	for (int i = 0; i < 4; i++) {
		a[i].ctx = ctx;
		a[i].r = -1;
		if (pthread_create(&th[i], NULL, get_thread, &a[i]) != 0)
			a[i].ctx = NULL;
	}
	for (int i = 0; i < 4; i++) {
		if (a[i].ctx)
			pthread_join(th[i], NULL);
		okays += a[i].r == 0;
		same += a[i].m && a[i].m == a[0].m;
	}
	ok(ctx && okays == 4 && same == 4 && count("compiling source") == 1,
	   "four threads, one new key: one module, one compile (%d ok, %d same, %u compiles)",
	   okays, same, count("compiling source"));
	hanzo_rocm_unref(ctx);
}

/*
 * The host C++ compiler behind a script that holds the compile of any
 * source marked HR_T_HOLD_COMPILE: it says so in DIR/held, then waits
 * until DIR/go exists (at most 300 s) before running c++.
 */
static char *held_compiler(void)
{
	static char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/held-c++", dir);
	f = fopen(path, "w");
	if (!f)
		return NULL;
	fprintf(f, "#!/bin/sh\n"
	        "for a; do\n"
	        "\tif [ -f \"$a\" ] && grep -q HR_T_HOLD_COMPILE \"$a\"; then\n"
	        "\t\t: > '%s/held'\n"
	        "\t\ti=0\n"
	        "\t\twhile [ ! -e '%s/go' ] && [ $i -lt 3000 ]; do sleep 0.1; i=$((i + 1)); done\n"
	        "\tfi\n"
	        "done\n"
	        "exec c++ \"$@\"\n", dir, dir);
	if (fclose(f) != 0 || chmod(path, 0755) < 0)
		return NULL;
	return path;
}

struct held_arg {
	struct hanzo_rocm *ctx;
	const char *name, *text;
	size_t len;
	const char *const *flags;
	struct hanzo_rocm_module *m;
	char *msgs;
	int r, done;
};

static void *held_thread(void *p)
{
	struct held_arg *a = p;

	a->r = hanzo_rocm_module_get(a->ctx, 0, a->name, a->text, a->len, a->flags, &a->m,
	                             &a->msgs);
	__atomic_store_n(&a->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static bool dir_has(const char *file)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return access(path, F_OK) == 0;
}

/* Up to seconds for *done (or, with done NULL, for DIR/file). */
static bool wait_for(const int *done, const char *file, int seconds)
{
	for (int i = 0; i < seconds * 20; i++) {
		if (done ? __atomic_load_n(done, __ATOMIC_ACQUIRE) : dir_has(file))
			return true;
		usleep(50 * 1000);
	}
	return false;
}

/*
 * One context, compiles of different sources side by side: while the
 * compile of source 'held' is held (by its compiler, four threads asking
 * for it and two for a broken held source), source 'fast' compiles and
 * loads.  Once the compiles go on: one compile per key, the four threads
 * have the one module, the two broken ones the error and its diagnostics.
 * Before, one context-wide lock held every other source's compile up for
 * the whole of the slow one.
 */
static void test_concurrent(void)
{
	static const char *const fast_flags[] = { "-DHR_T_FAST=1", NULL };
	static const char broken[] = "// HR_T_HOLD_COMPILE\n"
	                             "extern \"C\" __global__ void broken(int *p)\n"
	                             "{\n\tp[0] = no_such_name;\n}\n";
	char extra[700], *held_src = NULL, *cxx = held_compiler(), go[600];
	struct hanzo_rocm *ctx = NULL;
	struct held_arg a[7] = { { 0 } };
	pthread_t th[7];
	bool started[7] = { false }, fast_first;
	int same = 0, okays = 0, refused = 0;
	FILE *f;

	if (!cxx || asprintf(&held_src, "%.*s\n// HR_T_HOLD_COMPILE\n", (int)src_len, src) < 0) {
		skip(4, "cannot write the held compiler");
		return;
	}
	snprintf(extra, sizeof(extra), "[compiler]\ncxx = %s\n", cxx);
	ctx = new_ctx(conf("concurrent", extra));
	if (!ctx) {
		skip(4, "no context");
		free(held_src);
		return;
	}
	logbuf[0] = '\0';
	for (int i = 0; i < 7; i++) {
		a[i].ctx = ctx;
		a[i].r = -1;
		if (i < 4) {
			a[i].name = "held";
			a[i].text = held_src;
			a[i].len = strlen(held_src);
		} else if (i < 6) {
			a[i].name = "broken";
			a[i].text = broken;
			a[i].len = sizeof(broken) - 1;
		} else {
			a[i].name = "fast";
			a[i].text = src;
			a[i].len = src_len;
			a[i].flags = fast_flags;
			/* Once the held compile runs: before, fast waited behind it. */
			if (!ok(wait_for(NULL, "held", 120), "the held compile started"))
				diag("log:\n%s", logbuf);
		}
		started[i] = pthread_create(&th[i], NULL, held_thread, &a[i]) == 0;
	}
	fast_first = wait_for(&a[6].done, NULL, 120) && !dir_has("go");
	if (!ok(fast_first && a[6].r == 0 && a[6].m,
	        "a second source compiles and loads while the first one's compile is held "
	        "(r=%d, done=%d)", a[6].r, a[6].done))
		diag("log:\n%s", logbuf);
	snprintf(go, sizeof(go), "%s/go", dir);
	f = fopen(go, "w");
	if (f)
		fclose(f);
	for (int i = 0; i < 7; i++) {
		if (started[i])
			pthread_join(th[i], NULL);
		if (i < 4) {
			okays += a[i].r == 0;
			same += a[i].m && a[i].m == a[0].m;
		} else if (i < 6) {
			refused += a[i].r == -HANZO_ROCM_ECOMPILE && a[i].msgs &&
			           strstr(a[i].msgs, "no_such_name");
		}
		free(a[i].msgs);
	}
	if (!ok(okays == 4 && same == 4 && count("compiling source 'held'") == 1,
	        "four threads on the held key: one compile, one module (%d ok, %d same, %u compiles)",
	        okays, same, count("compiling source 'held'")))
		diag("log:\n%s", logbuf);
	ok(refused == 2 && count("compiling source 'broken'") == 1,
	   "two threads on a broken key: one compile, both get its error and diagnostics "
	   "(%d refused, %u compiles)", refused, count("compiling source 'broken'"));
	if (okays == 4)
		test_ops(ctx, 0, a[0].m);
	hanzo_rocm_unref(ctx);
	free(held_src);
}

/* Two processes, one key: the entry lock lets one compile, the other reads. */
static void test_race(void)
{
	const char *flags[] = { "-DHR_T_RACE=1", NULL };
	int go[2], status[2] = { -1, -1 }, compiled = 0, failed = 0;
	pid_t pid[2];
	char *config = conf("race", NULL);

	if (pipe(go) < 0) {
		skip(1, "no pipe");
		return;
	}
	for (int i = 0; i < 2; i++) {
		pid[i] = fork();
		if (pid[i] == 0) {
			struct hanzo_rocm *ctx;
			struct hanzo_rocm_module *m;
			char c;

			close(go[1]);
			logbuf[0] = '\0';
			ctx = new_ctx(config);
			if (!ctx || read(go[0], &c, 1) != 0)
				_exit(100);
			if (hanzo_rocm_module_get(ctx, 0, "binary", src, src_len, flags, &m, NULL) < 0)
				_exit(101);
			_exit((int)count("compiling source"));
		}
	}
	close(go[0]);
	close(go[1]);     /* both start now */
	for (int i = 0; i < 2; i++) {
		if (pid[i] > 0)
			waitpid(pid[i], &status[i], 0);
		if (!WIFEXITED(status[i]) || WEXITSTATUS(status[i]) > 1)
			failed++;
		else
			compiled += WEXITSTATUS(status[i]);
	}
	ok(failed == 0 && compiled == 1, "two processes racing on one key: both load it, "
	   "one compiles (%d compiles, %d failed)", compiled, failed);
}

/* An admin's precompile --source into the system tier; a node that never compiles. */
static void test_system_tier(const char *fixture)
{
	const char *cli = getenv("HR_CLI");
	char cmd[2048];
	struct hanzo_rocm *ctx;
	struct hanzo_rocm_module *m = NULL;
	int r;

	if (!cli) {
		skip(2, "HR_CLI not set");
		return;
	}
	snprintf(cmd, sizeof(cmd), "'%s' -q --config '%s' precompile --source '%s' --name sysbin "
	         "--flags '-DHR_T_SYS=1' --target host-w64 --output '%s/system'", cli,
	         conf("admin", NULL), fixture, dir);
	r = system(cmd);
	ok(r == 0, "precompile --source --name --flags into a system tier (%s)", cmd);
	logbuf[0] = '\0';
	ctx = new_ctx(conf("never", "[cache]\ncompile = never\n[compiler]\ncxx = /nonexistent/c++\n"));
	{
		const char *flags[] = { "-DHR_T_SYS=1", NULL };

		r = ctx ? hanzo_rocm_module_get(ctx, 0, "sysbin", src, src_len, flags, &m, NULL) : -1;
	}
	ok(r == 0 && count("compiling") == 0,
	   "compile = never: the application finds the admin's entry (r=%d)", r);
	if (r == 0) {
		struct hanzo_rocm_module *other;

		r = hanzo_rocm_module_get(ctx, 0, "sysbin", src, src_len, NULL, &other, NULL);
		is_int(r, -ENOENT, "other flags are another key: not there, and never compiled");
	} else {
		diag("log:\n%s", logbuf);
		skip(1, "no module");
	}
	hanzo_rocm_unref(ctx);
}

static int elf_kernels(const void *data, size_t size, char ***names)
{
	char why[160];

	if (hr_elf_check(data, size, "gfx90a", why, sizeof(why)) < 0) {
		diag("%s", why);
		return -ENOEXEC;
	}
	return hr_elf_functions(data, size, names);
}

static bool has_all_ops(char **names)
{
	static const char *const types[] = { "f32", "f64", "u32" };

	for (size_t o = 0; o < HR_ARRAY_SIZE(ops); o++)
		for (size_t t = 0; t < HR_ARRAY_SIZE(types); t++) {
			char n[32];

			snprintf(n, sizeof(n), "b%s_%s", ops[o], types[t]);
			if (!hr_strv_contains(names, n))
				return false;
		}
	return true;
}

/* gfx90a, statically: hipcc, then hipRTC with hipcc out of reach. */
static void test_gfx90a(void)
{
	const char *hipcc = getenv("HIPCC");
	struct hanzo_rocm *ctx;
	char **a = NULL, **b = NULL, *msgs = NULL;
	void *data = NULL;
	size_t size = 0;
	int r;

	if (!hipcc || !*hipcc) {
		skip(4, "no hipcc");
		return;
	}
	ctx = new_ctx(conf("gpu", NULL));
	r = ctx ? hanzo_rocm_source_code_object(ctx, "gfx90a", "binary", src, src_len, NULL,
	                                        &data, &size, &msgs) : -1;
	if (r == 0)
		r = elf_kernels(data, size, &a);
	ok(r == 0 && has_all_ops(a), "gfx90a by hipcc: a valid AMDGPU ELF with every kernel (r=%d)", r);
	if (msgs) {
		diag("%s", msgs);
		free(msgs);
		msgs = NULL;
	}
	free(data);
	hanzo_rocm_unref(ctx);

	logbuf[0] = '\0';
	/* Its own user tier: the key does not name the compiler. */
	{
		char extra[600];

		snprintf(extra, sizeof(extra), "[cache]\nuser_dir = %s/rtc-cache\n[compiler]\n"
		         "hipcc = /nonexistent/hipcc\n", dir);
		ctx = new_ctx(conf("rtc", extra));
	}
	data = NULL;
	r = ctx ? hanzo_rocm_source_code_object(ctx, "gfx90a", "binary", src, src_len, NULL,
	                                        &data, &size, &msgs) : -1;
	if (r == -ENOENT && count("neither hipcc nor hipRTC")) {
		skip(3, "no hipRTC (libamdhip64.so.5 / libhiprtc.so.6)");
		hanzo_rocm_unref(ctx);
		hr_strv_free(a);
		return;
	}
	if (r == 0)
		r = elf_kernels(data, size, &b);
	ok(r == 0 && count("in-process (hipRTC)") == 1,
	   "without hipcc, hipRTC compiles it in-process into a valid AMDGPU ELF (r=%d)", r);
	if (r < 0)
		diag("log:\n%s%s", logbuf, msgs ? msgs : "");
	ok(b && a && hr_strv_len(a) == hr_strv_len(b) && has_all_ops(b),
	   "with the same kernel symbols as hipcc's (%zu and %zu)", a ? hr_strv_len(a) : 0,
	   b ? hr_strv_len(b) : 0);
	free(data);
	data = NULL;
	r = hanzo_rocm_source_code_object(ctx, "gfx90a", "binary", src, src_len, NULL, &data,
	                                  &size, NULL);
	ok(r == 0 && count("in-process (hipRTC)") == 1, "and cached: a second call compiles nothing");
	free(data);
	free(msgs);
	hr_strv_free(a);
	hr_strv_free(b);
	hanzo_rocm_unref(ctx);
}

/*
 * A stock family through both compilers: the affine plugin's embedded source
 * (hr-kernel.h inlined: <stdint.h>, <stddef.h>, the HIP header) built for
 * gfx90a by hipcc and by hipRTC exports the same kernel symbols, each one
 * the family's list names.
 */
static void test_family_hiprtc(void)
{
	const char *top = getenv("top_builddir"), *hipcc = getenv("HIPCC");
	const struct hanzo_rocm_plugin *(*entry)(void);
	const struct hanzo_rocm_plugin *p;
	char path[1024], extra[600], **names[2] = { NULL, NULL };
	void *h;
	int r = 0;

	if (!hipcc || !*hipcc || !top) {
		skip(2, "no hipcc");
		return;
	}
	snprintf(path, sizeof(path), "%s/plugins/.libs/affine.so", top);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	entry = h ? (const struct hanzo_rocm_plugin *(*)(void))dlsym(h, HANZO_ROCM_PLUGIN_ENTRY) : NULL;
	p = entry ? entry() : NULL;
	if (!p) {
		skip(2, "no affine plugin");
		return;
	}
	for (int i = 0; i < 2 && r == 0; i++) {
		struct hanzo_rocm *ctx;
		void *data = NULL;
		size_t size = 0;

		snprintf(extra, sizeof(extra), "[cache]\nuser_dir = %s/fam-%d\n[compiler]\n"
		         "backend = %s\n", dir, i, i ? "hiprtc" : "hipcc");
		ctx = new_ctx(conf("fam", extra));
		r = ctx ? hanzo_rocm_source_code_object(ctx, "gfx90a", "affine", p->source,
		                                        p->source_len, p->flags, &data, &size,
		                                        NULL) : -1;
		if (r == 0)
			r = elf_kernels(data, size, &names[i]);
		free(data);
		hanzo_rocm_unref(ctx);
	}
	if (r == -ENOENT) {
		skip(2, "no hipRTC");
	} else {
		size_t listed = 0;

		for (size_t k = 0; names[0] && names[1] && k < p->n_kernels; k++)
			listed += hr_strv_contains(names[0], p->kernels[k].name) &&
			          hr_strv_contains(names[1], p->kernels[k].name);
		ok(r == 0 && listed == p->n_kernels,
		   "family affine for gfx90a: every listed kernel from hipcc and from hipRTC (%zu of %zu)",
		   listed, p->n_kernels);
		ok(r == 0 && hr_strv_len(names[0]) == hr_strv_len(names[1]),
		   "and the same number of kernel symbols (%zu, %zu)",
		   names[0] ? hr_strv_len(names[0]) : 0, names[1] ? hr_strv_len(names[1]) : 0);
	}
	hr_strv_free(names[0]);
	hr_strv_free(names[1]);
	dlclose(h);
}

/*
 * HR_TEST_SOURCE_GPU=1 (by hand on a GPU machine): device 0 is the GPU; the
 * fixture through nvcc (or hipcc), then through NVRTC/hipRTC with the
 * compiler program made unavailable, each launched with results checked.
 */
static void test_gpu(void)
{
	for (int i = 0; i < 2; i++) {
		struct hanzo_rocm_options o = { .size = sizeof(o), .log_fn = log_capture,
		                                .log_priority = LOG_INFO };
		struct hanzo_rocm *ctx = NULL;
		struct hanzo_rocm_module *m = NULL, *again = NULL;
		const char *target = "?";
		char extra[600], *msgs = NULL;
		int r;

		snprintf(extra, sizeof(extra), "[cache]\nuser_dir = %s/gpu-%d\n%s", dir, i,
		         i ? "[compiler]\nnvcc = /nonexistent/nvcc\nhipcc = /nonexistent/hipcc\n" : "");
		o.config = conf("gpu", extra);
		logbuf[0] = '\0';
		if (hanzo_rocm_new_with_options(&o, &ctx) < 0 || hanzo_rocm_device_count(ctx) < 1) {
			skip(1, "no GPU");
			hanzo_rocm_unref(ctx);
			return;
		}
		hanzo_rocm_device_target(ctx, 0, &target);
		r = hanzo_rocm_module_get(ctx, 0, "binary", src, src_len, NULL, &m, &msgs);
		ok(r == 0, "%s by %s: the binary-ops source compiles and loads (r=%d)", target,
		   i ? "NVRTC/hipRTC" : "nvcc/hipcc", r);
		if (r < 0) {
			diag("log:\n%s%s", logbuf, msgs ? msgs : "");
			free(msgs);
			hanzo_rocm_unref(ctx);
			continue;
		}
		diag("%s", logbuf);
		test_ops(ctx, 0, m);
		r = hanzo_rocm_module_get(ctx, 0, "binary", src, src_len, NULL, &again, NULL);
		ok(r == 0 && again == m && count("compiling source") == 1, "one compile, then lookups");
		hanzo_rocm_unref(ctx);
	}
}

int main(void)
{
	const char *srcdir = getenv("top_srcdir");
	char fixture[1024];
	void *data;

	if (!srcdir || !mkdtemp(dir))
		skip_all("top_srcdir not set (run through make check)");
	snprintf(fixture, sizeof(fixture), "%s/t/fixtures/source/binary.hip", srcdir);
	if (hr_read_file(fixture, 1 << 20, &data, &src_len) < 0)
		skip_all("cannot read the fixture");
	src = data;
	plan_lazy();
	if (getenv("HR_TEST_SOURCE_GPU")) {
		test_gpu();
	} else {
		test_host();
		test_refused();
		test_threads();
		test_concurrent();
		test_race();
		test_system_tier(fixture);
		test_gfx90a();
		test_family_hiprtc();
	}
	free(src);
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			diag("cannot remove %s", dir);
	}
	return done_testing();
}
