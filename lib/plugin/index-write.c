/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Writing the plugin index (layer: build): `precompile` scans the plugin
 * path and writes <tier>/plugins.index, one line per candidate plugin with
 * its stat data, checksum and kernel table, so that a later lookup builds
 * the family table without dlopen (read back by plugin/index.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "context.h"
#include "plugin.h"
#include "plugin-internal.h"
#include "shared/util.h"

/*
 * Fields are percent-encoded (every byte outside '!'..'~', and '%' ','), so
 * tabs separate fields and commas list items whatever a path holds.
 */
static int enc_append(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t nc = (*cap ? *cap * 2 : 4096);
		char *nb;

		while (nc < *len + n + 1)
			nc *= 2;
		nb = realloc(*buf, nc);
		if (!nb)
			return -ENOMEM;
		*buf = nb;
		*cap = nc;
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
	return 0;
}

struct out {
	char *buf;
	size_t len, cap;
	int err;
};

static void out_raw(struct out *o, const char *s)
{
	if (!o->err)
		o->err = enc_append(&o->buf, &o->len, &o->cap, s, strlen(s));
}

static void out_enc(struct out *o, const char *s)
{
	for (; *s && !o->err; s++) {
		unsigned char c = (unsigned char)*s;
		char e[4];

		if (c <= 0x20 || c >= 0x7f || c == '%' || c == ',') {
			snprintf(e, sizeof(e), "%%%02X", c);
			o->err = enc_append(&o->buf, &o->len, &o->cap, e, 3);
		} else {
			o->err = enc_append(&o->buf, &o->len, &o->cap, (const char *)s, 1);
		}
	}
}

static void out_list(struct out *o, char *const *v)
{
	for (size_t i = 0; v && v[i]; i++) {
		if (i)
			out_raw(o, ",");
		out_enc(o, v[i]);
	}
}

static void out_fmt(struct out *o, const char *fmt, ...) HR_PRINTF(2, 3);
static void out_fmt(struct out *o, const char *fmt, ...)
{
	char buf[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	out_raw(o, buf);
}

/*
 * plugin <path> <size> <mtime_ns> <ctime_ns> <ino> <state> <family>
 *        <version> <abi> <sha256> <flags> <kernels>
 */
static void out_cand(struct out *o, const struct cand *c)
{
	char hex[65];

	out_raw(o, "plugin\t");
	out_enc(o, c->path);
	if (c->have_st)
		out_fmt(o, "\t%llu\t%llu\t%llu\t%llu", (unsigned long long)c->st.st_size,
		        hr_plugin_ts_ns(&c->st.st_mtim), hr_plugin_ts_ns(&c->st.st_ctim),
		        (unsigned long long)c->st.st_ino);
	else
		out_raw(o, "\t-\t-\t-\t-");
	out_fmt(o, "\t%s\t", hr_plugin_state_names[c->state]);
	if (c->state == CAND_OK) {
		hr_hex(c->sha, 32, hex);
		out_enc(o, c->family);
		out_raw(o, "\t");
		out_enc(o, c->version);
		out_fmt(o, "\t%u\t%s\t", c->abi, hex);
		out_list(o, c->flags);
		out_raw(o, "\t");
		out_list(o, c->kernels);
	} else {
		out_raw(o, "-\t-\t0\t-\t\t");
	}
	out_raw(o, "\n");
}

int hr_plugins_write_index(struct hanzo_rocm *ctx, const char *dir)
{
	struct settings set;
	struct out o = { 0 };
	struct scan s;
	int r;

	if (!ctx || !dir)
		return -EINVAL;
	r = hr_plugin_settings_get(ctx, &set);
	if (r < 0)
		return r;
	r = hr_plugin_scan_all(ctx, &set, true, &s);
	if (r < 0)
		goto out;
	out_raw(&o, "# hanzo-rocm plugin index, written by hanzo-rocm precompile; do not edit\n");
	out_fmt(&o, "%s\t%d\n", INDEX_MAGIC, INDEX_VERSION);
	for (size_t i = 0; set.path[i]; i++) {
		out_raw(&o, "dir\t");
		out_enc(&o, set.path[i]);
		out_raw(&o, "\n");
	}
	out_raw(&o, "disable\t");
	out_list(&o, set.disable);
	out_raw(&o, "\n");
	for (size_t i = 0; i < s.n; i++)
		out_cand(&o, &s.c[i]);
	r = o.err;
	if (r == 0)
		r = hr_write_atomic(dir, INDEX_NAME, o.buf, o.len, 0644);
	if (r < 0)
		hr_err(ctx, "cannot write %s/%s: %s\n", dir, INDEX_NAME, strerror(-r));
	else
		hr_info(ctx, "wrote %s/%s (%zu plugins)\n", dir, INDEX_NAME, s.n);
	hr_plugin_scan_release(&s);
out:
	free(o.buf);
	hr_plugin_settings_release(&set);
	return r;
}
