/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel handle, in one home: the table behind hanzo_rocm_kernel_get (a
 * hit is one lock-free hash lookup; a miss loads the family's module on the
 * device once, through the cache: hr_code_object_find, the cache's lookup
 * and on its miss kernel/compile.c), hanzo_rocm_kernel_launch (no lock
 * either), and launch by amount of work, hanzo_rocm_kernel_launch_work and
 * hanzo_rocm_kernel_geometry.  The first by-work call for a handle builds
 * its plan: the kernel's `#@launch` line, read from its family's plugin
 * (untrusted: shared/launch-meta.c validates it), the device's limits and the
 * driver's occupancy at each block size the line can lead to.  The plan is
 * published on the handle with a compare-and-swap, so every later call is
 * one acquire load, a few integer operations and the launch: no lock, no
 * allocation.
 *
 * Locks (see runtime.h for the order): load_lock serialises misses, so a
 * family is fetched, compiled and loaded once however many threads ask;
 * map_lock guards the table's inserts.  Handles and modules are never
 * freed before the context (slot HR_SLOT_KERNELS, freed before the
 * runtime's devices), so pointers handed out stay valid without reference
 * counts.
 * Layer: kernel (lib/layers).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "kernel-internal.h"
#include "cache/cache.h"
#include "context.h"
#include "plugin/plugin.h"
#include "runtime/runtime.h"
#include "shared/util.h"
#include "shared/name.h"

/*
 * Kernel table buckets: fixed, so readers need no lock (a grow would
 * relink chains under them).  13 families x ~100 kernels x a few devices
 * keeps chains short.
 */
#define KERNEL_BUCKETS 4096
/* Tiers tried before giving up when a driver keeps refusing code objects. */
#define MAX_REFUSALS 6


struct plan {
	int err;                /* a permanent failure, returned by every call */
	struct hr_launch_meta meta;
	struct hr_device_limits dev;
	uint16_t occ[HR_LAUNCH_OCC];
	struct hr_op_cache op;  /* lib/kernel/op.c's, zeroed with the plan */
};

struct kernel_module {
	struct kernel_module *next;
	unsigned device;
	struct hr_rt_device *dev;
	char *family;
	void *mod;
};

struct hr_kernels {
	pthread_mutex_t load_lock;
	struct kernel_module *modules;
	pthread_mutex_t map_lock;       /* writers only; readers take no lock */
	struct hanzo_rocm_kernel *buckets[KERNEL_BUCKETS];
	struct hanzo_rocm_kernel *adopted;      /* source modules' handles (map_lock) */
	struct hr_kernel_stats stats;   /* __atomic counters */
};

/* ---- lifetime --------------------------------------------------------- */

static int kernels_new(struct hanzo_rocm *ctx, void **ret)
{
	struct hr_kernels *kt = calloc(1, sizeof(*kt));

	(void)ctx;
	if (!kt)
		return -ENOMEM;
	pthread_mutex_init(&kt->load_lock, NULL);
	pthread_mutex_init(&kt->map_lock, NULL);
	*ret = kt;
	return 0;
}

/* Modules before the device contexts they live in (the runtime's slot,
 * freed after this one). */
static void kernels_free(void *p)
{
	struct hr_kernels *kt = p;

	for (struct kernel_module *m = kt->modules, *next; m; m = next) {
		struct hr_rt_device *d = m->dev;

		next = m->next;
		d->ops->module_unload(d->dev, m->mod);
		free(m->family);
		free(m);
	}
	for (size_t i = 0; i <= KERNEL_BUCKETS; i++) {
		for (struct hanzo_rocm_kernel *k = i < KERNEL_BUCKETS ? kt->buckets[i] : kt->adopted, *next;
		     k; k = next) {
			next = k->next;
			free(k->family);
			free(k->name);
			free(k->plan);
			free(k);
		}
	}
	pthread_mutex_destroy(&kt->map_lock);
	pthread_mutex_destroy(&kt->load_lock);
	free(kt);
}

static struct hr_kernels *kernels_get(struct hanzo_rocm *ctx)
{
	void *kt;

	return hr_ctx_lazy(ctx, HR_SLOT_KERNELS, kernels_new, kernels_free, &kt) < 0 ? NULL : kt;
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
static struct hanzo_rocm_kernel *map_find(struct hr_kernels *kt, uint64_t h,
                                          unsigned device, const char *family,
                                          const char *name)
{
	struct hanzo_rocm_kernel *k;

	for (k = __atomic_load_n(&kt->buckets[h % KERNEL_BUCKETS], __ATOMIC_ACQUIRE); k; k = k->next)
		if (k->hash == h && k->device == device &&
		    strcmp(k->name, name) == 0 && strcmp(k->family, family) == 0)
			break;
	return k;
}

static void map_insert(struct hr_kernels *kt, struct hanzo_rocm_kernel *k)
{
	struct hanzo_rocm_kernel **b = &kt->buckets[k->hash % KERNEL_BUCKETS];

	pthread_mutex_lock(&kt->map_lock);
	k->next = *b;
	__atomic_store_n(b, k, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&kt->map_lock);
}

/* ---- family modules ---------------------------------------------------------- */

int hr_code_object_find(struct hanzo_rocm *ctx, const char *family,
                        const char *target, unsigned skip_mask,
                        const void **data, size_t *size, enum hr_tier *from)
{
	enum hr_tier got = HR_TIER_MEMORY;
	struct hr_lookup l;
	int r;

	r = hr_cache_lookup(ctx, family, target, skip_mask, &l, data, size, &got);
	if (r == HR_CACHE_MISS) {
		r = hr_code_object_compile(&l, data, size, &got);
		hr_cache_lookup_release(&l);
	}
	if (r == 0 && from)
		*from = got;
	return r;
}

HR_EXPORT int hanzo_rocm_code_object(struct hanzo_rocm *ctx, const char *family,
                                     const char *target, const void **data,
                                     size_t *size)
{
	return hr_code_object_find(ctx, family, target, 0, data, size, NULL);
}

static struct kernel_module *module_find(struct hr_kernels *kt, unsigned device,
                                     const char *family)
{
	for (struct kernel_module *m = kt->modules; m; m = m->next)
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
static int module_load(struct hanzo_rocm *ctx, struct hr_kernels *kt,
                       struct hr_rt_device *d, unsigned device, const char *family,
                       const char *target, struct kernel_module **ret)
{
	struct kernel_module *m;
	unsigned skip = 0;
	void *mod = NULL;
	int r = -ENOEXEC;

	for (int i = 0; i < MAX_REFUSALS; i++) {
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
		r = d->ops->module_load(d->dev, data, size, &mod);
		if (r == 0) {
			hr_dbg(ctx, "device %u: family '%s' loaded for %s from the %s tier\n",
			       device, family, target, hr_tier_name(from));
			break;
		}
		if (r != -ENOEXEC)
			return r;
		__atomic_add_fetch(&kt->stats.refused, 1, __ATOMIC_RELAXED);
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
		d->ops->module_unload(d->dev, mod);
		return -ENOMEM;
	}
	m->device = device;
	m->dev = d;
	m->mod = mod;
	m->next = kt->modules;
	kt->modules = m;
	__atomic_add_fetch(&kt->stats.modules, 1, __ATOMIC_RELAXED);
	*ret = m;
	return 0;
}

/* The miss path, under load_lock: module, function, table insert. */
static int kernel_load(struct hanzo_rocm *ctx, struct hr_kernels *kt,
                       unsigned device, const char *family, const char *name,
                       uint64_t h, struct hanzo_rocm_kernel **ret)
{
	struct hanzo_rocm_kernel *k;
	struct hr_rt_device *d;
	struct kernel_module *m;
	const char *target;
	void *fn;
	int r;

	/* Another thread may have loaded it while we waited for the lock. */
	k = map_find(kt, h, device, family, name);
	if (k) {
		*ret = k;
		return 0;
	}
	r = hr_runtime_device(ctx, device, &d, &target);
	if (r < 0)
		return r;
	m = module_find(kt, device, family);
	if (!m) {
		r = module_load(ctx, kt, d, device, family, target, &m);
		if (r != 0)
			return r;
	}
	r = d->ops->function(d->dev, m->mod, name, &fn);
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
	map_insert(kt, k);
	*ret = k;
	return 0;
}

HR_EXPORT int hanzo_rocm_kernel_get(struct hanzo_rocm *ctx, unsigned device,
                                    const char *family, const char *kernel,
                                    struct hanzo_rocm_kernel **ret)
{
	struct hanzo_rocm_kernel *k;
	struct hr_kernels *kt;
	uint64_t h;
	int r;

	if (ret)
		*ret = NULL;
	if (!ctx || !ret || !family || !kernel)
		return -EINVAL;
	kt = kernels_get(ctx);
	if (!kt)
		return -ENOMEM;
	/* The hit path: no lock, no shared counter (both bounce cache lines
	 * between threads); names in the table were validated on their miss. */
	h = kernel_hash(device, family, kernel);
	k = map_find(kt, h, device, family, kernel);
	if (k) {
		*ret = k;
		return 0;
	}
	if (!hr_name_is_valid(family) || !hr_name_is_valid(kernel)) {
		hr_err(ctx, "invalid family or kernel name '%s'/'%s'\n", family, kernel);
		return -EINVAL;
	}
	__atomic_add_fetch(&kt->stats.misses, 1, __ATOMIC_RELAXED);
	pthread_mutex_lock(&kt->load_lock);
	r = kernel_load(ctx, kt, device, family, kernel, h, ret);
	pthread_mutex_unlock(&kt->load_lock);
	return r;
}

HR_EXPORT int hanzo_rocm_kernel_launch(struct hanzo_rocm_kernel *kernel,
                                       const unsigned grid[3], const unsigned block[3],
                                       unsigned shared_mem_bytes, void *stream,
                                       void **args)
{
	struct hr_rt_device *d;

	if (!kernel || !grid || !block)
		return -EINVAL;
	for (int i = 0; i < 3; i++)
		if (grid[i] == 0 || block[i] == 0)
			return -EINVAL;
	d = kernel->dev;
	return d->ops->launch(d->dev, kernel->fn, grid, block,
	                      shared_mem_bytes, stream, args);
}

int hr_kernel_adopt(struct hanzo_rocm *ctx, unsigned device, void *fn,
                    const char *label, const char *name, const char *launch,
                    struct hanzo_rocm_kernel **ret)
{
	struct hr_kernels *kt = kernels_get(ctx);
	struct hanzo_rocm_kernel *k;
	struct hr_rt_device *d;
	int r;

	if (!kt)
		return -ENOMEM;
	r = hr_runtime_device(ctx, device, &d, NULL);
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
	pthread_mutex_lock(&kt->map_lock);
	k->next = kt->adopted;
	kt->adopted = k;
	pthread_mutex_unlock(&kt->map_lock);
	*ret = k;
	return 0;
}

/* ---- the plan, once per handle ----------------------------------------- */

/* The family's metadata text, from its (dlopen-ed once) plugin. */
static int family_text(struct hanzo_rocm *ctx, const char *family, const char **text)
{
	const struct hanzo_rocm_plugin *desc = NULL;
	struct hr_family *fam = NULL;
	int r;

	*text = NULL;
	r = hr_plugins_family(ctx, family, &fam);
	if (r == 0)
		r = hr_family_load(ctx, fam, &desc);
	if (r < 0)
		return r;
	if (!desc)
		return -ENOENT;
	if (desc->struct_size >= offsetof(struct hanzo_rocm_plugin, launch) + sizeof(desc->launch))
		*text = desc->launch;
	return 0;
}

/* Occupancy at every block the metadata can lead to (one at a fixed block). */
static void plan_occupancy(struct hanzo_rocm_kernel *k, struct plan *p)
{
	bool rows = p->meta.kind == HR_LAUNCH_ROWS || p->meta.kind == HR_LAUNCH_ROWS_SPLIT;
	unsigned step = rows ? HR_LAUNCH_ROW_UNIT : 32;

	for (unsigned b = step; b <= p->dev.max_block && b <= 1024; b += step) {
		const struct hr_rt_device *d = k->dev;
		unsigned o = 0;

		if (p->meta.block && b != p->meta.block)
			continue;
		if (!p->meta.block && !rows && b != HR_LAUNCH_DEFAULT_BLOCK)
			continue;
		if (!d->ops->occupancy ||
		    d->ops->occupancy(d->dev, k->fn, b, 0, &o) < 0)
			return;         /* not supported: every entry stays an estimate */
		p->occ[b / 32] = (uint16_t)(o > UINT16_MAX ? UINT16_MAX : o);
	}
}

static int plan_build(struct hanzo_rocm_kernel *k, struct plan *p)
{
	const char *text;
	unsigned lineno = 0;
	char why[160] = "";
	size_t len;
	int r;

	p->dev = k->dev->limits;
	text = k->launch;
	r = text ? 0 : family_text(k->ctx, k->family, &text);
	if (r < 0)
		return r;
	if (!text) {
		hr_err(k->ctx, "family '%s': its plugin carries no launch metadata (rebuild it); "
		       "launch %s with hanzo_rocm_kernel_launch\n", k->family, k->name);
		return -ENODATA;
	}
	len = strnlen(text, HR_LAUNCH_MAX_TEXT + 1);
	r = hr_launch_meta_find(text, len, k->name, &p->meta, &lineno, why, sizeof(why));
	if (r == -ENOENT) {
		hr_err(k->ctx, "family '%s': no launch metadata line matches kernel %s\n",
		       k->family, k->name);
		return -ENODATA;
	}
	if (r < 0) {
		if (lineno)
			hr_err(k->ctx, "family '%s': launch metadata line %u: %s\n", k->family,
			       lineno, why[0] ? why : "invalid");
		else
			hr_err(k->ctx, "family '%s': launch metadata: %s\n", k->family,
			       why[0] ? why : "invalid");
		return -EBADMSG;
	}
	plan_occupancy(k, p);
	hr_dbg(k->ctx, "kernel %s/%s on device %u: launch kind %s, %u multiprocessors, wave %u\n",
	       k->family, k->name, k->device, hr_launch_kind_name(p->meta.kind),
	       p->dev.multiprocessors, p->dev.wave);
	return 0;
}

/* The handle's plan, built on first use and kept, with a permanent error
 * (bad metadata) too; NULL with *transient set for an error that may pass
 * (out of memory or descriptors: util.h), which the next call retries. */
static const struct plan *plan_get(struct hanzo_rocm_kernel *k, int *transient)
{
	struct plan *p = __atomic_load_n(&k->plan, __ATOMIC_ACQUIRE);
	void *expected = NULL;

	if (__builtin_expect(p != NULL, 1))
		return p;
	*transient = -ENOMEM;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->err = plan_build(k, p);
	if (hr_errno_transient(p->err)) {
		int err = p->err;

		free(p);
		*transient = err;       /* not cached: it may work next time */
		return NULL;
	}
	/* Published once: the loser of a race frees its plan, takes the winner's. */
	if (__atomic_compare_exchange_n(&k->plan, &expected, p, false,
	                                __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return p;
	free(p);
	return expected;
}

/* The geometry of kernel for rows x cols from its plan (built on first use). */
static int derive(struct hanzo_rocm_kernel *kernel, uint64_t rows, uint64_t cols,
                  struct hanzo_rocm_geometry *g)
{
	int transient = 0;
	const struct plan *p = plan_get(kernel, &transient);

	if (!p)
		return transient;
	if (p->err)
		return p->err;
	return hr_launch_derive(&p->meta, &p->dev, p->occ, rows, cols, g);
}

struct hr_op_cache *hr_kernel_op_cache(struct hanzo_rocm_kernel *kernel)
{
	int transient = 0;
	struct plan *p = (struct plan *)plan_get(kernel, &transient);

	return p ? &p->op : NULL;       /* no plan yet (transient error): no cache */
}

HR_EXPORT int hanzo_rocm_kernel_geometry(struct hanzo_rocm_kernel *kernel, uint64_t rows,
                                         uint64_t cols, struct hanzo_rocm_geometry *geometry)
{
	struct hanzo_rocm_geometry g = { 0 };
	int r;

	if (!kernel || !geometry)
		return -EINVAL;
	r = derive(kernel, rows, cols, &g);
	if (r == 0)
		*geometry = g;  /* untouched on error, never half written */
	return r;
}

HR_EXPORT int hanzo_rocm_kernel_launch_work(struct hanzo_rocm_kernel *kernel,
                                            uint64_t rows, uint64_t cols, void *stream,
                                            void **args)
{
	struct hanzo_rocm_geometry g = { 0 };
	const struct hr_rt_device *d;
	int r;

	if (!kernel)
		return -EINVAL;
	r = derive(kernel, rows, cols, &g);
	if (r < 0 || g.grid[0] == 0)
		return r;
	d = kernel->dev;
	return d->ops->launch(d->dev, kernel->fn, g.grid, g.block,
	                      g.shared, stream, args);
}

void hr_kernel_stats(struct hanzo_rocm *ctx, struct hr_kernel_stats *s)
{
	const struct hr_kernels *kt = hr_ctx_peek(ctx, HR_SLOT_KERNELS);

	memset(s, 0, sizeof(*s));
	if (!kt)
		return;
	s->misses = __atomic_load_n(&kt->stats.misses, __ATOMIC_RELAXED);
	s->modules = __atomic_load_n(&kt->stats.modules, __ATOMIC_RELAXED);
	s->refused = __atomic_load_n(&kt->stats.refused, __ATOMIC_RELAXED);
}
