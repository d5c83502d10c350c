/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Test interposer (LD_PRELOAD, as kmod's testsuite does it): just before the
 * first open of a file named $HR_TEST_SWAP_ON, exchange the directories
 * $HR_TEST_SWAP_A and $HR_TEST_SWAP_B (renameat2 RENAME_EXCHANGE) - the
 * attacker's move between a check and an open, made deterministic.
 * t/cache-swap.sh runs t/test-code-object swap with it.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

#define EXPORT __attribute__((visibility("default")))

static int swapped;

static void maybe_swap(const char *path)
{
	const char *on = getenv("HR_TEST_SWAP_ON"), *a = getenv("HR_TEST_SWAP_A"),
	           *b = getenv("HR_TEST_SWAP_B"), *base;

	if (!path || !on || !a || !b || __atomic_load_n(&swapped, __ATOMIC_ACQUIRE))
		return;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (strcmp(base, on) != 0 || __atomic_exchange_n(&swapped, 1, __ATOMIC_ACQ_REL))
		return;
	if (syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) < 0)
		perror("swap-preload: renameat2");
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
		maybe_swap(path);                                              \
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
		maybe_swap(path);                                              \
		return real(dfd, path, flags, m);                              \
	}

FORWARD_OPEN(open)
FORWARD_OPEN(open64)
FORWARD_OPENAT(openat)
FORWARD_OPENAT(openat64)

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
