/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Test interposer (LD_PRELOAD, as kmod's testsuite/path.c does it): every
 * open of a path containing $HR_TEST_OPEN_TRAP is appended, one line, to
 * the file $HR_TEST_OPEN_TRAP_LOG, then the open goes on as asked.  Test
 * programs never redefine libc functions themselves: t/test-toolchain
 * re-runs itself under this object to prove that finding the compilers never
 * reads the package database (/var/lib/dpkg).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void on_open(const char *path)
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

#include "open-interpose.h"
