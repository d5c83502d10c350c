/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Generic helpers: string vectors, paths, safe names, sizes, files (layer: shared). */
#ifndef HR_UTIL_H
#define HR_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define HR_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A parameter an interface passes that this implementation does not need. */
#define HR_UNUSED __attribute__((unused))

/* The struct of type type whose member member is at ptr (call it from a
 * function whose parameter has the member's type: that is the type check). */
#define hr_container_of(ptr, type, member)                                     \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/* NULL-terminated, heap-allocated string vectors. */
char **hr_strv_new(void);
void hr_strv_free(char **v);
size_t hr_strv_len(char *const *v);
int hr_strv_push(char ***v, const char *s);           /* copies s */
bool hr_strv_contains(char *const *v, const char *s);
char **hr_strv_copy(char *const *v);
/* Split on any of seps, dropping empty fields; NULL on ENOMEM. */
char **hr_strv_split(const char *s, const char *seps);
/* A copy without repeats, the first of each kept in order; O(n log n). */
char **hr_strv_uniq(char *const *v);
char *hr_strv_join(char *const *v, const char *sep);

/* root "" or "/" means none; the result is malloc'd. */
char *hr_root_path(const char *root, const char *path);
char *hr_path_join(const char *a, const char *b);

/*
 * A label that is safe as one path component: 1..64 chars of [A-Za-z0-9._+:-],
 * not starting with '.' or '-', no "..".  For version labels, program names
 * and directory entries; names (family, target, kernel, source) have the
 * one name grammar, hr_name_is_valid() (shared/name.h).
 */
bool hr_name_is_safe(const char *s);

/*
 * r (a negative errno) may pass by itself: out of memory, descriptors or
 * buffers, interrupted, try again, or an I/O error (a network file system).
 * Loaders cache only the other, deterministic failures (a bad plugin, bad
 * metadata); these are retried on the next call.
 */
bool hr_errno_transient(int r);

/*
 * "1G", "1.5G", "512MiB", "100K", "123", "512B" -> bytes (binary units, as
 * util-linux's strtosize); -EINVAL on junk, -ERANGE on overflow.
 */
int hr_parse_size(const char *s, uint64_t *out);
/* Human-readable, e.g. "1.5G" or "512B"; hr_parse_size() reads it back. */
void hr_format_size(uint64_t bytes, char *buf, size_t n);
/* Unsigned decimal, whole string; -EINVAL/-ERANGE. */
int hr_parse_uint(const char *s, uint64_t max, uint64_t *out);

/* hr_read_file of an open descriptor: fstat, a regular file of at most max bytes. */
int hr_read_fd(int fd, size_t max, void **data, size_t *size);
/*
 * Reads a whole regular file, failing with -EFBIG beyond max bytes and with
 * -EINVAL for a symlink, FIFO, device or directory (never blocks opening it).
 */
int hr_read_file(const char *path, size_t max, void **data, size_t *size);
/*
 * Atomic publish: temp file in dir, write, fsync, rename to name, fsync dir.
 * Readers see the old file or the complete new one, never a part.
 */
int hr_write_atomic(const char *dir, const char *name, const void *data,
                    size_t size, mode_t mode);
/* mkdir -p with mode for created components; existing dirs are fine. */
int hr_mkdir_p(const char *path, mode_t mode);

/* secure_getenv that treats "" as unset. */
const char *hr_getenv(const char *name);

/* Trim leading/trailing white space in place; returns s moved forward. */
char *hr_strstrip(char *s);

/* SHA-256 of data (nettle); lower-case hex of n bytes into out (2n+1 bytes). */
void hr_sha256(const void *data, size_t size, uint8_t out[32]);
void hr_hex(const uint8_t *b, size_t n, char *out);
/* Sort a NULL-terminated string vector in C-locale (strcmp) order. */
void hr_strv_sort(char **v);

#endif
