/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The plugin loader's leaf (layer: build): the validators of a plugin's
 * untrusted strings (family, kernel names, text), the trust of a plugin
 * directory (util-trust.c's rule, reached again by the checked descriptor
 * walk), the settings (plugin path, disable list), a directory's listing,
 * a family entry's release and the index's state names.  It calls nothing of
 * the loader above it: the scan (build-plugin-scan.c), the index
 * (build-plugin-index.c, -index-write.c) and the family table
 * (build-plugin.c) all stand on it.
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


#include "config-api.h"
#include "util-elf.h"
#include "context.h"
#include "build-plugin.h"
#include "build-plugin-private.h"
#include "util.h"
#include "util-trust.h"

/* ---- small helpers ------------------------------------------------------ */

int hr_plugin_hex_val(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

bool hr_plugin_family_is_valid(const char *s)
{
	size_t n;

	for (n = 0; n <= MAX_NAME && s[n]; n++)
		if (!(islower((unsigned char)s[n]) || isdigit((unsigned char)s[n]) || s[n] == '_'))
			return false;
	return n > 0 && n <= MAX_NAME;
}

/* Kernel names are extern "C" identifiers (they become symbol lookups). */
bool hr_plugin_kernel_name_is_valid(const char *s)
{
	size_t n = strnlen(s, MAX_NAME + 1);

	if (n == 0 || n > MAX_NAME || isdigit((unsigned char)s[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return false;
	return true;
}

/* Printable ASCII, 1..max characters. */
bool hr_plugin_text_is_valid(const char *s, size_t max)
{
	size_t n = strnlen(s, max + 1);

	if (n == 0 || n > max)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return false;
	return true;
}

bool hr_plugin_strv_equal(char *const *a, char *const *b)
{
	size_t i;

	for (i = 0; a && b && a[i] && b[i]; i++)
		if (strcmp(a[i], b[i]) != 0)
			return false;
	return (!a || !a[i]) && (!b || !b[i]);
}

/*
 * The directory dfd (opened as dir) under the trust rule (util-trust.c),
 * reached again by the checked descriptor walk, which must arrive at the
 * same directory: whoever can rename an ancestor's entries could swap it.
 */
const char *hr_plugin_dir_untrusted(struct hanzo_rocm *ctx, int dfd, const char *dir,
                                    char *buf, size_t n)
{
	struct hr_trust *t = hr_ctx_trust(ctx);
	struct stat st, st2;
	int fd;

	buf[0] = '\0';
	if (fstat(dfd, &st) < 0) {
		snprintf(buf, n, "not examinable: %s", strerror(errno));
		return buf;
	}
	if (*hr_trust_stat(t, &st, HR_TRUST_SELF, dir, buf, n))
		return buf;
	fd = hr_trust_open_dir(t, dir, buf, n);
	if (fd < 0) {
		if (!buf[0])
			snprintf(buf, n, "not examinable: %s", strerror(-fd));
		return buf;
	}
	if (fstat(fd, &st2) < 0 || st2.st_dev != st.st_dev || st2.st_ino != st.st_ino)
		snprintf(buf, n, "changed while it was checked");
	close(fd);
	return buf;
}

void hr_plugin_fam_free(struct fam *f)
{
	if (!f)
		return;
	if (f->dl)
		dlclose(f->dl);
	free(f->pub.family);
	free(f->pub.version);
	free(f->pub.path);
	hr_strv_free(f->pub.flags);
	hr_strv_free(f->pub.kernels);
	free(f);
}

/* ---- settings ------------------------------------------------------------ */

void hr_plugin_settings_release(struct settings *s)
{
	hr_strv_free(s->path);
	hr_strv_free(s->disable);
	memset(s, 0, sizeof(*s));
}

/*
 * The configuration resolves everything; without one (a context built
 * before config.c fills it) fall back to the environment and the default.
 */
int hr_plugin_settings_get(struct hanzo_rocm *ctx, struct settings *s)
{
	/* Every context has its configuration (hanzo_rocm_new loads it). */
	const struct hr_config *cfg = hr_ctx_config(ctx);

	memset(s, 0, sizeof(*s));
	s->index_dirs[0] = cfg->system_dir;
	s->index_dirs[1] = cfg->user_dir;
	/* A directory listed twice would report each plugin as its own duplicate. */
	s->path = hr_strv_uniq(cfg->plugin_path);
	s->disable = hr_strv_copy(cfg->disable);
	if (!s->path || !s->disable)
		goto fail;
	hr_strv_sort(s->disable);
	return 0;
fail:
	hr_plugin_settings_release(s);
	return -ENOMEM;
}

/* ---- directories ----------------------------------------------------------- */


void hr_plugin_dir_list_release(struct dir_list *d)
{
	if (d->fd >= 0)
		close(d->fd);
	hr_strv_free(d->names);
	d->fd = -1;
	d->names = NULL;
}

static bool is_candidate(const char *name)
{
	size_t n = strlen(name);

	return name[0] != '.' && n > 3 && strcmp(name + n - 3, ".so") == 0;
}

/* Open dir, check its trust and list its *.so (no recursion), sorted. */
int hr_plugin_dir_list_open(struct hanzo_rocm *ctx, const char *dir, struct dir_list *d)
{
	struct dirent *de;
	struct stat st;
	DIR *dh;
	int fd;

	d->fd = -1;
	d->why[0] = '\0';
	d->names = hr_strv_new();
	if (!d->names)
		return -ENOMEM;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		if (e == ENOENT)
			hr_dbg(ctx, "plugin directory %s does not exist\n", dir);
		else
			hr_warn(ctx, "plugin directory %s: %s\n", dir, strerror(e));
		/* Out of descriptors is no empty directory (nor a table to keep). */
		return hr_errno_transient(-e) ? -e : 0;
	}
	if (fstat(fd, &st) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	hr_plugin_dir_untrusted(ctx, fd, dir, d->why, sizeof(d->why));
	d->fd = fd;
	/* fdopendir takes over the fd it is given: list through a duplicate. */
	fd = fcntl(d->fd, F_DUPFD_CLOEXEC, 0);
	dh = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dh) {
		if (fd >= 0)
			close(fd);
		hr_warn(ctx, "plugin directory %s: %s\n", dir, strerror(errno));
		return 0;
	}
	while ((de = readdir(dh))) {
		if (is_candidate(de->d_name) && hr_strv_push(&d->names, de->d_name) < 0) {
			closedir(dh);
			return -ENOMEM;
		}
	}
	closedir(dh);
	hr_strv_sort(d->names);
	return 0;
}

const char *const hr_plugin_state_names[CAND_N_STATES] = {
	[CAND_OK] = "ok", [CAND_REJECTED] = "rejected", [CAND_DISABLED] = "disabled",
};
