/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * End to end on a real GPU through the public API: a family kernel is
 * compiled on a miss into a private user cache, loaded, launched and checked
 * against a float64 CPU reference with a poisoned output; a second context
 * hits the cache (the entry is not rewritten); 16 threads get and launch at
 * once on a fresh context; a corrupted or foreign cache entry is refused and
 * recompiled, never a crash.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sys/stat.h>

#include "../tap.h"
#include "../gpu-test.h"
#include "cache/cache.h"
#include "context.h"
#include "kernel/kernel.h"
#include "runtime/runtime.h"
#include "shared/util.h"

struct hr_layout { uint64_t v[32]; };   /* kernels/hr-kernel.h, by value */

#define N ((size_t)769 * 1024 + 5)      /* odd: exercises the tail */

static char cachedir[4096];
static int have_binary;         /* the binary plugin is built */

static struct hanzo_rocm *new_ctx(void)
{
	struct hanzo_rocm *ctx = NULL;

	return hanzo_rocm_new(&ctx) < 0 ? NULL : ctx;
}

struct bufs {
	float *a, *b, *out;
	double *want;
	uint64_t da, db, dout;
};

static int bufs_init(struct hanzo_rocm *ctx, unsigned dev, struct bufs *x, uint64_t seed)
{
	x->a = malloc(N * 4);
	x->b = malloc(N * 4);
	x->out = malloc(N * 4);
	x->want = malloc(N * sizeof(double));
	gpu_fill(x->a, N, seed, -4, 4);
	gpu_fill(x->b, N, seed + 100, -4, 4);
	if (hr_runtime_alloc(ctx, dev, N * 4, &x->da) < 0 || hr_runtime_alloc(ctx, dev, N * 4, &x->db) < 0 ||
	    hr_runtime_alloc(ctx, dev, N * 4, &x->dout) < 0)
		return -ENOMEM;
	if (hr_runtime_copy_htod(ctx, dev, x->da, x->a, N * 4) < 0 ||
	    hr_runtime_copy_htod(ctx, dev, x->db, x->b, N * 4) < 0)
		return -EIO;
	return 0;
}

static void bufs_free(struct hanzo_rocm *ctx, unsigned dev, struct bufs *x)
{
	hr_runtime_mem_free(ctx, dev, x->da);
	hr_runtime_mem_free(ctx, dev, x->db);
	hr_runtime_mem_free(ctx, dev, x->dout);
	free(x->a); free(x->b); free(x->out); free(x->want);
}

/*
 * Run family/kernel (a u<op>_f32 or b<op>_f32) over the buffers and return
 * the max relative error against the reference; < 0 on a failure.
 */
static double run_op(struct hanzo_rocm *ctx, unsigned dev, const char *family,
                     const char *kernel, struct bufs *x)
{
	struct hanzo_rocm_kernel *k;
	struct hr_layout info;
	size_t numel = N, dims = 0;
	unsigned grid[3] = { (unsigned)((N + 255) / 256), 1, 1 }, block[3] = { 256, 1, 1 };
	void *args[6];
	bool binary = kernel[0] == 'b';
	int r;

	memset(&info, 0, sizeof(info));
	for (size_t i = 0; i < N; i++) {
		double a = x->a[i], b = x->b[i];

		x->want[i] = strcmp(kernel, "uexp_f32") == 0 ? exp(a) :
		             strcmp(kernel, "ucopy_f32") == 0 ? a :
		             strcmp(kernel, "badd_f32") == 0 ? a + b :
		             strcmp(kernel, "bmul_f32") == 0 ? a * b : NAN;
	}
	memset(x->out, 0xff, N * 4);            /* NaN poison, on the device too */
	if (hr_runtime_copy_htod(ctx, dev, x->dout, x->out, N * 4) < 0)
		return -1;
	r = hanzo_rocm_kernel_get(ctx, dev, family, kernel, &k);
	if (r < 0) {
		diag("kernel_get %s/%s: %s", family, kernel, hanzo_rocm_strerror(r));
		return -1;
	}
	args[0] = &numel; args[1] = &dims; args[2] = &info;
	args[3] = &x->da;
	args[4] = binary ? (void *)&x->db : (void *)&x->dout;
	args[5] = &x->dout;
	r = hanzo_rocm_kernel_launch(k, grid, block, 0, NULL, args);
	if (r < 0 || hr_runtime_synchronize(ctx, dev, NULL) < 0 ||
	    hr_runtime_copy_dtoh(ctx, dev, x->out, x->dout, N * 4) < 0) {
		diag("launch %s: %s", kernel, hanzo_rocm_strerror(r));
		return -1;
	}
	return gpu_max_rel(x->out, x->want, N);
}

struct worker {
	struct hanzo_rocm *ctx;
	unsigned dev;
	int seed, failures;
	struct hanzo_rocm_kernel *k;
};

static void *worker(void *arg)
{
	static const char *const ops[][2] = {
		{ "unary", "uexp_f32" }, { "unary", "ucopy_f32" }, { "binary", "badd_f32" },
	};
	struct worker *w = arg;
	struct bufs x;

	if (bufs_init(w->ctx, w->dev, &x, (uint64_t)w->seed) < 0) {
		w->failures++;
		return NULL;
	}
	for (int i = 0; i < 6; i++) {
		const char *const *op = ops[(i + w->seed) % (have_binary ? 3 : 2)];
		double e = run_op(w->ctx, w->dev, op[0], op[1], &x);

		if (e < 0 || e > 1e-5)
			w->failures++;
	}
	hanzo_rocm_kernel_get(w->ctx, w->dev, "unary", "uexp_f32", &w->k);
	bufs_free(w->ctx, w->dev, &x);
	return NULL;
}

static int entry_stat(const char *target, struct stat *st)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/cache/%s/unary.hrco", cachedir, target);
	return stat(path, st);
}

int main(void)
{
	struct hanzo_rocm *ctx, *c2;
	struct hanzo_rocm_kernel *k1 = NULL, *k2 = NULL;
	struct hr_kernel_stats s0, s1;
	const char *target, *nvcc = gpu_nvcc(), *plugins = getenv("HR_PLUGINS");
	struct stat st1, st2;
	struct worker w[16];
	pthread_t th[16];
	struct bufs x;
	char tgt[64], conf[4200], entry[4200], tmpl[] = "/tmp/hr-gpu-launch.XXXXXX";
	unsigned dev;
	double e;
	FILE *f;
	int fails = 0;

	ctx = new_ctx();
	dev = gpu_first_device(ctx, &target);
	if (hanzo_rocm_device_platform(ctx, dev) == HANZO_ROCM_PLATFORM_NVIDIA && !nvcc)
		skip_all("no nvcc to compile on a miss");
	snprintf(tgt, sizeof(tgt), "%s", target);
	target = tgt;           /* the string is owned by ctx */
	hanzo_rocm_unref(ctx);
	if (!mkdtemp(tmpl))
		return 1;
	snprintf(cachedir, sizeof(cachedir), "%s", tmpl);
	snprintf(conf, sizeof(conf), "%s/hanzo-rocm.conf", cachedir);
	/* Private config, cache and the plugins of this build. */
	f = fopen(conf, "w");
	fprintf(f, "[compiler]\n");
	if (nvcc)
		fprintf(f, "nvcc = %s\n", nvcc);
	fprintf(f, "[cache]\nuser_dir = %s/cache\nsystem_dir = %s/system\n", cachedir, cachedir);
	fclose(f);
	setenv("HANZO_ROCM_CONF", conf, 1);
	if (plugins) {
		setenv("HANZO_ROCM_PLUGIN_PATH", plugins, 1);
		snprintf(entry, sizeof(entry), "%s/binary.so", plugins);
		have_binary = access(entry, R_OK) == 0;
	}

	/* 1. Compile on a miss, launch, compare. */
	ctx = new_ctx();
	if (!ok(ctx != NULL, "context with a private cache (%s)", cachedir))
		return done_testing();
	diag("device %u: %s", dev, target);
	if (!ok(bufs_init(ctx, dev, &x, 7) == 0, "device buffers"))
		return done_testing();
	e = run_op(ctx, dev, "unary", "ucopy_f32", &x);
	ok(e == 0, "ucopy_f32 compiled on a miss, exact copy (err %g)", e);
	e = run_op(ctx, dev, "unary", "uexp_f32", &x);
	ok(e >= 0 && e <= 1e-5, "uexp_f32 vs float64 exp: max rel %.3g <= 1e-5", e);
	if (have_binary) {
		e = run_op(ctx, dev, "binary", "badd_f32", &x);
		ok(e >= 0 && e <= 1e-6, "badd_f32 vs float64: max rel %.3g", e);
	} else {
		skip(1, "binary plugin not built");
	}
	is_int(entry_stat(target, &st1), 0, "the user tier has %s/unary.hrco", target);
	hr_kernel_stats(ctx, &s0);
	is_int(hanzo_rocm_kernel_get(ctx, dev, "unary", "uexp_f32", &k1), 0, "get again");
	is_int(hanzo_rocm_kernel_get(ctx, dev, "unary", "uexp_f32", &k2), 0, "and again");
	hr_kernel_stats(ctx, &s1);
	ok(k1 == k2 && s1.misses == s0.misses, "hits: same handle, no miss");
	is_int(s1.modules, 1 + have_binary, "one module per family");
	is_int(hanzo_rocm_kernel_get(ctx, dev, "unary", "no_such_kernel", &k1), -ENOENT,
	       "an unknown kernel of a known family: -ENOENT");
	ok(k1 == NULL, "no handle for it");
	bufs_free(ctx, dev, &x);
	hanzo_rocm_unref(ctx);

	/* 2. A second context hits the on-disk cache: nothing is rewritten. */
	c2 = new_ctx();
	bufs_init(c2, dev, &x, 8);
	e = run_op(c2, dev, "unary", "uexp_f32", &x);
	ok(e >= 0 && e <= 1e-5, "second context: uexp_f32 correct (%.3g)", e);
	is_int(entry_stat(target, &st2), 0, "entry still there");
	ok(st1.st_ino == st2.st_ino && st1.st_mtime == st2.st_mtime,
	   "the cache entry was read, not recompiled");
	bufs_free(c2, dev, &x);
	hanzo_rocm_unref(c2);

	/* 3. 16 threads race on the misses of a fresh context, then launch. */
	c2 = new_ctx();
	for (int i = 0; i < 16; i++) {
		w[i] = (struct worker){ .ctx = c2, .dev = dev, .seed = i };
		pthread_create(&th[i], NULL, worker, &w[i]);
	}
	for (int i = 0; i < 16; i++) {
		pthread_join(th[i], NULL);
		fails += w[i].failures + (w[i].k != w[0].k);
	}
	is_int(fails, 0, "16 threads x 6 get+launch+check: all correct, one handle per kernel");
	hr_kernel_stats(c2, &s1);
	is_int(s1.modules, 1 + have_binary, "still one module per family");
	hanzo_rocm_unref(c2);

	/* 4. A corrupted entry is a miss: recompiled, not a crash. */
	snprintf(entry, sizeof(entry), "%s/cache/%s/unary.hrco", cachedir, target);
	f = fopen(entry, "r+");
	if (f) {
		fseek(f, 200, SEEK_SET);
		fputs("garbage garbage garbage garbage", f);
		fclose(f);
	}
	c2 = new_ctx();
	bufs_init(c2, dev, &x, 9);
	e = run_op(c2, dev, "unary", "uexp_f32", &x);
	ok(e >= 0 && e <= 1e-5, "corrupted entry: recompiled, uexp_f32 correct (%.3g)", e);
	bufs_free(c2, dev, &x);
	hanzo_rocm_unref(c2);

	/* 5. A foreign code object (AMDGPU ELF header) as the entry's payload. */
	{
		struct hr_entry ent;
		unsigned char foreign[4096] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
		int r;

		foreign[16] = 2;
		foreign[18] = 224;              /* EM_AMDGPU */
		c2 = new_ctx();
		r = hr_entry_read(c2, entry, NULL, &ent);
		if (r == 0) {
			snprintf(conf, sizeof(conf), "%s/cache", cachedir);
			r = hr_entry_write(c2, conf, "unary", target, &ent.key, ent.compiler,
			                   foreign, sizeof(foreign));
			hr_entry_release(&ent);
			diag("planting a foreign payload: %s", r < 0 ? hanzo_rocm_strerror(r) : "written");
			if (r < 0) {                /* the cache refuses to write it: plant raw */
				f = fopen(entry, "w");
				if (f) {
					fwrite(foreign, 1, sizeof(foreign), f);
					fclose(f);
				}
			}
		}
		bufs_init(c2, dev, &x, 10);
		e = run_op(c2, dev, "unary", "ucopy_f32", &x);
		ok(e == 0, "foreign entry: refused, recompiled, ucopy_f32 exact");
		hr_kernel_stats(c2, &s1);
		diag("driver refusals: %llu", (unsigned long long)s1.refused);
		bufs_free(c2, dev, &x);
		hanzo_rocm_unref(c2);
	}

	/*
	 * 6. An entry the cache accepts (machine, sm, checksum and key all
	 * right) but the driver refuses: e_flags bits 16..23 set (the CUDA 13
	 * driver 580 answers an error; an odd ABI version it accepts).  The
	 * runtime must skip that tier and recompile.
	 */
	c2 = new_ctx();
	{
		struct hr_entry ent;
		uint8_t *bad = NULL;
		int r = hr_entry_read(c2, entry, NULL, &ent);

		if (r == 0 && (bad = malloc(ent.payload_size))) {
			memcpy(bad, ent.payload, ent.payload_size);
			bad[50] = 0xff;         /* e_flags bits 16..23 */
			snprintf(conf, sizeof(conf), "%s/cache", cachedir);
			r = hr_entry_write(c2, conf, "unary", target, &ent.key, ent.compiler,
			                   bad, ent.payload_size);
			hr_entry_release(&ent);
		}
		free(bad);
		if (r == 0 && hanzo_rocm_device_platform(c2, dev) == HANZO_ROCM_PLATFORM_NVIDIA) {
			bufs_init(c2, dev, &x, 11);
			e = run_op(c2, dev, "unary", "uexp_f32", &x);
			hr_kernel_stats(c2, &s1);
			ok(s1.refused == 1, "the driver refused the planted entry (%llu refusals)",
			   (unsigned long long)s1.refused);
			ok(e >= 0 && e <= 1e-5, "then recompiled: uexp_f32 correct (%.3g)", e);
			bufs_free(c2, dev, &x);
		} else {
			skip(2, "cannot plant an entry (not CUDA, or the cache refuses it)");
		}
	}
	hanzo_rocm_unref(c2);
	return done_testing();
}
