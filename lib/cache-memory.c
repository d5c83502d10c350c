/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The in-process memory tier (layer: cache): (family, target) -> bytes,
 * one hash probe under a mutex, plus the per-context compile mutex.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "config-api.h"
#include "util-elf.h"
#include "context.h"
#include "util.h"


/* ---- the memory tier --------------------------------------------------- */

struct mem_entry {
	struct mem_entry *next;
	uint64_t hash;
	enum hr_tier from;
	void *data;
	size_t size;
	char *family;
	char *target;
};

struct hr_cache {
	pthread_mutex_t lock;
	pthread_mutex_t compile_lock; /* one compile at a time in this process */
	struct mem_entry **buckets;
	size_t n_buckets, n_entries;
	void **retired;       /* replaced bytes: callers may still hold them */
	size_t n_retired;
};

static void cache_free(void *state)
{
	struct hr_cache *c = state;

	for (size_t i = 0; i < c->n_buckets; i++) {
		struct mem_entry *m = c->buckets[i], *next;

		for (; m; m = next) {
			next = m->next;
			free(m->data);
			free(m->family);
			free(m->target);
			free(m);
		}
	}
	for (size_t i = 0; i < c->n_retired; i++)
		free(c->retired[i]);
	free(c->retired);
	free(c->buckets);
	pthread_mutex_destroy(&c->compile_lock);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

static int cache_new(struct hanzo_rocm *ctx, void **ret)
{
	struct hr_cache *c = calloc(1, sizeof(*c));

	(void)ctx;
	if (!c)
		return -ENOMEM;
	c->n_buckets = 64;
	c->buckets = calloc(c->n_buckets, sizeof(*c->buckets)); // NOLINT(bugprone-sizeof-expression): an array of pointers
	if (!c->buckets) {
		free(c);
		return -ENOMEM;
	}
	pthread_mutex_init(&c->lock, NULL);
	pthread_mutex_init(&c->compile_lock, NULL);
	*ret = c;
	return 0;
}

struct hr_cache *hr_cache_get(struct hanzo_rocm *ctx)
{
	void *c;

	return hr_ctx_lazy(ctx, HR_SLOT_CACHE, cache_new, cache_free, &c) < 0 ? NULL : c;
}

/* FNV-1a over "family\0target". */
static uint64_t mem_hash(const char *family, const char *target)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (const char *p = family; *p; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
	h *= 0x100000001b3ull;
	for (const char *p = target; *p; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
	return h;
}

static struct mem_entry *mem_find(struct hr_cache *c, uint64_t h,
                                  const char *family, const char *target)
{
	for (struct mem_entry *m = c->buckets[h % c->n_buckets]; m; m = m->next)
		if (m->hash == h && strcmp(m->family, family) == 0 &&
		    strcmp(m->target, target) == 0)
			return m;
	return NULL;
}

int hr_memory_lookup(struct hr_cache *c, const char *family, const char *target,
                     unsigned skip_mask, const void **data, size_t *size,
                     enum hr_tier *from)
{
	uint64_t h = mem_hash(family, target);
	struct mem_entry *m;
	int r = -ENOENT;

	if (skip_mask & (1u << HR_TIER_MEMORY))
		return -ENOENT;
	pthread_mutex_lock(&c->lock);
	m = mem_find(c, h, family, target);
	if (m && !(skip_mask & (1u << m->from))) {
		*data = m->data;
		*size = m->size;
		if (from)
			*from = m->from;
		r = 0;
	}
	pthread_mutex_unlock(&c->lock);
	return r;
}

static void mem_grow(struct hr_cache *c)
{
	size_t n = c->n_buckets * 2;
	struct mem_entry **b = calloc(n, sizeof(*b)); // NOLINT(bugprone-sizeof-expression): an array of pointers

	if (!b)
		return; /* longer chains, still correct */
	for (size_t i = 0; i < c->n_buckets; i++) {
		struct mem_entry *m = c->buckets[i], *next;

		for (; m; m = next) {
			next = m->next;
			m->next = b[m->hash % n];
			b[m->hash % n] = m;
		}
	}
	free(c->buckets);
	c->buckets = b;
	c->n_buckets = n;
}

int hr_memory_insert(struct hr_cache *c, const char *family, const char *target,
                     void *data, size_t size, enum hr_tier from,
                     unsigned skip_mask, const void **out, size_t *out_size)
{
	uint64_t h = mem_hash(family, target);
	struct mem_entry *m;
	int r = 0;

	pthread_mutex_lock(&c->lock);
	m = mem_find(c, h, family, target);
	if (m && !(skip_mask & (1u << m->from))) {
		/* Another thread got there first: use its copy. */
		free(data);
	} else if (m) {
		void **v = realloc(c->retired, (c->n_retired + 1) * sizeof(*v));

		if (!v) {
			/* cppcheck-suppress doubleFree ; not reached after the branch above */
			free(data);
			r = -ENOMEM;
			goto out;
		}
		c->retired = v;
		c->retired[c->n_retired++] = m->data;
		m->data = data;
		m->size = size;
		m->from = from;
	} else {
		m = calloc(1, sizeof(*m));
		if (m) {
			m->family = strdup(family);
			m->target = strdup(target);
		}
		if (!m || !m->family || !m->target) {
			if (m) {
				free(m->family);
				free(m->target);
			}
			free(m);
			free(data);
			r = -ENOMEM;
			goto out;
		}
		m->hash = h;
		m->data = data;
		m->size = size;
		m->from = from;
		if (c->n_entries >= c->n_buckets)
			mem_grow(c);
		m->next = c->buckets[h % c->n_buckets];
		c->buckets[h % c->n_buckets] = m;
		c->n_entries++;
	}
	*out = m->data;
	*out_size = m->size;
out:
	pthread_mutex_unlock(&c->lock);
	return r;
}

void hr_cache_compile_lock(struct hr_cache *c)
{
	pthread_mutex_lock(&c->compile_lock);
}

void hr_cache_compile_unlock(struct hr_cache *c)
{
	pthread_mutex_unlock(&c->compile_lock);
}
