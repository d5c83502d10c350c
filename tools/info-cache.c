/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* info: the cache tiers in search order, with their size. */
#include <string.h>
#include <sys/stat.h>

#include "hanzo-rocm-tools.h"
#include "tools.h"

struct tally {
	unsigned long long entries, bytes;
};

static int count(void *data, const char *path, const char *target,
                 const char *name, enum hr_cache_file kind, const struct stat *st)
{
	struct tally *t = data;

	(void)path;
	(void)target;
	(void)name;
	if (kind == HR_CACHE_ENTRY) {
		t->entries++;
		t->bytes += (unsigned long long)st->st_size;
	}
	return 0;
}

void info_cache(struct cli *cli, struct json *j)
{
	struct hanzo_rocm *ctx = cli_ctx(cli);
	struct hr_tier_dir *t = NULL;
	size_t n = 0;

	if (ctx && hr_cache_tiers(ctx, &t, &n) < 0)
		n = 0;
	if (j) {
		json_key(j, "cache_tiers");
		json_begin_array(j);
	} else {
		puts("Cache tiers:");
		if (n == 0)
			puts("  (none)");
	}
	for (size_t i = 0; i < n; i++) {
		struct tally c = { 0 };
		struct stat st;
		bool exists = stat(t[i].path, &st) == 0;
		char size[32];

		hr_cache_scan(t[i].path, NULL, count, &c);
		if (j) {
			json_begin_object(j);
			json_kv_string(j, "tier", hr_tier_name(t[i].tier));
			json_kv_string(j, "path", t[i].path);
			json_kv_bool(j, "exists", exists);
			json_kv_bool(j, "writable", t[i].writable);
			json_kv_uint(j, "entries", c.entries);
			json_kv_uint(j, "bytes", c.bytes);
			json_end_object(j);
			continue;
		}
		hr_format_size(c.bytes, size, sizeof(size));
		printf("  %-8s %s (%s%s, %llu entries, %s)\n", hr_tier_name(t[i].tier),
		       t[i].path, t[i].writable ? "writable" : "read-only",
		       exists ? "" : ", absent", c.entries, size);
	}
	if (j)
		json_end_array(j);
	hr_cache_tiers_free(t, n);
	info_remote(ctx, j);
}
