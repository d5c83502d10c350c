/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The runtime: lazily opened backends and per-device contexts (one slot per
 * hanzo-rocm device, opened on first use, with its launch limits), and the
 * private device-memory API over them.  The kernel handle, its table and
 * the family modules are the kernel layer's (lib/kernel/kernel.c).
 *
 * Locks (see runtime.h for the order): dev_lock guards the device slots
 * (backends are opened by backend.c).  Devices are never freed before the
 * context, so pointers handed out stay valid without reference counts.
 * Layer: runtime (lib/layers).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "devices/devices.h"
#include "context.h"
#include "runtime.h"
#include "target/target.h"
#include "shared/util.h"

/* Device slots are allocated on first use and never move. */
#define RT_MAX_DEVICES 256

struct hr_runtime {
	struct hanzo_rocm *ctx;
	pthread_mutex_t dev_lock;
	struct hr_rt_device *devs[RT_MAX_DEVICES];
};

/* ---- lifetime --------------------------------------------------------- */

static int runtime_new(struct hanzo_rocm *ctx, void **ret)
{
	struct hr_runtime *rt = calloc(1, sizeof(*rt));

	if (!rt)
		return -ENOMEM;
	rt->ctx = ctx;
	pthread_mutex_init(&rt->dev_lock, NULL);
	*ret = rt;
	return 0;
}

static void runtime_free(void *p);

static struct hr_runtime *runtime_get(struct hanzo_rocm *ctx)
{
	void *rt;

	return hr_ctx_lazy(ctx, HR_SLOT_RUNTIME, runtime_new, runtime_free, &rt) < 0 ? NULL : rt;
}

/* The kernel layer's modules (HR_SLOT_KERNELS) are gone by now; contexts
 * before backends. */
static void runtime_free(void *p)
{
	struct hr_runtime *rt = p;

	for (size_t i = 0; i < RT_MAX_DEVICES; i++) {
		struct hr_rt_device *d = rt->devs[i];

		if (d) {
			d->ops->dev_close(d->dev);
			free(d);
		}
	}
	pthread_mutex_destroy(&rt->dev_lock);
	free(rt);
}


/* ---- backends and devices --------------------------------------------- */

/*
 * The launch geometry's device facts, once per device: the backend's, else
 * KFD's (AMD: HIP's attribute enum differs between ROCm releases), else a
 * default for the platform; the grid limits are the platform table's.
 */
static void device_limits(struct hr_rt_device *d, const struct hr_device *hd)
{
	struct hr_device_limits *l = &d->limits;
	const struct hr_platform_facts *pf = hr_platform_facts(hd->platform);

	if (!d->ops->limits || d->ops->limits(d->dev, l) < 0)
		*l = (struct hr_device_limits){ 0 };
	if (!l->multiprocessors)
		l->multiprocessors = hd->compute_units ? hd->compute_units : 1;
	if (l->wave != 32 && l->wave != 64)
		l->wave = hd->wave ? hd->wave : pf ? pf->wave(hd->target) : 64;
	if (l->max_block < 64 || l->max_block > 1024)
		l->max_block = 1024;
	if (!l->max_shared)
		l->max_shared = hd->lds_bytes ? hd->lds_bytes : pf ? pf->max_shared : 64u << 10;
	/* The row in hand's grid (hr_platform_grid_limits' default for none). */
	l->grid = pf ? pf->grid : *hr_platform_grid_limits(hd->platform);
}

/* The opened device slot for a hanzo-rocm device number; *target optional. */
int hr_runtime_device(struct hanzo_rocm *ctx, unsigned device,
                     struct hr_rt_device **ret, const char **target)
{
	struct hr_runtime *rt = runtime_get(ctx);
	const struct hr_device *devs, *hd;
	struct hr_backend *b = NULL;
	struct hr_rt_device *d;
	size_t n;
	int r;

	if (!rt)
		return -ENOMEM;
	r = hr_devices_get(ctx, &devs, &n);
	if (r < 0)
		return r;
	if (device >= n || device >= RT_MAX_DEVICES) {
		hr_dbg(ctx, "device %u: no such device (%zu found)\n", device, n);
		return -ENODEV;
	}
	hd = &devs[device];
	if (target)
		*target = hd->target;
	pthread_mutex_lock(&rt->dev_lock);
	d = rt->devs[device];
	if (!d) {
		d = calloc(1, sizeof(*d));
		r = d ? hr_backend_get(ctx, hd->platform, &b) : -ENOMEM;
		if (r == 0) {
			d->ops = b->ops;
			r = d->ops->dev_open(b, hd->ordinal, &d->dev);
		}
		if (r == 0)
			device_limits(d, hd);
		if (r < 0) {
			hr_err(ctx, "device %u (%s): cannot open: %s\n", device, hd->name,
			       hanzo_rocm_strerror(r));
			free(d);
			d = NULL;
		} else {
			rt->devs[device] = d;
		}
	}
	pthread_mutex_unlock(&rt->dev_lock);
	if (!d)
		return r < 0 ? r : -ENODEV;
	*ret = d;
	return 0;
}

/* ---- the kernel table ------------------------------------------------- */
/* ---- private device-memory API ---------------------------------------- */

int hr_runtime_alloc(struct hanzo_rocm *ctx, unsigned device, size_t size,
                     uint64_t *ptr)
{
	struct hr_rt_device *d;
	int r;

	*ptr = 0;
	r = hr_runtime_device(ctx, device, &d, NULL);
	return r < 0 ? r : d->ops->mem_alloc(d->dev, size, ptr);
}

int hr_runtime_mem_free(struct hanzo_rocm *ctx, unsigned device, uint64_t ptr)
{
	struct hr_rt_device *d;
	int r = hr_runtime_device(ctx, device, &d, NULL);

	return r < 0 ? r : d->ops->mem_free(d->dev, ptr);
}

int hr_runtime_copy_htod(struct hanzo_rocm *ctx, unsigned device, uint64_t dst,
                         const void *src, size_t n)
{
	struct hr_rt_device *d;
	int r = hr_runtime_device(ctx, device, &d, NULL);

	return r < 0 ? r : d->ops->htod(d->dev, dst, src, n);
}

int hr_runtime_copy_dtoh(struct hanzo_rocm *ctx, unsigned device, void *dst,
                         uint64_t src, size_t n)
{
	struct hr_rt_device *d;
	int r = hr_runtime_device(ctx, device, &d, NULL);

	return r < 0 ? r : d->ops->dtoh(d->dev, dst, src, n);
}

int hr_runtime_synchronize(struct hanzo_rocm *ctx, unsigned device, void *stream)
{
	struct hr_rt_device *d;
	int r = hr_runtime_device(ctx, device, &d, NULL);

	return r < 0 ? r : d->ops->synchronize(d->dev, stream);
}

int hr_runtime_event_create(struct hanzo_rocm *ctx, unsigned device, void **ev)
{
	struct hr_rt_device *d;
	int r = hr_runtime_device(ctx, device, &d, NULL);

	return r < 0 ? r : d->ops->event_create(d->dev, ev);
}

int hr_runtime_event_record(struct hanzo_rocm *ctx, unsigned device, void *ev,
                            void *stream)
{
	struct hr_rt_device *d;
	int r = hr_runtime_device(ctx, device, &d, NULL);

	return r < 0 ? r : d->ops->event_record(d->dev, ev, stream);
}

int hr_runtime_event_elapsed(struct hanzo_rocm *ctx, unsigned device,
                             void *start, void *end, float *ms)
{
	struct hr_rt_device *d;
	int r = hr_runtime_device(ctx, device, &d, NULL);

	return r < 0 ? r : d->ops->event_elapsed(d->dev, start, end, ms);
}

void hr_runtime_event_destroy(struct hanzo_rocm *ctx, unsigned device, void *ev)
{
	struct hr_rt_device *d;

	if (ev && hr_runtime_device(ctx, device, &d, NULL) == 0)
		d->ops->event_destroy(d->dev, ev);
}

int hr_runtime_module_load(struct hanzo_rocm *ctx, unsigned device,
                           const void *image, size_t size, void **mod)
{
	struct hr_rt_device *d;
	int r;

	*mod = NULL;
	if (!image || size == 0)
		return -EINVAL;
	r = hr_runtime_device(ctx, device, &d, NULL);
	return r < 0 ? r : d->ops->module_load(d->dev, image, size, mod);
}

int hr_runtime_module_function(struct hanzo_rocm *ctx, unsigned device,
                               void *mod, const char *name, void **fn)
{
	struct hr_rt_device *d;
	int r = hr_runtime_device(ctx, device, &d, NULL);

	return r < 0 ? r : d->ops->function(d->dev, mod, name, fn);
}

void hr_runtime_module_unload(struct hanzo_rocm *ctx, unsigned device, void *mod)
{
	struct hr_rt_device *d;

	if (mod && hr_runtime_device(ctx, device, &d, NULL) == 0)
		d->ops->module_unload(d->dev, mod);
}

int hr_runtime_launch(struct hanzo_rocm *ctx, unsigned device, void *fn,
                      const unsigned grid[3], const unsigned block[3],
                      unsigned shared, void *stream, void **args)
{
	struct hr_rt_device *d;
	int r;

	if (!fn || !grid || !block)
		return -EINVAL;
	r = hr_runtime_device(ctx, device, &d, NULL);
	return r < 0 ? r : d->ops->launch(d->dev, fn, grid, block,
	                                  shared, stream, args);
}
