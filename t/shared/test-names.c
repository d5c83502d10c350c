/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one name grammar (lib/shared/name.h): names that one of the
 * two old grammars took and the other refused (the path-component rule
 * [A-Za-z0-9._+:-] and the plugins' family rule [a-z0-9_]) get one answer
 * everywhere a name enters: the grammar itself, target IDs, cache entry
 * paths, plugin index lines and source names; and the entry stems
 * (a family, or a source's NAME.KEY) that the dot keeps apart.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../tap.h"
#include "hanzo-rocm.h"
#include "plugin/plugin.h"
#include "source/source.h"
#include "cache/cache.h"
#include "target/target.h"
#include "shared/util.h"
#include "shared/name.h"

static const struct {
	const char *name;
	bool valid;
	bool source;    /* as a caller's source name: names joined by dots */
} names[] = {
	/* the old path rule took these, the old family rule did not */
	{ "Foo.bar", false, true }, { "candle.binary", false, true },
	{ "a.", false, false }, { "a.-b", false, false }, { "v1.2", false, true }, { "a..b", false, false },
	{ "Binary", true, true }, { "my-fam", true, true }, { "q4_K", true, true }, { "x+y", true, true },
	{ "gfx90a:xnack+", true, true }, { "host-w64", true, true },
	/* both took these */
	{ "binary", true, true }, { "_priv", true, true }, { "9lives", true, true },
	/* neither */
	{ "", false, false }, { "-x", false, false }, { ":x", false, false }, { "+x", false, false }, { ".x", false, false },
	{ "a/b", false, false }, { "a b", false, false }, { "a%b", false, false },
};

static char tmp[] = "/tmp/hr-names-XXXXXX";

/* A plugins.index holding one usable plugin of family fam. */
static int index_families(const char *fam, char ***out)
{
	char dir[64], path[128];
	FILE *f;
	int r;

	snprintf(dir, sizeof(dir), "%s/ix", tmp);
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/plugins.index", dir);
	if (!(f = fopen(path, "w")))
		return -errno;
	fprintf(f, "hanzo-rocm-plugin-index\t1\ndisable\t\n"
	        "plugin\t/p/%s.so\t-\t-\t-\t-\tok\t%s\t1.0\t1\t%064d\t\tk_a\n", fam, fam, 0);
	fclose(f);
	r = hr_plugins_index_families(dir, out);
	unlink(path);
	return r;
}

int main(void)
{
	struct hanzo_rocm_options o = { .size = sizeof(o) };
	struct hanzo_rocm *ctx = NULL;
	struct hr_cache_key key = { { 1 } };
	char conf[64], cache[64], long_name[HR_NAME_MAX + 2];
	FILE *f;

	plan_lazy();
	if (!mkdtemp(tmp))
		return 99;
	snprintf(conf, sizeof(conf), "%s/empty.conf", tmp);
	if ((f = fopen(conf, "w")))
		fclose(f);
	snprintf(cache, sizeof(cache), "%s/cache", tmp);
	mkdir(cache, 0700);
	o.root = tmp;
	o.config = conf;
	if (hanzo_rocm_new_with_options(&o, &ctx) < 0 || !ctx)
		return 99;
	hanzo_rocm_set_log_fn(ctx, NULL, NULL);

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *n = names[i].name;
		bool v = names[i].valid;
		struct hr_source_spec s = { .name = n, .source = "x", .source_len = 1 };
		char **fams = NULL;
		int r;

		ok(hr_name_is_valid(n) == v, "'%s': the grammar says %s", n, v ? "yes" : "no");
		/* The payload is no code object: past the names, the write stops
		 * at its ELF check (-ENOEXEC); a name refused stops it before. */
		r = hr_entry_write(ctx, cache, n, "host-w64", &key, "cc", "payload", 7);
		is_int(r, v ? -ENOEXEC : -EINVAL, "'%s' as a cache entry's family", n);
		r = hr_entry_write(ctx, cache, "fam", n, &key, "cc", "payload", 7);
		is_int(r, v ? -ENOEXEC : -EINVAL, "'%s' as a cache entry's target", n);
		ok(hr_name_dotted_is_valid(n) == names[i].source, "'%s': as a source name %s", n,
		   names[i].source ? "yes" : "no");
		r = hr_source_check(ctx, &s);
		is_int(r, names[i].source ? 0 : -EINVAL, "'%s' as a source name", n);
		if (!*n || strchr(n, '/') || strchr(n, ' ') || strchr(n, '%'))
			continue;       /* not writable as an index field or a path */
		r = index_families(n, &fams);
		ok(v ? r == 0 && fams && fams[0] && strcmp(fams[0], n) == 0 : r == -EBADMSG,
		   "'%s' in a plugin index line: %s (%d)", n, v ? "read" : "the index is refused", r);
		hr_strv_free(fams);
		/* A target must also be a platform's (by meaning): never one the grammar refuses. */
		if (!v)
			ok(hr_target_validate(n) < 0, "'%s' is no target", n);
	}
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[HR_NAME_MAX] = '\0';
	ok(hr_name_is_valid(long_name), "%d characters are a name", HR_NAME_MAX);
	long_name[HR_NAME_MAX] = 'a';
	long_name[HR_NAME_MAX + 1] = '\0';
	ok(!hr_name_is_valid(long_name), "%d characters are not", HR_NAME_MAX + 1);
	ok(!hr_name_is_valid(NULL), "NULL is not a name");

	/* A cache entry's stem: a family, or a caller source's NAME.KEY. */
	ok(hr_name_stem_is_valid("binary"), "a family is an entry stem");
	ok(hr_name_stem_is_valid("my-src.0123456789abcdef"), "NAME.KEY is an entry stem");
	ok(!hr_name_stem_is_valid("Foo.bar"), "NAME.word is not");
	ok(hr_name_stem_is_valid("candle.binary.0123456789abcdef"), "a dotted source name before the key is");
	ok(!hr_name_stem_is_valid("a..b.0123456789abcdef"), "an empty part before the key is not");
	ok(!hr_name_stem_is_valid(".0123456789abcdef"), "a key alone is not");
	ok(!hr_name_stem_is_valid("x.0123456789ABCDEF"), "an upper-case key is not");
	is_int(hr_entry_write(ctx, cache, "my-src.0123456789abcdef", "host-w64", &key, "cc",
	                      "payload", 7), -ENOEXEC, "a NAME.KEY stem passes the entry's name check");

	hanzo_rocm_unref(ctx);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
		if (system(cmd) != 0)
			diag("could not remove %s", tmp);
	}
	return done_testing();
}
