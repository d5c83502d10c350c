/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The plugin loader's leaf (layer: build): everything that checks a plugin
 * before the family table hands it out - the validators of its untrusted
 * strings (family, kernel names, text), the trust of a plugin directory
 * (shared/trust.c's rule, reached again by the checked descriptor walk), the
 * settings (plugin path, disable list), a directory's listing, examining one
 * candidate and scanning the path; a family entry's release and the index's
 * state names.  It calls nothing of the loader above it: the index
 * (plugin/index.c, -index-write.c) and the family table
 * (plugin/plugin.c) stand on it.  One candidate (struct cand) goes through
 * the whole trust sequence here, in one file because the order is the point
 * (check the fd, dlopen by path, compare inodes).
 *
 * Trust: a plugin runs code in the host the moment it is dlopen-ed, so every
 * check that can be made without running it is made first: the directory and
 * the file (and a symlink target's directory) must be owned by root or the
 * current user and not group/world-writable, the file must be a regular ELF
 * file.  Checks run on an open fd (fstat, pread); the file is then dlopen-ed
 * by its path (readable names in backtraces and sanitizer reports) and the
 * loaded object's inode is compared with the checked one, so a swap between
 * check and load is caught.  Nothing defends against a plugin whose entry
 * function crashes: that cannot be done in-process.
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
#include "shared/name.h"
#include "shared/trust.h"

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
 * The directory dfd (opened as dir) under the trust rule (shared/trust.c),
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

/* ---- helpers ------------------------------------------------------------ */

/*
 * A plugin's strings are untrusted: quote at most 64 printable characters of
 * one for a message, so a hostile name cannot garble a terminal or a log.
 */
static void quote(char *buf, size_t n, const char *s)
{
	size_t o = 0, i, len = strnlen(s, 65);

	for (i = 0; i < len && i < 64 && o + 2 < n; i++)
		buf[o++] = isprint((unsigned char)s[i]) ? s[i] : '?';
	if (i < len && o + 5 < n) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = '\0';
}


static char *name_stem(const char *name)
{
	size_t n = strlen(name);

	return strndup(name, n > 3 ? n - 3 : 0);
}

static int set_why(struct cand *c, const char *fmt, ...) HR_PRINTF(2, 3);
static int set_why(struct cand *c, const char *fmt, ...)
{
	va_list ap;
	int r;

	free(c->why);
	c->why = NULL;
	c->state = CAND_REJECTED;
	va_start(ap, fmt);
	r = vasprintf(&c->why, fmt, ap);
	va_end(ap);
	if (r < 0) {
		c->why = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* A rejection for a failed system call: the reason, and errno kept when
 * it is transient (EMFILE...), so a loader does not take it for good. */
static int set_why_errno(struct cand *c, const char *what)
{
	int err = errno, r = set_why(c, "%s: %s", what, strerror(err));

	if (hr_errno_transient(-err))
		c->sys_err = -err;
	return r;
}

static void cand_unload(struct cand *c)
{
	c->desc = NULL;
	if (c->dl)
		dlclose(c->dl);
	c->dl = NULL;
}

void hr_plugin_cand_release(struct cand *c)
{
	cand_unload(c);
	free(c->path);
	free(c->why);
	free(c->family);
	free(c->version);
	hr_strv_free(c->flags);
	hr_strv_free(c->kernels);
	memset(c, 0, sizeof(*c));
}

void hr_plugin_scan_release(struct scan *s)
{
	for (size_t i = 0; i < s->n; i++)
		hr_plugin_cand_release(&s->c[i]);
	free(s->c);
	s->c = NULL;
	s->n = 0;
}

/* ---- examining one plugin file ------------------------------------------- */

/*
 * Read the descriptor, a field only when struct_size covers it (a newer host
 * reads an older plugin), and copy what the library keeps.
 */
#define COVERS(d, field)                                                       \
	((d)->struct_size >= offsetof(struct hanzo_rocm_plugin, field) +       \
	                     sizeof((d)->field))

static int check_desc(struct cand *c, const struct hanzo_rocm_plugin *d)
{
	char q[80];

	if (!d)
		return set_why(c, "entry function returned NULL");
	c->abi = d->abi;
	if (d->abi != HANZO_ROCM_PLUGIN_ABI)
		return set_why(c, "unsupported plugin ABI %u (this host supports %u)",
		               d->abi, HANZO_ROCM_PLUGIN_ABI);
	if (!COVERS(d, source_len))
		return set_why(c, "descriptor too small (struct_size %u, needs at least %zu)",
		               d->struct_size, offsetof(struct hanzo_rocm_plugin, source_len) +
		               sizeof(size_t));
	if (!d->family)
		return set_why(c, "family name is NULL");
	if (!hr_name_is_valid(d->family)) {
		quote(q, sizeof(q), d->family);
		return set_why(c, "invalid family name '%s' (want %s)", q, HR_NAME_RULE);
	}
	/* Known from here on, so that a listing can name the family. */
	if (!(c->family = strdup(d->family)))
		return -ENOMEM;
	if (!d->version || !hr_plugin_text_is_valid(d->version, MAX_VERSION))
		return set_why(c, "version is NULL or not 1-%d printable characters", MAX_VERSION);
	if (!(c->version = strdup(d->version)))
		return -ENOMEM;
	if (!d->source || d->source_len == 0)
		return set_why(c, "no kernel source (source is NULL or source_len is 0)");
	if (d->source_len > MAX_SOURCE)
		return set_why(c, "source_len %zu is implausibly large", d->source_len);
	if (!(c->flags = hr_strv_new()) || !(c->kernels = hr_strv_new()))
		return -ENOMEM;
	for (size_t i = 0; COVERS(d, flags) && d->flags && d->flags[i]; i++) {
		if (i >= MAX_FLAGS || !hr_plugin_text_is_valid(d->flags[i], MAX_FLAG_LEN))
			return set_why(c, "compile flag %zu is empty, too long, not printable "
			               "or there are more than %d", i, MAX_FLAGS);
		if (hr_strv_push(&c->flags, d->flags[i]) < 0)
			return -ENOMEM;
	}
	if (COVERS(d, n_kernels) && d->n_kernels > 0) {
		if (!d->kernels || d->n_kernels > MAX_KERNELS)
			return set_why(c, "kernel table is NULL or n_kernels %zu is too large",
			               d->n_kernels);
		for (size_t i = 0; i < d->n_kernels; i++) {
			const char *name = d->kernels[i].name;

			if (!name || !hr_plugin_kernel_name_is_valid(name)) {
				quote(q, sizeof(q), name ? name : "(null)");
				return set_why(c, "invalid kernel name '%s'", q);
			}
			if (hr_strv_push(&c->kernels, name) < 0)
				return -ENOMEM;
		}
	}
	hr_sha256(d->source, d->source_len, c->sha);
	c->desc = d;
	c->state = CAND_OK;
	return 0;
}

/* A symlinked plugin is only as trustworthy as the directory it points into. */
static int check_link_target(struct cand *c)
{
	char *real = realpath(c->path, NULL), *slash, buf[PATH_MAX + 256];
	struct stat st;
	int r = 0;

	if (!real)
		return set_why(c, "cannot resolve symlink: %s", strerror(errno));
	slash = strrchr(real, '/');
	if (slash == real)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	if (stat(real, &st) < 0)
		r = set_why(c, "cannot stat symlink target directory %s: %s", real, strerror(errno));
	else if (*hr_trust_stat(NULL, &st, HR_TRUST_SELF, real, buf, sizeof(buf)))
		r = set_why(c, "symlink target directory %s is %s", real, buf);
	free(real);
	return r;
}

static int cand_dlopen(struct hanzo_rocm *ctx, struct cand *c)
{
	hanzo_rocm_plugin_entry_fn entry;
	Dl_info info;
	struct stat st;
	const char *e;
	int r;

	dlerror();
	errno = 0;
	c->dl = dlopen(c->path, RTLD_NOW | RTLD_LOCAL);
	if (!c->dl) {
		/* glibc leaves the failed open's errno: EMFILE is not the file's fault. */
		int err = errno;

		e = dlerror();
		r = set_why(c, "dlopen failed: %s", e ? e : "unknown error");
		if (hr_errno_transient(-err))
			c->sys_err = -err;
		return r;
	}
	*(void **)&entry = dlsym(c->dl, HANZO_ROCM_PLUGIN_ENTRY);
	if (!entry)
		return set_why(c, "no entry symbol '%s'", HANZO_ROCM_PLUGIN_ENTRY);
	/*
	 * The entry must live in the file that passed the checks (not in a
	 * file swapped in since, nor in a library the plugin pulled in).
	 */
	if (dladdr(*(void **)&entry, &info) == 0 || !info.dli_fname ||
	    stat(info.dli_fname, &st) < 0 || st.st_dev != c->st.st_dev ||
	    st.st_ino != c->st.st_ino)
		return set_why(c, "entry symbol '%s' is not defined by this file "
		               "(or the file changed while it was being loaded)",
		               HANZO_ROCM_PLUGIN_ENTRY);
	hr_dbg(ctx, "calling %s() of %s\n", HANZO_ROCM_PLUGIN_ENTRY, c->path);
	return check_desc(c, entry());
}

/*
 * The whole file, read through the checked fd, must be a complete shared
 * object for this host defining the entry symbol: dlopen maps segments past
 * a truncated file's end (SIGBUS on first touch) and runs constructors
 * before dlsym could say the entry is missing.
 */
/* Larger than any plugin (MAX_SOURCE of source plus code). */
#define MAX_PLUGIN_FILE ((uint64_t)1 << 30)

static int check_elf(int fd, struct cand *c)
{
	size_t size = (size_t)c->st.st_size, done = 0;
	char why[160];
	uint8_t *buf;
	int r = 0;

	if (c->st.st_size < 0 || (uint64_t)c->st.st_size > MAX_PLUGIN_FILE)
		return set_why(c, "file size %lld is implausibly large",
		               (long long)c->st.st_size);
	buf = malloc(size ? size : 1);
	if (!buf)
		return -ENOMEM;
	while (done < size) {
		ssize_t k = pread(fd, buf + done, size - done, (off_t)done);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		done += (size_t)k;
	}
	if (done != size)
		r = set_why(c, "cannot read the whole file (it shrank while read?)");
	else if (hr_elf_check_shared_object(buf, size, HANZO_ROCM_PLUGIN_ENTRY,
	                                    why, sizeof(why)) < 0)
		r = set_why(c, "%s", why);
	free(buf);
	return r;
}

/*
 * Examine dir/name (dfd is the open, already checked directory): trust,
 * ELF magic, then dlopen and the descriptor.  Rejections land in c->why;
 * only ENOMEM is returned as an error.
 */
int hr_plugin_cand_examine(struct hanzo_rocm *ctx, int dfd, const char *dir,
                           const char *name, const char *dir_why,
                           char *const *disable, struct cand *c)
{
	struct stat lst;
	char buf[PATH_MAX + 256], *stem;
	int fd, r;

	c->path = hr_path_join(dir, name);
	if (!c->path)
		return -ENOMEM;
	if (dfd >= 0 && fstatat(dfd, name, &c->st, 0) == 0)
		c->have_st = true;
	if (dir_why)
		return set_why(c, "directory %s is %s", dir, dir_why);
	if (dfd < 0)
		return set_why(c, "cannot open directory %s", dir);
	if (fstatat(dfd, name, &lst, AT_SYMLINK_NOFOLLOW) < 0)
		return set_why_errno(c, "cannot stat");
	/* O_NONBLOCK: a FIFO named *.so must not hang the host. */
	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return set_why_errno(c, "cannot open");
	r = 0;
	if (fstat(fd, &c->st) < 0) {
		r = set_why(c, "cannot stat: %s", strerror(errno));
		goto out;
	}
	c->have_st = true;
	if (!S_ISREG(c->st.st_mode)) {
		r = set_why(c, "not a regular file");
		goto out;
	}
	if (*hr_trust_stat(hr_ctx_trust(ctx), &c->st, HR_TRUST_SELF, c->path, buf,
	                   sizeof(buf))) {
		r = set_why(c, "file is %s", buf);
		goto out;
	}
	if (S_ISLNK(lst.st_mode) && (r = check_link_target(c)) < 0)
		goto out;
	if (c->state == CAND_REJECTED)
		goto out;
	if ((r = check_elf(fd, c)) < 0 || c->state == CAND_REJECTED)
		goto out;
	close(fd);
	fd = -1;

	/* A family disabled by name is not even loaded when its file says so. */
	stem = name_stem(name);
	if (!stem)
		return -ENOMEM;
	if (hr_strv_contains(disable, stem)) {
		c->state = CAND_DISABLED;
		c->family = stem;
		return 0;
	}
	r = cand_dlopen(ctx, c);
	/* The file is named after its family: no file takes over another's. */
	if (r == 0 && c->state == CAND_OK && strcmp(stem, c->family) != 0) {
		char q[80];

		quote(q, sizeof(q), stem);
		r = set_why(c, "file name '%s.so' does not match its family '%s' "
		            "(a plugin must be named %s.so)", q, c->family, c->family);
	}
	free(stem);
	if (r == 0 && c->state == CAND_OK && hr_strv_contains(disable, c->family)) {
		c->state = CAND_DISABLED;
		cand_unload(c);
	}
out:
	if (fd >= 0)
		close(fd);
	if (c->state == CAND_REJECTED)
		cand_unload(c);
	return r;
}

/* ---- scanning -------------------------------------------------------------- */

static struct cand *scan_add(struct scan *s)
{
	struct cand *c = realloc(s->c, (s->n + 1) * sizeof(*c));

	if (!c)
		return NULL;
	s->c = c;
	memset(&c[s->n], 0, sizeof(*c));
	return &c[s->n++];
}

static void log_cand(struct hanzo_rocm *ctx, const struct cand *c, bool loud)
{
	if (c->state == CAND_OK)
		hr_dbg(ctx, "plugin %s: family '%s' %s\n", c->path, c->family, c->version);
	else if (c->state == CAND_DISABLED)
		hr_dbg(ctx, "plugin %s: family '%s' disabled\n", c->path, c->family);
	else if (loud)
		hr_warn(ctx, "plugin %s rejected: %s\n", c->path, c->why);
	else
		hr_dbg(ctx, "plugin %s rejected: %s\n", c->path, c->why);
}

/*
 * Examine every candidate along the path, dlopen-ing the trusted ones.  The
 * first plugin of a family in path order wins; later ones are duplicates.
 */
int hr_plugin_scan_all(struct hanzo_rocm *ctx, const struct settings *set,
                    bool loud, struct scan *s)
{
	int r = 0;

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; r == 0 && set->path[i]; i++) {
		struct dir_list d;

		r = hr_plugin_dir_list_open(ctx, set->path[i], &d);
		for (size_t k = 0; r == 0 && d.names[k]; k++) {
			struct cand *c = scan_add(s);

			if (!c) {
				r = -ENOMEM;
				break;
			}
			r = hr_plugin_cand_examine(ctx, d.fd, set->path[i], d.names[k],
			                           d.why[0] ? d.why : NULL, set->disable, c);
			for (size_t m = 0; r == 0 && c->state != CAND_REJECTED && m + 1 < s->n; m++) {
				const struct cand *o = &s->c[m];

				if (o->state == CAND_REJECTED || strcmp(o->family, c->family) != 0)
					continue;
				r = set_why(c, "duplicate family '%s' (already provided by %s)",
				            o->family, o->path);
				cand_unload(c);
			}
			if (r == 0)
				log_cand(ctx, c, loud);
		}
		hr_plugin_dir_list_release(&d);
	}
	if (r < 0)
		hr_plugin_scan_release(s);
	return r;
}
