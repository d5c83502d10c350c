/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A full disk under the user tier (run by t/cache/full.sh on a tiny tmpfs):
 * compile on a miss still hands back the code object, the failed publish is
 * one warning for the whole context, and nothing partial is left there.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "cache/cache.h"
#include "shared/elf.h"
#include "hanzo-rocm.h"
#include "../tap.h"

static char logbuf[16384];

__attribute__((format(printf, 6, 0)))
static void capture(void *data, int prio, const char *file, int line,
                    const char *fn, const char *fmt, va_list ap)
{
	size_t l = strlen(logbuf);

	(void)data; (void)file; (void)line; (void)fn;
	if (prio != LOG_WARNING || l + 2 >= sizeof(logbuf))
		return;
	l += (size_t)snprintf(logbuf + l, sizeof(logbuf) - l, "warning: ");
	if (l < sizeof(logbuf))
		vsnprintf(logbuf + l, sizeof(logbuf) - l, fmt, ap);
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	ssize_t k;
	int in = open(from, O_RDONLY | O_CLOEXEC), out, r = 0;

	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		close(in);
		return -errno;
	}
	while ((k = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)k) != k)
			r = -EIO;
	close(in);
	close(out);
	return k < 0 ? -EIO : r;
}

/* Every regular file under dir whose name ends in .hrco must be valid. */
static int count_entries(const char *dir, int *bad)
{
	char path[4096];
	struct dirent *e;
	DIR *d = opendir(dir);
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		struct stat st;

		if (e->d_name[0] == '.' && (!e->d_name[1] || e->d_name[1] == '.'))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (lstat(path, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			n += count_entries(path, bad);
		} else if (strstr(e->d_name, ".hrco")) {
			n++;
			if (e->d_name[0] == '.' || st.st_size == 0)
				(*bad)++;
		}
	}
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	struct hanzo_rocm_options o = { .size = sizeof(o), .log_fn = capture,
	                                 .log_priority = LOG_WARNING };
	char scratch[] = "/tmp/hr-test-full.XXXXXX", conf[256], plugins[256],
	     from[4096], to[300];
	static const char *const targets[] = { "gfx90a", "gfx1030" };
	struct hanzo_rocm *ctx = NULL;
	const char *top = getenv("top_builddir");
	int bad = 0, n;
	FILE *f;

	if (argc != 2)
		skip_all("usage: test-full FULL-DIR (run by t/cache/full.sh)");
	if (!mkdtemp(scratch))
		skip_all("no scratch dir");
	snprintf(plugins, sizeof(plugins), "%s/plugins", scratch);
	mkdir(plugins, 0755);
	snprintf(from, sizeof(from), "%s/t/fixtures/plugins/.libs/alpha.so", top ? top : ".");
	snprintf(to, sizeof(to), "%s/alpha.so", plugins);
	if (copy_file(from, to) < 0)
		skip_all("fixture plugin alpha not built");
	snprintf(conf, sizeof(conf), "%s/hanzo-rocm.conf", scratch);
	f = fopen(conf, "w");
	if (!f)
		skip_all("cannot write a config");
	fprintf(f, "[cache]\nsystem_dir = %s/none\nuser_dir = %s\ncompile = auto\n"
	        "[plugins]\npath = %s\n", scratch, argv[1], plugins);
	fclose(f);
	unsetenv("HANZO_ROCM_PLUGIN_PATH");
	unsetenv("HANZO_ROCM_CACHE_DIR");
	o.config = conf;

	plan(7);
	ok(hanzo_rocm_new_with_options(&o, &ctx) == 0, "context with the user tier on a full disk");
	for (size_t i = 0; i < 2; i++) {
		const void *data = NULL;
		size_t size = 0;
		char why[256] = "";
		int r = ctx ? hanzo_rocm_code_object(ctx, "alpha", targets[i], &data, &size) : -EINVAL;

		ok(r == 0, "%s: compiled on a miss and returned despite the full disk (%s)",
		   targets[i], hanzo_rocm_strerror(r));
		ok(r == 0 && hr_elf_check(data, size, targets[i], why, sizeof(why)) == 0,
		   "%s: the bytes are a valid code object %s", targets[i], why);
	}
	n = 0;
	for (const char *p = logbuf; (p = strstr(p, "warning: ")); p++)
		n++;
	ok(n == 1, "one warning for the context, however many publishes fail (%d)", n);
	if (n != 1)
		diag("log: %s", logbuf);
	n = count_entries(argv[1], &bad);
	ok(bad == 0, "no temp file or empty entry left in the full tier (%d entries, %d bad)", n, bad);
	hanzo_rocm_unref(ctx);
	unlink(to);
	rmdir(plugins);
	unlink(conf);
	rmdir(scratch);
	return tap_exit();
}
