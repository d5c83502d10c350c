/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The runtime: lazily opened backends, per-device contexts, one module per
 * (device, family), and the kernel handle table behind the public
 * hanzo_rocm_kernel_get (a hit is one lock-free hash lookup) and
 * hanzo_rocm_kernel_launch (no lock either).
 *
 * Locks (see runtime.h for the order): load_lock serialises misses, so a
 * family is fetched, compiled and loaded once however many threads ask;
 * map_lock guards the kernel table; dev_lock the device slots (backends
 * are opened by backend.c).  Handles, devices and modules are never freed before the
 * context, so pointers handed out stay valid without reference counts.
 * Layer: runtime (lib/layers).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cache.h"
#include "cache-code-object.h"
#include "devices.h"
#include "context.h"
#include "runtime.h"
#include "target.h"
#include "util.h"

/* Device slots are allocated on first use and never move. */
#define RT_MAX_DEVICES 256
/*
 * Kernel table buckets: fixed, so readers need no lock (a grow would
 * relink chains under them).  13 families x ~100 kernels x a few devices
 * keeps chains short.
 */
#define RT_BUCKETS 4096
/* Tiers tried before giving up when a driver keeps refusing code objects. */
#define RT_MAX_REFUSALS 6

struct rt_device {
	const struct hr_backend_ops *ops;
	void *b;
	int ordinal;
	void *dc;                       /* backend per-device context */
	struct hr_device_limits limits; /* filled at open, defaults for unknowns */
};

struct rt_module {
	struct rt_module *next;
	unsigned device;
	char *family;
	void *mod;
	enum hr_tier from;
};

struct hanzo_rocm_kernel {
	struct hanzo_rocm_kernel *next; /* hash chain */
	uint64_t hash;
	unsigned device;
	char *family, *name;
	struct rt_device *dev;
	void *fn;
	struct hanzo_rocm *ctx;
	void *plan;                     /* kernel.c's, published once (CAS); freed with the handle */
	const char *launch;             /* source modules: their launch text (owned by kernel-module.c) */
};

struct hr_runtime {
	struct hanzo_rocm *ctx;
	pthread_mutex_t dev_lock;
	struct rt_device *devs[RT_MAX_DEVICES];
	pthread_mutex_t load_lock;
	struct rt_module *modules;
	pthread_mutex_t map_lock;       /* writers only; readers take no lock */
	struct hanzo_rocm_kernel *buckets[RT_BUCKETS];
	struct hanzo_rocm_kernel *adopted;      /* source modules' handles (map_lock) */
	struct hr_runtime_stats stats;  /* __atomic counters */
};

/* ---- lifetime --------------------------------------------------------- */

static int runtime_new(struct hanzo_rocm *ctx, void **ret)
{
	struct hr_runtime *rt = calloc(1, sizeof(*rt));

	if (!rt)
		return -ENOMEM;
	rt->ctx = ctx;
	pthread_mutex_init(&rt->dev_lock, NULL);
	pthread_mutex_init(&rt->load_lock, NULL);
	pthread_mutex_init(&rt->map_lock, NULL);
	*ret = rt;
	return 0;
}

static void runtime_free(void *p);

static struct hr_runtime *runtime_get(struct hanzo_rocm *ctx)
{
	void *rt;

	return hr_ctx_lazy(ctx, HR_SLOT_RUNTIME, runtime_new, runtime_free, &rt) < 0 ? NULL : rt;
}

static void runtime_free(void *p)
{
	struct hr_runtime *rt = p;

	/* Modules before the contexts they live in, contexts before backends. */
	for (struct rt_module *m = rt->modules, *next; m; m = next) {
		struct rt_device *d = m->device < RT_MAX_DEVICES ? rt->devs[m->device] : NULL;

		next = m->next;
		if (d)
			d->ops->module_unload(d->b, d->ordinal, d->dc, m->mod);
		free(m->family);
		free(m);
	}
	for (size_t i = 0; i < RT_MAX_DEVICES; i++) {
		struct rt_device *d = rt->devs[i];

		if (d) {
			d->ops->dev_close(d->b, d->ordinal, d->dc);
			free(d);
		}
	}
	for (size_t i = 0; i <= RT_BUCKETS; i++) {
		for (struct hanzo_rocm_kernel *k = i < RT_BUCKETS ? rt->buckets[i] : rt->adopted, *next;
		     k; k = next) {
			next = k->next;
			free(k->family);
			free(k->name);
			free(k->plan);
			free(k);
		}
	}
	pthread_mutex_destroy(&rt->map_lock);
	pthread_mutex_destroy(&rt->load_lock);
	pthread_mutex_destroy(&rt->dev_lock);
	free(rt);
}

/* ---- backends and devices --------------------------------------------- */

/*
 * The launch geometry's device facts, once per device: the backend's, else
 * KFD's (AMD: HIP's attribute enum differs between ROCm releases), else a
 * default for the platform; the grid limits are the platform table's.
 */
static void device_limits(struct rt_device *d, const struct hr_device *hd)
{
	struct hr_device_limits *l = &d->limits;
	bool nv = hd->platform == HR_PLATFORM_NVIDIA;

	if (!d->ops->limits || d->ops->limits(d->b, d->ordinal, d->dc, l) < 0)
		*l = (struct hr_device_limits){ 0 };
	if (!l->multiprocessors)
		l->multiprocessors = hd->compute_units ? hd->compute_units : 1;
	if (l->wave != 32 && l->wave != 64)
		l->wave = hd->wave ? hd->wave :
		          nv || strncmp(hd->target, "gfx1", 4) == 0 ? 32 : 64;
	if (l->max_block < 64 || l->max_block > 1024)
		l->max_block = 1024;
	if (!l->max_shared)
		l->max_shared = hd->lds_bytes ? hd->lds_bytes : nv ? 48u << 10 : 64u << 10;
	l->grid = *hr_platform_grid_limits(hd->platform);
}

/* The opened device slot for a hanzo-rocm device number; *target optional. */
static int rt_device(struct hanzo_rocm *ctx, unsigned device,
                     struct rt_device **ret, const char **target)
{
	struct hr_runtime *rt = runtime_get(ctx);
	const struct hr_device *devs, *hd;
	struct rt_device *d;
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
		r = d ? hr_backend_get(ctx, hd->platform, &d->ops, &d->b) : -ENOMEM;
		if (r == 0) {
			d->ordinal = hd->ordinal;
			r = d->ops->dev_open(d->b, d->ordinal, &d->dc);
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

/* FNV-1a over the device number and both names, NUL-separated. */
static uint64_t kernel_hash(unsigned device, const char *family, const char *name)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < sizeof(device); i++)
		h = (h ^ ((device >> (8 * i)) & 0xff)) * 0x100000001b3ULL;
	for (const char *p = family; ; p++) {
		h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
		if (!*p)
			break;
	}
	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	return h;
}

/* Lock-free: chains only ever grow at the head, with a release store. */
static struct hanzo_rocm_kernel *map_find(struct hr_runtime *rt, uint64_t h,
                                          unsigned device, const char *family,
                                          const char *name)
{
	struct hanzo_rocm_kernel *k;

	for (k = __atomic_load_n(&rt->buckets[h % RT_BUCKETS], __ATOMIC_ACQUIRE); k; k = k->next)
		if (k->hash == h && k->device == device &&
		    strcmp(k->name, name) == 0 && strcmp(k->family, family) == 0)
			break;
	return k;
}

static void map_insert(struct hr_runtime *rt, struct hanzo_rocm_kernel *k)
{
	struct hanzo_rocm_kernel **b = &rt->buckets[k->hash % RT_BUCKETS];

	pthread_mutex_lock(&rt->map_lock);
	k->next = *b;
	__atomic_store_n(b, k, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&rt->map_lock);
}

/* ---- modules ---------------------------------------------------------- */

static struct rt_module *module_find(struct hr_runtime *rt, unsigned device,
                                     const char *family)
{
	for (struct rt_module *m = rt->modules; m; m = m->next)
		if (m->device == device && strcmp(m->family, family) == 0)
			return m;
	return NULL;
}

/*
 * Load the family's code object on the device (load_lock held).  A code
 * object the driver refuses is a miss for its tier: the tier is skipped and
 * the next one tried, down to a fresh compile; only a refused fresh compile
 * is an error.
 */
static int module_load(struct hanzo_rocm *ctx, struct hr_runtime *rt,
                       struct rt_device *d, unsigned device, const char *family,
                       const char *target, struct rt_module **ret)
{
	struct rt_module *m;
	unsigned skip = 0;
	void *mod = NULL;
	int r = -ENOEXEC;

	for (int i = 0; i < RT_MAX_REFUSALS; i++) {
		enum hr_tier from = HR_TIER_COMPILED;
		const void *data;
		size_t size;

		r = hr_code_object_find(ctx, family, target, skip, &data, &size, &from);
		if (r < 0) {
			hr_err(ctx, "device %u: no code object of family '%s' for %s: %s\n",
			       device, family, target, hanzo_rocm_strerror(r));
			return r;
		}
		/* A tier already refused again: looping would only repeat it. */
		if (i > 0 && (skip & (1u << from))) {
			hr_err(ctx, "device %u: the cache returned family '%s' for %s from the %s tier again after the driver refused it\n",
			       device, family, target, hr_tier_name(from));
			return -ENOEXEC;
		}
		r = d->ops->module_load(d->b, d->ordinal, d->dc, data, size, &mod);
		if (r == 0) {
			hr_dbg(ctx, "device %u: family '%s' loaded for %s from the %s tier\n",
			       device, family, target, hr_tier_name(from));
			break;
		}
		if (r != -ENOEXEC)
			return r;
		__atomic_add_fetch(&rt->stats.refused, 1, __ATOMIC_RELAXED);
		/* The memory tier holds what an on-disk tier gave; skip both. */
		skip |= 1u << from | 1u << HR_TIER_MEMORY;
		if (from == HR_TIER_COMPILED) {
			hr_err(ctx, "device %u: the %s driver refused a freshly compiled code object of family '%s' for %s\n",
			       device, d->ops->name, family, target);
			return -ENOEXEC;
		}
		hr_warn(ctx, "device %u: the %s driver refused the code object of family '%s' for %s from the %s tier; trying the next tier\n",
		        device, d->ops->name, family, target, hr_tier_name(from));
	}
	if (r < 0)
		return r;
	m = calloc(1, sizeof(*m));
	if (!m || !(m->family = strdup(family))) {
		free(m);
		d->ops->module_unload(d->b, d->ordinal, d->dc, mod);
		return -ENOMEM;
	}
	m->device = device;
	m->mod = mod;
	m->next = rt->modules;
	rt->modules = m;
	__atomic_add_fetch(&rt->stats.modules, 1, __ATOMIC_RELAXED);
	*ret = m;
	return 0;
}

/* The miss path, under load_lock: module, function, table insert. */
static int kernel_load(struct hanzo_rocm *ctx, struct hr_runtime *rt,
                       unsigned device, const char *family, const char *name,
                       uint64_t h, struct hanzo_rocm_kernel **ret)
{
	struct hanzo_rocm_kernel *k;
	struct rt_device *d;
	struct rt_module *m;
	const char *target;
	void *fn;
	int r;

	/* Another thread may have loaded it while we waited for the lock. */
	k = map_find(rt, h, device, family, name);
	if (k) {
		*ret = k;
		return 0;
	}
	r = rt_device(ctx, device, &d, &target);
	if (r < 0)
		return r;
	m = module_find(rt, device, family);
	if (!m) {
		r = module_load(ctx, rt, d, device, family, target, &m);
		if (r != 0)
			return r;
	}
	r = d->ops->function(d->b, d->ordinal, d->dc, m->mod, name, &fn);
	if (r < 0) {
		if (r == -ENOENT)
			hr_err(ctx, "family '%s' has no kernel '%s' (device %u, %s)\n",
			       family, name, device, target);
		return r;
	}
	k = calloc(1, sizeof(*k));
	if (!k || !(k->family = strdup(family)) || !(k->name = strdup(name))) {
		if (k)
			free(k->family);
		free(k);
		return -ENOMEM;
	}
	k->hash = h;
	k->device = device;
	k->dev = d;
	k->fn = fn;
	k->ctx = ctx;
	map_insert(rt, k);
	*ret = k;
	return 0;
}

HR_EXPORT int hanzo_rocm_kernel_get(struct hanzo_rocm *ctx, unsigned device,
                                    const char *family, const char *kernel,
                                    struct hanzo_rocm_kernel **ret)
{
	struct hanzo_rocm_kernel *k;
	struct hr_runtime *rt;
	uint64_t h;
	int r;

	if (ret)
		*ret = NULL;
	if (!ctx || !ret || !family || !kernel)
		return -EINVAL;
	rt = runtime_get(ctx);
	if (!rt)
		return -ENOMEM;
	/* The hit path: no lock, no shared counter (both bounce cache lines
	 * between threads); names in the table were validated on their miss. */
	h = kernel_hash(device, family, kernel);
	k = map_find(rt, h, device, family, kernel);
	if (k) {
		*ret = k;
		return 0;
	}
	if (!hr_name_is_safe(family) || !hr_name_is_safe(kernel)) {
		hr_err(ctx, "invalid family or kernel name '%s'/'%s'\n", family, kernel);
		return -EINVAL;
	}
	__atomic_add_fetch(&rt->stats.misses, 1, __ATOMIC_RELAXED);
	pthread_mutex_lock(&rt->load_lock);
	r = kernel_load(ctx, rt, device, family, kernel, h, ret);
	pthread_mutex_unlock(&rt->load_lock);
	return r;
}

HR_EXPORT int hanzo_rocm_kernel_launch(struct hanzo_rocm_kernel *kernel,
                                       const unsigned grid[3], const unsigned block[3],
                                       unsigned shared_mem_bytes, void *stream,
                                       void **args)
{
	struct rt_device *d;

	if (!kernel || !grid || !block)
		return -EINVAL;
	for (int i = 0; i < 3; i++)
		if (grid[i] == 0 || block[i] == 0)
			return -EINVAL;
	d = kernel->dev;
	return d->ops->launch(d->b, d->ordinal, d->dc, kernel->fn, grid, block,
	                      shared_mem_bytes, stream, args);
}

/* ---- the kernel layer's view of a handle (kernel.c) ------------------- */

void hr_kernel_view(const struct hanzo_rocm_kernel *k, struct hr_kernel_view *v)
{
	v->ctx = k->ctx;
	v->device = k->device;
	v->family = k->family;
	v->name = k->name;
	v->limits = &k->dev->limits;
	v->launch = k->launch;
}

int hr_runtime_kernel_adopt(struct hanzo_rocm *ctx, unsigned device, void *fn,
                            const char *label, const char *name, const char *launch,
                            struct hanzo_rocm_kernel **ret)
{
	struct hr_runtime *rt = runtime_get(ctx);
	struct hanzo_rocm_kernel *k;
	struct rt_device *d;
	int r;

	if (!rt)
		return -ENOMEM;
	r = rt_device(ctx, device, &d, NULL);
	if (r < 0)
		return r;
	k = calloc(1, sizeof(*k));
	if (!k || !(k->family = strdup(label)) || !(k->name = strdup(name))) {
		if (k)
			free(k->family);
		free(k);
		return -ENOMEM;
	}
	k->device = device;
	k->dev = d;
	k->fn = fn;
	k->ctx = ctx;
	k->launch = launch;
	pthread_mutex_lock(&rt->map_lock);
	k->next = rt->adopted;
	rt->adopted = k;
	pthread_mutex_unlock(&rt->map_lock);
	*ret = k;
	return 0;
}

void *hr_kernel_plan(const struct hanzo_rocm_kernel *k)
{
	return __atomic_load_n(&k->plan, __ATOMIC_ACQUIRE);
}

void *hr_kernel_plan_publish(struct hanzo_rocm_kernel *k, void *plan)
{
	void *expected = NULL;

	if (__atomic_compare_exchange_n(&k->plan, &expected, plan, false,
	                                __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return plan;
	free(plan);
	return expected;
}

int hr_kernel_occupancy(const struct hanzo_rocm_kernel *k, unsigned block,
                        size_t shared, unsigned *blocks)
{
	const struct rt_device *d = k->dev;

	*blocks = 0;
	if (!d->ops->occupancy)
		return -ENOTSUP;
	return d->ops->occupancy(d->b, d->ordinal, d->dc, k->fn, block, shared, blocks);
}

int hr_kernel_launch_raw(const struct hanzo_rocm_kernel *k, const unsigned grid[3],
                         const unsigned block[3], unsigned shared, void *stream,
                         void **args)
{
	const struct rt_device *d = k->dev;

	return d->ops->launch(d->b, d->ordinal, d->dc, k->fn, grid, block, shared,
	                      stream, args);
}

/* ---- private device-memory API ---------------------------------------- */

int hr_runtime_alloc(struct hanzo_rocm *ctx, unsigned device, size_t size,
                     uint64_t *ptr)
{
	struct rt_device *d;
	int r;

	*ptr = 0;
	r = rt_device(ctx, device, &d, NULL);
	return r < 0 ? r : d->ops->mem_alloc(d->b, d->ordinal, d->dc, size, ptr);
}

int hr_runtime_mem_free(struct hanzo_rocm *ctx, unsigned device, uint64_t ptr)
{
	struct rt_device *d;
	int r = rt_device(ctx, device, &d, NULL);

	return r < 0 ? r : d->ops->mem_free(d->b, d->ordinal, d->dc, ptr);
}

int hr_runtime_copy_htod(struct hanzo_rocm *ctx, unsigned device, uint64_t dst,
                         const void *src, size_t n)
{
	struct rt_device *d;
	int r = rt_device(ctx, device, &d, NULL);

	return r < 0 ? r : d->ops->htod(d->b, d->ordinal, d->dc, dst, src, n);
}

int hr_runtime_copy_dtoh(struct hanzo_rocm *ctx, unsigned device, void *dst,
                         uint64_t src, size_t n)
{
	struct rt_device *d;
	int r = rt_device(ctx, device, &d, NULL);

	return r < 0 ? r : d->ops->dtoh(d->b, d->ordinal, d->dc, dst, src, n);
}

int hr_runtime_synchronize(struct hanzo_rocm *ctx, unsigned device, void *stream)
{
	struct rt_device *d;
	int r = rt_device(ctx, device, &d, NULL);

	return r < 0 ? r : d->ops->synchronize(d->b, d->ordinal, d->dc, stream);
}

int hr_runtime_event_create(struct hanzo_rocm *ctx, unsigned device, void **ev)
{
	struct rt_device *d;
	int r = rt_device(ctx, device, &d, NULL);

	return r < 0 ? r : d->ops->event_create(d->b, d->ordinal, d->dc, ev);
}

int hr_runtime_event_record(struct hanzo_rocm *ctx, unsigned device, void *ev,
                            void *stream)
{
	struct rt_device *d;
	int r = rt_device(ctx, device, &d, NULL);

	return r < 0 ? r : d->ops->event_record(d->b, d->ordinal, d->dc, ev, stream);
}

int hr_runtime_event_elapsed(struct hanzo_rocm *ctx, unsigned device,
                             void *start, void *end, float *ms)
{
	struct rt_device *d;
	int r = rt_device(ctx, device, &d, NULL);

	return r < 0 ? r : d->ops->event_elapsed(d->b, d->ordinal, d->dc, start, end, ms);
}

void hr_runtime_event_destroy(struct hanzo_rocm *ctx, unsigned device, void *ev)
{
	struct rt_device *d;

	if (ev && rt_device(ctx, device, &d, NULL) == 0)
		d->ops->event_destroy(d->b, d->ordinal, d->dc, ev);
}

int hr_runtime_module_load(struct hanzo_rocm *ctx, unsigned device,
                           const void *image, size_t size, void **mod)
{
	struct rt_device *d;
	int r;

	*mod = NULL;
	if (!image || size == 0)
		return -EINVAL;
	r = rt_device(ctx, device, &d, NULL);
	return r < 0 ? r : d->ops->module_load(d->b, d->ordinal, d->dc, image, size, mod);
}

int hr_runtime_module_function(struct hanzo_rocm *ctx, unsigned device,
                               void *mod, const char *name, void **fn)
{
	struct rt_device *d;
	int r = rt_device(ctx, device, &d, NULL);

	return r < 0 ? r : d->ops->function(d->b, d->ordinal, d->dc, mod, name, fn);
}

void hr_runtime_module_unload(struct hanzo_rocm *ctx, unsigned device, void *mod)
{
	struct rt_device *d;

	if (mod && rt_device(ctx, device, &d, NULL) == 0)
		d->ops->module_unload(d->b, d->ordinal, d->dc, mod);
}

int hr_runtime_launch(struct hanzo_rocm *ctx, unsigned device, void *fn,
                      const unsigned grid[3], const unsigned block[3],
                      unsigned shared, void *stream, void **args)
{
	struct rt_device *d;
	int r;

	if (!fn || !grid || !block)
		return -EINVAL;
	r = rt_device(ctx, device, &d, NULL);
	return r < 0 ? r : d->ops->launch(d->b, d->ordinal, d->dc, fn, grid, block,
	                                  shared, stream, args);
}

void hr_runtime_stats(struct hanzo_rocm *ctx, struct hr_runtime_stats *s)
{
	const struct hr_runtime *rt = hr_ctx_peek(ctx, HR_SLOT_RUNTIME);

	memset(s, 0, sizeof(*s));
	if (!rt)
		return;
	s->misses = __atomic_load_n(&rt->stats.misses, __ATOMIC_RELAXED);
	s->modules = __atomic_load_n(&rt->stats.modules, __ATOMIC_RELAXED);
	s->refused = __atomic_load_n(&rt->stats.refused, __ATOMIC_RELAXED);
}
