// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hr-dump-plugin - test helper: dlopen a kernel-family plugin, sanity-check
 * its descriptor and write out what it embeds.
 *
 *   hr-dump-plugin PLUGIN.so SOURCE_OUT NAMES_OUT
 *
 * Prints "family version n_kernels" on stdout; writes the embedded source to
 * SOURCE_OUT and the kernel names, one per line, to NAMES_OUT.  Exits 1 with
 * a message on any inconsistency (the TAP tests check the exit status).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hanzo-rocm-plugin.h"

static int fail(const char *plugin, const char *what)
{
	fprintf(stderr, "%s: %s\n", plugin, what);
	return 1;
}

static int write_out(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "we");
	int bad;

	if (!f)
		return -1;
	bad = fwrite(data, 1, len, f) != len;
	bad |= fclose(f) != 0;
	return bad ? -1 : 0;
}

static int check_and_dump(const char *path, const struct hanzo_rocm_plugin *p,
			  const char *src_out, const char *names_out)
{
	FILE *f;

	if (p->abi != HANZO_ROCM_PLUGIN_ABI)
		return fail(path, "wrong ABI");
	if (p->struct_size < sizeof(*p))
		return fail(path, "struct_size too small");
	if (!p->family || !p->version || !p->source || !p->kernels || !p->flags)
		return fail(path, "NULL field");
	if (strlen(p->source) != p->source_len)
		return fail(path, "source_len does not match the NUL-terminated source");
	if (p->n_kernels == 0)
		return fail(path, "no kernels");
	for (size_t i = 0; i < p->n_kernels; i++)
		if (!p->kernels[i].name || !p->kernels[i].signature || !*p->kernels[i].name)
			return fail(path, "kernel without name or signature");
	if (write_out(src_out, p->source, p->source_len) < 0)
		return fail(src_out, "cannot write");
	f = fopen(names_out, "we");
	if (!f)
		return fail(names_out, "cannot write");
	for (size_t i = 0; i < p->n_kernels; i++)
		fprintf(f, "%s\n", p->kernels[i].name);
	if (fclose(f) != 0)
		return fail(names_out, "cannot write");
	printf("%s %s %zu\n", p->family, p->version, p->n_kernels);
	return 0;
}

int main(int argc, char **argv)
{
	hanzo_rocm_plugin_entry_fn entry;
	void *h;
	int r;

	if (argc != 4) {
		fputs("usage: hr-dump-plugin PLUGIN.so SOURCE_OUT NAMES_OUT\n", stderr);
		return 2;
	}
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	*(void **)&entry = dlsym(h, HANZO_ROCM_PLUGIN_ENTRY);
	if (!entry) {
		dlclose(h);
		return fail(argv[1], "no " HANZO_ROCM_PLUGIN_ENTRY);
	}
	r = check_and_dump(argv[1], entry(), argv[2], argv[3]);
	dlclose(h);
	return r;
}
