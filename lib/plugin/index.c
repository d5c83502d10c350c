/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The plugin index (layer: build): `precompile` writes <tier>/plugins.index
 * listing every candidate plugin with its stat data, checksum and table;
 * a lookup that finds it fresh builds the family table from it without
 * dlopen-ing anything.  This file reads it: the parser, the freshness
 * check, the table built from it, and cache verify's check of it.  The
 * format (percent-encoded, tab-separated fields) is written by
 * plugin/index-write.c.
 */
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


#include "config/config.h"
#include "context.h"
#include "plugin.h"
#include "plugin-internal.h"
#include "shared/util.h"
#include "shared/name.h"
#include "shared/trust.h"


/* ---- reading the plugin index (plugin/index-write.c writes it) -------------- */

/* Decode a percent-encoded field; NULL when malformed or holding a NUL. */
static char *dec(const char *s)
{
	size_t n = strlen(s), o = 0;
	char *out = malloc(n + 1);

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		int hi, lo;

		if (s[i] != '%') {
			if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f || s[i] == ',')
				goto bad;
			out[o++] = s[i];
			continue;
		}
		if (i + 2 >= n || (hi = hr_plugin_hex_val(s[i + 1])) < 0 || (lo = hr_plugin_hex_val(s[i + 2])) < 0 ||
		    (hi == 0 && lo == 0))
			goto bad;
		out[o++] = (char)(hi << 4 | lo);
		i += 2;
	}
	out[o] = '\0';
	return out;
bad:
	free(out);
	return NULL;
}

/* A comma-separated list of encoded items; "" is the empty list. */
static char **dec_list(const char *s)
{
	char **items = hr_strv_split(s, ","), **out = hr_strv_new();

	for (size_t i = 0; items && out && items[i]; i++) {
		char *d = dec(items[i]);

		if (!d || hr_strv_push(&out, d) < 0) {
			free(d);
			hr_strv_free(out);
			out = NULL;
			break;
		}
		free(d);
	}
	if (!items) {
		hr_strv_free(out);
		out = NULL;
	}
	hr_strv_free(items);
	return out;
}

/* Split a line on tabs keeping empty fields; at most max fields. */
static size_t split_tabs(char *line, char **f, size_t max)
{
	size_t n = 0;

	while (n < max) {
		f[n++] = line;
		line = strchr(line, '\t');
		if (!line)
			return n;
		*line++ = '\0';
	}
	return max + 1; /* too many */
}

static bool parse_u64(const char *s, uint64_t *v)
{
	return hr_parse_uint(s, UINT64_MAX, v) == 0;
}

struct index_ent {
	char *path;
	bool have_st;
	uint64_t size, mtime, ctime, ino;
	enum cand_state state;
	char *family, *version;
	uint32_t abi;
	uint8_t sha[32];
	char **flags, **kernels;
};

static void index_ent_release(struct index_ent *e)
{
	free(e->path);
	free(e->family);
	free(e->version);
	hr_strv_free(e->flags);
	hr_strv_free(e->kernels);
}

/* One "plugin" line (fields already split); false when anything is off. */
static bool parse_plugin_line(char **f, struct index_ent *e)
{
	uint64_t v;
	int st;

	memset(e, 0, sizeof(*e));
	if (!(e->path = dec(f[1])))
		return false;
	if (strcmp(f[2], "-") == 0) {
		if (strcmp(f[3], "-") != 0 || strcmp(f[4], "-") != 0 || strcmp(f[5], "-") != 0)
			return false;
	} else {
		if (!parse_u64(f[2], &e->size) || !parse_u64(f[3], &e->mtime) ||
		    !parse_u64(f[4], &e->ctime) || !parse_u64(f[5], &e->ino))
			return false;
		e->have_st = true;
	}
	for (st = 0; st < (int)HR_ARRAY_SIZE(hr_plugin_state_names); st++)
		if (strcmp(f[6], hr_plugin_state_names[st]) == 0)
			break;
	if (st == (int)HR_ARRAY_SIZE(hr_plugin_state_names))
		return false;
	e->state = (enum cand_state)st;
	if (e->state != CAND_OK)
		return true;
	if (!(e->family = dec(f[7])) || !hr_name_is_valid(e->family) ||
	    !(e->version = dec(f[8])) || !hr_plugin_text_is_valid(e->version, MAX_VERSION) ||
	    !parse_u64(f[9], &v) || v != HANZO_ROCM_PLUGIN_ABI || strlen(f[10]) != 64)
		return false;
	e->abi = (uint32_t)v;
	/* A usable plugin is named after its family (an older index may say otherwise). */
	{
		const char *base = strrchr(e->path, '/');
		size_t n = strlen(e->family);

		base = base ? base + 1 : e->path;
		if (strncmp(base, e->family, n) != 0 || strcmp(base + n, ".so") != 0)
			return false;
	}
	for (size_t i = 0; i < 32; i++) {
		int hi = hr_plugin_hex_val(f[10][2 * i]), lo = hr_plugin_hex_val(f[10][2 * i + 1]);

		if (hi < 0 || lo < 0)
			return false;
		e->sha[i] = (uint8_t)(hi << 4 | lo);
	}
	if (!(e->flags = dec_list(f[11])) || !(e->kernels = dec_list(f[12])))
		return false;
	for (size_t i = 0; e->flags[i]; i++)
		if (i >= MAX_FLAGS || !hr_plugin_text_is_valid(e->flags[i], MAX_FLAG_LEN))
			return false;
	for (size_t i = 0; e->kernels[i]; i++)
		if (i >= MAX_KERNELS || !hr_plugin_kernel_name_is_valid(e->kernels[i]))
			return false;
	return true;
}

struct index {
	char **dirs;
	char **disable;
	struct index_ent *e;
	size_t n;
};

static void index_release(struct index *ix)
{
	hr_strv_free(ix->dirs);
	hr_strv_free(ix->disable);
	for (size_t i = 0; i < ix->n; i++)
		index_ent_release(&ix->e[i]);
	free(ix->e);
	memset(ix, 0, sizeof(*ix));
}

/* Parse text into ix; on error, *line is the offending line number. */
static int index_parse(char *text, struct index *ix, unsigned *line)
{
	char *save = NULL, *l, *f[14] = { 0 };
	bool header = false;
	size_t n;

	memset(ix, 0, sizeof(*ix));
	*line = 0;
	if (!(ix->dirs = hr_strv_new()))
		return -ENOMEM;
	/* Lines are split by hand so that *line counts blank ones too. */
	for (l = text; l; l = save) {
		save = strchr(l, '\n');
		if (save)
			*save++ = '\0';
		else if (!*l)
			break;
		++*line;
		if (l[0] == '#' || l[0] == '\0')
			continue;
		n = split_tabs(l, f, HR_ARRAY_SIZE(f));
		if (!header) {
			uint64_t v;

			/* Another format version is as good as no index: rescan. */
			if (n != 2 || strcmp(f[0], INDEX_MAGIC) != 0 || !parse_u64(f[1], &v) ||
			    v != INDEX_VERSION)
				return -EBADMSG;
			header = true;
		} else if (strcmp(f[0], "dir") == 0 && n == 2) {
			char *d = dec(f[1]);

			if (!d || hr_strv_push(&ix->dirs, d) < 0) {
				free(d);
				return -EBADMSG;
			}
			free(d);
		} else if (strcmp(f[0], "disable") == 0 && n == 2 && !ix->disable) {
			if (!(ix->disable = dec_list(f[1])))
				return -EBADMSG;
		} else if (strcmp(f[0], "plugin") == 0 && n == 13) {
			struct index_ent *e = realloc(ix->e, (ix->n + 1) * sizeof(*e));

			if (!e)
				return -ENOMEM;
			ix->e = e;
			if (!parse_plugin_line(f, &e[ix->n])) {
				index_ent_release(&e[ix->n]);
				return -EBADMSG;
			}
			ix->n++;
		} else {
			return -EBADMSG;
		}
	}
	if (!header || !ix->disable) {
		*line = 0;
		return -EBADMSG;
	}
	return 0;
}

/*
 * An index is fresh when it was built for this plugin path and disable list,
 * every directory is still trusted and holds the same *.so names, and every
 * file keeps its size, mtime, ctime and inode.  Sets why when stale.  The
 * index lists candidates in scan order, so one walk compares them all.
 */
static int index_is_fresh(struct hanzo_rocm *ctx, const struct settings *set,
                          const struct index *ix, char *why, size_t n)
{
	size_t k = 0;
	int r;

	if (!hr_plugin_strv_equal(ix->dirs, set->path)) {
		snprintf(why, n, "built for another plugin path");
		return 0;
	}
	if (!hr_plugin_strv_equal(ix->disable, set->disable)) {
		snprintf(why, n, "built for another disable list");
		return 0;
	}
	for (size_t i = 0; set->path[i] && !why[0]; i++) {
		struct dir_list d;

		r = hr_plugin_dir_list_open(ctx, set->path[i], &d);
		if (r < 0) {
			hr_plugin_dir_list_release(&d);
			return r;
		}
		if (d.why[0])
			snprintf(why, n, "directory %s is %s", set->path[i], d.why);
		for (size_t m = 0; d.names[m] && !why[0]; m++, k++) {
			const struct index_ent *e = k < ix->n ? &ix->e[k] : NULL;
			char *p = hr_path_join(set->path[i], d.names[m]);
			struct stat st;
			bool have;

			if (!p) {
				hr_plugin_dir_list_release(&d);
				return -ENOMEM;
			}
			have = stat(p, &st) == 0;
			if (!e || strcmp(e->path, p) != 0)
				snprintf(why, n, "the files in %s changed", set->path[i]);
			else if (have != e->have_st ||
			         (have && ((uint64_t)st.st_size != e->size ||
			                   hr_plugin_ts_ns(&st.st_mtim) != e->mtime ||
			                   hr_plugin_ts_ns(&st.st_ctim) != e->ctime ||
			                   (uint64_t)st.st_ino != e->ino)))
				snprintf(why, n, "%s changed", p);
			free(p);
		}
		hr_plugin_dir_list_release(&d);
	}
	/* Past the index's end the walk above already said "changed". */
	if (!why[0] && k < ix->n)
		snprintf(why, n, "%s was removed", ix->e[k].path);
	return 0;
}

static struct fam *fam_from_index(struct index_ent *e)
{
	struct fam *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->pub.path = e->path;
	f->pub.family = e->family;
	f->pub.version = e->version;
	f->pub.flags = e->flags;
	f->pub.kernels = e->kernels;
	memcpy(f->pub.source_sha256, e->sha, 32);
	e->path = e->family = e->version = NULL;
	e->flags = e->kernels = NULL;
	return f;
}

/* 0 trusted, -ENOENT missing, -EPERM untrusted (why set). */
static int index_file_check(const char *path, char *why, size_t n)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		if (errno == ENOENT)
			return -ENOENT;
		snprintf(why, n, "cannot stat: %s", strerror(errno));
		return -EPERM;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, n, "not a regular file");
		return -EPERM;
	}
	if (*hr_trust_stat(NULL, &st, HR_TRUST_SELF, path, why, n))
		return -EPERM;
	return 0;
}

static void table_clear(struct hr_plugins *p)
{
	for (size_t i = 0; i < p->n_fams; i++)
		hr_plugin_fam_free(p->fams[i]);
	free(p->fams);
	p->fams = NULL;
	p->n_fams = 0;
}

/*
 * Read and parse <file> into ix (*data keeps the text ix points into):
 * 0, -ENOENT missing, -EBADMSG unusable (why says why: untrusted, not a
 * regular file, NUL byte, malformed, a family twice), -ENOMEM.
 */
static int index_load(const char *file, struct index *ix, void **data,
                      char *why, size_t why_size)
{
	unsigned line;
	size_t size;
	int r;

	*data = NULL;
	memset(ix, 0, sizeof(*ix));
	r = index_file_check(file, why, why_size);
	if (r == -ENOENT)
		return r;
	if (r < 0)
		return -EBADMSG;
	r = hr_read_file(file, INDEX_MAX_SIZE, data, &size);
	if (r == -ENOMEM || r == -ENOENT)
		return r;
	if (r < 0) {
		snprintf(why, why_size, "%s", strerror(-r));
		return -EBADMSG;
	}
	if (memchr(*data, '\0', size)) {
		snprintf(why, why_size, "holds a NUL byte");
		return -EBADMSG;
	}
	r = index_parse(*data, ix, &line);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		snprintf(why, why_size, "malformed at line %u", line);
		return -EBADMSG;
	}
	for (size_t i = 0; i < ix->n; i++) {
		if (ix->e[i].state != CAND_OK)
			continue;
		for (size_t k = 0; k < i; k++)
			if (ix->e[k].state == CAND_OK &&
			    strcmp(ix->e[k].family, ix->e[i].family) == 0) {
				snprintf(why, why_size, "family '%s' listed twice",
				         ix->e[i].family);
				return -EBADMSG;
			}
	}
	return 0;
}

int hr_plugins_index_verify(const char *dir, char *why, size_t why_size)
{
	struct index ix;
	void *data;
	char *file = hr_path_join(dir, INDEX_NAME);
	int r;

	if (!file)
		return -ENOMEM;
	r = index_load(file, &ix, &data, why, why_size);
	index_release(&ix);
	free(data);
	free(file);
	return r;
}

int hr_plugins_index_families(const char *dir, char ***families)
{
	struct index ix;
	void *data;
	char why[256], *file = hr_path_join(dir, INDEX_NAME), **v = NULL;
	int r;

	*families = NULL;
	if (!file)
		return -ENOMEM;
	r = index_load(file, &ix, &data, why, sizeof(why));
	if (r == 0 && !(v = hr_strv_new()))
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < ix.n; i++)
		if (ix.e[i].state == CAND_OK && hr_strv_push(&v, ix.e[i].family) < 0)
			r = -ENOMEM;
	index_release(&ix);
	free(data);
	free(file);
	if (r < 0) {
		hr_strv_free(v);
		return r;
	}
	*families = v;
	return 0;
}

/*
 * Load the table from <dir>/plugins.index when it is fresh: 0 loaded,
 * -ENOENT missing, -ESTALE stale or unusable (msg says why), -ENOMEM.
 */
static int table_from_index(struct hanzo_rocm *ctx, struct hr_plugins *p,
                            const struct settings *set, const char *dir,
                            char *msg, size_t msg_size)
{
	struct index ix = { 0 };
	char *file, why[PATH_MAX + 64] = "";
	bool bad = true;          /* unusable (warn) rather than merely stale */
	void *data = NULL;
	int r;

	file = hr_path_join(dir, INDEX_NAME);
	if (!file)
		return -ENOMEM;
	r = index_load(file, &ix, &data, why, sizeof(why));
	if (r == -ENOENT || r == -ENOMEM)
		goto out;
	if (r < 0)
		goto stale;
	r = index_is_fresh(ctx, set, &ix, why, sizeof(why));
	if (r < 0)
		goto out;
	if (why[0]) {
		bad = false;
		goto stale;
	}
	for (size_t i = 0; i < ix.n; i++) {
		struct fam **fams, *f;

		if (ix.e[i].state != CAND_OK)
			continue;
		fams = realloc(p->fams, (p->n_fams + 1) * sizeof(*fams)); // NOLINT(bugprone-sizeof-expression): an array of pointers
		if (fams)
			p->fams = fams;
		if (!fams || !(f = fam_from_index(&ix.e[i]))) {
			r = -ENOMEM;
			goto out;
		}
		p->fams[p->n_fams++] = f;
	}
	hr_dbg(ctx, "using plugin index %s (%zu families)\n", file, p->n_fams);
	r = 0;
	goto out;
stale:
	snprintf(msg, msg_size, "%s is %s: %s", file, bad ? "unusable" : "stale", why);
	if (bad)
		hr_warn(ctx, "ignoring plugin index %s: %s\n", file, why);
	else
		hr_info(ctx, "plugin index %s is stale (%s); scanning\n", file, why);
	r = -ESTALE;
out:
	if (r < 0)
		table_clear(p);
	index_release(&ix);
	free(data);
	free(file);
	return r;
}

/* The first fresh index of the index dirs into p; msg says why none is. */
int hr_plugin_table_from_indexes(struct hanzo_rocm *ctx, struct hr_plugins *p,
                              const struct settings *set, char **used,
                              char *msg, size_t msg_size)
{
	int r = -ENOENT;

	snprintf(msg, msg_size, "no plugin index");
	for (size_t i = 0; i < HR_ARRAY_SIZE(set->index_dirs); i++) {
		char m[PATH_MAX + 128];

		if (!set->index_dirs[i])
			continue;
		r = table_from_index(ctx, p, set, set->index_dirs[i], m, sizeof(m));
		if (r == -ENOMEM)
			return r;
		if (r == 0) {
			if (used && !(*used = hr_path_join(set->index_dirs[i], INDEX_NAME))) {
				table_clear(p);
				return -ENOMEM;
			}
			return 0;
		}
		/* Report the first index that exists but is not usable. */
		if (r == -ESTALE && strcmp(msg, "no plugin index") == 0)
			snprintf(msg, msg_size, "%s", m);
	}
	return -ENOENT;
}

int hr_plugins_index_state(struct hanzo_rocm *ctx, char **path, char **why)
{
	struct hr_plugins tmp = { .fams = NULL };
	char msg[PATH_MAX + 128];
	struct settings set;
	int r;

	if (!ctx || !path || !why)
		return -EINVAL;
	*path = *why = NULL;
	r = hr_plugin_settings_get(ctx, &set);
	if (r < 0)
		return r;
	r = hr_plugin_table_from_indexes(ctx, &tmp, &set, path, msg, sizeof(msg));
	table_clear(&tmp);
	hr_plugin_settings_release(&set);
	if (r == -ENOENT) {
		*why = strdup(msg);
		return *why ? 0 : -ENOMEM;
	}
	return r;
}
