/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Compiling one kernel source for one target (layer: build): a private
 * temporary directory, the compiler run with a timeout, its diagnostics
 * filtered, and the code object checked (ELF machine) before it is kept.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "shared/spawn.h"

#include "config/config.h"
#include "platform/platform.h"
#include "shared/elf.h"
#include "context.h"
#include "target/target.h"
#include "toolchain.h"
#include "shared/util.h"

#define MAX_DIAG (256 * 1024)
#define MAX_CODE_OBJECT (512u << 20)

/* ---- compiling ----------------------------------------------------------- */

#define TRACEBACK "Traceback (most recent call last):"

/*
 * Debian's hipcc runs rocm_agent_enumerator, which dies with a Python
 * traceback without /dev/kfd even when the compile is fine: drop exactly
 * that block (from "Traceback" to the exception line) and keep the rest.
 */
static char *filter_diag(const char *text)
{
	size_t len = strlen(text);
	char *out = malloc(len + 1), *o = out;
	const char *p = text;

	if (!out)
		return NULL;
	while (*p) {
		const char *end = strchrnul(p, '\n');

		if (strncmp(p, TRACEBACK, sizeof(TRACEBACK) - 1) == 0) {
			const char *q = *end ? end + 1 : end, *qe;
			bool ours = false;

			/* indented frames, then the unindented exception line */
			while (*q == ' ') {
				qe = strchrnul(q, '\n');
				if (memmem(q, (size_t)(qe - q), "rocm_agent_enumerator", 21))
					ours = true;
				q = *qe ? qe + 1 : qe;
			}
			if (ours) {
				qe = strchrnul(q, '\n');
				p = *qe ? qe + 1 : qe;
				continue;
			}
		}
		memcpy(o, p, (size_t)(end - p) + (*end ? 1 : 0));
		o += (end - p) + (*end ? 1 : 0);
		p = *end ? end + 1 : end;
	}
	*o = '\0';
	return out;
}

static int write_source(const char *path, const char *src, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	size_t done = 0;
	int r = 0;

	if (fd < 0)
		return -errno;
	while (done < len) {
		ssize_t k = write(fd, src + done, len - done);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			r = -errno;
			break;
		}
		done += (size_t)k;
	}
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

/* Removes our private dir and whatever the compiler left in it (bounded depth, no symlink follow). */
static void remove_tree_at(int dfd, const char *name, int depth)
{
	int fd;
	DIR *d;
	struct dirent *de;

	if (unlinkat(dfd, name, 0) == 0 || errno == ENOENT || depth > 8)
		return;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			remove_tree_at(fd, de->d_name, depth + 1);
	closedir(d);
	unlinkat(dfd, name, AT_REMOVEDIR);
}

static void remove_tmpdir(const char *dir)
{
	remove_tree_at(AT_FDCWD, dir, 0);
}

static const char *tmp_parent(void)
{
	const char *tmp = hr_getenv("TMPDIR");

	return tmp && tmp[0] == '/' ? tmp : "/tmp";
}

/* "hanzo-rocm-" and mkdtemp's six characters. */
static bool is_compile_tmpdir(const char *name)
{
	return strncmp(name, "hanzo-rocm-", 11) == 0 && strlen(name) == 17 &&
	       strspn(name + 11, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") == 6;
}

/*
 * A compile holds flock(LOCK_EX) on <its temp dir>/.lock for as long as it
 * runs, so a free lock means its owner is gone (kill -9 runs no cleanup):
 * gc takes the lock and removes the dir, whatever its age.  A dir without
 * .lock (being created, or made by an older version that took no lock) goes
 * only once older than any compile may run.  A compile that finds its fresh
 * lock taken or its dir removed (gc got there between mkdtemp and flock)
 * makes another.
 */
#define TMPDIR_LOCK ".lock"

static int lock_tmpdir(const char *dir)
{
	struct stat a, b;
	char *lock = hr_path_join(dir, TMPDIR_LOCK);
	int fd;

	if (!lock)
		return -ENOMEM;
	fd = open(lock, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0 && (flock(fd, LOCK_EX | LOCK_NB) < 0 || fstat(fd, &a) < 0 ||
	                lstat(lock, &b) < 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino)) {
		close(fd);
		fd = -EAGAIN;
	} else if (fd < 0) {
		fd = -errno;
	}
	free(lock);
	return fd;
}

static int make_tmpdir(const char *parent, char **ret_dir, int *ret_fd)
{
	int r = -EAGAIN;

	for (int attempt = 0; attempt < 8; attempt++) {
		char *dir;

		if (asprintf(&dir, "%s/hanzo-rocm-XXXXXX", parent) < 0)
			return -ENOMEM;
		/* mode 0700: the source and object are nobody else's business */
		if (!mkdtemp(dir)) {
			r = -errno;
			*ret_dir = dir;
			return r;
		}
		r = lock_tmpdir(dir);
		if (r >= 0) {
			*ret_dir = dir;
			*ret_fd = r;
			return 0;
		}
		free(dir);
		if (r != -EAGAIN && r != -ENOENT)
			return r;
	}
	return r;
}

/*
 * Whether the compile that made this dir is gone.  *held gets its lock, to
 * keep until the dir is removed: a compile still making this dir then
 * finds its lock taken or its dir gone, and makes another.
 */
static bool tmpdir_dead(int dfd, const char *name, const struct stat *st, int *held)
{
	char lock[32];
	int fd;

	*held = -1;
	snprintf(lock, sizeof(lock), "%s/%s", name, TMPDIR_LOCK);
	fd = openat(dfd, lock, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return errno == ENOENT &&
		       time(NULL) - st->st_mtime > (time_t)HR_COMPILE_TIMEOUT_S + 3600;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd);
		return false;
	}
	*held = fd;
	return true;
}

int hr_toolchain_tmpdirs_gc(unsigned *removed)
{
	struct dirent *de;
	int fd = open(tmp_parent(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;

	*removed = 0;
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d))) {
		struct stat st;
		int held;

		if (!is_compile_tmpdir(de->d_name) ||
		    fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
		    !tmpdir_dead(fd, de->d_name, &st, &held))
			continue;
		remove_tree_at(fd, de->d_name, 0);
		if (held >= 0)
			close(held);
		if (faccessat(fd, de->d_name, F_OK, AT_SYMLINK_NOFOLLOW) < 0)
			(*removed)++;
	}
	closedir(d);
	return 0;
}

extern char **environ;

/*
 * The caller's environment with TMPDIR pointed into our private directory:
 * hipcc and clang leave temporary directories behind, which then go with it.
 */
static char **child_env(const char *dir)
{
	char **env = hr_strv_new(), *tmp;

	if (!env || asprintf(&tmp, "TMPDIR=%s", dir) < 0) {
		hr_strv_free(env);
		return NULL;
	}
	for (char **e = environ; e && *e; e++)
		if (strncmp(*e, "TMPDIR=", 7) != 0 && hr_strv_push(&env, *e) < 0)
			goto fail;
	if (hr_strv_push(&env, tmp) < 0)
		goto fail;
	free(tmp);
	return env;
fail:
	free(tmp);
	hr_strv_free(env);
	return NULL;
}

static int push_all(char ***v, const char *const *a)
{
	int r = 0;

	for (size_t i = 0; a && a[i] && r == 0; i++)
		r = hr_strv_push(v, a[i]);
	return r;
}

/*
 * The compiler row's argv (platform/platform.h, struct hr_compiler_facts):
 * PROGRAM PRE ARCH-OPTION+TARGET plugin-flags config-flags POST -x LANGUAGE SOURCE -o OUT;
 * where the target's platform fixes the flags (the host: they are the
 * cache key's), PROGRAM fixed-flags -x LANGUAGE SOURCE -o OUT.
 */
static int build_argv(const struct hr_toolchain *tc, const char *target,
                      const char *const *plugin_flags, char *const *config_flags,
                      const char *src, const char *out, char ***ret)
{
	static const char *const default_flags[] = { "-O3", NULL };
	const struct hr_compiler_facts *cc = hr_compiler_facts(tc->kind);
	const char *const *fixed = hr_platform_compile_flags(target);
	char **v = hr_strv_new(), arch[HR_TARGET_MAX + 32];
	const char *tail[] = { "-x", cc ? cc->language : NULL, src, "-o", out, NULL };
	int r;

	if (!v)
		return -ENOMEM;
	r = cc && (fixed || cc->arch_option) ? hr_strv_push(&v, tc->path) : -EINVAL;
	if (r == 0 && fixed) {
		r = push_all(&v, fixed);
	} else if (r == 0) {
		r = push_all(&v, cc->pre);
		snprintf(arch, sizeof(arch), "%s%s", cc->arch_option, target);
		if (r == 0)
			r = hr_strv_push(&v, arch);
		if (r == 0)
			r = push_all(&v, plugin_flags);
		if (r == 0)
			r = push_all(&v, config_flags ? (const char *const *)config_flags : default_flags);
		if (r == 0)
			r = push_all(&v, cc->post);
	}
	if (r == 0)
		r = push_all(&v, tail);
	if (r < 0) {
		hr_strv_free(v);
		return r;
	}
	*ret = v;
	return 0;
}

/* The compiler said yes: is this an ELF64 code object of the machine (and,
 * where the row asks, the type) of the platform the compiler builds for? */
static bool code_object_ok(const struct hr_toolchain *tc, const unsigned char *b,
                           size_t n)
{
	const struct hr_platform_facts *f;
	unsigned machine;

	if (n < 64 || memcmp(b, "\177ELF", 4) != 0 || b[4] != 2 /* ELFCLASS64 */ ||
	    b[5] != 1 /* little endian */)
		return false;
	machine = b[18] | (unsigned)b[19] << 8;
	for (size_t i = 0; (f = hr_platform_at(i)); i++)
		if (f->cc->kind == tc->kind)
			return machine && machine == f->elf_machine &&
			       (!f->elf_type || (unsigned)(b[16] | b[17] << 8) == f->elf_type);
	return false;
}

static char *join_diag(const struct hr_spawn *s, const char *what)
{
	char *filtered = filter_diag(s->err ? s->err : ""), *d = NULL;
	const char *out = s->out && *s->out ? s->out : "";

	if (!filtered)
		return NULL;
	if (asprintf(&d, "%s%s%s%s%s", what, *what ? "\n" : "", out,
	             *out && out[strlen(out) - 1] != '\n' ? "\n" : "", filtered) < 0)
		d = NULL;
	free(filtered);
	return d;
}

int hr_toolchain_compile(struct hanzo_rocm *ctx, const struct hr_toolchain *tc,
                         const char *source, size_t source_len,
                         const char *const *plugin_flags,
                         char *const *config_flags, const char *target,
                         void **obj, size_t *obj_size, char **diag)
{
	const char *tmp = tmp_parent();
	char *dir = NULL, *src = NULL, *out = NULL, **argv = NULL, **env = NULL, what[256] = "";
	const struct hr_compiler_facts *cc = tc ? hr_compiler_facts(tc->kind) : NULL;
	struct hr_spawn s = { 0 };
	void *data = NULL;
	size_t size = 0;
	int r, lock_fd = -1;

	if (diag)
		*diag = NULL;
	if (!tc || !cc || !tc->path || !source || !obj || !obj_size || hr_target_validate(target) < 0 ||
	    hr_compiler_for(hr_target_platform(target)) != tc->kind)
		return -EINVAL;
	*obj = NULL;
	*obj_size = 0;
	if (ctx && hr_ctx_cancel(ctx) && *hr_ctx_cancel(ctx))
		return -ECANCELED;
	r = make_tmpdir(tmp, &dir, &lock_fd);
	if (r < 0) {
		hr_err(ctx, "%s: cannot create a temporary directory: %s\n",
		       dir ? dir : tmp, strerror(-r));
		free(dir);
		return r;
	}
	src = hr_path_join(dir, cc->source_file);
	out = hr_path_join(dir, cc->output_file);
	if (!src || !out) {
		r = -ENOMEM;
		goto out;
	}
	r = write_source(src, source, source_len);
	if (r < 0) {
		hr_err(ctx, "%s: %s\n", src, strerror(-r));
		goto out;
	}
	r = build_argv(tc, target, plugin_flags, config_flags, src, out, &argv);
	if (r < 0)
		goto out;
	env = child_env(dir);
	if (!env) {
		r = -ENOMEM;
		goto out;
	}
	s.argv = argv;
	s.envp = env;
	s.timeout_ms = tc->timeout_s == 0 ? HR_COMPILE_TIMEOUT_S * 1000u
	             : tc->timeout_s > UINT_MAX / 1000u ? UINT_MAX : tc->timeout_s * 1000u;
	s.max_output = MAX_DIAG;
	s.cancel = ctx ? hr_ctx_cancel(ctx) : NULL;
	r = hr_spawn_run(&s);
	if (r == -ECANCELED) {
		snprintf(what, sizeof(what), "%s: killed compiling for %s (interrupted)",
		         tc->path, target);
	} else if (r == -ETIMEDOUT) {
		snprintf(what, sizeof(what), "%s: killed after %u s (timeout) compiling for %s",
		         tc->path, tc->timeout_s, target);
	} else if (r < 0) {
		snprintf(what, sizeof(what), "cannot run %s: %s", tc->path, strerror(-r));
		r = r == -EACCES ? r : -ENOENT;
	} else if (s.exit_status != 0) {
		snprintf(what, sizeof(what), "%s failed for %s (exit status %d)",
		         tc->path, target, s.exit_status);
		r = -EIO;
	} else {
		r = hr_read_file(out, MAX_CODE_OBJECT, &data, &size);
		if (r < 0) {
			snprintf(what, sizeof(what), "%s succeeded but wrote no code object: %s",
			         tc->path, strerror(-r));
			r = -ENOEXEC;
		} else if (!code_object_ok(tc, data, size)) {
			snprintf(what, sizeof(what), "%s wrote something that is not a %s code object",
			         tc->path, cc->object_label);
			r = -ENOEXEC;
		}
	}
	if (r < 0) {
		hr_dbg(ctx, "%s\n", what);
		free(data);
		if (diag)
			*diag = s.argv ? join_diag(&s, what) : strdup(what);
		goto out;
	}
	*obj = data;
	*obj_size = size;
out:
	hr_spawn_release(&s);
	hr_strv_free(argv);
	hr_strv_free(env);
	remove_tmpdir(dir);
	close(lock_fd);
	free(src);
	free(out);
	free(dir);
	return r;
}

/*
 * The host compiler's preprocessor output of source for a host target (the
 * source API finds its kernels' names in it: macros may generate them).
 * Same temp dir, argv and time limit as a compile; -EIO with *diag when
 * the compiler rejects the source.
 */
int hr_toolchain_preprocess(struct hanzo_rocm *ctx, const struct hr_toolchain *tc,
                            const char *source, size_t source_len, const char *target,
                            char **text, char **diag)
{
	const char *const *hf = hr_platform_compile_flags(target);
	const struct hr_compiler_facts *cc = tc ? hr_compiler_facts(tc->kind) : NULL;
	char *dir = NULL, *src = NULL, *out = NULL, **argv = hr_strv_new(), **env = NULL;
	struct hr_spawn s = { 0 };
	void *data = NULL;
	size_t size = 0;
	int r, lock_fd = -1;

	*text = NULL;
	if (diag)
		*diag = NULL;
	if (!argv)
		return -ENOMEM;
	/* A platform whose flags are fixed (the host): they preprocess too. */
	if (!tc || !cc || hr_compiler_for(hr_target_platform(target)) != tc->kind || !hf || !source) {
		hr_strv_free(argv);
		return -EINVAL;
	}
	r = make_tmpdir(tmp_parent(), &dir, &lock_fd);
	if (r < 0) {
		free(dir);
		hr_strv_free(argv);
		return r;
	}
	src = hr_path_join(dir, cc->source_file);
	out = hr_path_join(dir, "source.ii");
	r = src && out ? write_source(src, source, source_len) : -ENOMEM;
	if (r == 0)
		r = hr_strv_push(&argv, tc->path);
	for (size_t i = 0; hf[i] && r == 0; i++)
		r = hr_strv_push(&argv, hf[i]);
	{
		const char *post[] = { "-E", "-P", "-x", cc->language, src, "-o", out, NULL };

		for (size_t i = 0; post[i] && r == 0; i++)
			r = hr_strv_push(&argv, post[i]);
	}
	if (r == 0 && !(env = child_env(dir)))
		r = -ENOMEM;
	if (r < 0)
		goto out;
	s.argv = argv;
	s.envp = env;
	s.timeout_ms = (tc->timeout_s ? tc->timeout_s : HR_COMPILE_TIMEOUT_S) * 1000u;
	s.max_output = MAX_DIAG;
	s.cancel = ctx ? hr_ctx_cancel(ctx) : NULL;
	r = hr_spawn_run(&s);
	if (r == 0 && s.exit_status != 0)
		r = -EIO;
	if (r == 0)
		r = hr_read_file(out, MAX_CODE_OBJECT, &data, &size);
	if (r < 0) {
		if (diag && s.argv)
			*diag = join_diag(&s, "");
		goto out;
	}
	*text = realloc(data, size + 1);
	if (!*text) {
		free(data);
		r = -ENOMEM;
		goto out;
	}
	(*text)[size] = '\0';
out:
	hr_spawn_release(&s);
	hr_strv_free(argv);
	hr_strv_free(env);
	remove_tmpdir(dir);
	if (lock_fd >= 0)
		close(lock_fd);
	free(src);
	free(out);
	free(dir);
	return r;
}
