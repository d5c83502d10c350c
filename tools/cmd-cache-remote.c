/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hanzo-rocm cache keygen | push | verify --remote: a builder's Ed25519
 * signing key for the remote tier (lib/remote/remote.h), pushing signed
 * entries with it (also precompile --remote), and checking what the
 * remotes serve for the families and targets.  keygen: the secret goes to a new file, mode 0600,
 * written atomically; the public key ("name:base64", for trusted_keys) is
 * printed on stdout.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hanzo-rocm-tools.h"
#include "tools.h"

int cache_keygen(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct hr_remote_seckey k;
	char pub[HR_REMOTE_KEY_TEXT_MAX], *def = NULL;
	const char *out = NULL;
	int c, r;

	(void)cli;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'h':
			puts("Usage: hanzo-rocm cache keygen NAME [--output FILE]\n\n"
			     "Create an Ed25519 key for signing remote cache entries.  The\n"
			     "secret key is written to FILE (default NAME.secret), mode 0600,\n"
			     "never over an existing file; the public key NAME:BASE64, for\n"
			     "[remote] trusted_keys on the nodes, is printed on stdout.\n"
			     "NAME: 1 to 64 of A-Z a-z 0-9 . _ - (e.g. builder-2026).");
			return EXIT_OK;
		default: return cli_try_help("cache keygen");
		}
	}
	if (optind == argc)
		return cli_usage_error("cache keygen", "a key NAME is needed");
	if (optind + 1 < argc)
		return cli_usage_error("cache keygen", "unexpected argument '%s'",
		                       argv[optind + 1]);
	if (!hr_remote_key_name_is_valid(argv[optind]))
		return cli_usage_error("cache keygen", "invalid key name '%s' (1 to 64 of "
		                       "A-Z a-z 0-9 . _ -, not starting with . or -)",
		                       argv[optind]);
	if (!out) {
		if (asprintf(&def, "%s.secret", argv[optind]) < 0) {
			cli_error("cache keygen: %s", strerror(ENOMEM));
			return EXIT_FAILED;
		}
		out = def;
	}
	r = hr_remote_seckey_generate(argv[optind], &k);
	if (r == 0)
		r = hr_remote_seckey_write(out, &k);
	if (r < 0) {
		cli_error("cache keygen: cannot write %s: %s", out,
		          r == -EEXIST ? "it exists already (a key is never overwritten)"
		                       : strerror(-r));
		hr_remote_seckey_wipe(&k);
		free(def);
		return EXIT_FAILED;
	}
	hr_remote_pubkey_format(k.name, k.pub, pub);
	hr_remote_seckey_wipe(&k);
	printf("%s\n", pub);
	fprintf(stderr, "hanzo-rocm: secret key written to %s (mode 0600)\n", out);
	free(def);
	return EXIT_OK;
}

/* ---- push ---- */

struct push_state {
	struct hanzo_rocm *ctx;
	const char *family;
	unsigned pushed, failed;
};

static int push_one(void *data, const char *path, const char *target,
                    const char *name, enum hr_cache_file kind, const struct stat *st)
{
	struct push_state *s = data;
	struct hr_entry e;
	char why[512];

	(void)name;
	(void)st;
	if (kind != HR_CACHE_ENTRY)
		return 0;
	if (hr_entry_read_why(s->ctx, path, NULL, &e, why, sizeof(why)) < 0) {
		printf("skipped %s: %s\n", path, why);
		return 0;
	}
	if ((s->family && strcmp(s->family, e.family) != 0) || strcmp(e.target, target) != 0) {
		hr_entry_release(&e);
		return 0;
	}
	if (hr_remote_push(s->ctx, &e, why, sizeof(why)) < 0) {
		cli_error("cache push: %s for %s: %s", e.family, e.target, why);
		s->failed++;
	} else {
		printf("pushed %s for %s\n", e.family, e.target);
		s->pushed++;
	}
	hr_entry_release(&e);
	return 0;
}

int remote_push_dir(struct hanzo_rocm *ctx, const char *dir, const char *target,
                    const char *family, unsigned *pushed, unsigned *failed)
{
	struct push_state s = { .ctx = ctx, .family = family };
	int r = hr_cache_scan(dir, target, push_one, &s);

	*pushed += s.pushed;
	*failed += s.failed;
	return r == -ENOENT ? 0 : r;
}

int cache_push(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "system", no_argument, NULL, 's' },
		{ "target", required_argument, NULL, 't' },
		{ "family", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct push_state s = { 0 };
	enum hr_tier which = HR_TIER_USER;
	const struct hr_config *cfg;
	struct hr_tier_dir *t = NULL;
	const char *target = NULL;
	size_t n = 0;
	int c, r, ret = EXIT_OK;

	while ((c = getopt_long(argc, argv, "st:f:h", opts, NULL)) != -1) {
		switch (c) {
		case 's': which = HR_TIER_SYSTEM; break;
		case 't': target = optarg; break;
		case 'f': s.family = optarg; break;
		case 'h':
			puts("Usage: hanzo-rocm cache push [--system] [--target T] [--family F]\n\n"
			     "Push the valid entries of the user cache (or of the system cache)\n"
			     "to every [remote] url: the code object to cas/<sha256>, then a\n"
			     "manifest signed with [remote] signing_key to ac/<cache key>.\n"
			     "Exit 1 when an entry could not be pushed.");
			return EXIT_OK;
		default: return cli_try_help("cache push");
		}
	}
	if (optind < argc)
		return cli_usage_error("cache push", "unexpected argument '%s'", argv[optind]);
	if ((target && !hr_name_is_valid(target)) || (s.family && !hr_name_is_valid(s.family)))
		return cli_usage_error("cache push", "invalid %s '%s'", target && !hr_name_is_valid(target) ?
		                       "target" : "family", target && !hr_name_is_valid(target) ? target : s.family);
	s.ctx = cli_ctx(cli);
	if (!s.ctx)
		return EXIT_USAGE;
	cfg = hr_tools_config(s.ctx);
	if (!cfg->remote_url || !cfg->remote_url[0] || !cfg->remote_signing_key) {
		cli_error("cache push: a builder needs [remote] url and signing_key in the configuration");
		return EXIT_USAGE;
	}
	r = hr_cache_tiers(s.ctx, &t, &n);
	if (r < 0) {
		cli_error("cannot list cache tiers: %s", hanzo_rocm_strerror(r));
		return EXIT_FAILED;
	}
	for (size_t i = 0; i < n; i++) {
		if (t[i].tier != which)
			continue;
		r = hr_cache_scan(t[i].path, target, push_one, &s);
		if (r < 0 && r != -ENOENT) {
			cli_error("cannot read %s: %s", t[i].path, strerror(-r));
			ret = EXIT_FAILED;
		}
	}
	hr_cache_tiers_free(t, n);
	printf("%u pushed, %u failed\n", s.pushed, s.failed);
	return s.failed ? EXIT_FAILED : ret;
}

/* ---- verify --remote ---- */

static bool is_transport(enum hr_remote_reason r)
{
	return r == HR_REMOTE_TIMEOUT || r == HR_REMOTE_CONNECT || r == HR_REMOTE_HTTP_4XX ||
	       r == HR_REMOTE_HTTP_5XX || r == HR_REMOTE_BREAKER_OPEN || r == HR_REMOTE_BUDGET;
}

int cache_verify_remote(struct cli *cli, char **targets, char **families)
{
	struct hanzo_rocm *ctx = cli_ctx(cli);
	const struct hr_config *cfg;
	char **t = NULL, **f = NULL;
	const char *why_targets = NULL;
	unsigned ok = 0, absent = 0, refused = 0, unreachable = 0;
	int r;

	if (!ctx)
		return EXIT_USAGE;
	cfg = hr_tools_config(ctx);
	if (!hr_remote_configured(ctx)) {
		cli_error("cache verify --remote: no [remote] url in the configuration");
		return EXIT_USAGE;
	}
	if (!cfg->remote_trusted_keys || !cfg->remote_trusted_keys[0])
		cli_error("cache verify --remote: no [remote] trusted_keys: every entry is refused");
	for (size_t i = 0; targets && targets[i]; i++)
		if (hr_target_validate(targets[i]) < 0)
			return cli_usage_error("cache verify", "invalid target '%s'", targets[i]);
	if (!targets) {
		r = hr_targets_for_precompile(ctx, &t, &why_targets);
		if (r < 0) {
			cli_error("cache verify --remote: no targets: %s", hanzo_rocm_strerror(r));
			return EXIT_FAILED;
		}
		targets = t;
	}
	if (!families) {
		r = hr_plugins_families(ctx, &f);
		if (r < 0) {
			cli_error("cache verify --remote: cannot list the families: %s",
			          hanzo_rocm_strerror(r));
			hr_strv_free(t);
			return EXIT_FAILED;
		}
		families = f;
	}
	for (size_t u = 0; cfg->remote_url[u]; u++) {
		printf("%s\n", cfg->remote_url[u]);
		for (size_t ti = 0; targets[ti]; ti++) {
			for (size_t fi = 0; families[fi]; fi++) {
				struct hr_family *fam;
				struct hr_cache_key key;
				struct hr_manifest m;
				enum hr_remote_reason res;
				char hex[65];

				if (hr_plugins_family(ctx, families[fi], &fam) < 0) {
					printf("  %-12s %-14s %-12s no such family installed\n", "unknown",
					       targets[ti], families[fi]);
					refused++;
					continue;
				}
				hr_cache_key_compute(fam->family, fam->source_sha256,
				                     (const char *const *)fam->flags, cfg->flags,
				                     targets[ti], &key);
				hr_hex(key.b, sizeof(key.b), hex);
				res = hr_remote_check(ctx, cfg->remote_url[u], &key, families[fi],
				                      targets[ti], &m);
				if (res == HR_REMOTE_OK) {
					printf("  %-12s %-14s %-12s signed by %s, %llu bytes (ac/%s)\n", "ok",
					       targets[ti], families[fi], m.signer,
					       (unsigned long long)m.size, hex);
					ok++;
				} else if (res == HR_REMOTE_NOT_FOUND) {
					printf("  %-12s %-14s %-12s (ac/%s)\n", "absent", targets[ti],
					       families[fi], hex);
					absent++;
				} else {
					bool tr = is_transport(res);

					printf("  %-12s %-14s %-12s %s (ac/%s)\n", tr ? "unreachable" : "refused",
					       targets[ti], families[fi], hr_remote_reason_name(res), hex);
					if (tr)
						unreachable++;
					else
						refused++;
				}
			}
		}
	}
	printf("%u ok, %u absent, %u refused, %u unreachable\n", ok, absent, refused, unreachable);
	hr_strv_free(t);
	hr_strv_free(f);
	return refused || unreachable ? EXIT_FAILED : EXIT_OK;
}
