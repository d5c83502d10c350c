/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Ed25519 keys for the remote tier (nettle's ed25519_sha512), written as
 * Nix binary caches write them: "name:base64(public key)" to trust,
 * "name:base64(seed || public key)" to sign.  See remote.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nettle/base64.h>
#include <nettle/eddsa.h>

#include "remote.h"
#include "remote-internal.h"
#include "shared/util.h"

int hr_remote_b64_decode(const char *text, size_t n_text, uint8_t *out, size_t n)
{
	struct base64_decode_ctx b;
	uint8_t buf[96];
	char again[4 * (sizeof(buf) + 2) / 3 + 1];
	size_t got = sizeof(buf);

	if (n > sizeof(buf) - 2 || n_text != 4 * ((n + 2) / 3))
		return -EINVAL;
	for (size_t i = 0; i < n_text; i++) {
		char c = text[i];

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		      (c >= '0' && c <= '9') || c == '+' || c == '/' || c == '='))
			return -EINVAL;
	}
	base64_decode_init(&b);
	if (!base64_decode_update(&b, &got, buf, n_text, text) ||
	    !base64_decode_final(&b) || got != n)
		return -EINVAL;
	/* Canonical: no junk in the padding bits, '=' only at the end. */
	hr_remote_b64_encode(buf, n, again);
	if (memcmp(again, text, n_text) != 0)
		return -EINVAL;
	memcpy(out, buf, n);
	explicit_bzero(buf, sizeof(buf));
	return 0;
}

void hr_remote_b64_encode(const uint8_t *in, size_t n, char *out)
{
	base64_encode_raw(out, n, in);
	out[BASE64_ENCODE_RAW_LENGTH(n)] = '\0';
}

bool hr_remote_key_name_is_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > HR_REMOTE_NAME_MAX || s[0] == '.' || s[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
			return false;
	}
	return true;
}

/* "name:" then base64 of n bytes, up to s + len; name into name. */
static int key_split(const char *s, size_t len, char name[HR_REMOTE_NAME_MAX + 1],
                     uint8_t *out, size_t n)
{
	const char *colon = memchr(s, ':', len);
	size_t nl;

	if (!colon)
		return -EINVAL;
	nl = (size_t)(colon - s);
	if (nl == 0 || nl > HR_REMOTE_NAME_MAX)
		return -EINVAL;
	memcpy(name, s, nl);
	name[nl] = '\0';
	if (!hr_remote_key_name_is_valid(name))
		return -EINVAL;
	return hr_remote_b64_decode(colon + 1, len - nl - 1, out, n);
}

int hr_remote_pubkey_parse(const char *s, struct hr_remote_pubkey *k)
{
	size_t len = strnlen(s, HR_REMOTE_KEY_TEXT_MAX);

	if (len >= HR_REMOTE_KEY_TEXT_MAX)
		return -EINVAL;
	return key_split(s, len, k->name, k->pub, sizeof(k->pub));
}

void hr_remote_pubkey_format(const char *name, const uint8_t pub[32], char *out)
{
	size_t nl = strnlen(name, HR_REMOTE_NAME_MAX);

	memcpy(out, name, nl);
	out[nl] = ':';
	hr_remote_b64_encode(pub, 32, out + nl + 1);
}

int hr_remote_seckey_parse(const char *s, size_t n, struct hr_remote_seckey *k)
{
	uint8_t both[64], pub[32];
	int r;

	if (n > 0 && s[n - 1] == '\n')
		n--;
	if (n >= HR_REMOTE_KEY_TEXT_MAX || memchr(s, '\0', n))
		return -EINVAL;
	r = key_split(s, n, k->name, both, sizeof(both));
	if (r < 0)
		return r;
	memcpy(k->seed, both, 32);
	memcpy(k->pub, both + 32, 32);
	explicit_bzero(both, sizeof(both));
	ed25519_sha512_public_key(pub, k->seed);
	if (memcmp(pub, k->pub, 32) != 0) {
		hr_remote_seckey_wipe(k);
		return -EINVAL;
	}
	return 0;
}

void hr_remote_seckey_format(const struct hr_remote_seckey *k, char *out)
{
	uint8_t both[64];
	size_t nl = strnlen(k->name, HR_REMOTE_NAME_MAX);

	memcpy(both, k->seed, 32);
	memcpy(both + 32, k->pub, 32);
	memcpy(out, k->name, nl);
	out[nl] = ':';
	hr_remote_b64_encode(both, sizeof(both), out + nl + 1);
	explicit_bzero(both, sizeof(both));
}

int hr_remote_seckey_generate(const char *name, struct hr_remote_seckey *k)
{
	size_t got = 0;

	if (!hr_remote_key_name_is_valid(name))
		return -EINVAL;
	snprintf(k->name, sizeof(k->name), "%s", name);
	while (got < sizeof(k->seed)) {
		ssize_t r = getrandom(k->seed + got, sizeof(k->seed) - got, 0);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		got += (size_t)r;
	}
	ed25519_sha512_public_key(k->pub, k->seed);
	return 0;
}

void hr_remote_seckey_wipe(struct hr_remote_seckey *k)
{
	explicit_bzero(k, sizeof(*k));
}

int hr_remote_seckey_load(const char *path, struct hr_remote_seckey *k,
                          char *why, size_t n)
{
	struct stat st;
	void *data = NULL;
	size_t size = 0;
	int fd, r;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		snprintf(why, n, "%s: %s", path, strerror(-r));
		return r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		snprintf(why, n, "%s: %s", path, strerror(-r));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		r = -EPERM;
		snprintf(why, n, "%s is not a regular file", path);
		goto out;
	}
	if (st.st_uid != geteuid()) {
		r = -EPERM;
		snprintf(why, n, "%s is owned by uid %u, not by this user (uid %u)",
		         path, (unsigned)st.st_uid, (unsigned)geteuid());
		goto out;
	}
	if (st.st_mode & 077) {
		r = -EPERM;
		snprintf(why, n, "%s has mode %04o: a signing key must be mode 0600 "
		         "(chmod 600 %s)", path, (unsigned)(st.st_mode & 07777), path);
		goto out;
	}
	r = hr_read_fd(fd, HR_REMOTE_KEY_TEXT_MAX, &data, &size);
	if (r < 0) {
		snprintf(why, n, "%s: %s", path, strerror(-r));
		goto out;
	}
	r = hr_remote_seckey_parse(data, size, k);
	if (r < 0)
		snprintf(why, n, "%s is not a signing key (expected NAME:BASE64 as "
		         "written by `hanzo-rocm cache keygen`)", path);
	explicit_bzero(data, size);
	free(data);
out:
	close(fd);
	return r;
}

int hr_remote_seckey_write(const char *path, const struct hr_remote_seckey *k)
{
	char text[HR_REMOTE_KEY_TEXT_MAX + 1];
	char *tmp = NULL, *dir = NULL, *slash;
	size_t len, off = 0;
	int fd = -1, r = 0;

	if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
		return -ENOMEM;
	dir = strdup(path);
	if (!dir) {
		r = -ENOMEM;
		goto out;
	}
	slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	hr_remote_seckey_format(k, text);
	len = strlen(text);
	text[len++] = '\n';
	/* mkostemp creates the file 0600: the secret is never readable by others. */
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	while (off < len) {
		ssize_t w = write(fd, text + off, len - off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		off += (size_t)w;
	}
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	fd = -1;
	/* link, not rename: an existing key is never replaced. */
	if (r == 0 && link(tmp, path) < 0)
		r = -errno;
	unlink(tmp);
	if (r == 0) {
		int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (dfd >= 0) {
			(void)fsync(dfd);
			close(dfd);
		}
	}
out:
	explicit_bzero(text, sizeof(text));
	if (fd >= 0)
		close(fd);
	free(tmp);
	free(dir);
	return r;
}

int hr_remote_private_open(const char *path, char *why, size_t n)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), r;

	if (fd < 0) {
		r = -errno;
		snprintf(why, n, "%s: %s", path, strerror(-r));
		return r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		snprintf(why, n, "%s: %s", path, strerror(-r));
	} else if (!S_ISREG(st.st_mode)) {
		r = -EPERM;
		snprintf(why, n, "%s is not a regular file", path);
	} else if (st.st_uid != geteuid() && st.st_uid != 0) {
		r = -EPERM;
		snprintf(why, n, "%s is owned by uid %u, neither this user (uid %u) nor root",
		         path, (unsigned)st.st_uid, (unsigned)geteuid());
	} else if (st.st_mode & 027) {
		r = -EPERM;
		snprintf(why, n, "%s has mode %04o: a credential must not be accessible by "
		         "others nor writable by the group (chmod 600 or 640 %s)", path,
		         (unsigned)(st.st_mode & 07777), path);
	} else {
		return fd;
	}
	close(fd);
	return r;
}

/* The characters of an RFC 6750 token68, and of a user:password pair. */
static bool is_cred_char(unsigned char c, bool token)
{
	if (token)
		return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		       strchr("-._~+/=", c);
	return c >= 0x20 && c < 0x7f;
}

int hr_remote_auth_header(const char *path, char **header, char *why, size_t n)
{
	struct base64_encode_ctx b;
	void *data = NULL;
	char *text, *cred, *out = NULL;
	size_t size = 0, len;
	bool bearer;
	int fd = hr_remote_private_open(path, why, n), r;

	*header = NULL;
	if (fd < 0)
		return fd;
	r = hr_read_fd(fd, 4096, &data, &size);
	close(fd);
	if (r < 0) {
		snprintf(why, n, "%s: %s", path, r == -EFBIG ? "longer than 4096 bytes" : strerror(-r));
		return r;
	}
	text = data;
	while (size > 0 && (text[size - 1] == '\n' || text[size - 1] == '\r'))
		size--;
	r = -EINVAL;
	bearer = size > 7 && strncasecmp(text, "Bearer ", 7) == 0;
	if (!bearer && !(size > 6 && strncasecmp(text, "Basic ", 6) == 0))
		goto bad;
	cred = text + (bearer ? 7 : 6);
	len = size - (size_t)(cred - text);
	for (size_t i = 0; i < len; i++)
		if (!is_cred_char((unsigned char)cred[i], bearer))
			goto bad;
	if (!bearer && !memchr(cred, ':', len))
		goto bad;
	if (bearer) {
		r = asprintf(&out, "Authorization: Bearer %.*s", (int)len, cred) < 0 ? -ENOMEM : 0;
	} else {
		out = malloc(strlen("Authorization: Basic ") + BASE64_ENCODE_LENGTH(len) +
		             BASE64_ENCODE_FINAL_LENGTH + 1);
		if (out) {
			size_t o = strlen("Authorization: Basic ");

			memcpy(out, "Authorization: Basic ", o);
			base64_encode_init(&b);
			o += base64_encode_update(&b, out + o, len, (const uint8_t *)cred);
			o += base64_encode_final(&b, out + o);
			out[o] = '\0';
		}
		r = out ? 0 : -ENOMEM;
	}
	if (r == 0)
		*header = out;
	else
		snprintf(why, n, "%s: %s", path, strerror(ENOMEM));
	explicit_bzero(data, size);
	free(data);
	return r;
bad:
	snprintf(why, n, "%s is not a credential (expected one line: \"Bearer TOKEN\" or "
	         "\"Basic USER:PASSWORD\")", path);
	explicit_bzero(data, size);
	free(data);
	return r;
}
