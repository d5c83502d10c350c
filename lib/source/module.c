/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The source-text API: hanzo_rocm_module_get (caller HIP source compiled,
 * cached and loaded on a device; the same (device, name, source, flags)
 * again is a hash lookup), hanzo_rocm_module_kernel (its kernels as
 * ordinary kernel handles) and hanzo_rocm_source_code_object (the bytes).
 * The code object comes through the tiers (source/key.c); the modules
 * live in the context's source slot, unloaded before the runtime's devices
 * close.  Layer: kernel (lib/layers).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source.h"
#include "context.h"
#include "kernel/kernel.h"
#include "runtime/runtime.h"
#include "shared/util.h"
#include "shared/name.h"
#include "shared/launch-meta.h"

#define MOD_BUCKETS 64
/* Tiers tried before giving up when a driver keeps refusing code objects. */
#define MAX_REFUSALS 4

struct mod_kernel {
	struct mod_kernel *next;
	char *name;
	struct hanzo_rocm_kernel *k;
};

struct hanzo_rocm_module {
	struct hanzo_rocm_module *next;
	struct hanzo_rocm *ctx;
	uint64_t hash;
	unsigned device;
	char *name, *source, **flags;
	size_t source_len;
	char *label;            /* "source:NAME": the handles' family */
	char *launch;           /* its "#@launch" lines ("" when none) */
	void *mod;
	pthread_mutex_t lock;   /* kernels */
	struct mod_kernel *kernels;
};

/*
 * A hit takes no lock (chains only grow at the head, with a release store,
 * and a module never changes once published).  A miss takes lock only to
 * look at the table and at the keys being loaded: the first thread to miss
 * a key puts it in loading and compiles and loads it with no lock held, so
 * that a long compile holds up neither hits nor other keys; a thread that
 * misses a key already in loading waits on cond for that load's result
 * (one compile per key).  The lock orders nothing else: the cache's
 * writes are atomic and its entry lock spans processes.
 */
struct hr_modules {
	struct hanzo_rocm *ctx;
	pthread_mutex_t lock;   /* loading, inserts */
	pthread_cond_t cond;    /* a load in loading finished */
	struct hr_loading *loading;
	struct hanzo_rocm_module *buckets[MOD_BUCKETS];
};

/*
 * A key being compiled and loaded by one thread, for the threads that
 * miss it meanwhile: its fields point at that caller's arguments, read
 * under lock while it is in loading; the result stays until its last
 * reader (refs) has taken it.
 */
struct hr_loading {
	struct hr_loading *next;
	uint64_t hash;
	unsigned device;
	const struct hr_source_spec *s;
	unsigned refs;
	bool done;
	int r;
	struct hanzo_rocm_module *m;
	char *diag;
};

static void module_free(struct hanzo_rocm_module *m)
{
	for (struct mod_kernel *k = m->kernels, *next; k; k = next) {
		next = k->next;
		free(k->name);
		free(k);
	}
	if (m->mod)
		hr_runtime_module_unload(m->ctx, m->device, m->mod);
	pthread_mutex_destroy(&m->lock);
	free(m->name);
	free(m->source);
	hr_strv_free(m->flags);
	free(m->label);
	free(m->launch);
	free(m);
}

static int modules_new(struct hanzo_rocm *ctx, void **ret)
{
	struct hr_modules *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->ctx = ctx;
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->cond, NULL);
	*ret = t;
	return 0;
}

static void modules_free(void *p)
{
	struct hr_modules *t = p;

	for (size_t i = 0; i < MOD_BUCKETS; i++)
		for (struct hanzo_rocm_module *m = t->buckets[i], *next; m; m = next) {
			next = m->next;
			module_free(m);
		}
	pthread_cond_destroy(&t->cond);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

static void fnv(uint64_t *h, const void *data, size_t n)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < n; i++)
		*h = (*h ^ p[i]) * 0x100000001b3ULL;
}

/* Over every field, each with its length, so no two keys run together. */
static uint64_t module_hash(unsigned device, const char *name, const char *source,
                            size_t len, const char *const *flags)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t n = strlen(name);

	fnv(&h, &device, sizeof(device));
	fnv(&h, &n, sizeof(n));
	fnv(&h, name, n);
	fnv(&h, &len, sizeof(len));
	fnv(&h, source, len);
	for (size_t i = 0; flags && flags[i]; i++) {
		n = strlen(flags[i]);
		fnv(&h, &n, sizeof(n));
		fnv(&h, flags[i], n);
	}
	return h;
}

/* NULL and an empty list are the same flags. */
static bool flags_equal(const char *const *a, const char *const *b)
{
	size_t i = 0;

	for (; a && a[i] && b && b[i]; i++)
		if (strcmp(a[i], b[i]) != 0)
			return false;
	return !(a && a[i]) && !(b && b[i]);
}

static struct hanzo_rocm_module *table_find(struct hr_modules *t, uint64_t h, unsigned device,
                                            const char *name, const char *source,
                                            size_t len, const char *const *flags)
{
	for (struct hanzo_rocm_module *m = __atomic_load_n(&t->buckets[h % MOD_BUCKETS],
	                                                   __ATOMIC_ACQUIRE); m; m = m->next)
		if (m->hash == h && m->device == device && m->source_len == len &&
		    strcmp(m->name, name) == 0 && memcmp(m->source, source, len) == 0 &&
		    flags_equal((const char *const *)m->flags, flags))
			return m;
	return NULL;
}

/*
 * The "#@launch" lines of the source, each on a line of its own (after
 * blanks and an optional comment opener: "//", "/ *", "*"), the comment's
 * closer removed.  Validated when a kernel is first launched by work.
 */
static char *launch_lines(const char *src, size_t len)
{
	const char *p = src, *end = src + len;
	char *out = calloc(1, 1);
	size_t n = 0;

	while (out && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end, *q = p;
		size_t l;
		char *o;

		while (q < e && (*q == ' ' || *q == '\t'))
			q++;
		if (e - q >= 2 && (q[0] == '/' && (q[1] == '/' || q[1] == '*')))
			q += 2;
		else if (q < e && *q == '*')
			q++;
		while (q < e && (*q == ' ' || *q == '\t'))
			q++;
		p = nl ? nl + 1 : end;
		l = (size_t)(e - q);
		if (l < sizeof(HR_LAUNCH_PREFIX) - 1 ||
		    memcmp(q, HR_LAUNCH_PREFIX, sizeof(HR_LAUNCH_PREFIX) - 1) != 0)
			continue;
		if (l >= 2 && memmem(q, l, "*/", 2))
			l = (size_t)((const char *)memmem(q, l, "*/", 2) - q);
		while (l && (q[l - 1] == ' ' || q[l - 1] == '\t' || q[l - 1] == '\r'))
			l--;
		o = realloc(out, n + l + 2);
		if (!o) {
			free(out);
			return NULL;
		}
		out = o;
		memcpy(out + n, q, l);
		n += l;
		out[n++] = '\n';
		out[n] = '\0';
	}
	return out;
}

static int module_new(struct hanzo_rocm *ctx, unsigned device, uint64_t h,
                      const struct hr_source_spec *s, struct hanzo_rocm_module **ret)
{
	struct hanzo_rocm_module *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	pthread_mutex_init(&m->lock, NULL);
	m->ctx = ctx;
	m->hash = h;
	m->device = device;
	m->source_len = s->source_len;
	m->name = strdup(s->name);
	m->source = malloc(s->source_len);
	m->flags = hr_strv_copy((char *const *)s->flags);
	if (!m->flags && !s->flags)
		m->flags = hr_strv_new();
	m->launch = launch_lines(s->source, s->source_len);
	if (m->name && asprintf(&m->label, "source:%s", m->name) < 0)
		m->label = NULL;
	if (!m->name || !m->source || !m->flags || !m->launch || !m->label) {
		module_free(m);
		return -ENOMEM;
	}
	memcpy(m->source, s->source, s->source_len);
	*ret = m;
	return 0;
}

/* The load of this key under way in another thread; under t->lock. */
static struct hr_loading *loading_find(struct hr_modules *t, uint64_t h, unsigned device,
                                       const struct hr_source_spec *s)
{
	for (struct hr_loading *l = t->loading; l; l = l->next)
		if (l->hash == h && l->device == device && l->s->source_len == s->source_len &&
		    strcmp(l->s->name, s->name) == 0 &&
		    memcmp(l->s->source, s->source, s->source_len) == 0 &&
		    flags_equal(l->s->flags, s->flags))
			return l;
	return NULL;
}

/* Under t->lock: the last of the loader and its waiters frees it. */
static void loading_put(struct hr_loading *l)
{
	if (--l->refs == 0) {
		free(l->diag);
		free(l);
	}
}

/*
 * The miss, with no lock held (one thread per key): code object through the tiers, then the driver.
 * Bytes the driver refuses are a miss for their tier, as for the families
 * (kernel.c): that tier is passed over and the next one tried, down to a
 * fresh compile; only refused fresh bytes (or a tier served again) are an
 * error.
 */
static int module_load(struct hr_modules *t, unsigned device, uint64_t h,
                       const struct hr_source_spec *s, struct hanzo_rocm_module **ret,
                       char **diag)
{
	struct hanzo_rocm *ctx = t->ctx;
	struct hanzo_rocm_module *m = NULL;
	const char *target;
	unsigned skip = 0;
	int r;

	r = hanzo_rocm_device_target(ctx, device, &target);
	if (r < 0)
		return r;
	r = module_new(ctx, device, h, s, &m);
	if (r < 0)
		return r;
	for (int i = 0; i < MAX_REFUSALS; i++) {
		enum hr_tier from = HR_TIER_COMPILED;
		void *data = NULL;
		size_t size = 0;

		r = hr_source_code_object(ctx, s, target, skip, &data, &size, diag, &from);
		if (r < 0)
			break;
		r = hr_runtime_module_load(ctx, device, data, size, &m->mod);
		free(data);
		if (r == 0)
			break;
		if (r != -ENOEXEC || from == HR_TIER_COMPILED || (skip & (1u << from))) {
			hr_err(ctx, "device %u: the driver refused source '%s' for %s (from the %s tier): %s\n",
			       device, s->name, target, hr_tier_name(from), hanzo_rocm_strerror(r));
			break;
		}
		hr_warn(ctx, "device %u: the driver refused source '%s' for %s from the %s tier; trying the next tier\n",
		        device, s->name, target, hr_tier_name(from));
		skip |= 1u << from;
	}
	if (r < 0) {
		module_free(m);
		return r;
	}
	*ret = m;
	return 0;
}

/*
 * A missed key: wait for the thread already loading it, or load it here
 * (taking t->lock only around the table and loading) and hand the result
 * (module or error, and a copy of the diagnostics) to those who waited.
 */
static int module_miss(struct hr_modules *t, unsigned device, uint64_t h,
                       const struct hr_source_spec *s, struct hanzo_rocm_module **ret,
                       char **diagnostics)
{
	struct hanzo_rocm_module *m;
	struct hr_loading *l;
	char *diag = NULL;
	int r;

	pthread_mutex_lock(&t->lock);
	/* Another thread may have loaded it meanwhile. */
	m = table_find(t, h, device, s->name, s->source, s->source_len, s->flags);
	if (m) {
		pthread_mutex_unlock(&t->lock);
		*ret = m;
		return 0;
	}
	l = loading_find(t, h, device, s);
	if (l) {
		l->refs++;
		while (!l->done)
			pthread_cond_wait(&t->cond, &t->lock);
		r = l->r;
		*ret = l->m;
		if (diagnostics && l->diag)
			*diagnostics = strdup(l->diag);
		loading_put(l);
		pthread_mutex_unlock(&t->lock);
		return r;
	}
	l = calloc(1, sizeof(*l));
	if (!l) {
		pthread_mutex_unlock(&t->lock);
		return -ENOMEM;
	}
	*l = (struct hr_loading){ .next = t->loading, .hash = h, .device = device, .s = s,
	                          .refs = 1 };
	t->loading = l;
	pthread_mutex_unlock(&t->lock);

	r = module_load(t, device, h, s, &m, &diag);

	pthread_mutex_lock(&t->lock);
	if (r == 0) {
		m->next = t->buckets[h % MOD_BUCKETS];
		__atomic_store_n(&t->buckets[h % MOD_BUCKETS], m, __ATOMIC_RELEASE);
		*ret = m;
	}
	for (struct hr_loading **p = &t->loading; *p; p = &(*p)->next)
		if (*p == l) {
			*p = l->next;
			break;
		}
	l->done = true;
	l->r = r;
	l->m = r == 0 ? m : NULL;
	if (l->refs > 1 && diag)
		l->diag = strdup(diag);
	pthread_cond_broadcast(&t->cond);
	loading_put(l);
	pthread_mutex_unlock(&t->lock);
	if (diagnostics)
		*diagnostics = diag;
	else
		free(diag);
	return r;
}

HR_EXPORT int hanzo_rocm_module_get(struct hanzo_rocm *ctx, unsigned device, const char *name,
                                    const char *source, size_t source_len,
                                    const char *const *flags, struct hanzo_rocm_module **ret,
                                    char **diagnostics)
{
	struct hr_source_spec s = { .name = name, .source = source, .source_len = source_len,
	                            .flags = flags };
	struct hanzo_rocm_module *m;
	struct hr_modules *t;
	void *p;
	uint64_t h;
	int r;

	if (ret)
		*ret = NULL;
	if (diagnostics)
		*diagnostics = NULL;
	if (!ctx || !ret || !name || !source)
		return -EINVAL;
	r = hr_ctx_lazy(ctx, HR_SLOT_SOURCE, modules_new, modules_free, &p);
	if (r < 0)
		return r;
	t = p;
	h = module_hash(device, name, source, source_len, flags);
	/* Only modules whose name and flags passed hr_source_check are in it. */
	m = table_find(t, h, device, name, source, source_len, flags);
	if (m) {
		*ret = m;
		return 0;
	}
	r = hr_source_check(ctx, &s);
	if (r < 0)
		return r;
	return module_miss(t, device, h, &s, ret, diagnostics);
}

HR_EXPORT int hanzo_rocm_module_kernel(struct hanzo_rocm_module *module, const char *kernel,
                                       struct hanzo_rocm_kernel **ret)
{
	struct mod_kernel *mk;
	void *fn = NULL;
	int r = 0;

	if (ret)
		*ret = NULL;
	if (!module || !kernel || !ret)
		return -EINVAL;
	pthread_mutex_lock(&module->lock);
	for (mk = module->kernels; mk; mk = mk->next)
		if (strcmp(mk->name, kernel) == 0)
			break;
	if (mk) {
		*ret = mk->k;
		goto out;
	}
	if (!hr_name_is_valid(kernel)) {
		hr_err(module->ctx, "invalid kernel name '%s'\n", kernel);
		r = -EINVAL;
		goto out;
	}
	r = hr_runtime_module_function(module->ctx, module->device, module->mod, kernel, &fn);
	if (r == -ENOENT)
		hr_err(module->ctx, "source '%s' has no kernel '%s' (device %u; kernels are "
		       "looked up by symbol: declare them extern \"C\")\n", module->name, kernel,
		       module->device);
	if (r < 0)
		goto out;
	mk = calloc(1, sizeof(*mk));
	if (!mk || !(mk->name = strdup(kernel))) {
		free(mk);
		r = -ENOMEM;
		goto out;
	}
	r = hr_kernel_adopt(module->ctx, module->device, fn, module->label, kernel,
	                            module->launch, &mk->k);
	if (r < 0) {
		free(mk->name);
		free(mk);
		goto out;
	}
	mk->next = module->kernels;
	module->kernels = mk;
	*ret = mk->k;
out:
	pthread_mutex_unlock(&module->lock);
	return r;
}

HR_EXPORT int hanzo_rocm_source_code_object(struct hanzo_rocm *ctx, const char *target,
                                            const char *name, const char *source,
                                            size_t source_len, const char *const *flags,
                                            void **data, size_t *size, char **diagnostics)
{
	struct hr_source_spec s = { .name = name, .source = source, .source_len = source_len,
	                            .flags = flags };
	enum hr_tier from;

	if (diagnostics)
		*diagnostics = NULL;
	if (!ctx || !target || !name || !source || !data || !size)
		return -EINVAL;
	return hr_source_code_object(ctx, &s, target, 0, data, size, diagnostics, &from);
}
