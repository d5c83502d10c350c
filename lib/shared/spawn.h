/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Running a program: fork and exec of an argv (never a shell), stdin from
 * /dev/null, stdout and stderr captured to memory up to a cap, and a timeout
 * after which the child's whole process group is killed (compilers fork
 * helpers: hipcc runs clang, clang runs lld).  The group also dies when the
 * calling thread's process dies, even of SIGKILL (shared/spawn.c: the reaper).
 * Layer: shared (lib/layers).
 */
#ifndef HR_SPAWN_H
#define HR_SPAWN_H

#include <signal.h>

#include <stdbool.h>
#include <stddef.h>

struct hr_spawn {
	/* in */
	char *const *argv;      /* argv[0] is an absolute path (no PATH search) */
	char *const *envp;      /* NULL = the caller's environment */
	unsigned timeout_ms;    /* 0 = none */
	size_t max_output;      /* per stream; 0 = 1 MiB.  The rest is read and dropped. */
	const volatile sig_atomic_t *cancel; /* non-zero: kill the group, -ECANCELED */

	/* out (valid after hr_spawn_run returned 0, -ETIMEDOUT or -ECANCELED) */
	int exit_status;        /* 0..255, or 128 + signal number */
	bool timed_out;
	char *out, *err;        /* NUL-terminated, never NULL after a run */
	size_t out_len, err_len;
	bool out_truncated, err_truncated;
};

/*
 * 0 when the child ran and exited (whatever its status); -ETIMEDOUT when it
 * was killed at the timeout (outputs hold what it wrote until then);
 * -ECANCELED when *cancel became non-zero (the group was killed); other
 * negative errno when it could not be started (-ENOENT, -EACCES, …).
 */
int hr_spawn_run(struct hr_spawn *s);
/* Frees the captured outputs (keeps the inputs). */
void hr_spawn_release(struct hr_spawn *s);

#endif
