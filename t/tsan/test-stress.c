// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One context shared by 8 threads on the host targets (host-w64 and
 * host-w32: two devices; threads 6 and 7 switch devices at every
 * iteration): every thread gets its kernel handles itself (racing on the
 * first load, the plan and the code-object lookup) and launches by work
 * N times (HR_STRESS_ITERS, default 40) on its own buffers, a sum over rows
 * (barriers, shared memory) and an affine map, each result checked.  Run
 * by `make check`, and under ThreadSanitizer by `make check-tsan` (issue
 * 30), where any report fails the test (TSAN_OPTIONS halt_on_error=1,
 * exitcode 66).
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "hanzo-rocm.h"
#include "runtime/runtime.h"
#include "../tap.h"

enum { THREADS = 8, ROWS = 3 };

static struct hanzo_rocm *ctx;
static unsigned iters = 40;
static char logbuf[8192];
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((format(printf, 6, 0)))
static void log_capture(void *data, int prio, const char *file, int line,
                        const char *fn, const char *fmt, va_list ap)
{
	size_t l;

	(void)data;
	(void)prio;
	(void)file;
	(void)line;
	(void)fn;
	pthread_mutex_lock(&log_lock);
	l = strlen(logbuf);
	if (l + 2 < sizeof(logbuf))
		vsnprintf(logbuf + l, sizeof(logbuf) - l, fmt, ap);
	pthread_mutex_unlock(&log_lock);
}

struct worker {
	unsigned id, dev[2];    /* devices of even and odd iterations (the same: a fixed thread) */
	int r;                  /* the first error */
	unsigned bad;           /* wrong results */
	unsigned done;          /* launches checked */
	struct hanzo_rocm_kernel *ka[2];        /* the handles it got, per slot */
};

static void *work(void *arg)
{
	struct worker *w = arg;
	struct hanzo_rocm_kernel *ks[2] = { NULL, NULL };
	struct hanzo_rocm_layout info;
	size_t cap = ROWS * (2048 + iters * 7 + THREADS);
	float *x = malloc(cap * sizeof(float)), *y = malloc(cap * sizeof(float));
	uint64_t px[2] = { 0, 0 }, py[2] = { 0, 0 };
	int r = 0;

	if (!x || !y) {
		w->r = -ENOMEM;
		goto out;
	}
	for (unsigned s = 0; s < 2 && r == 0; s++) {
		r = hanzo_rocm_kernel_get(ctx, w->dev[s], "affine", "affine_f32", &w->ka[s]);
		if (r == 0)
			r = hanzo_rocm_kernel_get(ctx, w->dev[s], "reduce", "fast_sum_f32", &ks[s]);
		if (r == 0)
			r = hr_runtime_alloc(ctx, w->dev[s], cap * sizeof(float), &px[s]);
		if (r == 0)
			r = hr_runtime_alloc(ctx, w->dev[s], cap * sizeof(float), &py[s]);
	}
	if (r < 0) {
		w->r = r;
		goto out;
	}
	for (unsigned it = 0; it < iters; it++) {
		size_t cols = 1000 + it * 7 + w->id, n = ROWS * cols, ndims = 0, el = cols;
		float mul = (float)(w->id + 2), add = (float)it;
		unsigned s = it & 1, dev = w->dev[s];

		for (size_t i = 0; i < n; i++)
			x[i] = (float)((i * 31 + w->id + it) % 17);
		hr_runtime_copy_htod(ctx, dev, px[s], x, n * sizeof(float));
		hanzo_rocm_layout_init(&info, 1, &n, 1, NULL);
		{
			void *args[] = { &n, &ndims, &info, &px[s], &py[s], &mul, &add };

			r = hanzo_rocm_kernel_launch_work(w->ka[s], n, 1, NULL, args);
		}
		if (r == 0)
			r = hr_runtime_copy_dtoh(ctx, dev, y, py[s], n * sizeof(float));
		for (size_t i = 0; r == 0 && i < n; i++)
			w->bad += y[i] != x[i] * mul + add;
		if (r == 0) {
			void *args[] = { &n, &el, &ndims, &info, &px[s], &py[s] };

			r = hanzo_rocm_kernel_launch_work(ks[s], ROWS, cols, NULL, args);
		}
		if (r == 0)
			r = hr_runtime_copy_dtoh(ctx, dev, y, py[s], ROWS * sizeof(float));
		for (size_t row = 0; r == 0 && row < ROWS; row++) {
			double want = 0;

			for (size_t j = 0; j < cols; j++)
				want += x[row * cols + j];
			w->bad += fabs(y[row] - want) > 1e-3 * fmax(1, want);
		}
		if (r < 0) {
			w->r = r;
			break;
		}
		w->done += 2;
	}
out:
	for (unsigned s = 0; s < 2; s++) {
		if (px[s])
			hr_runtime_mem_free(ctx, w->dev[s], px[s]);
		if (py[s])
			hr_runtime_mem_free(ctx, w->dev[s], py[s]);
	}
	free(x);
	free(y);
	return NULL;
}

int main(void)
{
	const char *top = getenv("top_builddir"), *it = getenv("HR_STRESS_ITERS");
	char dir[] = "/tmp/hr-test-stress-XXXXXX", conf[600], cmd[700];
	struct hanzo_rocm_options o = { .size = sizeof(o), .log_fn = log_capture,
	                                .log_priority = LOG_ERR, .host = "host-w64 host-w32" };
	struct worker w[THREADS];
	pthread_t t[THREADS];
	unsigned bad = 0, done = 0;
	int errors = 0;
	FILE *f;

	if (!top || !mkdtemp(dir))
		skip_all("top_builddir not set (run through make check)");
	if (it && atoi(it) > 0)
		iters = (unsigned)atoi(it);
	snprintf(conf, sizeof(conf), "%s/hanzo-rocm.conf", dir);
	f = fopen(conf, "w");
	if (!f)
		skip_all("cannot write a config");
	fprintf(f, "[cache]\nuser_dir = %s/cache\nsystem_dir = %s/system\n[plugins]\npath = %s/plugins/.libs\n",
	        dir, dir, top);
	fclose(f);
	o.config = conf;
	if (hanzo_rocm_new_with_options(&o, &ctx) < 0 || hanzo_rocm_device_count(ctx) != 2)
		skip_all("no context with two host devices");
	for (unsigned i = 0; i < THREADS; i++) {
		/* Threads 6 and 7 switch between the two devices at every iteration. */
		w[i] = (struct worker){ .id = i, .dev = { i % 2, i >= 6 ? 1 - i % 2 : i % 2 } };
		if (pthread_create(&t[i], NULL, work, &w[i]) != 0)
			w[i].r = -EAGAIN, t[i] = 0;
	}
	for (unsigned i = 0; i < THREADS; i++) {
		if (t[i])
			pthread_join(t[i], NULL);
		errors += w[i].r != 0;
		bad += w[i].bad;
		done += w[i].done;
		if (w[i].r)
			diag("thread %u: %s", i, hanzo_rocm_strerror(w[i].r));
	}
	ok(errors == 0, "%d threads on one context, both host targets: no error", THREADS);
	ok(bad == 0 && done == THREADS * 2 * iters,
	   "%u launches by work (affine_f32, fast_sum_f32), every result right (%u wrong)", done, bad);
	{
		struct hanzo_rocm_kernel *per[2] = { w[0].ka[0], w[1].ka[0] };
		unsigned same = 0;

		for (unsigned i = 0; i < THREADS; i++)
			for (unsigned s = 0; s < 2; s++)
				same += w[i].ka[s] == per[w[i].dev[s]];
		ok(per[0] && per[1] && per[0] != per[1] && same == THREADS * 2,
		   "one handle per device, the same for every thread");
	}
	if (tap_failed)
		diag("log:\n%s", logbuf);
	hanzo_rocm_unref(ctx);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		diag("could not remove %s", dir);
	return done_testing();
}
