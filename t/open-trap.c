/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Test interposer (LD_PRELOAD, as kmod's testsuite/path.c does it): every
 * open of a path containing $HR_TEST_OPEN_TRAP is appended, one line, to
 * the file $HR_TEST_OPEN_TRAP_LOG, then the open goes on as asked.  Test
 * programs never redefine libc functions themselves: t/test-toolchain
 * re-runs itself under this object to prove that finding the compilers never
 * reads the package database (/var/lib/dpkg).
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

static void trap(const char *path)
{
	const char *on = getenv("HR_TEST_OPEN_TRAP"), *log = getenv("HR_TEST_OPEN_TRAP_LOG");
	int fd;

	if (!path || !on || !*on || !log || !strstr(path, on))
		return;
	/* The raw system call: this very function interposes open(). */
	fd = (int)syscall(SYS_openat, AT_FDCWD, log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (write(fd, path, strlen(path)) < 0 || write(fd, "\n", 1) < 0)
		perror("open-trap: write");
	close(fd);
}

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
		trap(path);                                                    \
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
		trap(path);                                                    \
		return real(dfd, path, flags, m);                              \
	}
#define FORWARD_FOPEN(name)                                                    \
	EXPORT FILE *name(const char *path, const char *mode)                       \
	{                                                                      \
		FILE *(*real)(const char *, const char *) =                    \
			(FILE * (*)(const char *, const char *))dlsym(RTLD_NEXT, #name); \
                                                                               \
		trap(path);                                                    \
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
