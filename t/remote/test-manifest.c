/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The remote tier's trust (lib/remote/): keys, the signed manifest's round
 * trip, and every way a manifest or blob is refused -- untrusted key, bad
 * signature, a replay under another cache key, another target, a blob of
 * the wrong size or hash, and text outside the grammar.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "remote/remote.h"
#include "../tap.h"
#include "shared/util.h"

static struct hr_remote_seckey sk, other;
static struct hr_remote_pubkey trusted[2];

static size_t make(const char *family, const char *target, unsigned char keyb,
                   const void *blob, size_t n, const struct hr_remote_seckey *k,
                   char *out)
{
	struct hr_manifest m = { 0 };
	size_t len = 0;

	memset(m.key.b, keyb, sizeof(m.key.b));
	snprintf(m.family, sizeof(m.family), "%s", family);
	snprintf(m.target, sizeof(m.target), "%s", target);
	hr_sha256(blob, n, m.blob);
	m.size = n;
	if (hr_manifest_sign(&m, k, out, HR_MANIFEST_MAX, &len) < 0)
		return 0;
	return len;
}

static enum hr_remote_reason check(const char *text, size_t len, size_t n_trusted,
                                   unsigned char keyb, const char *target)
{
	struct hr_cache_key key;
	struct hr_manifest m;

	memset(key.b, keyb, sizeof(key.b));
	return hr_manifest_verify(text, len, trusted, n_trusted, &key, "fam", target, &m);
}

/* The manifest text with the first occurrence of from replaced by to. */
static size_t edit(const char *text, const char *from, const char *to, char *out)
{
	const char *p = strstr(text, from);

	if (!p)
		return 0;
	return (size_t)sprintf(out, "%.*s%s%s", (int)(p - text), text, to, p + strlen(from));
}

int main(void)
{
	static const char blob[] = "a code object, or what stands for one";
	char text[HR_MANIFEST_MAX], bad[HR_MANIFEST_MAX + 64], pub[HR_REMOTE_KEY_TEXT_MAX];
	char sec[HR_REMOTE_KEY_TEXT_MAX], why[512], dir[] = "/tmp/hr-remote-test.XXXXXX";
	struct hr_remote_pubkey pk;
	struct hr_remote_seckey back;
	struct hr_manifest m;
	struct stat st;
	size_t len, n;
	char *path = NULL;

	ok(hr_remote_seckey_generate("builder-1", &sk) == 0 &&
	   hr_remote_seckey_generate("other.example.org-1", &other) == 0, "keys generated");
	hr_remote_pubkey_format(sk.name, sk.pub, pub);
	ok(strncmp(pub, "builder-1:", 10) == 0 && strlen(pub) == 10 + 44, "public key is name:base64 (%s)", pub);
	ok(hr_remote_pubkey_parse(pub, &trusted[0]) == 0 &&
	   memcmp(trusted[0].pub, sk.pub, 32) == 0, "public key parses back");
	hr_remote_seckey_format(&sk, sec);
	ok(hr_remote_seckey_parse(sec, strlen(sec), &back) == 0 &&
	   memcmp(back.seed, sk.seed, 32) == 0, "secret key parses back");

	/* Keys refused. */
	ok(hr_remote_pubkey_parse("builder-1", &pk) == -EINVAL, "key without ':' refused");
	ok(hr_remote_pubkey_parse(":AAAA", &pk) == -EINVAL, "key without a name refused");
	pub[strlen(pub) - 2] ^= 1;   /* padding bits no longer zero, or another value */
	ok(hr_remote_pubkey_parse(pub, &pk) == -EINVAL ||
	   memcmp(pk.pub, sk.pub, 32) != 0, "altered public key is not the key");
	ok(hr_remote_pubkey_parse("b:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAB=", &pk) == -EINVAL,
	   "non-canonical base64 refused");
	ok(hr_remote_pubkey_parse("b:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==", &pk) == -EINVAL,
	   "31-byte key refused");
	ok(hr_remote_pubkey_parse("b c:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", &pk) == -EINVAL,
	   "name with a space refused");
	memcpy(sec + strlen(sk.name) + 1, "AAAA", 4);
	ok(hr_remote_seckey_parse(sec, strlen(sec), &back) == -EINVAL,
	   "secret key whose public half is not its seed's refused");

	/* Round trip. */
	len = make("fam", "host-w64", 0x11, blob, sizeof(blob), &sk, text);
	ok(len > 0 && len <= HR_MANIFEST_MAX, "manifest signed (%zu bytes)", len);
	ok(hr_manifest_parse(text, len, &m) == 0 && m.size == sizeof(blob) &&
	   strcmp(m.signer, "builder-1") == 0 && strcmp(m.target, "host-w64") == 0,
	   "manifest parses back");
	is_int(check(text, len, 1, 0x11, "host-w64"), HR_REMOTE_OK, "round trip verifies");
	ok(hr_manifest_verify(text, len, trusted, 1, &m.key, "fam", "host-w64", &m) == HR_REMOTE_OK &&
	   hr_manifest_check_blob(&m, blob, sizeof(blob)) == HR_REMOTE_OK, "blob matches");

	/* Refusals, each by its reason. */
	is_int(check(text, len, 0, 0x11, "host-w64"), HR_REMOTE_UNTRUSTED_KEY, "no trusted key: untrusted_key");
	len = make("fam", "host-w64", 0x11, blob, sizeof(blob), &other, text);
	is_int(check(text, len, 1, 0x11, "host-w64"), HR_REMOTE_UNTRUSTED_KEY, "signed by an untrusted key: untrusted_key");
	/* A key of the trusted name but another secret: bad_signature. */
	snprintf(other.name, sizeof(other.name), "builder-1");
	len = make("fam", "host-w64", 0x11, blob, sizeof(blob), &other, text);
	is_int(check(text, len, 1, 0x11, "host-w64"), HR_REMOTE_BAD_SIGNATURE, "forged under a trusted name: bad_signature");
	/* Rotation: two keys of one name, either verifies. */
	hr_remote_pubkey_parse(pub, &trusted[1]);
	memcpy(trusted[1].pub, other.pub, 32);
	snprintf(trusted[1].name, sizeof(trusted[1].name), "builder-1");
	is_int(check(text, len, 2, 0x11, "host-w64"), HR_REMOTE_OK, "second trusted key of the same name verifies");

	len = make("fam", "host-w64", 0x11, blob, sizeof(blob), &sk, text);
	n = edit(text, "size ", "size 1", bad);
	is_int(check(bad, n, 1, 0x11, "host-w64"), HR_REMOTE_BAD_SIGNATURE, "altered size: bad_signature");
	n = edit(text, "target host-w64", "target host-w32", bad);
	is_int(check(bad, n, 1, 0x11, "host-w32"), HR_REMOTE_BAD_SIGNATURE, "altered target: bad_signature");
	n = edit(text, "signer builder-1", "signer builder-2", bad);
	is_int(check(bad, n, 1, 0x11, "host-w64"), HR_REMOTE_UNTRUSTED_KEY, "altered signer: untrusted_key");
	memcpy(bad, text, len);
	bad[len - 10] = bad[len - 10] == 'A' ? 'B' : 'A';
	is_int(check(bad, len, 1, 0x11, "host-w64"), HR_REMOTE_BAD_SIGNATURE, "altered signature: bad_signature");
	n = (size_t)(strstr(text, "sig ") - text);
	is_int(check(text, n, 1, 0x11, "host-w64"), HR_REMOTE_BAD_MANIFEST, "unsigned manifest: bad_manifest");
	is_int(check(text, len, 1, 0x22, "host-w64"), HR_REMOTE_WRONG_KEY, "valid manifest under another cache key: wrong_key");
	is_int(check(text, len, 1, 0x11, "host-w32"), HR_REMOTE_WRONG_TARGET, "valid manifest for another target: wrong_target");
	len = make("other", "host-w64", 0x11, blob, sizeof(blob), &sk, text);
	is_int(check(text, len, 1, 0x11, "host-w64"), HR_REMOTE_WRONG_KEY, "valid manifest of another family: wrong_key");

	len = make("fam", "host-w64", 0x11, blob, sizeof(blob), &sk, text);
	hr_manifest_parse(text, len, &m);
	is_int(hr_manifest_check_blob(&m, blob, sizeof(blob) - 1), HR_REMOTE_BAD_SIZE, "short blob: bad_size");
	memcpy(bad, blob, sizeof(blob));
	bad[3] ^= 1;
	is_int(hr_manifest_check_blob(&m, bad, sizeof(blob)), HR_REMOTE_BAD_HASH, "flipped byte: bad_hash");

	/* The grammar: one spelling per value, nothing extra. */
	memcpy(bad, text, len);
	bad[len] = '\n';
	is_int(hr_manifest_parse(bad, len + 1, &m), -EBADMSG, "trailing bytes refused");
	is_int(hr_manifest_parse(text, len - 1, &m), -EBADMSG, "missing final newline refused");
	n = edit(text, "key 1111", "key 111A", bad);
	is_int(hr_manifest_parse(bad, n, &m), -EBADMSG, "upper-case hex refused");
	n = edit(text, "size ", "size 0", bad);
	is_int(hr_manifest_parse(bad, n, &m), -EBADMSG, "size with a leading zero refused");
	n = edit(text, "\nfamily", "\r\nfamily", bad);
	is_int(hr_manifest_parse(bad, n, &m), -EBADMSG, "CR refused");
	n = edit(text, "family fam\n", "", bad);
	is_int(hr_manifest_parse(bad, n, &m), -EBADMSG, "missing line refused");
	n = edit(text, "target host-w64", "target ../x", bad);
	is_int(hr_manifest_parse(bad, n, &m), -EBADMSG, "target outside the name grammar refused");
	n = edit(text, "size ", "size 99999999999", bad);
	is_int(hr_manifest_parse(bad, n, &m), -EBADMSG, "size over the bound refused");
	memset(bad, 'x', sizeof(bad));
	is_int(hr_manifest_parse(bad, HR_MANIFEST_MAX + 1, &m), -EBADMSG, "oversized manifest refused");
	is_int(hr_manifest_parse(text, 0, &m), -EBADMSG, "empty manifest refused");
	ok(strcmp(hr_remote_reason_name(HR_REMOTE_BAD_SIGNATURE), "bad_signature") == 0 &&
	   strcmp(hr_remote_reason_name(HR_REMOTE_N_REASONS), "unknown") == 0, "reason names");

	/* Key files. */
	if (!mkdtemp(dir) || asprintf(&path, "%s/k.secret", dir) < 0)
		return 99;
	is_int(hr_remote_seckey_write(path, &sk), 0, "secret key written");
	ok(stat(path, &st) == 0 && (st.st_mode & 07777) == 0600, "secret key file is 0600");
	is_int(hr_remote_seckey_write(path, &sk), -EEXIST, "an existing key is never overwritten");
	ok(hr_remote_seckey_load(path, &back, why, sizeof(why)) == 0 &&
	   memcmp(back.seed, sk.seed, 32) == 0 && strcmp(back.name, sk.name) == 0, "secret key loads back");
	chmod(path, 0640);
	ok(hr_remote_seckey_load(path, &back, why, sizeof(why)) == -EPERM && strstr(why, "0640"),
	   "group-readable key refused (%s)", why);
	hr_remote_seckey_wipe(&back);
	ok(back.seed[0] == 0 && back.name[0] == 0, "wipe clears the key");
	unlink(path);
	rmdir(dir);
	free(path);
	return done_testing();
}
