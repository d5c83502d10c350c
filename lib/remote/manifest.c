/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The remote tier's signed manifest: a strict parser (every field checked,
 * bounded sizes, one spelling per value), signing and verification with
 * nettle's ed25519_sha512.  The grammar is in remote.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <nettle/eddsa.h>

#include "remote.h"
#include "remote-internal.h"
#include "shared/util.h"
#include "shared/name.h"

#define MANIFEST_MAGIC "hanzo-rocm-manifest 1"

static const char *const reason_names[HR_REMOTE_N_REASONS] = {
	[HR_REMOTE_OK] = "ok",
	[HR_REMOTE_BAD_MANIFEST] = "bad_manifest",
	[HR_REMOTE_UNTRUSTED_KEY] = "untrusted_key",
	[HR_REMOTE_BAD_SIGNATURE] = "bad_signature",
	[HR_REMOTE_WRONG_TARGET] = "wrong_target",
	[HR_REMOTE_WRONG_KEY] = "wrong_key",
	[HR_REMOTE_BAD_SIZE] = "bad_size",
	[HR_REMOTE_BAD_HASH] = "bad_hash",
	[HR_REMOTE_BAD_ENTRY] = "bad_entry",
	[HR_REMOTE_NOT_FOUND] = "not_found",
	[HR_REMOTE_TIMEOUT] = "timeout",
	[HR_REMOTE_CONNECT] = "connect",
	[HR_REMOTE_HTTP_4XX] = "http_4xx",
	[HR_REMOTE_HTTP_5XX] = "http_5xx",
	[HR_REMOTE_BREAKER_OPEN] = "breaker_open",
	[HR_REMOTE_BUDGET] = "budget",
};

const char *hr_remote_reason_name(enum hr_remote_reason r)
{
	if ((unsigned)r >= HR_REMOTE_N_REASONS)
		return "unknown";
	return reason_names[r];
}

/* Lower-case hex of exactly 2n characters. */
static int parse_hex(const char *s, size_t len, uint8_t *out, size_t n)
{
	if (len != 2 * n)
		return -EBADMSG;
	for (size_t i = 0; i < 2 * n; i++) {
		char c = s[i];
		unsigned v;

		if (c >= '0' && c <= '9')
			v = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = (unsigned)(c - 'a' + 10);
		else
			return -EBADMSG;
		if (i % 2 == 0)
			out[i / 2] = (uint8_t)(v << 4);
		else
			out[i / 2] |= (uint8_t)v;
	}
	return 0;
}

/* Decimal without sign or leading zero, 1..HR_REMOTE_BLOB_MAX. */
static int parse_size(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (len == 0 || len > 20 || s[0] == '0')
		return -EBADMSG;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EBADMSG;
		v = v * 10 + (uint64_t)(s[i] - '0');
		if (v > HR_REMOTE_BLOB_MAX)
			return -EBADMSG;
	}
	*out = v;
	return 0;
}

/* A name of at most cap-1 characters into out, checked by valid(). */
static int parse_name(const char *s, size_t len, char *out, size_t cap,
                      bool (*valid)(const char *))
{
	if (len == 0 || len >= cap)
		return -EBADMSG;
	memcpy(out, s, len);
	out[len] = '\0';
	return valid(out) ? 0 : -EBADMSG;
}

int hr_manifest_parse(const void *text, size_t n, struct hr_manifest *m)
{
	static const char *const fields[] = {
		MANIFEST_MAGIC, "key ", "family ", "target ", "blob ", "size ",
		"signer ", "sig ",
	};
	const char *p = text, *end = p + n;
	size_t nf = sizeof(fields) / sizeof(fields[0]);

	memset(m, 0, sizeof(*m));
	if (n == 0 || n > HR_MANIFEST_MAX || memchr(p, '\0', n))
		return -EBADMSG;
	for (size_t f = 0; f < nf; f++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t flen = strlen(fields[f]), vlen;
		const char *v;
		int r;

		if (!nl || (size_t)(nl - p) < flen || memcmp(p, fields[f], flen) != 0)
			return -EBADMSG;
		v = p + flen;
		vlen = (size_t)(nl - v);
		switch (f) {
		case 0: r = vlen == 0 ? 0 : -EBADMSG; break;
		case 1: r = parse_hex(v, vlen, m->key.b, sizeof(m->key.b)); break;
		case 2: r = parse_name(v, vlen, m->family, sizeof(m->family), hr_name_is_valid); break;
		case 3: r = parse_name(v, vlen, m->target, sizeof(m->target), hr_name_is_valid); break;
		case 4: r = parse_hex(v, vlen, m->blob, sizeof(m->blob)); break;
		case 5: r = parse_size(v, vlen, &m->size); break;
		case 6: r = parse_name(v, vlen, m->signer, sizeof(m->signer),
		                       hr_remote_key_name_is_valid); break;
		default:
			m->signed_len = (size_t)(p - (const char *)text);
			r = hr_remote_b64_decode(v, vlen, m->sig, sizeof(m->sig)) < 0 ? -EBADMSG : 0;
			break;
		}
		if (r < 0)
			return -EBADMSG;
		p = nl + 1;
	}
	return p == end ? 0 : -EBADMSG;
}

int hr_manifest_sign(struct hr_manifest *m, const struct hr_remote_seckey *k,
                     char *out, size_t cap, size_t *len)
{
	char key[65], blob[65], sig[89];
	int w;

	if (!hr_name_is_valid(m->family) || !hr_name_is_valid(m->target) ||
	    !hr_remote_key_name_is_valid(k->name) || m->size == 0 ||
	    m->size > HR_REMOTE_BLOB_MAX || cap < HR_MANIFEST_MAX)
		return -EINVAL;
	hr_hex(m->key.b, sizeof(m->key.b), key);
	hr_hex(m->blob, sizeof(m->blob), blob);
	snprintf(m->signer, sizeof(m->signer), "%s", k->name);
	w = snprintf(out, cap, MANIFEST_MAGIC "\nkey %s\nfamily %s\ntarget %s\n"
	             "blob %s\nsize %" PRIu64 "\nsigner %s\n",
	             key, m->family, m->target, blob, m->size, m->signer);
	if (w < 0 || (size_t)w + 4 + 88 + 1 >= cap)
		return -EINVAL;
	m->signed_len = (size_t)w;
	ed25519_sha512_sign(k->pub, k->seed, m->signed_len, (const uint8_t *)out, m->sig);
	hr_remote_b64_encode(m->sig, sizeof(m->sig), sig);
	w += snprintf(out + w, cap - (size_t)w, "sig %s\n", sig);
	*len = (size_t)w;
	return 0;
}

enum hr_remote_reason hr_manifest_verify(const void *text, size_t n,
                                         const struct hr_remote_pubkey *trusted,
                                         size_t n_trusted,
                                         const struct hr_cache_key *key,
                                         const char *family, const char *target,
                                         struct hr_manifest *m)
{
	bool named = false, verified = false;

	if (hr_manifest_parse(text, n, m) < 0)
		return HR_REMOTE_BAD_MANIFEST;
	/* Several keys may share a name while one is rotated out: try each. */
	for (size_t i = 0; i < n_trusted && !verified; i++) {
		if (strcmp(trusted[i].name, m->signer) != 0)
			continue;
		named = true;
		verified = ed25519_sha512_verify(trusted[i].pub, m->signed_len,
		                                 text, m->sig) == 1;
	}
	if (!verified)
		return named ? HR_REMOTE_BAD_SIGNATURE : HR_REMOTE_UNTRUSTED_KEY;
	if (strcmp(m->target, target) != 0)
		return HR_REMOTE_WRONG_TARGET;
	if (memcmp(m->key.b, key->b, sizeof(key->b)) != 0 || strcmp(m->family, family) != 0)
		return HR_REMOTE_WRONG_KEY;
	return HR_REMOTE_OK;
}

enum hr_remote_reason hr_manifest_check_blob(const struct hr_manifest *m,
                                             const void *blob, size_t n)
{
	uint8_t sum[32];

	if (n != m->size)
		return HR_REMOTE_BAD_SIZE;
	hr_sha256(blob, n, sum);
	return memcmp(sum, m->blob, sizeof(sum)) == 0 ? HR_REMOTE_OK : HR_REMOTE_BAD_HASH;
}
