/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The remote tier's manifest (lib/remote/manifest.c) and key texts:
 * whatever parses has one spelling -- signing its fields again under its
 * signer's name gives back the very bytes that were signed -- and verify
 * never accepts a manifest that a fixed trusted key did not sign.
 */
#include <nettle/eddsa.h>

#include "fuzz.h"
#include "remote/remote.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hr_remote_seckey k;
	static struct hr_remote_pubkey trusted;
	static int made;
	char again[HR_MANIFEST_MAX], s[HR_REMOTE_KEY_TEXT_MAX + 8];
	struct hr_manifest m, m2;
	struct hr_remote_pubkey pk;
	struct hr_remote_seckey sk;
	size_t len;

	if (!made) {
		/* A fixed key: the fuzzer must be deterministic. */
		memset(k.seed, 7, sizeof(k.seed));
		snprintf(k.name, sizeof(k.name), "fuzz-1");
		ed25519_sha512_public_key(k.pub, k.seed);
		snprintf(trusted.name, sizeof(trusted.name), "fuzz-1");
		memcpy(trusted.pub, k.pub, sizeof(trusted.pub));
		made = 1;
	}
	if (hr_manifest_parse(data, size, &m) == 0) {
		struct hr_remote_seckey as = k;

		if (m.signed_len >= size || memcmp(data + m.signed_len, "sig ", 4) != 0)
			abort();
		snprintf(as.name, sizeof(as.name), "%s", m.signer);
		m2 = m;
		if (hr_manifest_sign(&m2, &as, again, sizeof(again), &len) < 0 ||
		    len < m.signed_len || memcmp(again, data, m.signed_len) != 0)
			abort(); /* a second spelling of some value parsed */
		if (hr_manifest_verify(data, size, &trusted, 1, &m.key, m.family, m.target,
		                       &m2) == HR_REMOTE_OK &&
		    (len != size || memcmp(again, data, size) != 0))
			abort(); /* Ed25519 is deterministic: a verified text is ours */
	}
	if (size < sizeof(s)) {
		memcpy(s, data, size);
		s[size] = '\0';
		(void)hr_remote_pubkey_parse(s, &pk);
		(void)hr_remote_seckey_parse(s, size, &sk);
	}
	return 0;
}
