/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The open() interposition shared by the test preload objects (kmod's
 * testsuite keeps its traps in separate LD_PRELOAD objects the same way):
 * open, open64, openat, openat64, fopen, fopen64 and _FORTIFY_SOURCE's
 * checked forms call the including file's
 *     static void on_open(const char *path);
 * first, then the real function with the caller's arguments.  Include it
 * once, after on_open's definition, in a -module object (t/target/open-trap.c,
 * t/cache/swap-preload.c).
 */
#ifndef HR_OPEN_INTERPOSE_H
#define HR_OPEN_INTERPOSE_H

#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>

#define EXPORT __attribute__((visibility("default")))

static mode_t mode_arg(int flags, va_list ap)
{
	return (flags & (O_CREAT | O_TMPFILE)) ? (mode_t)va_arg(ap, int) : 0;
}

#define FORWARD_OPEN(name)                                                     \
	EXPORT int name(const char *path, int flags, ...)                           \
	{                                                                      \
		int (*real)(const char *, int, ...) =                          \
			(int (*)(const char *, int, ...))dlsym(RTLD_NEXT, #name); \
		va_list ap;                                                    \
		mode_t m;                                                      \
                                                                               \
		va_start(ap, flags);                                           \
		m = mode_arg(flags, ap);                                       \
		va_end(ap);                                                    \
		on_open(path);                                                 \
		return real(path, flags, m);                                   \
	}
#define FORWARD_OPENAT(name)                                                   \
	EXPORT int name(int dfd, const char *path, int flags, ...)                  \
	{                                                                      \
		int (*real)(int, const char *, int, ...) =                     \
			(int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, #name); \
		va_list ap;                                                    \
		mode_t m;                                                      \
                                                                               \
		va_start(ap, flags);                                           \
		m = mode_arg(flags, ap);                                       \
		va_end(ap);                                                    \
		on_open(path);                                                 \
		return real(dfd, path, flags, m);                              \
	}
#define FORWARD_FOPEN(name)                                                    \
	EXPORT FILE *name(const char *path, const char *mode)                       \
	{                                                                      \
		FILE *(*real)(const char *, const char *) =                    \
			(FILE * (*)(const char *, const char *))dlsym(RTLD_NEXT, #name); \
                                                                               \
		on_open(path);                                                 \
		return real(path, mode);                                       \
	}

FORWARD_OPEN(open)
FORWARD_OPEN(open64)
FORWARD_OPENAT(openat)
FORWARD_OPENAT(openat64)
FORWARD_FOPEN(fopen)
FORWARD_FOPEN(fopen64)

/* _FORTIFY_SOURCE's checked forms. */
int __open_2(const char *path, int flags);
EXPORT int __open_2(const char *path, int flags)
{
	return open(path, flags);
}

int __open64_2(const char *path, int flags);
EXPORT int __open64_2(const char *path, int flags)
{
	return open64(path, flags);
}

int __openat_2(int dfd, const char *path, int flags);
EXPORT int __openat_2(int dfd, const char *path, int flags)
{
	return openat(dfd, path, flags);
}

int __openat64_2(int dfd, const char *path, int flags);
EXPORT int __openat64_2(int dfd, const char *path, int flags)
{
	return openat64(dfd, path, flags);
}

#endif
