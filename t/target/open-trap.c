/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Test interposer (LD_PRELOAD, as kmod's testsuite/path.c does it): every
 * open of a path containing $HR_TEST_OPEN_TRAP is appended, one line, to
 * the file $HR_TEST_OPEN_TRAP_LOG, then the open goes on as asked.  Test
 * programs never redefine libc functions themselves: t/target/test-toolchain
 * re-runs itself under this object to prove that finding the compilers never
 * reads the package database (/var/lib/dpkg).
 *
 * The fork trap: while $HR_TEST_FORK_TRAP holds a process ID, a direct child
 * of that process that calls open, openat, fcntl(64), dup2, dup3, close, write,
 * setpgid, prctl, sigprocmask, sigaction, sigtimedwait, waitpid, kill or
 * execve through libc hangs there until killed - what a lock held by another
 * thread at the fork (glibc's, a sanitizer's) does.  The process runner's
 * children make raw system calls only, so a compile still runs under it
 * (t/target/test-toolchain, "spawn: the children call no libc wrapper").
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* A direct child of $HR_TEST_FORK_TRAP waits here for its SIGKILL. */
static void fork_trap(void)
{
	const char *t = getenv("HR_TEST_FORK_TRAP");
	long parent;

	if (!t || !*t)
		return;
	parent = strtol(t, NULL, 10);
	if (parent <= 0 || syscall(SYS_getppid) != parent)
		return;
	for (;;)
		syscall(SYS_pause);
}

static void on_open(const char *path)
{
	const char *on = getenv("HR_TEST_OPEN_TRAP"), *log = getenv("HR_TEST_OPEN_TRAP_LOG");
	int fd;

	fork_trap();
	if (!path || !on || !*on || !log || !strstr(path, on))
		return;
	/* The raw system call: this very function interposes open(). */
	fd = (int)syscall(SYS_openat, AT_FDCWD, log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (syscall(SYS_write, fd, path, strlen(path)) < 0 || syscall(SYS_write, fd, "\n", 1) < 0)
		perror("open-trap: write");
	syscall(SYS_close, fd);
}

#define REAL(name, type) ((type)dlsym(RTLD_NEXT, #name))
#define TRAP_FN(ret, name, params, args)                                       \
	__attribute__((visibility("default"))) ret name params                  \
	{                                                                      \
		fork_trap();                                                   \
		return REAL(name, ret(*) params) args;                         \
	}

TRAP_FN(int, dup2, (int a, int b), (a, b))
TRAP_FN(int, dup3, (int a, int b, int f), (a, b, f))
TRAP_FN(int, close, (int fd), (fd))
TRAP_FN(ssize_t, write, (int fd, const void *b, size_t n), (fd, b, n))
TRAP_FN(int, setpgid, (pid_t p, pid_t g), (p, g))
TRAP_FN(int, sigprocmask, (int h, const sigset_t *s, sigset_t *o), (h, s, o))
TRAP_FN(int, sigaction, (int n, const struct sigaction *a, struct sigaction *o), (n, a, o))
TRAP_FN(int, sigtimedwait, (const sigset_t *s, siginfo_t *i, const struct timespec *t),
        (s, i, t))
TRAP_FN(pid_t, waitpid, (pid_t p, int *st, int o), (p, st, o))
TRAP_FN(int, kill, (pid_t p, int s), (p, s))
TRAP_FN(int, execve, (const char *p, char *const a[], char *const e[]), (p, a, e))

/* fcntl's third argument, when there is one, is an int or a pointer: passed on as a pointer. */
#define TRAP_FCNTL(name)                                                       \
	__attribute__((visibility("default"))) int name(int fd, int cmd, ...)   \
	{                                                                      \
		va_list ap;                                                    \
		void *arg;                                                     \
                                                                               \
		va_start(ap, cmd);                                             \
		arg = va_arg(ap, void *);                                      \
		va_end(ap);                                                    \
		fork_trap();                                                   \
		return REAL(name, int (*)(int, int, ...))(fd, cmd, arg);       \
	}

TRAP_FCNTL(fcntl)
TRAP_FCNTL(fcntl64)

__attribute__((visibility("default"))) int prctl(int op, ...)
{
	va_list ap;
	unsigned long a[4];

	va_start(ap, op);
	for (int i = 0; i < 4; i++)
		a[i] = va_arg(ap, unsigned long);
	va_end(ap);
	fork_trap();
	return REAL(prctl, int (*)(int, ...))(op, a[0], a[1], a[2], a[3]);
}

#include "../open-interpose.h"
