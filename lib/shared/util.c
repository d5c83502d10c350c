/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Generic helpers shared by every module (no context, no logging) (layer: shared). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nettle/sha2.h>

#include "util.h"

char **hr_strv_new(void)
{
	return calloc(1, sizeof(char *));
}

void hr_strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

size_t hr_strv_len(char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

int hr_strv_push(char ***v, const char *s)
{
	size_t n = hr_strv_len(*v);
	char *copy = strdup(s);
	char **nv;

	if (!copy)
		return -ENOMEM;
	nv = realloc(*v, (n + 2) * sizeof(char *));
	if (!nv) {
		free(copy);
		return -ENOMEM;
	}
	nv[n] = copy;
	nv[n + 1] = NULL;
	*v = nv;
	return 0;
}

bool hr_strv_contains(char *const *v, const char *s)
{
	for (size_t i = 0; v && v[i]; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

char **hr_strv_copy(char *const *v)
{
	size_t n = hr_strv_len(v);
	char **out = calloc(n + 1, sizeof(char *));

	for (size_t i = 0; out && i < n; i++) {
		if (!(out[i] = strdup(v[i]))) {
			hr_strv_free(out);
			return NULL;
		}
	}
	return out;
}

/* Two passes, one allocation for the vector: pushing field by field was
 * quadratic (hr_strv_push measures the vector each time). */
char **hr_strv_split(const char *s, const char *seps)
{
	size_t n = 0, k = 0;
	char **out;

	for (const char *p = s; p && *p;) {
		p += strspn(p, seps);
		if (*p)
			n++;
		p += strcspn(p, seps);
	}
	out = calloc(n + 1, sizeof(char *));
	while (out && k < n) {
		size_t len;

		s += strspn(s, seps);
		len = strcspn(s, seps);
		out[k] = strndup(s, len);
		if (!out[k]) {
			hr_strv_free(out);
			return NULL;
		}
		k++;
		s += len;
	}
	return out;
}

struct uniq_ent {
	const char *s;
	size_t i;
};

static int uniq_cmp(const void *a, const void *b)
{
	const struct uniq_ent *x = a, *y = b;
	int c = strcmp(x->s, y->s);

	return c ? c : (x->i > y->i) - (x->i < y->i);
}

char **hr_strv_uniq(char *const *v)
{
	size_t n = hr_strv_len(v), k = 0;
	struct uniq_ent *e = calloc(n ? n : 1, sizeof(*e));
	bool *drop = calloc(n ? n : 1, sizeof(*drop));
	char **out = calloc(n + 1, sizeof(char *));

	if (!e || !drop || !out)
		goto fail;
	for (size_t i = 0; i < n; i++)
		e[i] = (struct uniq_ent){ v[i], i };
	qsort(e, n, sizeof(*e), uniq_cmp);
	for (size_t i = 1; i < n; i++)
		if (strcmp(e[i].s, e[i - 1].s) == 0)
			drop[e[i].i] = true;    /* a later copy of e[i - 1] */
	for (size_t i = 0; i < n; i++) {
		if (drop[i])
			continue;
		if (!(out[k++] = strdup(v[i])))
			goto fail;
	}
	free(e);
	free(drop);
	return out;
fail:
	free(e);
	free(drop);
	hr_strv_free(out);
	return NULL;
}

char *hr_strv_join(char *const *v, const char *sep)
{
	size_t len = 1, seplen = strlen(sep);
	char *out, *p;

	for (size_t i = 0; v && v[i]; i++)
		len += strlen(v[i]) + seplen;
	out = malloc(len);
	if (!out)
		return NULL;
	p = out;
	*p = '\0';
	for (size_t i = 0; v && v[i]; i++) {
		size_t l = strlen(v[i]);

		if (i) {
			memcpy(p, sep, seplen);
			p += seplen;
		}
		memcpy(p, v[i], l);
		p += l;
	}
	*p = '\0';
	return out;
}

char *hr_root_path(const char *root, const char *path)
{
	char *out;

	if (!root || !*root || strcmp(root, "/") == 0)
		return strdup(path);
	if (asprintf(&out, "%s%s%s", root, path[0] == '/' ? "" : "/", path) < 0)
		return NULL;
	return out;
}

char *hr_path_join(const char *a, const char *b)
{
	size_t la = strlen(a);
	char *out;

	while (la > 1 && a[la - 1] == '/')
		la--;
	if (asprintf(&out, "%.*s/%s", (int)la, a, b) < 0)
		return NULL;
	return out;
}

bool hr_errno_transient(int r)
{
	switch (-r) {
	case ENOMEM: case EMFILE: case ENFILE: case ENOBUFS:
	case EINTR: case EAGAIN: case EIO:
		return true;
	default:
		return false;
	}
}

bool hr_name_is_safe(const char *s)
{
	size_t n;

	if (!s || !*s || s[0] == '.' || s[0] == '-')
		return false;
	n = strlen(s);
	if (n > 64)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!isalnum(c) && c != '.' && c != '_' && c != '+' && c != ':' && c != '-')
			return false;
	}
	return strstr(s, "..") == NULL;
}

int hr_parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!s || !*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		if (v > (max - (uint64_t)(*s - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

/*
 * Like util-linux's strtosize(): digits, an optional fraction, then an
 * optional binary unit (K, M, G, T, also written KiB, ...) or B for bytes.
 * What hr_format_size() prints parses back.
 */
#define SIZE_FRAC_DIGITS_MAX 6

int hr_parse_size(const char *s, uint64_t *out)
{
	static const char units[] = "KMGT";
	char digits[32];
	const char *p, *end, *u;
	uint64_t v, frac = 0, scale = 1;
	unsigned shift = 0;
	size_t n;
	int r;

	if (!s)
		return -EINVAL;
	for (p = s; *p >= '0' && *p <= '9'; p++)
		;
	n = (size_t)(p - s);
	if (n == 0 || n >= sizeof(digits))
		return n ? -ERANGE : -EINVAL;
	memcpy(digits, s, n);
	digits[n] = '\0';
	if (*p == '.') {
		const char *f = ++p;

		for (; *p >= '0' && *p <= '9'; p++) {
			if (p - f >= SIZE_FRAC_DIGITS_MAX)
				continue; /* finer than a millionth of a unit: dropped */
			frac = frac * 10 + (uint64_t)(*p - '0');
			scale *= 10;
		}
		if (p == f)
			return -EINVAL;
	}
	end = p;
	if (*p && (u = strchr(units, toupper((unsigned char)*p)))) {
		shift = 10 * (unsigned)(u - units + 1);
		p++;
		if (p[0] == 'i' && toupper((unsigned char)p[1]) == 'B')
			p += 2;
	} else if (toupper((unsigned char)*p) == 'B') {
		p++;
	}
	if (*p)
		return -EINVAL;
	/* A fraction of a byte means nothing. */
	if (end != s + n && shift == 0)
		return -EINVAL;
	r = hr_parse_uint(digits, UINT64_MAX >> shift, &v);
	if (r < 0)
		return r == -ERANGE ? -ERANGE : -EINVAL;
	v <<= shift;
	/* frac < 10^6 < 2^20 and shift <= 40: no overflow before the divide. */
	frac = (frac << shift) / scale;
	if (v > UINT64_MAX - frac)
		return -ERANGE;
	*out = v + frac;
	return 0;
}

void hr_format_size(uint64_t bytes, char *buf, size_t n)
{
	static const char units[] = "BKMGT";
	double v = (double)bytes;
	unsigned u = 0;

	/* Up a unit where "%.1f" would round to 1024.0 of this one. */
	while (u < sizeof(units) - 2 && v >= (u == 0 ? 1024.0 : 1023.95)) {
		v /= 1024.0;
		u++;
	}
	if (u == 0)
		snprintf(buf, n, "%lluB", (unsigned long long)bytes);
	else
		snprintf(buf, n, "%.1f%c", v, units[u]);
}

int hr_read_fd(int fd, size_t max, void **data, size_t *size)
{
	struct stat st;
	char *buf;
	size_t done = 0;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if ((uint64_t)st.st_size > max)
		return -EFBIG;
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return -ENOMEM;
	while (done < (size_t)st.st_size) {
		ssize_t k = read(fd, buf + done, (size_t)st.st_size - done);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			int r = k < 0 ? -errno : -EIO; /* shrank under us */

			free(buf);
			return r;
		}
		done += (size_t)k;
	}
	buf[done] = '\0'; /* callers may treat text as a C string */
	*data = buf;
	*size = done;
	return 0;
}

int hr_read_file(const char *path, size_t max, void **data, size_t *size)
{
	int fd, r;

	/*
	 * One rule for every file read from a tier, an index, a stamp or a
	 * config: no symlink (ELOOP, reported as not a regular file), no
	 * blocking open (a FIFO would hang every caller forever), then fstat
	 * and only a regular file is read.
	 */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return errno == ELOOP ? -EINVAL : -errno;
	r = hr_read_fd(fd, max, data, size);
	close(fd);
	return r;
}

static int write_all(int fd, const void *data, size_t size)
{
	const char *p = data;

	while (size > 0) {
		ssize_t k = write(fd, p, size);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		p += k;
		size -= (size_t)k;
	}
	return 0;
}

int hr_write_atomic(const char *dir, const char *name, const void *data,
                    size_t size, mode_t mode)
{
	char *tmp = NULL, *dst = NULL;
	int fd = -1, dfd = -1, r;

	if (asprintf(&tmp, "%s/.%s.XXXXXX", dir, name) < 0 ||
	    asprintf(&dst, "%s/%s", dir, name) < 0) {
		r = -ENOMEM;
		goto out;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	r = write_all(fd, data, size);
	if (r == 0 && fchmod(fd, mode) < 0)
		r = -errno;
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	fd = -1;
	if (r == 0 && rename(tmp, dst) < 0)
		r = -errno;
	if (r < 0) {
		unlink(tmp);
		goto out;
	}
	/* The rename itself must reach the disk before we call it published. */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		(void)fsync(dfd);
		close(dfd);
	}
out:
	if (fd >= 0)
		close(fd);
	free(tmp);
	free(dst);
	return r;
}

int hr_mkdir_p(const char *path, mode_t mode)
{
	char *copy = strdup(path);
	int r = 0;

	if (!copy)
		return -ENOMEM;
	for (char *p = copy + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char saved = *p;

		*p = '\0';
		if (mkdir(copy, mode) < 0 && errno != EEXIST) {
			r = -errno;
			break;
		}
		*p = saved;
		if (saved == '\0')
			break;
	}
	if (r == 0) {
		struct stat st;

		if (stat(path, &st) < 0)
			r = -errno;
		else if (!S_ISDIR(st.st_mode))
			r = -ENOTDIR;
	}
	free(copy);
	return r;
}

const char *hr_getenv(const char *name)
{
	const char *v = secure_getenv(name);

	return v && *v ? v : NULL;
}

char *hr_strstrip(char *s)
{
	size_t n;

	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* ---- hashing (nettle) and sorting ------------------------------------- */

void hr_sha256(const void *data, size_t size, uint8_t out[32])
{
	struct sha256_ctx c;

	sha256_init(&c);
	sha256_update(&c, size, data);
	sha256_digest(&c, SHA256_DIGEST_SIZE, out);
}

void hr_hex(const uint8_t *b, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 0xf];
	}
	out[2 * n] = '\0';
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void hr_strv_sort(char **v)
{
	if (v)
		qsort(v, hr_strv_len(v), sizeof(*v), cmp_str);
}
