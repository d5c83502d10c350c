/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Helper for t/precompile-*.sh, built with the internal library:
 *   pc-helper verify DIR            every DIR/<target>/<family>.hrco must read
 *                                   back valid; other files but locks and
 *                                   stamps are listed as "stray" (exit 1)
 *   pc-helper compiler FILE         print the compiler identity in an entry
 *   pc-helper reidentify FILE NAME  rewrite an entry as if NAME had built it
 *   pc-helper payload FILE          write the code object to stdout
 *   pc-helper lookup TARGET FAMILY  an application's lookup through the
 *                                   public API (compiles on a miss)
 */
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hanzo-rocm.h"

#include "cache/cache.h"
#include "shared/util.h"

static bool allowed_extra(const char *name)
{
	size_t n = strlen(name);

	/* entry locks (.<family>.lock) and toolchain stamps are meant to stay */
	return (name[0] == '.' && n > 5 && strcmp(name + n - 5, ".lock") == 0) ||
	       strncmp(name, ".toolchain-", 11) == 0;
}

static int verify(const char *dir)
{
	DIR *d = opendir(dir), *sub;
	struct dirent *de, *se;
	int bad = 0, good = 0;

	if (!d) {
		perror(dir);
		return 2;
	}
	while ((de = readdir(d))) {
		char *tdir;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		tdir = hr_path_join(dir, de->d_name);
		sub = tdir ? opendir(tdir) : NULL;
		if (!sub) { /* a file in the tier root: index, stamps */
			if (!allowed_extra(de->d_name) && !strstr(de->d_name, "index")) {
				printf("stray %s\n", de->d_name);
				bad++;
			}
			free(tdir);
			continue;
		}
		while ((se = readdir(sub))) {
			size_t n = strlen(se->d_name);
			char *p;
			struct hr_entry e;

			if (strcmp(se->d_name, ".") == 0 || strcmp(se->d_name, "..") == 0 ||
			    allowed_extra(se->d_name))
				continue;
			p = hr_path_join(tdir, se->d_name);
			if (n > 5 && strcmp(se->d_name + n - 5, ".hrco") == 0) {
				int r = hr_entry_read(NULL, p, NULL, &e);

				if (r < 0) {
					printf("bad %s: %s\n", p, strerror(-r));
					bad++;
				} else {
					printf("ok %s/%s %s\n", de->d_name, se->d_name, e.compiler);
					good++;
					hr_entry_release(&e);
				}
			} else {
				printf("stray %s\n", p);
				bad++;
			}
			free(p);
		}
		closedir(sub);
		free(tdir);
	}
	closedir(d);
	printf("%d good, %d bad\n", good, bad);
	return bad ? 1 : 0;
}

static int reidentify(const char *file, const char *compiler)
{
	struct hr_entry e;
	char *c2 = strdup(file);
	char *dir = c2 ? dirname(dirname(c2)) : NULL;
	int r = hr_entry_read(NULL, file, NULL, &e);

	if (r == 0) {
		r = hr_entry_write(NULL, dir, e.family, e.target, &e.key, compiler,
		                   e.payload, e.payload_size);
		hr_entry_release(&e);
	}
	free(c2);
	if (r < 0)
		fprintf(stderr, "reidentify %s: %s\n", file, strerror(-r));
	return r < 0 ? 1 : 0;
}

static int lookup(const char *target, const char *family)
{
	struct hanzo_rocm *ctx = NULL;
	const void *obj = NULL;
	size_t size = 0;
	int r = hanzo_rocm_new(&ctx);

	if (r == 0)
		r = hanzo_rocm_code_object(ctx, family, target, &obj, &size);
	if (r < 0)
		fprintf(stderr, "lookup %s %s: %s\n", target, family, strerror(-r));
	else
		printf("%zu bytes\n", size);
	hanzo_rocm_unref(ctx);
	return r < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct hr_entry e;

	if (argc == 3 && strcmp(argv[1], "verify") == 0)
		return verify(argv[2]);
	if (argc == 3 && strcmp(argv[1], "compiler") == 0) {
		if (hr_entry_read(NULL, argv[2], NULL, &e) < 0)
			return 1;
		printf("%s\n", e.compiler);
		hr_entry_release(&e);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "payload") == 0) {
		bool ok;

		if (hr_entry_read(NULL, argv[2], NULL, &e) < 0)
			return 1;
		ok = fwrite(e.payload, 1, e.payload_size, stdout) == e.payload_size;
		hr_entry_release(&e);
		return ok && fflush(stdout) == 0 ? 0 : 1;
	}
	if (argc == 4 && strcmp(argv[1], "reidentify") == 0)
		return reidentify(argv[2], argv[3]);
	if (argc == 4 && strcmp(argv[1], "lookup") == 0)
		return lookup(argv[2], argv[3]);
	fprintf(stderr, "usage: pc-helper verify DIR | compiler FILE | payload FILE | reidentify FILE NAME | lookup TARGET FAMILY\n");
	return 2;
}
