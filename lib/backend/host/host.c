/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The host backend's ops table (lib/backend/ops.h; layer: backend): device memory is host memory,
 * copies are memcpy, events read CLOCK_MONOTONIC, and a code object is a
 * shared object loaded from a sealed memfd holding exactly the bytes the
 * cache validated (no path another process could swap between the check
 * and dlopen).  Launches run to completion on the worker pool
 * (backend/host/exec.c); streams are ignored, so synchronize has nothing to wait for.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "host.h"
#include "host-internal.h"
#include "context.h"
#include "backend/ops.h"
#include "config/config.h"
#include "shared/util.h"

/* ---- state ------------------------------------------------------------ */

struct host_backend {
	struct hr_backend base;
	struct hanzo_rocm *ctx;
	pthread_mutex_t lock;
	struct hr_host_pool *pool;      /* created on the first launch */
};

struct host_dev {
	struct hr_backend_dev base;
	struct host_backend *hb;
	unsigned wave;
};

static struct host_backend *host_of(struct hr_backend *b)
{
	return hr_container_of(b, struct host_backend, base);
}

static struct host_dev *host_dev_of(struct hr_backend_dev *dev)
{
	return hr_container_of(dev, struct host_dev, base);
}

struct host_fn {
	struct host_fn *next;
	hr_host_entry_fn entry;
	char name[];
};

struct host_mod {
	void *handle;
	int fd;                 /* open while loaded: the dynamic loader knows
	                         * objects by path, and fd numbers are reused */
	struct host_fn *fns;
	pthread_mutex_t lock;
};

/*
 * One worker per online CPU, at most 256: the pool's size and the devices'
 * multiprocessors (their limits are read on the cold kernel_get walk, long
 * before a launch creates the pool).
 */
static unsigned host_workers(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 256 ? 256 : (unsigned)n;
}

int hr_host_open(struct hanzo_rocm *ctx, struct hr_backend **b)
{
	struct host_backend *hb;

	if (hr_platform_host.elf_machine == 0)
		return -ENOSYS;
	hb = calloc(1, sizeof(*hb));
	if (!hb)
		return -ENOMEM;
	hb->base.ops = &hr_host_ops;
	hb->ctx = ctx;
	pthread_mutex_init(&hb->lock, NULL);
	*b = &hb->base;
	return 0;
}

void hr_host_close(struct hr_backend *b)
{
	struct host_backend *hb;

	if (!b)
		return;
	hb = host_of(b);
	hr_host_pool_free(hb->pool);
	pthread_mutex_destroy(&hb->lock);
	free(hb);
}

/*
 * The host devices the configuration lists (options, HANZO_ROCM_HOST,
 * [targets] host), in its order: only when asked for, never a fallback.
 */
static int host_enumerate(struct hanzo_rocm *ctx, struct hr_backend *b HR_UNUSED,
                          struct hr_device *devs, size_t max, size_t *n)
{
	const struct hr_config *cfg = hr_ctx_config(ctx);
	char *const *host = cfg ? cfg->host : NULL;

	*n = 0;
	for (size_t i = 0; host && host[i] && *n < max; i++) {
		struct hr_device *d = &devs[*n];
		unsigned wave = hr_platform_host.wave(host[i]);

		if (!wave)
			continue;
		*d = (struct hr_device){ .platform = HR_PLATFORM_HOST,
		                         .ordinal = wave == 64 ? 0 : 1 };
		snprintf(d->detected, sizeof(d->detected), "%s", host[i]);
		snprintf(d->target, sizeof(d->target), "%s", host[i]);
		snprintf(d->name, sizeof(d->name), "CPU (wave %u)", wave);
		(*n)++;
	}
	return 0;
}

/* ---- ops -------------------------------------------------------------- */

/* The ordinal is the wave: 0 = host-w64, 1 = host-w32 (target.c). */
static int host_dev_open(struct hr_backend *b, int ordinal, struct hr_backend_dev **ret)
{
	struct host_dev *d;

	if (ordinal < 0 || ordinal > 1)
		return -ENODEV;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->base = (struct hr_backend_dev){ .backend = b, .ordinal = ordinal };
	d->hb = host_of(b);
	d->wave = ordinal == 0 ? 64 : 32;
	*ret = &d->base;
	return 0;
}

static void host_dev_close(struct hr_backend_dev *dev)
{
	free(host_dev_of(dev));
}

static int host_module_load(struct hr_backend_dev *dev, const void *image, size_t size,
                            void **mod)
{
	struct host_dev *d = host_dev_of(dev);
	struct host_backend *hb = d->hb;
	int (*init)(const struct hr_host_rt *);
	struct host_mod *m;
	char path[64];
	size_t done = 0;
	int fd, wave;

	fd = memfd_create("hanzo-rocm-host-code-object", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		hr_err(hb->ctx, "host backend: memfd_create: %s\n", strerror(errno));
		return -errno;
	}
	while (done < size) {
		ssize_t k = write(fd, (const char *)image + done, size - done);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			int r = k < 0 ? -errno : -EIO;

			close(fd);
			return r;
		}
		done += (size_t)k;
	}
	(void)fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
	m = calloc(1, sizeof(*m));
	if (!m) {
		close(fd);
		return -ENOMEM;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	m->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!m->handle) {
		hr_err(hb->ctx, "host backend: cannot load a host code object: %s\n", dlerror());
		close(fd);
		free(m);
		return -ENOEXEC;
	}
	m->fd = fd;
	*(void **)&init = dlsym(m->handle, "hr_host_init");
	wave = init ? init(hr_host_rt_table()) : -1;
	if (wave != (int)d->wave) {
		hr_err(hb->ctx, "host backend: the code object %s (wave %d, want %u)\n",
		       init ? "does not fit this device" : "has no hr_host_init", wave, d->wave);
		dlclose(m->handle);
		close(fd);
		free(m);
		return -ENOEXEC;
	}
	pthread_mutex_init(&m->lock, NULL);
	*mod = m;
	return 0;
}

static void host_module_unload(struct hr_backend_dev *dev HR_UNUSED, void *mod)
{
	struct host_mod *m = mod;

	if (!m)
		return;
	for (struct host_fn *f = m->fns, *next; f; f = next) {
		next = f->next;
		free(f);
	}
	dlclose(m->handle);
	close(m->fd);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

static int host_function(struct hr_backend_dev *dev, void *mod, const char *name, void **fn)
{
	struct host_backend *hb = host_dev_of(dev)->hb;
	struct host_mod *m = mod;
	size_t len = strlen(name);
	struct host_fn *f;
	char sym[256];

	if (snprintf(sym, sizeof(sym), "hr_host_entry_%s", name) >= (int)sizeof(sym))
		return -ENOENT;
	f = calloc(1, sizeof(*f) + len + 1);
	if (!f)
		return -ENOMEM;
	*(void **)&f->entry = dlsym(m->handle, sym);
	if (!f->entry) {
		hr_dbg(hb->ctx, "host backend: no %s in the code object\n", sym);
		free(f);
		return -ENOENT;
	}
	memcpy(f->name, name, len + 1);
	pthread_mutex_lock(&m->lock);
	f->next = m->fns;
	m->fns = f;
	pthread_mutex_unlock(&m->lock);
	*fn = f;
	return 0;
}

/* Streams are ignored: a launch runs to completion before it returns. */
static int host_launch(struct hr_backend_dev *dev, void *fn, const unsigned grid[3],
                       const unsigned block[3], unsigned shared, void *stream HR_UNUSED,
                       void **args)
{
	struct host_dev *d = host_dev_of(dev);
	struct host_backend *hb = d->hb;
	struct host_fn *f = fn;
	struct hr_host_launch l = { .entry = f->entry, .args = args, .shared = shared,
	                            .wave = d->wave };
	struct hr_host_pool *pool;
	int r = 0;

	memcpy(l.grid, grid, sizeof(l.grid));
	memcpy(l.block, block, sizeof(l.block));
	pthread_mutex_lock(&hb->lock);
	if (!hb->pool)
		r = hr_host_pool_new(host_workers(), &hb->pool);
	pool = hb->pool;
	pthread_mutex_unlock(&hb->lock);
	if (r < 0)
		return r;
	r = hr_host_pool_run(pool, &l);
	if (r < 0)
		hr_err(hb->ctx, "kernel %s (host, wave %u): %s: %s\n", f->name, d->wave,
		       r == -EDEADLK ? "barrier deadlock" : strerror(-r), l.why);
	return r;
}

/* Device memory is host memory: the device handle is not needed. */
static int host_mem_alloc(struct hr_backend_dev *dev HR_UNUSED, size_t size, uint64_t *ptr)
{
	void *p = NULL;

	/* The exact size, so the sanitizer catches a kernel reading past the end. */
	if (posix_memalign(&p, 256, size ? size : 1) != 0)
		return -ENOMEM;
	*ptr = (uint64_t)(uintptr_t)p;
	return 0;
}

static int host_mem_free(struct hr_backend_dev *dev HR_UNUSED, uint64_t ptr)
{
	free((void *)(uintptr_t)ptr);
	return 0;
}

static int host_htod(struct hr_backend_dev *dev HR_UNUSED, uint64_t dst, const void *src,
                     size_t n)
{
	if (n)
		memcpy((void *)(uintptr_t)dst, src, n);
	return 0;
}

static int host_dtoh(struct hr_backend_dev *dev HR_UNUSED, void *dst, uint64_t src, size_t n)
{
	if (n)
		memcpy(dst, (const void *)(uintptr_t)src, n);
	return 0;
}

static int host_synchronize(struct hr_backend_dev *dev HR_UNUSED, void *stream HR_UNUSED)
{
	return 0;
}

static int host_event_create(struct hr_backend_dev *dev HR_UNUSED, void **ev)
{
	*ev = calloc(1, sizeof(struct timespec));
	return *ev ? 0 : -ENOMEM;
}

static int host_event_record(struct hr_backend_dev *dev HR_UNUSED, void *ev,
                             void *stream HR_UNUSED)
{
	return clock_gettime(CLOCK_MONOTONIC, ev) < 0 ? -errno : 0;
}

static int host_event_elapsed(struct hr_backend_dev *dev HR_UNUSED, void *start, void *end,
                              float *ms)
{
	const struct timespec *s = start, *e = end;

	*ms = (float)((double)(e->tv_sec - s->tv_sec) * 1e3 +
	              (double)(e->tv_nsec - s->tv_nsec) / 1e6);
	return 0;
}

static void host_event_destroy(struct hr_backend_dev *dev HR_UNUSED, void *ev)
{
	free(ev);
}

/* One block runs per worker at a time: the workers are the multiprocessors. */
static int host_limits(struct hr_backend_dev *dev, struct hr_device_limits *l)
{
	*l = (struct hr_device_limits){
		.multiprocessors = host_workers(),
		.wave = host_dev_of(dev)->wave,
		.max_block = HR_HOST_MAX_BLOCK,
		.max_shared = HR_HOST_MAX_SHARED,
	};
	return 0;
}

static int host_occupancy(struct hr_backend_dev *dev HR_UNUSED, void *fn HR_UNUSED,
                          unsigned block, size_t shared, unsigned *blocks)
{
	*blocks = block <= HR_HOST_MAX_BLOCK && shared <= HR_HOST_MAX_SHARED ? 1 : 0;
	return 0;
}

const struct hr_backend_ops hr_host_ops = {
	.name = "host",
	.platform = HR_PLATFORM_HOST,
	.open = hr_host_open,
	.close = hr_host_close,
	.enumerate = host_enumerate,
	.enumerate_unopened = true,
	.dev_open = host_dev_open,
	.dev_close = host_dev_close,
	.module_load = host_module_load,
	.module_unload = host_module_unload,
	.function = host_function,
	.launch = host_launch,
	.mem_alloc = host_mem_alloc,
	.mem_free = host_mem_free,
	.htod = host_htod,
	.dtoh = host_dtoh,
	.synchronize = host_synchronize,
	.event_create = host_event_create,
	.event_record = host_event_record,
	.event_elapsed = host_event_elapsed,
	.event_destroy = host_event_destroy,
	.limits = host_limits,
	.occupancy = host_occupancy,
};
