/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The code-object cache: keys, the entry file format and its validation,
 * atomic publish, locks, the on-disk tiers and the in-process memory tier.
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
#include "conf.h"
#include "elf.h"
#include "host.h"
#include "libhanzo-rocm-private.h"
#include "util.h"

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

/* ---- hashing ----------------------------------------------------------- */

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
	const char *const *host_flags = hr_host_compile_flags(target);
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
	    !hr_name_is_safe(e->family) || !hr_name_is_safe(e->target) ||
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

int hr_entry_read_why(struct hanzo_rocm *ctx, const char *path,
                      const struct hr_cache_key *expect_key, struct hr_entry *e,
                      char *why, size_t n)
{
	int r;

	memset(e, 0, sizeof(*e));
	if (why && n)
		why[0] = '\0';
	r = hr_read_file(path, ENTRY_MAX, &e->data, &e->size);
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

/*
 * Create <dir>/<target>.  A tier directory made here is private (0700):
 * whoever wants a shared one (precompile --system) creates it first.  The
 * target directory and the entry follow the tier directory's permissions.
 */
static int make_target_dir(const char *dir, const char *tdir, mode_t *file_mode)
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
	    !hr_name_is_safe(family) || !hr_name_is_safe(target) ||
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
	r = make_target_dir(dir, tdir, &mode);
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

/* ---- locks ------------------------------------------------------------- */

int hr_entry_lock(const char *dir, const char *target, const char *family,
                  unsigned timeout_s, int *fd)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct timespec nap = { 0, 50 * 1000 * 1000 };
	char *tdir = NULL, *path = NULL;
	mode_t mode;
	time_t deadline = time(NULL) + (time_t)timeout_s;
	int r, f = -1;

	*fd = -1;
	if (!dir || !hr_name_is_safe(target) || !hr_name_is_safe(family))
		return -EINVAL;
	if (asprintf(&tdir, "%s/%s", dir, target) < 0)
		return -ENOMEM;
	r = make_target_dir(dir, tdir, &mode);
	if (r < 0)
		goto out;
	if (asprintf(&path, "%s/.%s.lock", tdir, family) < 0) {
		path = NULL;
		r = -ENOMEM;
		goto out;
	}
	f = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
	if (f < 0) {
		r = -errno;
		goto out;
	}
	/* fcntl locks work on NFS and die with their process: no stale owner. */
	for (;;) {
		if (fcntl(f, F_SETLK, &fl) == 0) {
			/* Touch it so gc can tell a live lock file from a stale one. */
			(void)futimens(f, NULL);
			*fd = f;
			f = -1;
			r = 0;
			break;
		}
		if (errno != EAGAIN && errno != EACCES && errno != EINTR) {
			r = -errno;
			break;
		}
		if (time(NULL) >= deadline) {
			r = -ETIMEDOUT;
			break;
		}
		nanosleep(&nap, NULL);
	}
out:
	if (f >= 0)
		close(f);
	free(path);
	free(tdir);
	return r;
}

void hr_entry_unlock(int fd)
{
	/* The file stays: unlinking it would race with a waiter's open. */
	if (fd >= 0)
		close(fd);
}

/* ---- walking a tier --------------------------------------------------- */

static bool has_suffix(const char *s, const char *suffix)
{
	size_t l = strlen(s), k = strlen(suffix);

	return l >= k && strcmp(s + l - k, suffix) == 0;
}

static bool classify(const char *name, enum hr_cache_file *kind)
{
	if (name[0] == '.') {
		if (has_suffix(name, ".lock"))
			*kind = HR_CACHE_LOCK;
		else if (strstr(name, ".hrco."))
			*kind = HR_CACHE_TEMP;
		else
			return false;
		return true;
	}
	if (has_suffix(name, ".hrco"))
		*kind = HR_CACHE_ENTRY;
	else if (strstr(name, ".hrco.bad-"))
		*kind = HR_CACHE_QUARANTINE;
	else
		return false;
	return true;
}

static int scan_target(int tfd, const char *dir, const char *target,
                       hr_cache_scan_fn fn, void *data)
{
	DIR *d = fdopendir(tfd);
	struct dirent *de;
	int r = 0;

	if (!d) {
		close(tfd);
		return -errno;
	}
	while (r >= 0 && (de = readdir(d))) {
		enum hr_cache_file kind;
		struct stat st;
		char *path;

		if (!classify(de->d_name, &kind) ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (asprintf(&path, "%s/%s/%s", dir, target, de->d_name) < 0)
			return closedir(d), -ENOMEM;
		r = fn(data, path, target, de->d_name, kind, &st);
		free(path);
	}
	closedir(d);
	return r;
}

int hr_cache_scan(const char *dir, const char *target, hr_cache_scan_fn fn,
                  void *data)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), r = 0;
	struct dirent *de;
	DIR *d;

	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while (r >= 0 && (de = readdir(d))) {
		int tfd;

		if (!hr_name_is_safe(de->d_name) ||
		    (target && strcmp(target, de->d_name) != 0))
			continue;
		tfd = openat(dirfd(d), de->d_name,
		             O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (tfd < 0)
			continue; /* not a directory, or a symlink */
		r = scan_target(tfd, dir, de->d_name, fn, data);
	}
	closedir(d);
	return r;
}

/* ---- size bound ------------------------------------------------------- */

/* Temp and lock files untouched this long belong to a dead process. */
#define STALE_SECONDS 3600

struct gc_file {
	char *path;
	uint64_t size;
	time_t used;
};

struct gc_state {
	time_t now;
	const char *keep;
	struct gc_file *files;
	size_t n, alloc;
	struct hr_gc_stats *st;
};

/* A lock file nobody holds (fcntl locks die with their owner) is debris. */
static bool lock_is_free(const char *path)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	bool free_ = false;

	if (fd >= 0) {
		free_ = fcntl(fd, F_SETLK, &fl) == 0;
		close(fd);
	}
	return free_;
}

static int gc_one(void *data, const char *path, const char *target,
                  const char *name, enum hr_cache_file kind,
                  const struct stat *st)
{
	struct gc_state *s = data;
	struct gc_file *f;

	(void)target;
	(void)name;
	if (kind != HR_CACHE_ENTRY) {
		bool stale = s->now - st->st_mtime > STALE_SECONDS;

		if ((kind == HR_CACHE_QUARANTINE ||
		     (stale && (kind != HR_CACHE_LOCK || lock_is_free(path)))) &&
		    unlink(path) == 0)
			s->st->debris++;
		return 0;
	}
	s->st->total += (uint64_t)st->st_size;
	if (s->keep && strcmp(s->keep, path) == 0)
		return 0;
	if (s->n == s->alloc) {
		size_t na = s->alloc ? 2 * s->alloc : 64;

		f = realloc(s->files, na * sizeof(*f));
		if (!f)
			return -ENOMEM;
		s->files = f;
		s->alloc = na;
	}
	f = &s->files[s->n];
	f->path = strdup(path);
	if (!f->path)
		return -ENOMEM;
	f->size = (uint64_t)st->st_size;
	/* A read refreshes atime (relatime: about daily), a write mtime. */
	f->used = st->st_atime > st->st_mtime ? st->st_atime : st->st_mtime;
	s->n++;
	return 0;
}

static int by_use(const void *a, const void *b)
{
	const struct gc_file *x = a, *y = b;

	if (x->used != y->used)
		return x->used < y->used ? -1 : 1;
	return strcmp(x->path, y->path);
}

int hr_cache_gc(struct hanzo_rocm *ctx, const char *dir, uint64_t max_size,
                const char *keep, struct hr_gc_stats *st)
{
	struct gc_state s = { .now = time(NULL), .keep = keep, .st = st };
	int r;

	memset(st, 0, sizeof(*st));
	r = hr_cache_scan(dir, NULL, gc_one, &s);
	/* An empty cache leaves s.files NULL, which qsort must not get. */
	if (r == 0 && s.n > 0)
		qsort(s.files, s.n, sizeof(*s.files), by_use);
	for (size_t i = 0; r == 0 && i < s.n && st->total > max_size; i++) {
		if (unlink(s.files[i].path) < 0) {
			if (errno == ENOENT)
				continue; /* someone else's gc got there first */
			r = -errno;
			hr_err(ctx, "cannot remove %s: %s\n", s.files[i].path, strerror(errno));
			break;
		}
		hr_dbg(ctx, "evicted %s\n", s.files[i].path);
		st->total -= s.files[i].size;
		st->freed += s.files[i].size;
		st->evicted++;
	}
	for (size_t i = 0; i < s.n; i++)
		free(s.files[i].path);
	free(s.files);
	return r;
}

/* ---- the memory tier --------------------------------------------------- */

struct mem_entry {
	struct mem_entry *next;
	uint64_t hash;
	enum hr_tier from;
	void *data;
	size_t size;
	char *family;
	char *target;
};

struct hr_cache {
	pthread_mutex_t lock;
	pthread_mutex_t compile_lock; /* one compile at a time in this process */
	struct mem_entry **buckets;
	size_t n_buckets, n_entries;
	void **retired;       /* replaced bytes: callers may still hold them */
	size_t n_retired;
	char **warned;        /* messages already logged once */
};

void hr_cache_free(struct hr_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n_buckets; i++) {
		struct mem_entry *m = c->buckets[i], *next;

		for (; m; m = next) {
			next = m->next;
			free(m->data);
			free(m->family);
			free(m->target);
			free(m);
		}
	}
	for (size_t i = 0; i < c->n_retired; i++)
		free(c->retired[i]);
	free(c->retired);
	free(c->buckets);
	hr_strv_free(c->warned);
	pthread_mutex_destroy(&c->compile_lock);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

struct hr_cache *hr_cache_get(struct hanzo_rocm *ctx)
{
	struct hr_cache *c = __atomic_load_n(&ctx->cache, __ATOMIC_ACQUIRE);

	if (c)
		return c;
	pthread_mutex_lock(&ctx->lock);
	c = ctx->cache;
	if (!c) {
		c = calloc(1, sizeof(*c));
		if (c) {
			c->n_buckets = 64;
			c->buckets = calloc(c->n_buckets, sizeof(*c->buckets)); // NOLINT(bugprone-sizeof-expression): an array of pointers
			if (!c->buckets) {
				free(c);
				c = NULL;
			} else {
				pthread_mutex_init(&c->lock, NULL);
				pthread_mutex_init(&c->compile_lock, NULL);
				__atomic_store_n(&ctx->cache, c, __ATOMIC_RELEASE);
			}
		}
	}
	pthread_mutex_unlock(&ctx->lock);
	return c;
}

/* FNV-1a over "family\0target". */
static uint64_t mem_hash(const char *family, const char *target)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (const char *p = family; *p; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
	h *= 0x100000001b3ull;
	for (const char *p = target; *p; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
	return h;
}

static struct mem_entry *mem_find(struct hr_cache *c, uint64_t h,
                                  const char *family, const char *target)
{
	for (struct mem_entry *m = c->buckets[h % c->n_buckets]; m; m = m->next)
		if (m->hash == h && strcmp(m->family, family) == 0 &&
		    strcmp(m->target, target) == 0)
			return m;
	return NULL;
}

int hr_memory_lookup(struct hr_cache *c, const char *family, const char *target,
                     unsigned skip_mask, const void **data, size_t *size,
                     enum hr_tier *from)
{
	uint64_t h = mem_hash(family, target);
	struct mem_entry *m;
	int r = -ENOENT;

	if (skip_mask & (1u << HR_TIER_MEMORY))
		return -ENOENT;
	pthread_mutex_lock(&c->lock);
	m = mem_find(c, h, family, target);
	if (m && !(skip_mask & (1u << m->from))) {
		*data = m->data;
		*size = m->size;
		if (from)
			*from = m->from;
		r = 0;
	}
	pthread_mutex_unlock(&c->lock);
	return r;
}

static void mem_grow(struct hr_cache *c)
{
	size_t n = c->n_buckets * 2;
	struct mem_entry **b = calloc(n, sizeof(*b)); // NOLINT(bugprone-sizeof-expression): an array of pointers

	if (!b)
		return; /* longer chains, still correct */
	for (size_t i = 0; i < c->n_buckets; i++) {
		struct mem_entry *m = c->buckets[i], *next;

		for (; m; m = next) {
			next = m->next;
			m->next = b[m->hash % n];
			b[m->hash % n] = m;
		}
	}
	free(c->buckets);
	c->buckets = b;
	c->n_buckets = n;
}

int hr_memory_insert(struct hr_cache *c, const char *family, const char *target,
                     void *data, size_t size, enum hr_tier from,
                     unsigned skip_mask, const void **out, size_t *out_size)
{
	uint64_t h = mem_hash(family, target);
	struct mem_entry *m;
	int r = 0;

	pthread_mutex_lock(&c->lock);
	m = mem_find(c, h, family, target);
	if (m && !(skip_mask & (1u << m->from))) {
		/* Another thread got there first: use its copy. */
		free(data);
	} else if (m) {
		void **v = realloc(c->retired, (c->n_retired + 1) * sizeof(*v));

		if (!v) {
			/* cppcheck-suppress doubleFree ; not reached after the branch above */
			free(data);
			r = -ENOMEM;
			goto out;
		}
		c->retired = v;
		c->retired[c->n_retired++] = m->data;
		m->data = data;
		m->size = size;
		m->from = from;
	} else {
		m = calloc(1, sizeof(*m));
		if (m) {
			m->family = strdup(family);
			m->target = strdup(target);
		}
		if (!m || !m->family || !m->target) {
			if (m) {
				free(m->family);
				free(m->target);
			}
			free(m);
			free(data);
			r = -ENOMEM;
			goto out;
		}
		m->hash = h;
		m->data = data;
		m->size = size;
		m->from = from;
		if (c->n_entries >= c->n_buckets)
			mem_grow(c);
		m->next = c->buckets[h % c->n_buckets];
		c->buckets[h % c->n_buckets] = m;
		c->n_entries++;
	}
	*out = m->data;
	*out_size = m->size;
out:
	pthread_mutex_unlock(&c->lock);
	return r;
}

void hr_cache_compile_lock(struct hr_cache *c)
{
	pthread_mutex_lock(&c->compile_lock);
}

void hr_cache_compile_unlock(struct hr_cache *c)
{
	pthread_mutex_unlock(&c->compile_lock);
}

bool hr_cache_warn_once(struct hr_cache *c, const char *what)
{
	bool first;

	if (!c)
		return true;
	pthread_mutex_lock(&c->lock);
	first = !hr_strv_contains(c->warned, what);
	if (first && hr_strv_push(&c->warned, what) < 0)
		first = true; /* no memory to remember: warning again is fine */
	pthread_mutex_unlock(&c->lock);
	return first;
}

/* ---- tiers ------------------------------------------------------------- */

/* Writable now, or creatable: the nearest existing ancestor is writable. */
static bool dir_writable(const char *path)
{
	char *p = strdup(path), *slash;
	bool ok = false;

	if (!p)
		return false;
	for (;;) {
		struct stat st;

		if (stat(p, &st) == 0) {
			ok = S_ISDIR(st.st_mode) && access(p, W_OK | X_OK) == 0;
			break;
		}
		if (errno != ENOENT)
			break;
		slash = strrchr(p, '/');
		if (!slash)
			break;
		if (slash == p) {
			p[1] = '\0';
		} else {
			*slash = '\0';
		}
	}
	free(p);
	return ok;
}

static HR_PRINTF(2, 3) void warn_once(struct hanzo_rocm *ctx, const char *fmt, ...)
{
	char msg[PATH_MAX + 256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (hr_cache_warn_once(hr_cache_get(ctx), msg))
		hr_warn(ctx, "%s\n", msg);
}

/*
 * The user tier, if usable: policy allows it, it is ours and private (a
 * directory someone else can write could feed us code objects), and its
 * home exists (no cache trees grown at "/nonexistent" for system users).
 */
static int user_tier(struct hanzo_rocm *ctx, const struct hr_config *cfg,
                     struct hr_tier_dir *t)
{
	const char *home = hr_getenv("HOME");
	struct stat st;
	size_t hl;

	if (cfg->policy == HR_POLICY_OFF)
		return 0;
	if (!cfg->user_dir) {
		warn_once(ctx, "%s", "no user cache directory (HOME is not set): caching disabled");
		return 0;
	}
	hl = home ? strlen(home) : 0;
	if (hl > 1 && strncmp(cfg->user_dir, home, hl) == 0 &&
	    cfg->user_dir[hl] == '/' && stat(home, &st) < 0) {
		warn_once(ctx, "home directory %s does not exist: user cache disabled", home);
		return 0;
	}
	if (stat(cfg->user_dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
		    (st.st_mode & 022)) {
			warn_once(ctx, "user cache %s is not a private directory owned by "
			          "this user (or is group/world-writable): caching disabled",
			          cfg->user_dir);
			return 0;
		}
	}
	t->tier = HR_TIER_USER;
	t->path = strdup(cfg->user_dir);
	if (!t->path)
		return -ENOMEM;
	t->writable = cfg->policy == HR_POLICY_READWRITE && dir_writable(cfg->user_dir);
	return 1;
}

static int push_tier(struct hr_tier_dir **v, size_t *n, enum hr_tier tier,
                     const char *path, bool writable)
{
	struct hr_tier_dir *nv;

	/* The same directory twice (site = system, say) is searched once. */
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*v)[i].path, path) == 0)
			return 0;
	nv = realloc(*v, (*n + 1) * sizeof(**v));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n].tier = tier;
	nv[*n].writable = writable;
	nv[*n].path = strdup(path);
	if (!nv[*n].path)
		return -ENOMEM;
	(*n)++;
	return 0;
}

void hr_cache_tiers_free(struct hr_tier_dir *tiers, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(tiers[i].path);
	free(tiers);
}

int hr_cache_tiers(struct hanzo_rocm *ctx, struct hr_tier_dir **tiers, size_t *n)
{
	const struct hr_config *cfg = ctx ? ctx->config : NULL;
	struct hr_tier_dir *v = NULL, user = { 0 };
	size_t k = 0;
	char *pkg = NULL;
	int r = 0;

	*tiers = NULL;
	*n = 0;
	if (!cfg)
		return 0;
	if (cfg->system_dir && *cfg->system_dir)
		r = push_tier(&v, &k, HR_TIER_SYSTEM, cfg->system_dir,
		              dir_writable(cfg->system_dir));
	for (size_t i = 0; r == 0 && cfg->site_dirs && cfg->site_dirs[i]; i++)
		r = push_tier(&v, &k, HR_TIER_SITE, cfg->site_dirs[i], false);
	if (r == 0) {
		pkg = hr_root_path(cfg->root, HR_PLUGINCACHEDIR);
		r = pkg ? push_tier(&v, &k, HR_TIER_PACKAGE, pkg, false) : -ENOMEM;
		free(pkg);
	}
	if (r == 0) {
		r = user_tier(ctx, cfg, &user);
		if (r > 0) {
			r = push_tier(&v, &k, HR_TIER_USER, user.path, user.writable);
			free(user.path);
		}
	}
	if (r < 0) {
		hr_cache_tiers_free(v, k);
		return r;
	}
	*tiers = v;
	*n = k;
	return 0;
}
