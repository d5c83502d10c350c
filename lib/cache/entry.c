/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The cache's entry format (layer: cache): keys, the entry file format and
 * its validation, atomic publish.  The cache object (memory tier), the
 * tiers and the lookup are cache.c; publishing after a compile
 * cache/publish.c; locks and gc cache/lock.c and cache/gc.c.
 *
 * Entry file, <dir>/<target>/<family>.hrco, all integers little-endian:
 *
 *   0   magic "HRCOBJ1\0"          8   u32 format (1)   12  u32 header size (384)
 *   16  key[32]                    48  payload SHA-256[32]
 *   80  u64 payload size           88  u64 created (unix seconds)
 *   96  family[72]                 168 target[48]       216 compiler[128]
 *   344 reserved[8] (zero)         352 header SHA-256[32] over bytes 0..351
 *   384 payload (the code object)
 *
 * Text fields are NUL-padded.  The header checksum makes any flipped header
 * bit a clean rejection; the payload checksum and the ELF check do the same
 * for the code object, before a driver ever sees it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <nettle/sha2.h>

#include "cache.h"
#include "cache-internal.h"
#include "config/config.h"
#include "platform/platform.h"
#include "shared/elf.h"
#include "context.h"
#include "shared/util.h"
#include "shared/name.h"
#include "shared/trust.h"

#define ENTRY_MAGIC "HRCOBJ1"   /* + its NUL: 8 bytes */
#define ENTRY_FORMAT 1
#define OFF_FORMAT 8
#define OFF_HSIZE 12
#define OFF_KEY 16
#define OFF_PSHA 48
#define OFF_PSIZE 80
#define OFF_CREATED 88
#define OFF_FAMILY 96
#define LEN_FAMILY 72
#define OFF_TARGET 168
#define LEN_TARGET 48
#define OFF_COMPILER 216
#define LEN_COMPILER 128
#define OFF_RESERVED 344
#define OFF_HSHA 352
#define HEADER_SIZE 384
/* Far above any real code object; bounds what a corrupt file makes us read. */
#define ENTRY_MAX ((size_t)1 << 30)

_Static_assert(OFF_COMPILER + LEN_COMPILER == OFF_RESERVED, "layout");
_Static_assert(OFF_HSHA + 32 == HEADER_SIZE, "layout");

const char *hr_tier_name(enum hr_tier t)
{
	switch (t) {
	case HR_TIER_MEMORY: return "memory";
	case HR_TIER_SYSTEM: return "system";
	case HR_TIER_SITE: return "site";
	case HR_TIER_USER: return "user";
	case HR_TIER_COMPILED: return "compiled";
	case HR_TIER_PACKAGE: return "package";
	}
	return "unknown";
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* One field: u64 length then the bytes, so ("ab","c") != ("a","bc"). */
static void key_field(struct sha256_ctx *c, const void *data, size_t len)
{
	uint8_t n[8];

	put64(n, len);
	sha256_update(c, sizeof(n), n);
	sha256_update(c, len, data);
}

static void key_str(struct sha256_ctx *c, const char *s)
{
	key_field(c, s ? s : "", s ? strlen(s) : 0);
}

/*
 * Each flag list is preceded by its count: that is the separator between
 * the plugin's and the config's flags, and no flag text can imitate it.
 */
static void key_flags(struct sha256_ctx *c, const char *const *flags)
{
	uint8_t n[8];
	size_t count = 0;

	while (flags && flags[count])
		count++;
	put64(n, count);
	sha256_update(c, sizeof(n), n);
	for (size_t i = 0; i < count; i++)
		key_str(c, flags[i]);
}

void hr_cache_key_compute(const char *family, const uint8_t source_sha256[32],
                          const char *const *plugin_flags,
                          char *const *config_flags, const char *target,
                          struct hr_cache_key *key)
{
	static const uint8_t zero[32];
	const char *const *host_flags = hr_platform_compile_flags(target);
	struct sha256_ctx c;

	/* Host code objects are built with fixed flags (GPU flags are ignored). */
	if (host_flags) {
		plugin_flags = NULL;
		config_flags = (char *const *)host_flags;
	}
	sha256_init(&c);
	key_str(&c, "hanzo-rocm-cache-v1");
	key_str(&c, family);
	key_field(&c, source_sha256 ? source_sha256 : zero, 32);
	key_flags(&c, plugin_flags);
	key_flags(&c, (const char *const *)config_flags);
	key_str(&c, target);
	sha256_digest(&c, SHA256_DIGEST_SIZE, key->b);
}

/* ---- entries ----------------------------------------------------------- */

char *hr_entry_path(const char *dir, const char *target, const char *family)
{
	char *p;

	if (!dir || !target || !family)
		return NULL;
	if (asprintf(&p, "%s/%s/%s.hrco", dir, target, family) < 0)
		return NULL;
	return p;
}

void hr_entry_release(struct hr_entry *e)
{
	if (!e)
		return;
	free(e->data);
	memset(e, 0, sizeof(*e));
}

#define WHY(...) (why && n ? (void)snprintf(why, n, __VA_ARGS__) : (void)0)

/* A NUL-terminated text field copied out; false when it fills the field. */
static bool get_field(const uint8_t *h, size_t off, size_t len, char *out,
                      size_t out_size)
{
	const uint8_t *nul = memchr(h + off, '\0', len);
	size_t l;

	if (!nul)
		return false;
	l = (size_t)(nul - (h + off));
	if (l >= out_size)
		return false;
	memcpy(out, h + off, l);
	out[l] = '\0';
	/* NUL padding all the way: no hidden bytes after the string. */
	for (const uint8_t *p = nul; p < h + off + len; p++)
		if (*p)
			return false;
	return true;
}

static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			return false;
	return true;
}

/* <...>/<target>/<family>.hrco must agree with the fields inside. */
static bool path_matches(const char *path, const char *target, const char *family)
{
	size_t len = strlen(path), fl = strlen(family), tl = strlen(target);
	const char *base;

	if (len < fl + 6 || strcmp(path + len - 5, ".hrco") != 0)
		return false;
	base = path + len - 5 - fl;
	if (strncmp(base, family, fl) != 0 || base == path || base[-1] != '/')
		return false;
	base--; /* at the '/' before <family>.hrco */
	if ((size_t)(base - path) < tl || strncmp(base - tl, target, tl) != 0)
		return false;
	return base - tl == path || base[-(long)tl - 1] == '/';
}

static int entry_parse(const char *path, const struct hr_cache_key *expect_key,
                       struct hr_entry *e, char *why, size_t n)
{
	const uint8_t *h = e->data;
	uint8_t sum[32];
	uint64_t psize;
	char elf_why[128];

	if (e->size == 0) {
		WHY("empty file");
		return -EBADMSG;
	}
	if (e->size < HEADER_SIZE) {
		WHY("truncated: %zu bytes, smaller than the %d-byte header", e->size,
		    HEADER_SIZE);
		return -EBADMSG;
	}
	if (memcmp(h, ENTRY_MAGIC, 8) != 0) {
		WHY("bad magic (not a hanzo-rocm cache entry)");
		return -EBADMSG;
	}
	if (get32(h + OFF_FORMAT) != ENTRY_FORMAT ||
	    get32(h + OFF_HSIZE) != HEADER_SIZE) {
		WHY("unsupported entry format %u (header size %u)",
		    get32(h + OFF_FORMAT), get32(h + OFF_HSIZE));
		return -EBADMSG;
	}
	hr_sha256(h, OFF_HSHA, sum);
	if (memcmp(sum, h + OFF_HSHA, 32) != 0) {
		WHY("header checksum mismatch");
		return -EBADMSG;
	}
	psize = get64(h + OFF_PSIZE);
	if (psize != e->size - HEADER_SIZE) {
		WHY("size mismatch: file has %zu payload bytes, header says %llu",
		    e->size - HEADER_SIZE, (unsigned long long)psize);
		return -EBADMSG;
	}
	if (!get_field(h, OFF_FAMILY, LEN_FAMILY, e->family, sizeof(e->family)) ||
	    !get_field(h, OFF_TARGET, LEN_TARGET, e->target, sizeof(e->target)) ||
	    !get_field(h, OFF_COMPILER, LEN_COMPILER, e->compiler, sizeof(e->compiler)) ||
	    !hr_name_stem_is_valid(e->family) || !hr_name_is_valid(e->target) ||
	    !printable(e->compiler) || get64(h + OFF_RESERVED) != 0) {
		WHY("malformed header fields");
		return -EBADMSG;
	}
	if (path && !path_matches(path, e->target, e->family)) {
		WHY("entry for %s on %s is stored under the wrong name", e->family,
		    e->target);
		return -EBADMSG;
	}
	memcpy(e->key.b, h + OFF_KEY, 32);
	e->created = get64(h + OFF_CREATED);
	e->payload = h + HEADER_SIZE;
	e->payload_size = (size_t)psize;
	hr_sha256(e->payload, e->payload_size, sum);
	if (memcmp(sum, h + OFF_PSHA, 32) != 0) {
		WHY("payload checksum mismatch");
		return -EBADMSG;
	}
	if (hr_elf_check(e->payload, e->payload_size, e->target, elf_why,
	                 sizeof(elf_why)) < 0) {
		WHY("payload rejected: %s", elf_why);
		return -ENOEXEC;
	}
	if (expect_key && memcmp(expect_key->b, e->key.b, 32) != 0) {
		WHY("stale: built from other sources or flags");
		return -ESTALE;
	}
	return 0;
}

/* The read result (of hr_read_fd/hr_read_file) made an entry, or why not. */
static int entry_finish(struct hanzo_rocm *ctx, const char *path, int r,
                        const struct hr_cache_key *expect_key, struct hr_entry *e,
                        char *why, size_t n)
{
	if (r == -EFBIG || r == -EINVAL) {
		WHY(r == -EFBIG ? "larger than any code object" : "not a regular file");
		r = -EBADMSG;
	} else if (r < 0) {
		WHY("%s", strerror(-r));
	} else {
		r = entry_parse(path, expect_key, e, why, n);
	}
	if (r < 0) {
		hr_dbg(ctx, "%s: %s\n", path, why && n ? why : strerror(-r));
		hr_entry_release(e);
	}
	return r;
}

int hr_entry_read_why(struct hanzo_rocm *ctx, const char *path,
                      const struct hr_cache_key *expect_key, struct hr_entry *e,
                      char *why, size_t n)
{
	memset(e, 0, sizeof(*e));
	if (why && n)
		why[0] = '\0';
	return entry_finish(ctx, path,
	                    hr_read_file(path, ENTRY_MAX, &e->data, &e->size),
	                    expect_key, e, why, n);
}

int hr_entry_read(struct hanzo_rocm *ctx, const char *path,
                  const struct hr_cache_key *expect_key, struct hr_entry *e)
{
	char why[256];

	return hr_entry_read_why(ctx, path, expect_key, e, why, sizeof(why));
}

static int put_field(uint8_t *h, size_t off, size_t len, const char *s)
{
	size_t l = strlen(s);

	if (l >= len)
		return -EINVAL;
	/* With the terminator: l < len, and the rest of the field stays zero. */
	memcpy(h + off, s, l + 1);
	return 0;
}

/* "PATH is WHY" into why: what was refused, named. */
static int refused(char *why, size_t n, const char *path, const char *msg)
{
	char m[PATH_MAX + 256];

	snprintf(m, sizeof(m), "%s", msg);
	snprintf(why, n, "%s is %s", path, m);
	return -EPERM;
}

/*
 * The descriptor walk: the tier directory (checked with its ancestors for
 * a shared tier), its <target> directory, the entry; each opened under the
 * one before without following a symlink, each shared one checked on its
 * own descriptor, and the entry read from the descriptor that was checked.
 */
int hr_entry_read_tier(struct hanzo_rocm *ctx, const char *dir, const char *target,
                       const char *family, bool shared,
                       const struct hr_cache_key *expect_key, struct hr_entry *e,
                       char *why, size_t n)
{
	struct hr_trust *trust = shared ? hr_ctx_trust(ctx) : NULL;
	char *tdir = NULL, *path = NULL, name[LEN_FAMILY + 8], msg[PATH_MAX + 256];
	int dfd = -1, tfd = -1, fd = -1, r;
	struct stat st;

	memset(e, 0, sizeof(*e));
	why[0] = '\0';
	if (!hr_name_is_valid(target) || !hr_name_stem_is_valid(family) ||
	    strlen(family) >= LEN_FAMILY)
		return -ENOENT;
	if (asprintf(&tdir, "%s/%s", dir, target) < 0)
		return -ENOMEM;
	path = hr_entry_path(dir, target, family);
	if (!path) {
		r = -ENOMEM;
		goto out;
	}
	snprintf(name, sizeof(name), "%s.hrco", family);
	if (shared) {
		dfd = hr_trust_open_dir(trust, dir, msg, sizeof(msg));
		if (dfd == -EPERM) {
			r = refused(why, n, dir, msg);
			goto out;
		}
	} else {
		dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0)
			dfd = -errno;
	}
	if (dfd < 0) {
		r = dfd;
		goto out;
	}
	tfd = openat(dfd, target, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (tfd < 0) {
		r = -errno;
		/* What the maintenance scan cannot see is never used. */
		if ((r == -ELOOP || r == -ENOTDIR) && fstatat(dfd, target, &st,
		                                             AT_SYMLINK_NOFOLLOW) == 0)
			r = refused(why, n, tdir, S_ISLNK(st.st_mode) ? "a symlink, not a directory" :
			            "not a directory");
		goto out;
	}
	if (shared && (fstat(tfd, &st) < 0 ||
	               *hr_trust_stat(trust, &st, HR_TRUST_SELF, tdir, msg, sizeof(msg)))) {
		r = refused(why, n, tdir, msg[0] ? msg : "not examinable");
		goto out;
	}
	fd = openat(tfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		r = errno == ELOOP ? -EINVAL : -errno;
		if (r == -ENOENT || r == -ENOTDIR || r == -ENOMEM)
			goto out;
		r = entry_finish(ctx, path, r, expect_key, e, why, n);
		goto out;
	}
	if (shared && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    *hr_trust_stat(trust, &st, HR_TRUST_SELF, path, msg, sizeof(msg))) {
		r = refused(why, n, path, msg);
		goto out;
	}
	r = entry_finish(ctx, path, hr_read_fd(fd, ENTRY_MAX, &e->data, &e->size),
	                 expect_key, e, why, n);
out:
	if (fd >= 0)
		close(fd);
	if (tfd >= 0)
		close(tfd);
	if (dfd >= 0)
		close(dfd);
	free(tdir);
	free(path);
	return r;
}

/*
 * Create <dir>/<target>.  A tier directory made here is private (0700):
 * whoever wants a shared one (precompile --system) creates it first.  The
 * target directory and the entry follow the tier directory's permissions.
 */
int hr_cache_target_dir(const char *dir, const char *tdir, mode_t *file_mode)
{
	struct stat st;
	int r;

	if (stat(dir, &st) < 0) {
		r = hr_mkdir_p(dir, 0700);
		if (r < 0)
			return r;
		if (stat(dir, &st) < 0)
			return -errno;
	}
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	r = hr_mkdir_p(tdir, st.st_mode & 0755);
	if (r < 0)
		return r;
	/* Never write (entries, locks) through a symlinked target directory. */
	if (lstat(tdir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return S_ISLNK(st.st_mode) ? -ELOOP : -ENOTDIR;
	*file_mode = (st.st_mode & 0044) ? 0644 : 0600;
	return 0;
}

int hr_entry_write(struct hanzo_rocm *ctx, const char *dir, const char *family,
                   const char *target, const struct hr_cache_key *key,
                   const char *compiler, const void *payload, size_t size)
{
	char name[LEN_FAMILY + 8], *tdir = NULL, why[128];
	mode_t mode = 0600;
	uint8_t *buf;
	int r;

	if (!dir || !family || !target || !key || !payload ||
	    !hr_name_stem_is_valid(family) || !hr_name_is_valid(target) ||
	    size > ENTRY_MAX - HEADER_SIZE)
		return -EINVAL;
	if (!compiler)
		compiler = "";
	if (!printable(compiler) || strlen(compiler) >= LEN_COMPILER)
		return -EINVAL;
	/* Never publish what a reader would refuse. */
	if (hr_elf_check(payload, size, target, why, sizeof(why)) < 0) {
		hr_err(ctx, "not caching %s for %s: %s\n", family, target, why);
		return -ENOEXEC;
	}
	buf = calloc(1, HEADER_SIZE + size);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, ENTRY_MAGIC, 8);
	put32(buf + OFF_FORMAT, ENTRY_FORMAT);
	put32(buf + OFF_HSIZE, HEADER_SIZE);
	memcpy(buf + OFF_KEY, key->b, 32);
	hr_sha256(payload, size, buf + OFF_PSHA);
	put64(buf + OFF_PSIZE, size);
	put64(buf + OFF_CREATED, (uint64_t)time(NULL));
	if (put_field(buf, OFF_FAMILY, LEN_FAMILY, family) < 0 ||
	    put_field(buf, OFF_TARGET, LEN_TARGET, target) < 0 ||
	    put_field(buf, OFF_COMPILER, LEN_COMPILER, compiler) < 0) {
		r = -EINVAL;
		goto out;
	}
	hr_sha256(buf, OFF_HSHA, buf + OFF_HSHA);
	memcpy(buf + HEADER_SIZE, payload, size);

	if (asprintf(&tdir, "%s/%s", dir, target) < 0) {
		tdir = NULL;
		r = -ENOMEM;
		goto out;
	}
	r = hr_cache_target_dir(dir, tdir, &mode);
	if (r < 0)
		goto out;
	snprintf(name, sizeof(name), "%s.hrco", family);
	r = hr_write_atomic(tdir, name, buf, HEADER_SIZE + size, mode);
	if (r == 0)
		hr_dbg(ctx, "published %s/%s\n", tdir, name);
out:
	free(tdir);
	free(buf);
	return r;
}
