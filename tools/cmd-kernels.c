/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hanzo-rocm kernels [--family F] [--json]: the catalogue - every kernel of
 * every installed family (third-party ones included), told by the plugins'
 * own data through the public hanzo_rocm_catalogue_* calls: name, typed
 * arguments, launch kind, what rows and cols mean, forms, workspace rule,
 * notes.  Exit 0; 1 when a plugin's metadata cannot be read; 2 for an
 * unknown family or a usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hanzo-rocm-tools.h"
#include "tools.h"

static void print_json_kernel(struct json *j, const struct hanzo_rocm_catalogue *cat, size_t i,
                              const struct hanzo_rocm_kernel_desc *d)
{
	json_begin_object(j);
	json_kv_string(j, "family", d->family);
	json_kv_string(j, "name", d->name);
	json_kv_string(j, "signature", d->signature);
	json_key(j, "args");
	json_begin_array(j);
	for (size_t a = 0; a < d->n_args; a++) {
		struct hanzo_rocm_arg_desc ad = { .size = sizeof(ad) };

		if (hanzo_rocm_catalogue_arg(cat, i, a, &ad) < 0)
			continue;
		json_begin_object(j);
		json_kv_string(j, "type", ad.type);
		json_kv_string(j, "name", ad.name);
		json_kv_uint(j, "bytes", ad.bytes);
		json_kv_string(j, "doc", ad.doc);
		json_kv_bool(j, "may_be_null", ad.may_be_null);
		json_kv_string(j, "bind", ad.bind);
		json_end_object(j);
	}
	json_end_array(j);
	json_kv_string(j, "launch", d->launch);
	json_kv_string(j, "rows", d->rows);
	json_kv_string(j, "cols", d->cols);
	json_kv_string(j, "form", d->form);
	json_kv_string(j, "op", d->op);
	json_kv_string(j, "split", d->split);
	json_kv_string(j, "second", d->second);
	json_kv_uint(j, "ws_per_partial", d->ws_per_partial);
	json_kv_string(j, "notes", d->notes);
	json_kv_string(j, "wide", d->wide);
	json_kv_uint(j, "ws_per_col", d->ws_per_col);
	json_kv_uint(j, "abi", d->abi);
	json_end_object(j);
}

/* Text from a plugin: control characters and non-ASCII bytes as \xHH. */
static void put_escaped(const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c >= 0x7f || c == '\\')
			printf("\\x%02x", c);
		else
			putchar(c);
	}
}

/*
 * One kernel's contract, one line (kernels/abi/F.abi, file format
 * ABI_FILE_FORMAT): family, name, the typed arguments in order, launch
 * kind, form, its passes and workspace rule; then what the op call binds
 * to each argument (#@bind) and which pointers may be NULL (#@null); then
 * what each argument means (#@arg).  A line that changes is a contract
 * changed under the same name.
 */
#define ABI_FILE_FORMAT 2
static void print_abi_kernel(const struct hanzo_rocm_catalogue *cat, size_t i,
                             const struct hanzo_rocm_kernel_desc *d)
{
	put_escaped(d->family);
	putchar('\t');
	put_escaped(d->name);
	putchar('\t');
	for (size_t a = 0; a < d->n_args; a++) {
		struct hanzo_rocm_arg_desc ad = { .size = sizeof(ad) };

		if (hanzo_rocm_catalogue_arg(cat, i, a, &ad) < 0)
			continue;
		printf("%s", a ? ", " : "");
		put_escaped(ad.type);
		printf("%s", ad.type[0] && ad.type[strlen(ad.type) - 1] == '*' ? "" : " ");
		put_escaped(ad.name);
	}
	printf("\tlaunch=%s form=%s", d->launch ? d->launch : "raw", d->form ? d->form : "-");
	printf(" split=%s second=%s ws_per_partial=%zu wide=%s ws_per_col=%zu",
	       d->split ? d->split : "-", d->second ? d->second : "-", d->ws_per_partial,
	       d->wide ? d->wide : "-", d->ws_per_col);
	for (int part = 0; part < 3; part++) {
		bool any = false;

		printf("%s", part == 0 ? "\tbind=" : part == 1 ? " null=" : "\tdoc=");
		for (size_t a = 0; a < d->n_args; a++) {
			struct hanzo_rocm_arg_desc ad = { .size = sizeof(ad) };
			const char *v;

			if (hanzo_rocm_catalogue_arg(cat, i, a, &ad) < 0)
				continue;
			v = part == 0 ? ad.bind : part == 1 ? (ad.may_be_null ? "" : NULL) : ad.doc;
			if (!v)
				continue;
			printf("%s", !any ? "" : part == 2 ? " || " : ",");
			put_escaped(ad.name);
			if (part != 1) {
				putchar(part == 0 ? ':' : '=');
				put_escaped(v);
			}
			any = true;
		}
		if (!any)
			putchar('-');
	}
	putchar('\n');
}

/* "  LABEL" then the texts, each escaped (NULL: skipped), then a newline. */
static void line(const char *label, const char *a, const char *mid, const char *b,
                 const char *tail)
{
	printf("  %s", label);
	put_escaped(a);
	printf("%s", mid);
	put_escaped(b);
	printf("%s\n", tail);
}

static void print_text_kernel(const struct hanzo_rocm_catalogue *cat, size_t i,
                              const struct hanzo_rocm_kernel_desc *d)
{
	char n[64];

	put_escaped(d->family);
	putchar('/');
	put_escaped(d->name);
	putchar('(');
	put_escaped(d->signature);
	puts(")");
	if (d->launch) {
		printf("  launch ");
		put_escaped(d->launch);
		printf(": rows = ");
		put_escaped(d->rows);
		printf("; cols = ");
		put_escaped(d->cols);
		putchar('\n');
	} else {
		printf("  launch: raw only (hanzo_rocm_kernel_launch)\n");
	}
	if (strcmp(d->form, "one-pass") == 0) {
		line("forms: one-pass, split ", d->split, " + ", d->second,
		     " (hanzo_rocm_op_run picks)");
	} else if (strcmp(d->form, "split") == 0) {
		snprintf(n, sizeof(n), "; workspace %zu bytes x rows x splits", d->ws_per_partial);
		line("form: split pass of ", d->op, "", NULL, n);
	} else if (strcmp(d->form, "second") == 0) {
		line("form: second pass of ", d->op, "", NULL, "");
	} else if (strcmp(d->form, "shared") == 0) {
		line("forms: shared memory, wide ", d->wide, "", NULL,
		     " for longer rows (hanzo_rocm_op_run picks)");
	} else if (strcmp(d->form, "wide") == 0) {
		snprintf(n, sizeof(n), "; workspace %zu bytes x rows x padded cols", d->ws_per_col);
		line("form: wide form of ", d->op, "", NULL, n);
	} else if (d->ws_per_col) {
		printf("  workspace: %zu bytes x rows x padded cols\n", d->ws_per_col);
	}
	if (d->notes)
		line("note: ", d->notes, "", NULL, "");
	for (size_t a = 0; a < d->n_args; a++) {
		struct hanzo_rocm_arg_desc ad = { .size = sizeof(ad) };

		if (hanzo_rocm_catalogue_arg(cat, i, a, &ad) < 0 || (!ad.doc && !ad.may_be_null))
			continue;
		line("arg ", ad.name, ad.may_be_null ? ": (may be NULL) " : ": ", ad.doc, "");
	}
}

int cmd_kernels(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "family", required_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "abi", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct hanzo_rocm_catalogue *cat = NULL;
	const char *family = NULL;
	struct hanzo_rocm *ctx;
	bool as_json = false, as_abi = false;
	struct json j;
	int c, r;

	while ((c = getopt_long(argc, argv, "f:jah", opts, NULL)) != -1) {
		switch (c) {
		case 'f': family = optarg; break;
		case 'j': as_json = true; break;
		case 'a': as_abi = true; break;
		case 'h':
			puts("Usage: hanzo-rocm kernels [--family F] [--json | --abi]\n\n"
			     "Describe every kernel of every installed family (or of F): its\n"
			     "typed arguments, launch kind, what rows and cols of a launch by work\n"
			     "mean, its forms (one-pass / split + second pass, shared / wide, which\n"
			     "hanzo_rocm_op_run chooses between), their workspace bytes, and notes\n"
			     "(advisory or ignored arguments).  Read from\n"
			     "the plugins themselves.  --abi: one line per kernel, its contract\n"
			     "(the typed arguments in order, launch kind, forms, workspace rule,\n"
			     "what the op call binds to each argument, which may be NULL, what\n"
			     "each means), as kernels/abi/F.abi holds it.  See hanzo-rocm-kernels(7).");
			return EXIT_OK;
		default: return cli_try_help("kernels");
		}
	}
	if (optind < argc) {
		cli_usage_error("kernels", "unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	ctx = cli_ctx(cli);
	if (!ctx)
		return EXIT_USAGE;
	r = hanzo_rocm_catalogue_new(ctx, family, &cat);
	if (r == -ENOENT && family) {
		cli_error("kernels: no family '%s' (hanzo-rocm plugins lists them)", family);
		return EXIT_USAGE;
	}
	if (r < 0) {
		cli_error("kernels: cannot read the catalogue%s%s: %s", family ? " of " : "",
		          family ? family : "", hanzo_rocm_strerror(r));
		return EXIT_FAILED;
	}
	if (as_json) {
		json_init(&j, stdout);
		json_begin_object(&j);
		json_kv_uint(&j, "abi", HANZO_ROCM_KERNEL_ABI);
		json_key(&j, "kernels");
		json_begin_array(&j);
	} else if (as_abi) {
		printf("# hanzo-rocm kernel ABI %d, file format %d: family, kernel, arguments, "
		       "launch, forms, workspace, bindings and NULLs, argument docs "
		       "(hanzo-rocm kernels --abi)\n", HANZO_ROCM_KERNEL_ABI, ABI_FILE_FORMAT);
	}
	for (size_t i = 0; i < hanzo_rocm_catalogue_count(cat); i++) {
		struct hanzo_rocm_kernel_desc d = { .size = sizeof(d) };

		if (hanzo_rocm_catalogue_kernel(cat, i, &d) < 0)
			continue;
		if (as_json)
			print_json_kernel(&j, cat, i, &d);
		else if (as_abi)
			print_abi_kernel(cat, i, &d);
		else
			print_text_kernel(cat, i, &d);
	}
	hanzo_rocm_catalogue_unref(cat);
	if (as_json) {
		json_end_array(&j);
		json_end_object(&j);
		return json_finish(&j) < 0 ? EXIT_FAILED : EXIT_OK;
	}
	return EXIT_OK;
}
