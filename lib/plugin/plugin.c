/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Kernel-family plugins (doc/DESIGN.md §6, layer: build): the family table, filled
 * from the index (plugin/index.c) or a scan, and the lazy dlopen of a
 * family known from the index.  Discovery, trust and ABI checks, the
 * validators and the settings are the leaf plugin/check.c.
 *
 * Index: `precompile` writes <tier>/plugins.index listing every candidate
 * file with its stat identity and, for usable ones, family, version, source
 * hash, flags and kernel names.  A context whose plugin path, disable list,
 * directory listings and file stats still match answers from the index and
 * dlopens a plugin only when its family is first loaded; anything else falls
 * back to scanning (dlopen-ing every plugin once).  The index is never
 * trusted: every field is validated and a lazily loaded plugin must match it.
 */
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


#include "config/config.h"
#include "shared/elf.h"
#include "context.h"
#include "plugin.h"
#include "plugin-internal.h"
#include "shared/util.h"
#include "shared/trust.h"

/* ---- the family table ------------------------------------------------------ */

static int table_from_scan(struct hanzo_rocm *ctx, struct hr_plugins *p,
                           const struct settings *set)
{
	struct scan s;
	int r;

	r = hr_plugin_scan_all(ctx, set, true, &s);
	if (r < 0)
		return r;
	/* A plugin that could not be opened now (EMFILE) is not missing: no table. */
	for (size_t i = 0; i < s.n; i++) {
		if (s.c[i].sys_err) {
			r = s.c[i].sys_err;
			hr_plugin_scan_release(&s);
			return r;
		}
	}
	for (size_t i = 0; i < s.n; i++) {
		struct cand *c = &s.c[i];
		struct fam **fams, *f;

		if (c->state != CAND_OK)
			continue;
		fams = realloc(p->fams, (p->n_fams + 1) * sizeof(*fams)); // NOLINT(bugprone-sizeof-expression): an array of pointers
		if (!fams)
			goto oom;
		p->fams = fams;
		f = calloc(1, sizeof(*f));
		if (!f)
			goto oom;
		f->pub.path = c->path;
		f->pub.family = c->family;
		f->pub.version = c->version;
		f->pub.flags = c->flags;
		f->pub.kernels = c->kernels;
		f->pub.desc = c->desc;
		f->dl = c->dl;
		memcpy(f->pub.source_sha256, c->sha, 32);
		c->path = c->family = c->version = NULL;
		c->flags = c->kernels = NULL;
		c->dl = NULL;
		c->desc = NULL;
		p->fams[p->n_fams++] = f;
	}
	hr_plugin_scan_release(&s);
	return 0;
oom:
	hr_plugin_scan_release(&s);
	return -ENOMEM;
}

static int plugins_new(struct hanzo_rocm *ctx, void **ret)
{
	struct hr_plugins *p = calloc(1, sizeof(*p));

	(void)ctx;
	if (!p)
		return -ENOMEM;
	pthread_mutex_init(&p->lock, NULL);
	*ret = p;
	return 0;
}

static void plugins_free(void *state);

static int plugins_get(struct hanzo_rocm *ctx, struct hr_plugins **ret)
{
	void *p;
	int r = hr_ctx_lazy(ctx, HR_SLOT_PLUGINS, plugins_new, plugins_free, &p);

	*ret = r < 0 ? NULL : p;
	return r;
}

/* Fill the table once: from the first fresh index, else by scanning. */
static int table_ready(struct hanzo_rocm *ctx, struct hr_plugins *p)
{
	char msg[PATH_MAX + 128];
	struct settings set;
	int r;

	if (p->ready)
		return 0;
	r = hr_plugin_settings_get(ctx, &set);
	if (r < 0)
		return r;
	r = hr_plugin_table_from_indexes(ctx, p, &set, NULL, msg, sizeof(msg));
	if (hr_errno_transient(r))
		goto out;       /* not ready: the next call tries again */
	p->from_index = r == 0;
	if (r < 0)
		r = table_from_scan(ctx, p, &set);
	if (r == 0) {
		p->ready = true;
		hr_dbg(ctx, "%zu plugin families, from %s\n", p->n_fams,
		       p->from_index ? "the index (loaded on first use)" : "a scan");
	}
out:
	hr_plugin_settings_release(&set);
	return r;
}

int hr_plugins_family(struct hanzo_rocm *ctx, const char *family,
                      struct hr_family **ret)
{
	struct hr_plugins *p;
	int r;

	if (!ctx || !family || !ret)
		return -EINVAL;
	*ret = NULL;
	r = plugins_get(ctx, &p);
	if (r < 0)
		return r;
	pthread_mutex_lock(&p->lock);
	r = table_ready(ctx, p);
	if (r == 0) {
		r = -ENOENT;
		for (size_t i = 0; i < p->n_fams; i++)
			if (strcmp(p->fams[i]->pub.family, family) == 0) {
				*ret = &p->fams[i]->pub;
				r = 0;
				break;
			}
	}
	pthread_mutex_unlock(&p->lock);
	return r;
}

/* The loaded plugin must be the one the index described. */
static const char *cand_mismatch(const struct cand *c, const struct hr_family *f)
{
	if (strcmp(c->family, f->family) != 0)
		return "family";
	if (strcmp(c->version, f->version) != 0)
		return "version";
	if (memcmp(c->sha, f->source_sha256, 32) != 0)
		return "source";
	if (!hr_plugin_strv_equal(c->flags, f->flags))
		return "compile flags";
	if (!hr_plugin_strv_equal(c->kernels, f->kernels))
		return "kernel list";
	return NULL;
}

/* dlopen one family known from the index; p->lock is held. */
static int fam_load(struct hanzo_rocm *ctx, struct fam *f)
{
	struct cand c = { 0 };
	struct dir_list d = { .fd = -1 };
	char *dir = NULL, *slash;
	const char *what;
	int r;

	dir = strdup(f->pub.path);
	if (!dir)
		return -ENOMEM;
	slash = strrchr(dir, '/');
	if (!slash || slash == dir) {
		r = -EINVAL;
		goto out;
	}
	*slash = '\0';
	d.fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d.fd < 0) {
		r = -errno;
		hr_err(ctx, "plugin %s: %s\n", f->pub.path, strerror(errno));
		goto out;
	}
	hr_plugin_dir_untrusted(ctx, d.fd, dir, d.why, sizeof(d.why));
	r = hr_plugin_cand_examine(ctx, d.fd, dir, slash + 1, d.why[0] ? d.why : NULL, NULL, &c);
	if (r < 0)
		goto out;
	if (c.state != CAND_OK) {
		hr_err(ctx, "plugin %s %s: %s\n", f->pub.path,
		       c.sys_err ? "cannot be loaded now" : "rejected", c.why);
		r = c.sys_err ? c.sys_err : -EPERM;
		goto out;
	}
	what = cand_mismatch(&c, &f->pub);
	if (what) {
		hr_err(ctx, "plugin %s no longer matches the plugin index (%s differs); "
		       "run 'hanzo-rocm precompile' to refresh it\n", f->pub.path, what);
		r = -ESTALE;
		goto out;
	}
	f->dl = c.dl;
	f->pub.desc = c.desc;
	c.dl = NULL;
	hr_dbg(ctx, "loaded plugin %s (family '%s')\n", f->pub.path, f->pub.family);
	r = 0;
out:
	hr_plugin_cand_release(&c);
	if (d.fd >= 0)
		close(d.fd);
	free(dir);
	return r;
}

int hr_family_load(struct hanzo_rocm *ctx, struct hr_family *family,
                   const struct hanzo_rocm_plugin **desc)
{
	struct hr_plugins *p;
	struct fam *f;
	int r;

	if (!ctx || !family || !desc)
		return -EINVAL;
	/* After the check: arithmetic on a null pointer is undefined. */
	f = (struct fam *)((char *)family - offsetof(struct fam, pub));
	*desc = NULL;
	r = plugins_get(ctx, &p);
	if (r < 0)
		return r;
	pthread_mutex_lock(&p->lock);
	if (family->desc)
		r = 0;
	else if (f->load_err)
		r = f->load_err;
	else if ((r = fam_load(ctx, f)) < 0 && !hr_errno_transient(r))
		f->load_err = r;        /* a bad plugin stays bad; EMFILE may pass */
	if (r == 0)
		*desc = family->desc;
	pthread_mutex_unlock(&p->lock);
	return r;
}

int hr_plugins_families(struct hanzo_rocm *ctx, char ***families)
{
	struct hr_plugins *p;
	char **v = NULL;
	int r;

	if (!ctx || !families)
		return -EINVAL;
	*families = NULL;
	r = plugins_get(ctx, &p);
	if (r < 0)
		return r;
	pthread_mutex_lock(&p->lock);
	r = table_ready(ctx, p);
	if (r == 0 && !(v = hr_strv_new()))
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < p->n_fams; i++)
		if (hr_strv_push(&v, p->fams[i]->pub.family) < 0)
			r = -ENOMEM;
	pthread_mutex_unlock(&p->lock);
	if (r != 0) {
		hr_strv_free(v);
		return r;
	}
	hr_strv_sort(v);
	*families = v;
	return 0;
}

int hr_plugins_scan(struct hanzo_rocm *ctx, struct hr_plugin_status **list,
                    size_t *n)
{
	struct hr_plugin_status *out;
	struct settings set;
	struct scan s;
	int r;

	if (!ctx || !list || !n)
		return -EINVAL;
	*list = NULL;
	*n = 0;
	r = hr_plugin_settings_get(ctx, &set);
	if (r < 0)
		return r;
	r = hr_plugin_scan_all(ctx, &set, false, &s);
	hr_plugin_settings_release(&set);
	if (r < 0)
		return r;
	out = calloc(s.n ? s.n : 1, sizeof(*out));
	if (!out) {
		hr_plugin_scan_release(&s);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s.n; i++) {
		struct cand *c = &s.c[i];
		struct hr_plugin_status *o = &out[i];

		o->abi = c->abi;
		o->ok = c->state == CAND_OK;
		o->disabled = c->state == CAND_DISABLED;
		o->path = c->path;
		o->family = c->family;
		o->version = c->version;
		o->why = o->disabled ? strdup("disabled") : c->why;
		c->path = c->family = c->version = c->why = NULL;
		if (!o->path || (!o->ok && !o->why)) {
			hr_plugin_status_free(out, s.n);
			hr_plugin_scan_release(&s);
			return -ENOMEM;
		}
	}
	*n = s.n;
	*list = out;
	hr_plugin_scan_release(&s);
	return 0;
}

void hr_plugin_status_free(struct hr_plugin_status *list, size_t n)
{
	for (size_t i = 0; list && i < n; i++) {
		free(list[i].path);
		free(list[i].family);
		free(list[i].version);
		free(list[i].why);
	}
	free(list);
}

static void plugins_free(void *state)
{
	struct hr_plugins *p = state;

	for (size_t i = 0; i < p->n_fams; i++)
		hr_plugin_fam_free(p->fams[i]);
	free(p->fams);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
