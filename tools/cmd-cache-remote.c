/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hanzo-rocm cache keygen: a builder's Ed25519 signing key for the remote
 * tier (lib/remote/cache-remote.h).  The secret goes to a new file, mode 0600,
 * written atomically; the public key ("name:base64", for trusted_keys) is
 * printed on stdout.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
