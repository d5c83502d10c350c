/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hanzo-rocm cache stats [--json]: each cache tier's directory, entry count,
 * size and ages; the remote tier's URLs (reachable or why not), Redis and
 * trusted keys; then this process's counters (hanzo_rocm_cache_stat) --
 * of the lookups the command itself made, since a context's counters end
 * with it (HANZO_ROCM_STATS=1 prints an application's at its end).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "hanzo-rocm-tools.h"
#include "tools.h"

struct tier_scan {
	uint64_t entries, bytes;
	time_t oldest, newest;
};

static int count_one(void *data, const char *path, const char *target,
                     const char *name, enum hr_cache_file kind, const struct stat *st)
{
	struct tier_scan *s = data;

	(void)path, (void)target, (void)name;
	if (kind != HR_CACHE_ENTRY || !st)
		return 0;
	s->entries++;
	s->bytes += (uint64_t)st->st_size;
	if (!s->oldest || st->st_mtime < s->oldest)
		s->oldest = st->st_mtime;
	if (st->st_mtime > s->newest)
		s->newest = st->st_mtime;
	return 0;
}

/* JSON string of a path or URL (no control characters reach here; escaped anyway). */
static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", (unsigned char)*s);
		else
			putchar(*s);
	}
	putchar('"');
}

int cache_stats(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct hanzo_rocm *ctx;
	const struct hr_config *cfg;
	struct hr_tier_dir *t = NULL;
	time_t now = time(NULL);
	bool json = false;
	size_t n = 0;
	int c, r;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'h':
			puts("Usage: hanzo-rocm cache stats [--json]\n\n"
			     "Each cache tier (directory, entries, bytes, age of the oldest and\n"
			     "newest entry in seconds), the remote tier (each url reachable or\n"
			     "why not, redis, trusted key names), then this process's counters\n"
			     "(hanzo_rocm_cache_stat(3)).  An application's own counters:\n"
			     "HANZO_ROCM_STATS=1 prints them when its context is freed.");
			return EXIT_OK;
		default: return cli_try_help("cache stats");
		}
	}
	if (optind < argc)
		return cli_usage_error("cache stats", "unexpected argument '%s'", argv[optind]);
	ctx = cli_ctx(cli);
	if (!ctx)
		return EXIT_USAGE;
	cfg = hr_tools_config(ctx);
	r = hr_cache_tiers(ctx, &t, &n);
	if (r < 0) {
		cli_error("cannot list cache tiers: %s", hanzo_rocm_strerror(r));
		return EXIT_FAILED;
	}
	if (json)
		printf("{\"tiers\": [");
	for (size_t i = 0; i < n; i++) {
		struct tier_scan s = { 0 };
		long long oldest, newest;

		r = hr_cache_scan(t[i].path, NULL, count_one, &s);
		if (r < 0 && r != -ENOENT)
			cli_error("cannot read %s: %s", t[i].path, strerror(-r));
		oldest = s.entries ? (long long)(now - s.oldest) : -1;
		newest = s.entries ? (long long)(now - s.newest) : -1;
		if (json) {
			printf("%s{\"tier\": \"%s\", \"path\": ", i ? ", " : "", hr_tier_name(t[i].tier));
			json_str(t[i].path);
			printf(", \"entries\": %llu, \"bytes\": %llu, \"oldest_s\": %lld, \"newest_s\": %lld}",
			       (unsigned long long)s.entries, (unsigned long long)s.bytes, oldest, newest);
		} else {
			printf("%-8s %s: %llu entries, %llu bytes", hr_tier_name(t[i].tier), t[i].path,
			       (unsigned long long)s.entries, (unsigned long long)s.bytes);
			if (s.entries)
				printf(", oldest %lld s, newest %lld s", oldest, newest);
			putchar('\n');
		}
	}
	hr_cache_tiers_free(t, n);
	if (json)
		printf("], \"remote\": [");
	for (size_t i = 0; cfg->remote_url && cfg->remote_url[i]; i++) {
		enum hr_remote_reason res = hr_remote_probe(ctx, cfg->remote_url[i]);
		bool up = res == HR_REMOTE_OK || res == HR_REMOTE_NOT_FOUND;

		if (json) {
			printf("%s{\"url\": ", i ? ", " : "");
			json_str(cfg->remote_url[i]);
			printf(", \"reachable\": %s, \"state\": \"%s\"}", up ? "true" : "false",
			       up ? "reachable" : hr_remote_reason_name(res));
		} else {
			printf("remote   %s: %s\n", cfg->remote_url[i],
			       up ? "reachable" : hr_remote_reason_name(res));
		}
	}
	if (json) {
		printf("], \"redis\": ");
		if (cfg->remote_redis)
			json_str(cfg->remote_redis);
		else
			printf("null");
		printf(", \"trusted_keys\": [");
	} else if (cfg->remote_url && cfg->remote_url[0]) {
		printf("remote   redis: %s, signing: %s, trusted keys:",
		       cfg->remote_redis ? cfg->remote_redis : "(none: a jittered re-check)",
		       cfg->remote_signing_key ? "yes (a builder)" : "no (read only)");
	}
	for (size_t i = 0; cfg->remote_trusted_keys && cfg->remote_trusted_keys[i]; i++) {
		const char *k = cfg->remote_trusted_keys[i];
		int len = (int)(strchr(k, ':') ? (size_t)(strchr(k, ':') - k) : strlen(k));

		if (json)
			printf("%s\"%.*s\"", i ? ", " : "", len, k);
		else if (cfg->remote_url && cfg->remote_url[0])
			printf(" %.*s", len, k);
	}
	if (json)
		printf("], \"counters\": {");
	else if (cfg->remote_url && cfg->remote_url[0])
		putchar('\n');
	for (unsigned i = 0;; i++) {
		char name[HANZO_ROCM_STAT_NAME_MAX];
		uint64_t v;

		if (hanzo_rocm_cache_stat(ctx, i, name, sizeof(name), &v) < 0)
			break;
		if (json)
			printf("%s\"%s\": %llu", i ? ", " : "", name, (unsigned long long)v);
		else if (v)
			printf("counter  %s = %llu\n", name, (unsigned long long)v);
	}
	if (json)
		printf("}}\n");
	return EXIT_OK;
}

/* hanzo-rocm info: the remote tier, each url probed (cache_stats says the same). */
void info_remote(struct hanzo_rocm *ctx, struct json *j)
{
	const struct hr_config *cfg = ctx ? hr_tools_config(ctx) : NULL;
	bool on = cfg && cfg->remote_url && cfg->remote_url[0];

	if (j) {
		json_key(j, "remote");
		json_begin_object(j);
		json_kv_bool(j, "configured", on);
	} else {
		puts("Remote cache tier:");
		if (!on)
			puts("  (none: [remote] url is empty)");
	}
	if (on) {
		if (j) {
			json_kv_bool(j, "builder", cfg->remote_signing_key != NULL);
			if (cfg->remote_redis)
				json_kv_string(j, "redis", cfg->remote_redis);
			json_key(j, "urls");
			json_begin_array(j);
		} else {
			printf("  %s; leases: %s; %zu trusted keys\n",
			       cfg->remote_signing_key ? "builder (signs and pushes)" : "read only",
			       cfg->remote_redis ? cfg->remote_redis : "none",
			       cfg->remote_trusted_keys ? hr_strv_len(cfg->remote_trusted_keys) : 0);
		}
		for (size_t i = 0; cfg->remote_url[i]; i++) {
			enum hr_remote_reason res = hr_remote_probe(ctx, cfg->remote_url[i]);
			const char *state = res == HR_REMOTE_OK || res == HR_REMOTE_NOT_FOUND ?
			                    "reachable" : hr_remote_reason_name(res);

			if (j) {
				json_begin_object(j);
				json_kv_string(j, "url", cfg->remote_url[i]);
				json_kv_string(j, "state", state);
				json_end_object(j);
			} else {
				printf("  %s: %s\n", cfg->remote_url[i], state);
			}
		}
		if (j)
			json_end_array(j);
	}
	if (j)
		json_end_object(j);
}
