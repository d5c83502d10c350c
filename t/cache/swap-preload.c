/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Test interposer (LD_PRELOAD, as kmod's testsuite does it): just before the
 * first open of a file named $HR_TEST_SWAP_ON, exchange the directories
 * $HR_TEST_SWAP_A and $HR_TEST_SWAP_B (renameat2 RENAME_EXCHANGE) - the
 * attacker's move between a check and an open, made deterministic.
 * t/cache/swap.sh runs t/cache/test-code-object swap with it.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

static int swapped;

static void on_open(const char *path)
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

#include "../open-interpose.h"
