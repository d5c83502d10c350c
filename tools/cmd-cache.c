/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hanzo-rocm cache list | verify | gc | clear: the on-disk tiers as the
 * library sees them (lib/cache/entry.c), entry by entry.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hanzo-rocm-tools.h"
#include "tools.h"

static int tiers_get(struct cli *cli, struct hr_tier_dir **t, size_t *n)
{
	struct hanzo_rocm *ctx = cli_ctx(cli);
	int r;

	if (!ctx)
		return EXIT_USAGE;
	r = hr_cache_tiers(ctx, t, n);
	if (r < 0) {
		cli_error("cannot list cache tiers: %s", hanzo_rocm_strerror(r));
		return EXIT_FAILED;
	}
	return EXIT_OK;
}

/* ---- list ---- */

/*
 * Built from other sources or flags than the installed plugin's: still a
 * valid entry, but the library will rebuild rather than use it.  Unknown
 * families (plugin removed) cannot be judged and count as ok.
 */
static bool is_stale(struct hanzo_rocm *ctx, const char *family,
                     const char *target, const struct hr_cache_key *have)
{
	struct hr_family *fam;
	struct hr_cache_key want;

	if (hr_plugins_family(ctx, family, &fam) < 0)
		return false;
	hr_cache_key_compute(fam->family, fam->source_sha256,
	                     (const char *const *)fam->flags,
	                     hr_tools_config(ctx)->flags, target, &want);
	return memcmp(want.b, have->b, sizeof(want.b)) != 0;
}

/* One text row; the table is printed once every tier is read, sorted and
 * with each column as wide as its widest cell. */
enum { COL_TIER, COL_TARGET, COL_FAMILY, COL_SIZE, COL_COMPILER, COL_CREATED,
       COL_STATUS, N_COLS };

struct list_row {
	size_t tier;                    /* tier order (system first, as walked) */
	char *col[N_COLS];
};

struct list_state {
	struct hanzo_rocm *ctx;
	const struct hr_tier_dir *tier;
	size_t tier_index;
	struct json *j;
	unsigned count;
	struct list_row *rows;
	size_t n_rows, cap_rows;
	bool oom;
};

static int row_cmp(const void *a, const void *b)
{
	const struct list_row *x = a, *y = b;
	int c;

	if (x->tier != y->tier)
		return x->tier < y->tier ? -1 : 1;
	c = strcmp(x->col[COL_TARGET], y->col[COL_TARGET]);
	return c ? c : strcmp(x->col[COL_FAMILY], y->col[COL_FAMILY]);
}

static void row_add(struct list_state *s, const char *const cells[N_COLS])
{
	struct list_row *row;

	if (s->n_rows == s->cap_rows) {
		size_t cap = s->cap_rows ? 2 * s->cap_rows : 32;
		struct list_row *p = realloc(s->rows, cap * sizeof(*p));

		if (!p) {
			s->oom = true;
			return;
		}
		s->rows = p;
		s->cap_rows = cap;
	}
	row = &s->rows[s->n_rows];
	row->tier = s->tier_index;
	for (int i = 0; i < N_COLS; i++) {
		row->col[i] = strdup(cells[i]);
		if (!row->col[i]) {
			while (i-- > 0)
				free(row->col[i]);
			s->oom = true;
			return;
		}
	}
	s->n_rows++;
}

static void rows_print(struct list_state *s)
{
	static const char *const head[N_COLS] = { "TIER", "TARGET", "FAMILY", "SIZE",
	                                          "COMPILER", "CREATED", "STATUS" };
	int w[N_COLS];

	if (s->n_rows)  /* qsort(NULL, 0, ...) is undefined */
		qsort(s->rows, s->n_rows, sizeof(*s->rows), row_cmp);
	for (int i = 0; i < N_COLS; i++)
		w[i] = (int)strlen(head[i]);
	for (size_t r = 0; r < s->n_rows; r++)
		for (int i = 0; i < N_COLS; i++)
			if ((int)strlen(s->rows[r].col[i]) > w[i])
				w[i] = (int)strlen(s->rows[r].col[i]);
	for (size_t r = 0; r <= s->n_rows; r++) {
		const char *const *c = r == 0 ? head : (const char *const *)s->rows[r - 1].col;

		/* SIZE right-aligned, the last column unpadded. */
		printf("%-*s  %-*s  %-*s  %*s  %-*s  %-*s  %s\n", w[0], c[0], w[1], c[1],
		       w[2], c[2], w[3], c[3], w[4], c[4], w[5], c[5], c[6]);
	}
	for (size_t r = 0; r < s->n_rows; r++)
		for (int i = 0; i < N_COLS; i++)
			free(s->rows[r].col[i]);
	free(s->rows);
}

static int list_one(void *data, const char *path, const char *target,
                    const char *name, enum hr_cache_file kind,
                    const struct stat *st)
{
	struct list_state *s = data;
	struct hr_entry e;
	char why[256], family[80], size[32], created[32] = "-", status_why[300];
	const char *status;
	int r;

	if (kind != HR_CACHE_ENTRY)
		return 0;
	snprintf(family, sizeof(family), "%.*s", (int)(strlen(name) - 5), name);
	r = hr_entry_read_why(s->ctx, path, NULL, &e, why, sizeof(why));
	status = r == 0 ? "ok" : "corrupt";
	if (r == 0) {
		time_t t = (time_t)e.created;
		struct tm tm;

		if (gmtime_r(&t, &tm))
			strftime(created, sizeof(created), "%Y-%m-%dT%H:%M:%SZ", &tm);
	}
	if (r == 0 && is_stale(s->ctx, family, target, &e.key))
		status = "stale";
	s->count++;
	if (s->j) {
		json_begin_object(s->j);
		json_kv_string(s->j, "tier", hr_tier_name(s->tier->tier));
		json_kv_string(s->j, "path", path);
		json_kv_string(s->j, "target", target);
		json_kv_string(s->j, "family", family);
		json_kv_uint(s->j, "size", (unsigned long long)st->st_size);
		if (r == 0)
			json_kv_uint(s->j, "code_object_size", e.payload_size);
		json_kv_string(s->j, "compiler", r == 0 ? e.compiler : NULL);
		if (r == 0)
			json_kv_uint(s->j, "created", e.created);
		else
			json_kv_string(s->j, "created", NULL);
		json_kv_string(s->j, "status", status);
		if (r < 0)
			json_kv_string(s->j, "reason", why);
		json_end_object(s->j);
	} else {
		/* The code object's size, as precompile prints it (the file adds
		 * the entry header); a corrupt entry's file size. */
		hr_format_size(r == 0 ? e.payload_size : (uint64_t)st->st_size, size,
		               sizeof(size));
		snprintf(status_why, sizeof(status_why), "%s%s%s", status,
		         r == 0 ? "" : ": ", r == 0 ? "" : why);
		row_add(s, (const char *const[N_COLS]){ hr_tier_name(s->tier->tier), target,
		        family, size, r == 0 ? e.compiler : "-", created, status_why });
	}
	hr_entry_release(&e);
	return 0;
}

static int cache_list(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "target", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct list_state s = { 0 };
	struct hr_tier_dir *t = NULL;
	const char *target = NULL;
	struct json j;
	size_t n = 0;
	int c, r;

	while ((c = getopt_long(argc, argv, "jt:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': s.j = &j; break;
		case 't': target = optarg; break;
		case 'h':
			puts("Usage: hanzo-rocm cache list [--json] [--target T]\n\n"
			     "List every entry of every cache tier, sorted by tier, target and\n"
			     "family: tier, target, family, size (of the code object, as\n"
			     "precompile prints it), compiler, creation time and status: ok,\n"
			     "stale (built from other sources or flags than the installed\n"
			     "plugin's; rebuilt on use) or corrupt (with the reason).\n"
			     "--json prints a JSON array of objects (size: the file's;\n"
			     "code_object_size: the code object's).");
			return EXIT_OK;
		default: return cli_try_help("cache list");
		}
	}
	if (optind < argc) {
		cli_usage_error("cache list", "unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	if (target && !hr_name_is_valid(target)) {
		cli_usage_error("cache list", "invalid target '%s'", target);
		return EXIT_USAGE;
	}
	r = tiers_get(cli, &t, &n);
	if (r != EXIT_OK)
		return r;
	s.ctx = cli->ctx;
	if (s.j) {
		json_init(&j, stdout);
		json_begin_array(&j);
	}
	for (size_t i = 0; i < n; i++) {
		s.tier = &t[i];
		s.tier_index = i;
		r = hr_cache_scan(t[i].path, target, list_one, &s);
		if (r < 0)
			cli_error("cannot read %s: %s", t[i].path, strerror(-r));
	}
	if (s.j) {
		json_end_array(&j);
		json_finish(&j);
	} else {
		rows_print(&s);
	}
	hr_cache_tiers_free(t, n);
	if (s.oom) {
		cli_error("cache list: out of memory");
		return EXIT_FAILED;
	}
	return EXIT_OK;
}

/* ---- verify ---- */

struct verify_state {
	struct hanzo_rocm *ctx;
	const struct hr_tier_dir *tier;
	bool repair;
	struct json *j;         /* --json: one object per bad entry */
	unsigned checked, bad, removed;
};

/* One bad entry: a text line, or a JSON object with what was done. */
static void verify_report(struct verify_state *s, const char *path, const char *why,
                          const char *action, const char *detail)
{
	if (s->j) {
		json_begin_object(s->j);
		json_kv_string(s->j, "path", path);
		json_kv_string(s->j, "tier", hr_tier_name(s->tier->tier));
		json_kv_string(s->j, "reason", why);
		json_kv_string(s->j, "action", action);
		if (detail)
			json_kv_string(s->j, "error", detail);
		json_end_object(s->j);
	} else if (strcmp(action, "removed") == 0) {
		printf("%s: %s: removed\n", path, why);
	} else if (strcmp(action, "read-only") == 0) {
		printf("%s: %s (not repaired: the %s tier is read-only here)\n", path,
		       why, hr_tier_name(s->tier->tier));
	} else if (detail) {
		printf("%s: %s (not repaired: %s)\n", path, why, detail);
	} else {
		printf("%s: %s\n", path, why);
	}
}

/* A bad file: count it, and remove it under --repair where allowed. */
static void verify_bad(struct verify_state *s, const char *path, const char *why)
{
	s->bad++;
	if (!s->repair) {
		verify_report(s, path, why, "kept", NULL);
	} else if (!s->tier->writable) {
		verify_report(s, path, why, "read-only", NULL);
	} else if (unlink(path) < 0) {
		verify_report(s, path, why, "kept", strerror(errno));
	} else {
		verify_report(s, path, why, "removed", NULL);
		s->removed++;
	}
}

static int verify_one(void *data, const char *path, const char *target,
                      const char *name, enum hr_cache_file kind,
                      const struct stat *st)
{
	struct verify_state *s = data;
	struct hr_entry e;
	char why[256];

	(void)target;
	(void)name;
	if (kind != HR_CACHE_ENTRY && kind != HR_CACHE_QUARANTINE &&
	    kind != HR_CACHE_IRREGULAR)
		return 0;
	s->checked++;
	if (kind == HR_CACHE_QUARANTINE) {
		snprintf(why, sizeof(why), "quarantined as corrupt");
	} else if (kind == HR_CACHE_IRREGULAR && !*name) {
		snprintf(why, sizeof(why), "target directory that is not a directory (%s): never used",
		         S_ISLNK(st->st_mode) ? "a symlink" : S_ISFIFO(st->st_mode) ? "a FIFO" :
		         S_ISREG(st->st_mode) ? "a file" : "a special file");
	} else if (kind == HR_CACHE_IRREGULAR) {
		snprintf(why, sizeof(why), "not a regular file (%s): never used",
		         S_ISLNK(st->st_mode) ? "a symlink" : S_ISDIR(st->st_mode) ? "a directory" :
		         S_ISFIFO(st->st_mode) ? "a FIFO" : "a special file");
	} else if (hr_entry_read_why(s->ctx, path, NULL, &e, why, sizeof(why)) == 0) {
		hr_entry_release(&e);
		return 0;
	}
	verify_bad(s, path, why);
	return 0;
}

/*
 * The tier's plugins.index (written by precompile): a corrupt one is
 * ignored by the library, so it is corruption to report; --repair removes
 * it (lookups then scan until the next precompile writes a new one).
 */
static int verify_index(struct verify_state *s)
{
	char why[PATH_MAX + 64] = "", *path;
	int r = hr_plugins_index_verify(s->tier->path, why, sizeof(why));

	if (r == 0 || r == -ENOENT)
		return 0;
	if (r != -EBADMSG)
		return r;
	path = hr_path_join(s->tier->path, "plugins.index");
	if (!path)
		return -ENOMEM;
	s->checked++;
	verify_bad(s, path, why);
	free(path);
	return 0;
}

static int cache_verify(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "repair", no_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "remote", no_argument, NULL, 'R' },
		{ "target", required_argument, NULL, 't' },
		{ "family", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char **targets = NULL, **families = NULL;
	bool remote = false;
	struct verify_state s = { 0 };
	struct hr_tier_dir *t = NULL;
	struct json j;
	bool as_json = false;
	size_t n = 0;
	int c, r, ret = EXIT_OK;

	while ((c = getopt_long(argc, argv, "rt:f:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r': s.repair = true; break;
		case 'j': as_json = true; break;
		case 'R': remote = true; break;
		case 't':
		case 'f':
			if (hr_strv_push(c == 't' ? &targets : &families, optarg) < 0) {
				cli_error("cache verify: out of memory");
				ret = EXIT_FAILED;
				goto out;
			}
			break;
		case 'h':
			puts("Usage: hanzo-rocm cache verify [--repair] [--json]\n"
			     "       hanzo-rocm cache verify --remote [--target T]... [--family F]...\n\n"
			     "Validate every entry of every cache tier (header, sizes, checksums,\n"
			     "code object machine and target) and each tier's plugins.index, and\n"
			     "print each bad one with the reason.  --repair removes them from the\n"
			     "tiers this user may write.\n"
			     "--json prints one object: checked, corrupt, removed and bad (an\n"
			     "array of {path, tier, reason, action[, error]}).\n"
			     "--remote: fetch the entry of every family (--family, else all) for\n"
			     "every target (--target, else precompile's) from every [remote] url\n"
			     "and check it as a lookup would (signature by a trusted key, cache\n"
			     "key, family and target, blob size and SHA-256, ELF machine and\n"
			     "target), publishing nothing; one line per entry: ok, absent,\n"
			     "refused (the reason) or unreachable.\n"
			     "Exit status 1 when corruption remains (--remote: an entry refused\n"
			     "or a remote unreachable).");
			ret = EXIT_OK;
			goto out;
		default: ret = cli_try_help("cache verify"); goto out;
		}
	}
	if (optind < argc) {
		cli_usage_error("cache verify", "unexpected argument '%s'", argv[optind]);
		ret = EXIT_USAGE;
		goto out;
	}
	if (remote && (s.repair || as_json)) {
		ret = cli_usage_error("cache verify", "--remote goes without --repair and --json");
		goto out;
	}
	if (!remote && (targets || families)) {
		ret = cli_usage_error("cache verify", "--target and --family go with --remote");
		goto out;
	}
	if (remote) {
		ret = cache_verify_remote(cli, targets, families);
		goto out;
	}
	r = tiers_get(cli, &t, &n);
	if (r != EXIT_OK)
		return r;
	s.ctx = cli->ctx;
	if (as_json) {
		json_init(&j, stdout);
		json_begin_object(&j);
		json_key(&j, "bad");
		json_begin_array(&j);
		s.j = &j;
	}
	for (size_t i = 0; i < n; i++) {
		s.tier = &t[i];
		r = hr_cache_scan(t[i].path, NULL, verify_one, &s);
		if (r < 0) {
			cli_error("cannot read %s: %s", t[i].path, strerror(-r));
			ret = EXIT_FAILED;
		}
		r = verify_index(&s);
		if (r < 0) {
			cli_error("cannot check the plugin index of %s: %s", t[i].path,
			          strerror(-r));
			ret = EXIT_FAILED;
		}
	}
	if (as_json) {
		json_end_array(&j);
		json_kv_uint(&j, "checked", s.checked);
		json_kv_uint(&j, "corrupt", s.bad);
		json_kv_uint(&j, "removed", s.removed);
		json_end_object(&j);
		json_finish(&j);
	} else {
		printf("%u entries checked, %u corrupt%s", s.checked, s.bad,
		       s.repair ? ", " : "\n");
		if (s.repair)
			printf("%u removed\n", s.removed);
	}
	hr_cache_tiers_free(t, n);
	if (s.bad > s.removed)
		ret = EXIT_FAILED;
out:
	hr_strv_free(targets);
	hr_strv_free(families);
	return ret;
}

/* ---- gc ---- */

static const struct hr_tier_dir *find_tier(const struct hr_tier_dir *t, size_t n,
                                           enum hr_tier which)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].tier == which)
			return &t[i];
	return NULL;
}

/* The compile temp dirs of killed processes (kill -9 runs no cleanup). */
static void tmpdirs_gc(void)
{
	unsigned n = 0;

	if (hr_toolchain_tmpdirs_gc(&n) == 0 && n)
		printf("removed %u stale compile temp dir%s\n", n, n == 1 ? "" : "s");
}

static int cache_gc(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "max-size", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct hr_tier_dir *user;
	struct hr_tier_dir *t = NULL;
	struct hr_gc_stats st;
	const char *max_arg = NULL;
	uint64_t max = 0;
	char a[32], b[32], m[32];
	size_t n = 0;
	int c, r, ret = EXIT_OK;

	while ((c = getopt_long(argc, argv, "m:h", opts, NULL)) != -1) {
		switch (c) {
		case 'm': max_arg = optarg; break;
		case 'h':
			puts("Usage: hanzo-rocm cache gc [--max-size SIZE]\n\n"
			     "Shrink the user cache below SIZE (default [cache] max_size; K/M/G\n"
			     "suffixes), evicting the least recently used entries first, and\n"
			     "remove temp and lock files left by dead processes (older than an\n"
			     "hour) and quarantined entries.");
			return EXIT_OK;
		default: return cli_try_help("cache gc");
		}
	}
	if (optind < argc) {
		cli_usage_error("cache gc", "unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	if (max_arg && hr_parse_size(max_arg, &max) < 0) {
		cli_usage_error("cache gc", "invalid --max-size '%s' (want e.g. 512M, 1G)", max_arg);
		return EXIT_USAGE;
	}
	r = tiers_get(cli, &t, &n);
	if (r != EXIT_OK)
		return r;
	if (!max_arg)
		max = hr_tools_config(cli->ctx)->max_size;
	user = find_tier(t, n, HR_TIER_USER);
	if (!user) {
		printf("no user cache: nothing to do\n");
		goto out;
	}
	if (!user->writable) {
		cli_error("cache gc: the user cache %s is not writable", user->path);
		ret = EXIT_FAILED;
		goto out;
	}
	r = hr_cache_gc(cli->ctx, user->path, max, NULL, &st);
	if (r < 0) {
		cli_error("cache gc: %s: %s", user->path, strerror(-r));
		ret = EXIT_FAILED;
	}
	hr_format_size(st.freed, a, sizeof(a));
	hr_format_size(st.total, b, sizeof(b));
	hr_format_size(max, m, sizeof(m));
	printf("%s: evicted %u entries (%s), removed %u stale files; %s used of %s\n",
	       user->path, st.evicted, a, st.debris, b, m);
	tmpdirs_gc();
out:
	hr_cache_tiers_free(t, n);
	return ret;
}

/* ---- clear ---- */

struct clear_state {
	unsigned removed, failed;
	const char *family;     /* --family: only its files */
};

static int clear_one(void *data, const char *path, const char *target,
                     const char *name, enum hr_cache_file kind,
                     const struct stat *st)
{
	struct clear_state *s = data;

	(void)target;
	(void)st;
	if (s->family && !hr_cache_file_is_family(name, kind, s->family))
		return 0;
	if (unlink(path) == 0) {
		if (kind == HR_CACHE_ENTRY)
			s->removed++;
	} else if (errno != ENOENT) {
		cli_error("cannot remove %s: %s", path, strerror(errno));
		s->failed++;
	}
	return 0;
}

/* Empty target directories go, then the tier directory if it is empty too. */
static void prune_dirs(const char *dir, const char *only)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	DIR *d;

	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d)))
		if (hr_name_is_safe(de->d_name) &&
		    (!only || strcmp(only, de->d_name) == 0))
			(void)unlinkat(fd, de->d_name, AT_REMOVEDIR);
	closedir(d);
	(void)rmdir(dir);
}

static int cache_clear(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "system", no_argument, NULL, 's' },
		{ "user", no_argument, NULL, 'u' },
		{ "target", required_argument, NULL, 't' },
		{ "family", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct clear_state s = { 0 };
	enum hr_tier which = HR_TIER_USER;
	const struct hr_tier_dir *tier;
	struct hr_tier_dir *t = NULL;
	const char *target = NULL;
	size_t n = 0;
	int c, r, ret = EXIT_OK;

	while ((c = getopt_long(argc, argv, "sut:f:h", opts, NULL)) != -1) {
		switch (c) {
		case 's': which = HR_TIER_SYSTEM; break;
		case 'u': which = HR_TIER_USER; break;
		case 't': target = optarg; break;
		case 'f': s.family = optarg; break;
		case 'h':
			puts("Usage: hanzo-rocm cache clear [--system|--user] [--target T] [--family F]\n\n"
			     "Remove the entries of the user cache (default) or of the system\n"
			     "cache (needs write permission there), all or only those of\n"
			     "target T and/or family F.  Directories left empty are removed.");
			return EXIT_OK;
		default: return cli_try_help("cache clear");
		}
	}
	if (optind < argc) {
		cli_usage_error("cache clear", "unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	if (target && !hr_name_is_valid(target)) {
		cli_usage_error("cache clear", "invalid target '%s'", target);
		return EXIT_USAGE;
	}
	if (s.family && !hr_name_is_valid(s.family)) {
		cli_usage_error("cache clear", "invalid family '%s'", s.family);
		return EXIT_USAGE;
	}
	r = tiers_get(cli, &t, &n);
	if (r != EXIT_OK)
		return r;
	tier = find_tier(t, n, which);
	if (!tier) {
		printf("no %s cache: nothing to clear\n", hr_tier_name(which));
		goto out;
	}
	if (!tier->writable) {
		cli_error("cache clear: the %s cache %s is not writable by this user",
		          hr_tier_name(which), tier->path);
		ret = EXIT_FAILED;
		goto out;
	}
	r = hr_cache_scan(tier->path, target, clear_one, &s);
	if (r < 0 && r != -ENOENT) {
		cli_error("cannot read %s: %s", tier->path, strerror(-r));
		ret = EXIT_FAILED;
	}
	prune_dirs(tier->path, target);
	printf("%s: removed %u entries\n", tier->path, s.removed);
	tmpdirs_gc();
	if (s.failed)
		ret = EXIT_FAILED;
out:
	hr_cache_tiers_free(t, n);
	return ret;
}

static void usage(FILE *f)
{
	fputs("Usage: hanzo-rocm cache COMMAND [OPTIONS]\n\n"
	      "Commands:\n"
	      "  list [--json] [--target T]       every entry of every tier\n"
	      "  verify [--repair] [--json]       validate every entry; exit 1 on corruption\n"
	      "  verify --remote [--target T] [--family F]  check the remotes' entries\n"
	      "  gc [--max-size SIZE]             shrink the user cache, drop stale files\n"
	      "  clear [--system|--user] [--target T] [--family F]  remove entries\n"
	      "  keygen NAME [--output FILE]      a key to sign remote cache entries\n"
	      "  push [--system] [--target T] [--family F]  sign and push entries to [remote] url\n"
	      "  stats [--json]                   tiers, remote tier, this process's counters\n"
	      "\nCOMMAND --help describes each.\n", f);
}

int cmd_cache(struct cli *cli, int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*run)(struct cli *, int, char **);
	} subs[] = {
		{ "list", cache_list }, { "verify", cache_verify },
		{ "gc", cache_gc }, { "clear", cache_clear },
		{ "keygen", cache_keygen }, { "push", cache_push },
		{ "stats", cache_stats },
	};
	char prog[64];

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		if (strcmp(argv[1], subs[i].name) != 0)
			continue;
		/* getopt's messages then read "hanzo-rocm cache NAME: ...". */
		snprintf(prog, sizeof(prog), "hanzo-rocm cache %s", subs[i].name);
		/* prog outlives the subcommand, the only reader of argv. */
		// cppcheck-suppress autoVariables
		argv[1] = prog;
		optind = 0;
		return subs[i].run(cli, argc - 1, argv + 1);
	}
	return cli_usage_error("cache", "unknown command '%s'", argv[1]);
}
