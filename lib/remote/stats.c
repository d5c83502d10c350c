/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hanzo_rocm_cache_stat: a context's cache counters, local tiers
 * (cache.c), compiles (kernel/compile.c) and the remote tier
 * (remote.c), as a flat list of named values, so that a later
 * counter is appended without an ABI change.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "remote.h"
#include "context.h"
#include "shared/util.h"

/* The local tiers listed, in search order (the compiled "tier" is compile.*). */
static const enum hr_tier tiers[] = {
	HR_TIER_MEMORY, HR_TIER_SYSTEM, HR_TIER_SITE, HR_TIER_PACKAGE, HR_TIER_USER,
};
static const char *const tier_fields[] = { "lookups", "hits", "absent", "bad", "bytes", "ns" };
static const char *const remote_fields[] = {
	"lookups", "hits", "bytes", "ns", "pushes", "leases", "waits", "wait_hits",
	"wait_ns", "compiles",
};

#define N_TIER_FIELDS (sizeof(tier_fields) / sizeof(tier_fields[0]))
#define N_LOCAL (sizeof(tiers) / sizeof(tiers[0]) * N_TIER_FIELDS)
#define N_REMOTE (sizeof(remote_fields) / sizeof(remote_fields[0]))

static uint64_t tier_value(const struct hr_tier_counters *t, size_t f)
{
	const uint64_t v[] = { t->lookups, t->hits, t->absent, t->bad, t->bytes, t->ns };

	return v[f];
}

static uint64_t remote_value(const struct hr_remote_stats *st, size_t f)
{
	const uint64_t v[] = {
		st->lookups, st->hits, st->bytes, st->ns, st->pushes, st->leases, st->waits,
		st->wait_hits, st->wait_ns, st->compiles,
	};

	return v[f];
}

HR_EXPORT int hanzo_rocm_cache_stat(struct hanzo_rocm *ctx, unsigned index, char *name,
                                    size_t name_size, uint64_t *value)
{
	struct hr_cache_counters c;
	struct hr_remote_stats st;
	size_t i = index;

	if (!ctx || !name || !name_size || !value)
		return -EINVAL;
	if (i < N_LOCAL) {
		hr_cache_counters_get(ctx, &c);
		snprintf(name, name_size, "%s.%s", hr_tier_name(tiers[i / N_TIER_FIELDS]),
		         tier_fields[i % N_TIER_FIELDS]);
		*value = tier_value(&c.tier[tiers[i / N_TIER_FIELDS]], i % N_TIER_FIELDS);
		return 0;
	}
	i -= N_LOCAL;
	if (i < 3) {
		static const char *const names[] = { "compile.count", "compile.failures", "compile.ns" };

		hr_cache_counters_get(ctx, &c);
		snprintf(name, name_size, "%s", names[i]);
		*value = i == 0 ? c.compiles : i == 1 ? c.compile_failures : c.compile_ns;
		return 0;
	}
	i -= 3;
	if (i < N_REMOTE + HR_REMOTE_N_REASONS - 1) {
		hr_remote_stats_get(ctx, &st);
		if (i < N_REMOTE) {
			snprintf(name, name_size, "remote.%s", remote_fields[i]);
			*value = remote_value(&st, i);
		} else {
			i = i - N_REMOTE + 1;
			snprintf(name, name_size, "remote.miss.%s",
			         hr_remote_reason_name((enum hr_remote_reason)i));
			*value = st.misses[i];
		}
		return 0;
	}
	return -ENOENT;
}
