/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Two GPUs or more of one platform in one process (doc/DESIGN.md §9; `make
 * check-gpu`, skipped with fewer than two):
 *   - the library's devices are the runtime's, in its order, with the
 *     visible-devices variables too (the test re-runs itself with
 *     CUDA_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES set
 *     and compares PCI addresses: runtime's device i, library's device i);
 *   - kernel_get per device: own handles (first get of each device timed);
 *   - memory of device 1 is device 1's (cuPointerGetAttribute /
 *     hipPointerGetAttribute DEVICE_ORDINAL);
 *   - a launch on device 1 with device 1's stream while another thread
 *     launches on device 0, every result checked;
 *   - a handle of device 0 with a stream of device 1: -EXDEV, not a crash;
 *     the check's cost (cuStreamGetCtx per launch) measured;
 *   - a storm: 8 threads over 2 devices (6 fixed, 2 switching at every
 *     launch) for HR_MULTI_STORM_SECONDS (default 60), every element of
 *     every result checked.
 * Timings are printed as diagnostics (doc/BENCHMARKS.md), never asserted.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../tap.h"
#include "../gpu-test.h"
#include "devices/devices.h"
#include "runtime/runtime.h"

#define N ((size_t)1 << 20)     /* floats per buffer */

static struct hanzo_rocm *ctx;
static unsigned dev0, dev1;     /* the library's numbers of two GPUs of one platform */
static int nv;                  /* NVIDIA (else AMD) */

/* ---- the runtime itself, as a framework uses it --------------------------- */
static struct {
	void *dl;
	/* CUDA */
	int (*cuDeviceGetCount)(int *);
	int (*cuDeviceGet)(int *, int);
	int (*cuDeviceGetAttribute)(int *, int, int);
	int (*cuDevicePrimaryCtxRetain)(void **, int);
	int (*cuCtxPushCurrent)(void *);
	int (*cuCtxPopCurrent)(void **);
	int (*cuStreamCreate)(void **, unsigned);
	int (*cuStreamDestroy)(void *);
	int (*cuStreamGetCtx)(void *, void **);
	int (*cuPointerGetAttribute)(void *, int, unsigned long long);
	/* HIP */
	int (*hipGetDeviceCount)(int *);
	int (*hipSetDevice)(int);
	int (*hipGetDevice)(int *);
	int (*hipStreamCreate)(void **);
	int (*hipStreamDestroy)(void *);
	int (*hipDeviceGetPCIBusId)(char *, int, int);
	int (*hipPointerGetAttribute)(void *, int, void *);
} rt;

#define SYM(name, sym) (*(void **)&rt.name = dlsym(rt.dl, sym))

static int rt_open(void)
{
	if (nv) {
		rt.dl = dlopen("libcuda.so.1", RTLD_NOW);
		if (!rt.dl)
			return -1;
		SYM(cuPointerGetAttribute, "cuPointerGetAttribute");
		SYM(cuStreamGetCtx, "cuStreamGetCtx");
		return SYM(cuDeviceGetCount, "cuDeviceGetCount") && SYM(cuDeviceGet, "cuDeviceGet") &&
		       SYM(cuDeviceGetAttribute, "cuDeviceGetAttribute") &&
		       SYM(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
		       SYM(cuCtxPushCurrent, "cuCtxPushCurrent_v2") &&
		       SYM(cuCtxPopCurrent, "cuCtxPopCurrent_v2") &&
		       SYM(cuStreamCreate, "cuStreamCreate") &&
		       SYM(cuStreamDestroy, "cuStreamDestroy_v2") ? 0 : -1;
	}
	rt.dl = dlopen("libamdhip64.so.6", RTLD_NOW);
	if (!rt.dl)
		rt.dl = dlopen("libamdhip64.so.5", RTLD_NOW);
	if (!rt.dl)
		return -1;
	SYM(hipPointerGetAttribute, "hipPointerGetAttribute");
	return SYM(hipGetDeviceCount, "hipGetDeviceCount") && SYM(hipSetDevice, "hipSetDevice") &&
	       SYM(hipGetDevice, "hipGetDevice") && SYM(hipStreamCreate, "hipStreamCreate") &&
	       SYM(hipStreamDestroy, "hipStreamDestroy") &&
	       SYM(hipDeviceGetPCIBusId, "hipDeviceGetPCIBusId") ? 0 : -1;
}

static int rt_count(void)
{
	int n = -1;

	if (nv ? rt.cuDeviceGetCount(&n) : rt.hipGetDeviceCount(&n))
		return -1;
	return n;
}

/* The runtime's PCI address of its device ordinal, "dddd:bb:dd.f". */
static int rt_pci(int ordinal, char *out, size_t size)
{
	if (nv) {
		int d, dom = 0, bus = 0, slot = 0;

		if (rt.cuDeviceGet(&d, ordinal) || rt.cuDeviceGetAttribute(&dom, 50, d) ||
		    rt.cuDeviceGetAttribute(&bus, 33, d) || rt.cuDeviceGetAttribute(&slot, 34, d))
			return -1;
		snprintf(out, size, "%04x:%02x:%02x.0", dom, bus, slot);
		return 0;
	}
	if (rt.hipDeviceGetPCIBusId(out, (int)size, ordinal))
		return -1;
	for (char *c = out; *c; c++)
		*c = (char)(*c >= 'A' && *c <= 'F' ? *c - 'A' + 'a' : *c);
	return 0;
}

/* The library's idea of its device's PCI address (AMD: KFD's location_id and domain). */
static int lib_pci(const struct hr_device *d, char *out, size_t size)
{
	char path[128], line[256];
	unsigned long loc = ~0ul, dom = 0;
	FILE *f;

	if (d->platform == HR_PLATFORM_NVIDIA)
		return rt_pci(d->ordinal, out, size);
	snprintf(path, sizeof(path), "/sys/class/kfd/kfd/topology/nodes/%u/properties",
	         (unsigned)d->kfd_node);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "location_id %lu", &loc);
		sscanf(line, "domain %lu", &dom);
	}
	fclose(f);
	if (loc == ~0ul)
		return -1;
	snprintf(out, size, "%04lx:%02lx:%02lx.%lx", dom, (loc >> 8) & 0xff, (loc >> 3) & 0x1f, loc & 7);
	return 0;
}

/* A stream on the runtime's device ordinal, made as a framework makes it. */
static void *rt_stream(int ordinal)
{
	void *s = NULL;

	if (nv) {
		void *c = NULL, *prev;

		if (rt.cuDevicePrimaryCtxRetain(&c, ordinal) || rt.cuCtxPushCurrent(c))
			return NULL;
		/* Blocking (0): ordered after the library's synchronous copies
		 * on the legacy default stream. */
		if (rt.cuStreamCreate(&s, 0))
			s = NULL;
		rt.cuCtxPopCurrent(&prev);
		return s;
	}
	{
		int prev = 0;

		rt.hipGetDevice(&prev);
		if (rt.hipSetDevice(ordinal) || rt.hipStreamCreate(&s))
			s = NULL;
		rt.hipSetDevice(prev);
	}
	return s;
}

static void rt_stream_destroy(void *s)
{
	if (s)
		nv ? rt.cuStreamDestroy(s) : rt.hipStreamDestroy(s);
}

/* CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9; HIP mirrors it (HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL). */
static int pointer_ordinal(uint64_t p)
{
	int ord = -1;

	if (nv)
		return rt.cuPointerGetAttribute && rt.cuPointerGetAttribute(&ord, 9, p) == 0 ? ord : -2;
	return rt.hipPointerGetAttribute &&
	       rt.hipPointerGetAttribute(&ord, 9, (void *)(uintptr_t)p) == 0 ? ord : -2;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- the visible-devices variables against the runtime's own view -------- */

/* Child: library device i and runtime device i at the same PCI address, same count. */
static int child(void)
{
	const struct hr_device *d;
	size_t n;
	int want = 0, bad = 0, count;

	if (hanzo_rocm_new(&ctx) < 0 || hr_devices_get(ctx, &d, &n) < 0)
		return 3;
	for (size_t i = 0; i < n; i++)
		want += d[i].platform == (nv ? HR_PLATFORM_NVIDIA : HR_PLATFORM_AMD);
	if (rt_open() < 0)
		return 3;
	count = rt_count();
	printf("count lib=%d runtime=%d\n", want, count);
	bad |= count != want;
	for (size_t i = 0, k = 0; i < n; i++) {
		char a[64] = "?", b[64] = "?";

		if (d[i].platform != (nv ? HR_PLATFORM_NVIDIA : HR_PLATFORM_AMD))
			continue;
		lib_pci(&d[i], a, sizeof(a));
		rt_pci((int)k, b, sizeof(b));
		printf("device %zu lib=%s runtime=%s ordinal=%d\n", k, a, b, d[i].ordinal);
		bad |= strcmp(a, b) != 0 || d[i].ordinal != (int)k;
		k++;
	}
	hanzo_rocm_unref(ctx);
	return bad;
}

/* Run this test as a child with one variable set; its first device's PCI address. */
static void visible(const char *self, const char *var, const char *val, int want_count,
                    const char *want_first)
{
	char out[4096] = "", cmd[256];
	int fd[2], st = 0;
	ssize_t k, len = 0;
	pid_t pid;
	const char *first;

	if (pipe(fd) < 0)
		return;
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		setenv(var, val, 1);
		execl(self, self, "child", nv ? "nvidia" : "amd", (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	while ((k = read(fd[0], out + len, sizeof(out) - 1 - (size_t)len)) > 0)
		len += k;
	close(fd[0]);
	waitpid(pid, &st, 0);
	out[len] = 0;
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s=%s: library device i is the runtime's device i", var, val);
	snprintf(cmd, sizeof(cmd), "count lib=%d runtime=%d\n", want_count, want_count);
	ok(strncmp(out, cmd, strlen(cmd)) == 0, "%s=%s: %d devices", var, val, want_count);
	first = strstr(out, "device 0 lib=");
	ok(first && strncmp(first + 13, want_first, strlen(want_first)) == 0,
	   "%s=%s: device 0 is %s", var, val, want_first);
	if (tap_failed)
		diag("child:\n%s", out);
}

/* ---- launches ------------------------------------------------------------ */

struct job {
	unsigned dev[2];                /* library devices, alternated each launch */
	struct hanzo_rocm_kernel *k[2];
	void *stream[2];
	uint64_t x[2], y[2];
	unsigned id;
	double until;                   /* seconds of now(); 0: iters launches */
	unsigned iters;
	unsigned long launches, bad;
	int err;
};

static void *job_run(void *arg)
{
	struct job *j = arg;
	float *x = malloc(N * sizeof(float)), *y = malloc(N * sizeof(float));
	size_t n = N, ndims = 0;
	struct hanzo_rocm_layout info;
	int r = 0;

	if (!x || !y) {
		j->err = -ENOMEM;
		goto out;
	}
	hanzo_rocm_layout_init(&info, 1, &n, 1, NULL);
	for (unsigned it = 0; r == 0; it++) {
		unsigned s = it & 1;
		float mul = (float)(j->id % 7 + 2), add = (float)(it % 1000);
		void *args[] = { &n, &ndims, &info, &j->x[s], &j->y[s], &mul, &add };

		if (j->until ? now() >= j->until : it >= j->iters)
			break;
		for (size_t i = 0; i < N; i++)
			x[i] = (float)((i * 13 + it + j->id) % 1024);
		r = hr_runtime_copy_htod(ctx, j->dev[s], j->x[s], x, N * sizeof(float));
		if (r == 0) {
			memset(y, 0xff, N * sizeof(float));    /* poison: NaN */
			r = hanzo_rocm_kernel_launch_work(j->k[s], N, 1, j->stream[s], args);
		}
		if (r == 0)
			r = hr_runtime_synchronize(ctx, j->dev[s], j->stream[s]);
		if (r == 0)
			r = hr_runtime_copy_dtoh(ctx, j->dev[s], y, j->y[s], N * sizeof(float));
		if (r == 0) {
			for (size_t i = 0; i < N; i++)
				j->bad += y[i] != x[i] * mul + add;
			j->launches++;
		}
	}
	j->err = r;
out:
	free(x);
	free(y);
	return NULL;
}

static int job_init(struct job *j, unsigned id, unsigned da, unsigned db,
                    struct hanzo_rocm_kernel *const *kern, void *const *streams)
{
	*j = (struct job){ .dev = { da, db }, .id = id };
	for (int s = 0; s < 2; s++) {
		unsigned d = j->dev[s], which = d == dev0 ? 0 : 1;

		j->k[s] = kern[which];
		j->stream[s] = streams[which];
		if (hr_runtime_alloc(ctx, d, N * sizeof(float), &j->x[s]) < 0 ||
		    hr_runtime_alloc(ctx, d, N * sizeof(float), &j->y[s]) < 0)
			return -ENOMEM;
	}
	return 0;
}

static void job_free(struct job *j)
{
	for (int s = 0; s < 2; s++) {
		if (j->x[s])
			hr_runtime_mem_free(ctx, j->dev[s], j->x[s]);
		if (j->y[s])
			hr_runtime_mem_free(ctx, j->dev[s], j->y[s]);
	}
}

int main(int argc, char **argv)
{
	const char *nvcc = gpu_nvcc(), *plugins = getenv("HR_PLUGINS"), *secs = getenv("HR_MULTI_STORM_SECONDS");
	char tmpl[] = "/tmp/hr-gpu-multi.XXXXXX", conf[4200], pci[2][64];
	const struct hr_device *d;
	struct hanzo_rocm_kernel *k[2] = { NULL }, *again = NULL;
	void *stream[2] = { NULL };
	struct job jobs[8];
	pthread_t th[8];
	size_t n;
	int count[3] = { 0 }, plat;
	double t, storm = secs && atof(secs) > 0 ? atof(secs) : 60;
	FILE *f;

	if (argc == 3 && strcmp(argv[1], "child") == 0) {
		nv = strcmp(argv[2], "nvidia") == 0;
		return child();
	}
	if (!mkdtemp(tmpl))
		return 1;
	snprintf(conf, sizeof(conf), "%s/hanzo-rocm.conf", tmpl);
	f = fopen(conf, "w");
	if (!f)
		return 1;
	fprintf(f, "[compiler]\n");
	if (nvcc)
		fprintf(f, "nvcc = %s\n", nvcc);
	fprintf(f, "[cache]\nuser_dir = %s/cache\nsystem_dir = %s/system\n", tmpl, tmpl);
	fclose(f);
	setenv("HANZO_ROCM_CONF", conf, 1);
	if (plugins)
		setenv("HANZO_ROCM_PLUGIN_PATH", plugins, 1);
	if (hanzo_rocm_new(&ctx) < 0 || hr_devices_get(ctx, &d, &n) < 0)
		skip_all("no context");
	for (size_t i = 0; i < n; i++)
		if (d[i].platform == HR_PLATFORM_AMD || d[i].platform == HR_PLATFORM_NVIDIA)
			count[d[i].platform]++;
	plat = count[HR_PLATFORM_NVIDIA] >= 2 ? HR_PLATFORM_NVIDIA :
	       count[HR_PLATFORM_AMD] >= 2 ? HR_PLATFORM_AMD : 0;
	if (!plat) {
		char why[96];

		snprintf(why, sizeof(why), "fewer than two GPUs of one platform (AMD %d, NVIDIA %d)",
		         count[HR_PLATFORM_AMD], count[HR_PLATFORM_NVIDIA]);
		skip_all(why);
	}
	nv = plat == HR_PLATFORM_NVIDIA;
	if (nv && !nvcc)
		skip_all("no nvcc to compile on a miss");
	dev0 = dev1 = (unsigned)n;
	for (size_t i = 0; i < n; i++)
		if ((int)d[i].platform == plat) {
			if (dev0 == n)
				dev0 = (unsigned)i;
			else if (dev1 == n)
				dev1 = (unsigned)i;
		}
	if (!ok(rt_open() == 0, "the %s runtime opened", nv ? "CUDA" : "HIP"))
		return done_testing();

	/* 1. The same devices, in the same order, as the runtime. */
	is_int(rt_count(), count[plat], "the runtime counts the library's %d devices", count[plat]);
	ok(lib_pci(&d[dev0], pci[0], sizeof(pci[0])) == 0 && lib_pci(&d[dev1], pci[1], sizeof(pci[1])) == 0,
	   "PCI addresses: device %u %s, device %u %s", dev0, pci[0], dev1, pci[1]);
	if (nv) {
		visible(argv[0], "CUDA_VISIBLE_DEVICES", "1,0", 2, pci[1]);
		visible(argv[0], "CUDA_VISIBLE_DEVICES", "1", 1, pci[1]);
	} else {
		visible(argv[0], "ROCR_VISIBLE_DEVICES", "1,0", 2, pci[1]);
		visible(argv[0], "HIP_VISIBLE_DEVICES", "1", 1, pci[1]);
		visible(argv[0], "GPU_DEVICE_ORDINAL", "1,0", 2, pci[1]);
	}

	/* 2. Handles per device; the first get of each timed. */
	for (int i = 0; i < 2; i++) {
		unsigned dv = i ? dev1 : dev0;

		t = now();
		ok(hanzo_rocm_kernel_get(ctx, dv, "affine", "affine_f32", &k[i]) == 0,
		   "kernel_get affine_f32 on device %u", dv);
		diag("first kernel_get on device %u: %.1f ms (%s)", dv, (now() - t) * 1e3,
		     i ? "cache hit from device 0's compile, module load" : "compile on a miss and load");
		t = now();
		hanzo_rocm_kernel_get(ctx, dv, "affine", "affine_f32", &again);
		diag("second kernel_get on device %u: %.2f us", dv, (now() - t) * 1e6);
	}
	ok(k[0] && k[1] && k[0] != k[1], "each device its own handle");
	if (!k[0] || !k[1])
		return done_testing();
	stream[0] = rt_stream(d[dev0].ordinal);
	stream[1] = rt_stream(d[dev1].ordinal);
	ok(stream[0] && stream[1], "a stream per device");

	/* 3. Memory and launches per device, concurrently. */
	{
		struct job a, b;

		ok(job_init(&a, 1, dev0, dev0, k, stream) == 0 && job_init(&b, 2, dev1, dev1, k, stream) == 0,
		   "buffers on both devices");
		is_int(pointer_ordinal(b.x[0]), d[dev1].ordinal, "device %u's buffer is on device %u", dev1, dev1);
		is_int(pointer_ordinal(a.x[0]), d[dev0].ordinal, "device %u's buffer is on device %u", dev0, dev0);
		a.iters = b.iters = 20;
		pthread_create(&th[0], NULL, job_run, &a);
		pthread_create(&th[1], NULL, job_run, &b);
		pthread_join(th[0], NULL);
		pthread_join(th[1], NULL);
		ok(a.err == 0 && a.bad == 0 && a.launches == 20 && b.err == 0 && b.bad == 0 && b.launches == 20,
		   "device %u with its stream while device %u runs: 2 x 20 launches, every result right "
		   "(errors %d %d, wrong %lu %lu)", dev1, dev0, a.err, b.err, a.bad, b.bad);

		/* 4. Wrong stream. */
		{
			size_t nn = N, ndims = 0;
			float mul = 1, add = 0;
			struct hanzo_rocm_layout info;
			void *args[] = { &nn, &ndims, &info, &a.x[0], &a.y[0], &mul, &add };

			hanzo_rocm_layout_init(&info, 1, &nn, 1, NULL);
			is_int(hanzo_rocm_kernel_launch_work(k[0], N, 1, stream[1], args), -EXDEV,
			       "device %u's handle with device %u's stream: -EXDEV", dev0, dev1);
			is_int(hr_runtime_synchronize(ctx, dev0, NULL), 0, "device %u still works", dev0);
			/* The check's cost: launches with the default stream (no check) vs a stream. */
			nn = 4096;
			hanzo_rocm_layout_init(&info, 1, &nn, 1, NULL);
			for (int pass = 0; pass < 2; pass++) {
				void *s = pass ? stream[0] : NULL;
				int r = 0;

				t = now();
				for (int i = 0; i < 2000 && r == 0; i++)
					r = hanzo_rocm_kernel_launch_work(k[0], nn, 1, s, args);
				t = now() - t;
				hr_runtime_synchronize(ctx, dev0, s);
				diag("launch_work, %s: %.2f us per launch (r=%d)", pass ? "a stream (checked)" :
				     "default stream (unchecked)", t / 2000 * 1e6, r);
			}
			if (nv && rt.cuStreamGetCtx) {
				void *c;

				t = now();
				for (int i = 0; i < 100000; i++)
					rt.cuStreamGetCtx(stream[0], &c);
				diag("cuStreamGetCtx: %.1f ns per call", (now() - t) / 100000 * 1e9);
			}
		}
		job_free(&a);
		job_free(&b);
	}

	/* 5. The storm. */
	{
		int errs = 0;
		unsigned long launches = 0, bad = 0, per[2] = { 0 };
		double until = now() + storm;
		int made = 0;

		for (unsigned i = 0; i < 8; i++) {
			unsigned da = i % 2 ? dev1 : dev0, db = i >= 6 ? (i % 2 ? dev0 : dev1) : da;

			if (job_init(&jobs[i], i, da, db, k, stream) < 0)
				break;
			jobs[i].until = until;
			made++;
		}
		ok(made == 8, "8 threads' buffers");
		for (int i = 0; i < made; i++)
			pthread_create(&th[i], NULL, job_run, &jobs[i]);
		for (int i = 0; i < made; i++) {
			pthread_join(th[i], NULL);
			errs += jobs[i].err != 0;
			bad += jobs[i].bad;
			launches += jobs[i].launches;
			per[jobs[i].dev[0] == dev1] += jobs[i].launches;
			if (jobs[i].err)
				diag("thread %d: %s", i, hanzo_rocm_strerror(jobs[i].err));
			job_free(&jobs[i]);
		}
		ok(errs == 0 && bad == 0 && launches > 0,
		   "storm: 8 threads x 2 devices for %.0f s: %lu launches of %zu elements, %d errors, %lu wrong",
		   storm, launches, (size_t)N, errs, bad);
		diag("storm: %lu launches (threads starting on device %u: %lu, on %u: %lu), %.1f per second",
		     launches, dev0, per[0], dev1, per[1], (double)launches / storm);
	}
	rt_stream_destroy(stream[0]);
	rt_stream_destroy(stream[1]);
	hanzo_rocm_unref(ctx);
	snprintf(conf, sizeof(conf), "rm -rf '%s'", tmpl);
	if (system(conf) != 0)
		diag("could not remove %s", tmpl);
	return done_testing();
}
