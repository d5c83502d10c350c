/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A process runner for the compilers: fork and exec (no shell), output
 * captured through pipes with poll, a deadline after which the process group
 * dies, and a reaper that kills the group when the caller dies (see below).
 * Layer: shared (lib/layers).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "spawn.h"

extern char **environ;

#define DEFAULT_MAX_OUTPUT (1u << 20)

struct capture {
	int fd;             /* read end, -1 once at EOF */
	char *buf;
	size_t len, max;
	bool truncated;
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int capture_init(struct capture *c, size_t max)
{
	c->fd = -1;
	c->len = 0;
	c->max = max;
	c->truncated = false;
	c->buf = malloc(1);
	if (!c->buf)
		return -ENOMEM;
	c->buf[0] = '\0';
	return 0;
}

/* Reads what is there; past the cap the bytes are dropped so the child never blocks. */
static int capture_read(struct capture *c)
{
	char chunk[65536];
	ssize_t k = read(c->fd, chunk, sizeof(chunk));
	size_t keep;

	if (k < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -errno;
	if (k == 0) {
		close(c->fd);
		c->fd = -1;
		return 0;
	}
	keep = (size_t)k;
	if (c->len + keep > c->max) {
		keep = c->max - c->len;
		c->truncated = true;
	}
	if (keep > 0) {
		char *n = realloc(c->buf, c->len + keep + 1);

		if (!n)
			return -ENOMEM;
		memcpy(n + c->len, chunk, keep);
		c->len += keep;
		n[c->len] = '\0';
		c->buf = n;
	}
	return 0;
}

static void capture_close(struct capture *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

/*
 * Why a reaper.  A compiler must not outlive its caller, even one killed
 * with SIGKILL (no handler runs).  PR_SET_PDEATHSIG reaches only the direct
 * child and is cleared across fork, so hipcc would die and the clang it runs
 * would not.  The direct child is therefore a reaper: a fork of the caller
 * that never execs and makes only async-signal-safe calls.  It leads the
 * compiler's process group, gets SIGTERM when its parent thread dies
 * (PR_SET_PDEATHSIG, re-checked with getppid), and then kills the whole
 * group; when the compiler exits it exits with the same status.  It is
 * forked only to run a compiler (a cache miss), never on a lookup.
 */

/*
 * The reaper and the compiler before its exec make raw system calls only
 * (sys_* below), never a libc wrapper.  They are forks of a threaded caller,
 * and whatever runs in them may meet a lock another thread held at the fork:
 * glibc's sigaction() takes one (2.41: the abort lock, for SIGABRT; the
 * reaper then waited on it forever, seen with precompile -j2 in a Debian 13
 * root), and so does anything that interposes on libc - a sanitizer's
 * interceptors, an LD_PRELOAD-ed library.  Under ThreadSanitizer the reaper
 * spun before its exec (sched_yield, forever: a lock's back-off; its libc
 * calls all pass libtsan's interceptors, and the stack was not caught; about
 * one run of t/tsan/test-stress in 20) while the caller waited for the exec with
 * no deadline (make check-tsan hung CI for an hour, 2026-11-25).  Everything
 * the children need (signal sets, the environment) is made before the fork.
 * SIG_DFL, no flags and an empty mask is an all-zero kernel struct sigaction
 * on every architecture.
 */
#define KSIGSET_SIZE ((size_t)(NSIG - 1) / 8)

struct child_plan {
	const struct hr_spawn *s;
	char *const *envp;
	pid_t parent;
	int out_w, err_w, errpipe;
	sigset_t all, none, wait_for;
};

static long sys_dup_to(int fd, int to)
{
	return fd == to ? to : syscall(SYS_dup3, fd, to, 0);
}

/* exit_group itself, as _exit is, but past any interceptor (see above). */
static noreturn void raw_exit(int code)
{
	for (;;)
		syscall(SYS_exit_group, code);
}

static noreturn void child_fail(int fd, int err)
{
	long k = syscall(SYS_write, fd, &err, sizeof(err));

	(void)k;
	raw_exit(127);
}

/* Everything of the caller's the reaper must not run: its handlers, its signals. */
static void reset_signals(const struct child_plan *c)
{
	unsigned long dfl[8] = { 0 };     /* larger than any kernel struct sigaction */

	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &c->all, NULL, KSIGSET_SIZE);
	for (int i = 1; i < NSIG; i++)
		if (i != SIGKILL && i != SIGSTOP && (i < 32 || i >= SIGRTMIN))
			syscall(SYS_rt_sigaction, i, dfl, NULL, KSIGSET_SIZE);
}

/*
 * Only stdin, stdout, stderr and the exec-error pipe (fd 3, close-on-exec)
 * stay open.  The fds are first moved above 3: a caller with stdio closed
 * may have got its pipes as 0, 1 or 2.
 */
static int child_fds(const struct child_plan *c)
{
	long out = syscall(SYS_fcntl, c->out_w, F_DUPFD_CLOEXEC, 4);
	long err = syscall(SYS_fcntl, c->err_w, F_DUPFD_CLOEXEC, 4);
	long ep = syscall(SYS_fcntl, c->errpipe, F_DUPFD_CLOEXEC, 4);
	long null = syscall(SYS_openat, AT_FDCWD, "/dev/null", O_RDONLY | O_CLOEXEC);

	if (out < 0 || err < 0 || ep < 0 || null < 0 || sys_dup_to((int)null, 0) < 0 ||
	    sys_dup_to((int)out, 1) < 0 || sys_dup_to((int)err, 2) < 0 ||
	    sys_dup_to((int)ep, 3) < 0 ||
	    syscall(SYS_fcntl, 3, F_SETFD, FD_CLOEXEC) < 0)   /* its EOF tells the exec */
		return -errno;
	if (syscall(SYS_close_range, 4u, ~0u, 0u) < 0)
		for (int fd = 4; fd < 65536; fd++)
			syscall(SYS_close, fd);
	return 0;
}

/*
 * A bare fork, as the kernel has it (glibc's _Fork may itself be
 * interposed): fork where the architecture has it (s390x's clone takes the
 * stack first), else clone with only SIGCHLD (the generic table: arm64,
 * riscv64, loong64 have no fork; clone's flags come first there).
 */
static long sys_fork(void)
{
#ifdef SYS_fork
	return syscall(SYS_fork);
#else
	return syscall(SYS_clone, (unsigned long)SIGCHLD, 0ul, 0ul, 0ul, 0ul);
#endif
}

/*
 * The compiler, forked by the reaper (single-threaded, sys_fork); its signal
 * mask back to empty, then exec.
 */
static pid_t start_compiler(const struct child_plan *c)
{
	pid_t reaper_pid = (pid_t)syscall(SYS_getpid);
	long pid = sys_fork();

	if (pid == 0) {
		/* Dies with the reaper too, whatever kills it. */
		if (syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0ul, 0ul, 0ul) < 0 ||
		    syscall(SYS_getppid) != reaper_pid)
			raw_exit(127);
		syscall(SYS_rt_sigprocmask, SIG_SETMASK, &c->none, NULL, KSIGSET_SIZE);
		syscall(SYS_execve, c->s->argv[0], c->s->argv, c->envp);
		child_fail(3, errno);
	}
	return (pid_t)pid;
}

static noreturn void reaper(const struct child_plan *c)
{
	pid_t pid;
	int r, status;

	reset_signals(c);
	syscall(SYS_setpgid, 0, 0);
	if (syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGTERM, 0ul, 0ul, 0ul) < 0 ||
	    syscall(SYS_getppid) != c->parent)
		raw_exit(127);     /* the parent is already gone */
	r = child_fds(c);
	if (r < 0)
		child_fail(c->errpipe, -r);
	pid = start_compiler(c);
	if (pid < 0)
		child_fail(3, errno);
	/* The compiler holds the pipes now: their EOF is its exit. */
	for (int fd = 0; fd <= 3; fd++)
		syscall(SYS_close, fd);
	for (;;) {
		/* The kernel's timespec of rt_sigtimedwait: two longs (32-bit
		 * archs with a 64-bit time_t have a _time64 call for theirs). */
		struct { long tv_sec, tv_nsec; } second = { 1, 0 };
		siginfo_t si;
		long sig = syscall(SYS_rt_sigtimedwait, &c->wait_for, &si, &second, KSIGSET_SIZE);
		long w;

		if (syscall(SYS_getppid) != c->parent || sig == SIGTERM || sig == SIGHUP ||
		    sig == SIGINT)
			syscall(SYS_kill, 0, SIGKILL);   /* the whole group, this process last */
		w = syscall(SYS_wait4, pid, &status, WNOHANG, NULL);
		if (w == pid) {
			if (WIFSIGNALED(status))
				raw_exit(128 + WTERMSIG(status));
			raw_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 255);
		}
		if (w < 0 && errno != EINTR)
			raw_exit(255);
	}
}

/* Kills the group of a child that has not exec-ed its compiler, and reaps it. */
static void abandon_child(pid_t p)
{
	kill(-p, SIGKILL);
	kill(p, SIGKILL);
	while (waitpid(p, NULL, 0) < 0 && errno == EINTR)
		;
}

/*
 * Starts the reaper and waits until the compiler has exec-ed: EOF on the
 * exec-error pipe, or the errno the reaper wrote.  That wait has the same
 * deadline as the compile (0: none) and ends on the caller's cancel too.
 */
static int start_child(struct hr_spawn *s, int out_w, int err_w, uint64_t deadline, pid_t *pid)
{
	struct child_plan c = { .s = s, .envp = s->envp ? s->envp : environ,
	                        .parent = getpid(), .out_w = out_w, .err_w = err_w };
	int errpipe[2], err = 0;
	pid_t p;
	ssize_t k = 0;

	sigfillset(&c.all);
	sigemptyset(&c.none);
	sigemptyset(&c.wait_for);
	sigaddset(&c.wait_for, SIGCHLD);
	sigaddset(&c.wait_for, SIGTERM);
	sigaddset(&c.wait_for, SIGHUP);
	sigaddset(&c.wait_for, SIGINT);
	if (pipe2(errpipe, O_CLOEXEC) < 0)
		return -errno;
	c.errpipe = errpipe[1];
	/* _Fork: no atfork handlers of the application run in the reaper. */
	p = _Fork();
	if (p == 0)
		reaper(&c);
	close(errpipe[1]);
	if (p < 0) {
		err = errno;
		close(errpipe[0]);
		return -err;
	}
	/* Also here, so that a kill of the group before the child ran reaches it. */
	setpgid(p, p);
	for (;;) {
		struct pollfd pfd = { .fd = errpipe[0], .events = POLLIN };
		int wait_ms, n;

		if (s->cancel && *s->cancel) {
			close(errpipe[0]);
			abandon_child(p);
			return -ECANCELED;
		}
		if (deadline) {
			uint64_t t = now_ms();

			if (t >= deadline) {
				close(errpipe[0]);
				abandon_child(p);
				s->timed_out = true;
				return -ETIMEDOUT;
			}
			wait_ms = deadline - t > 100 ? 100 : (int)(deadline - t);
		} else {
			wait_ms = 100;
		}
		n = poll(&pfd, 1, wait_ms);
		if (n < 0 && errno != EINTR) {
			err = errno;
			close(errpipe[0]);
			abandon_child(p);
			return -err;
		}
		if (n <= 0)
			continue;
		k = read(errpipe[0], &err, sizeof(err));
		if (k >= 0 || errno != EINTR)
			break;
	}
	close(errpipe[0]);
	if (k == (ssize_t)sizeof(err) && err > 0) {
		while (waitpid(p, NULL, 0) < 0 && errno == EINTR)
			;
		return -err;
	}
	*pid = p;
	return 0;
}

static int exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 255;
}

/* Collects output until the child is gone and both pipes are closed, or the deadline. */
static int supervise(struct hr_spawn *s, pid_t pid, uint64_t deadline, struct capture cap[2])
{
	bool reaped = false;
	int status = 0, r = 0;

	for (;;) {
		struct pollfd pfd[2];
		nfds_t n = 0;
		int wait_ms;

		if (!reaped) {
			pid_t w = waitpid(pid, &status, WNOHANG);

			/*
			 * w < 0 other than EINTR is ECHILD: the host ignores SIGCHLD,
			 * so the kernel reaped it and the status is lost.  Report 0;
			 * callers judge by output (compiles check the code object
			 * they read back).
			 */
			if (w == pid || (w < 0 && errno != EINTR))
				reaped = true;
		}
		for (int i = 0; i < 2; i++)
			if (cap[i].fd >= 0)
				pfd[n++] = (struct pollfd){ .fd = cap[i].fd, .events = POLLIN };
		if (reaped && n == 0)
			break;
		if (s->cancel && *s->cancel) {
			/* The caller was asked to stop: the compiler goes with it. */
			kill(-pid, SIGKILL);
			if (!reaped)
				while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
					;
			r = -ECANCELED;
			break;
		}
		if (deadline && now_ms() >= deadline) {
			kill(-pid, SIGKILL);
			if (!reaped)
				while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
					;
			s->timed_out = true;
			r = -ETIMEDOUT;
			break;
		}
		/* Without SIGCHLD handling, re-check the child every 20 ms while the pipes are quiet. */
		wait_ms = reaped && n > 0 ? 1000 : 20;
		if (deadline) {
			uint64_t left = deadline - now_ms();

			if (left < (uint64_t)wait_ms)
				wait_ms = (int)left;
		}
		if (n == 0) {
			poll(NULL, 0, wait_ms);
			continue;
		}
		if (poll(pfd, n, wait_ms) < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			kill(-pid, SIGKILL);
			break;
		}
		for (nfds_t i = 0; i < n; i++) {
			struct capture *c = pfd[i].fd == cap[0].fd ? &cap[0] : &cap[1];
			int k;

			if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			k = capture_read(c);
			if (k < 0) {
				r = k;
				kill(-pid, SIGKILL);
				goto out;
			}
		}
	}
out:
	if (!reaped && r != -ETIMEDOUT)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	s->exit_status = exit_code(status);
	return r;
}

int hr_spawn_run(struct hr_spawn *s)
{
	struct capture cap[2];
	size_t max;
	int out_p[2] = { -1, -1 }, err_p[2] = { -1, -1 };
	pid_t pid = -1;
	uint64_t deadline;
	int r;

	if (!s)
		return -EINVAL;
	s->out = s->err = NULL;
	s->out_len = s->err_len = 0;
	s->out_truncated = s->err_truncated = s->timed_out = false;
	s->exit_status = -1;
	if (!s->argv || !s->argv[0] || s->argv[0][0] != '/')
		return -EINVAL;
	/* A clear error before forking anything. */
	if (access(s->argv[0], X_OK) < 0)
		return -errno;
	max = s->max_output ? s->max_output : DEFAULT_MAX_OUTPUT;
	if (capture_init(&cap[0], max) < 0)
		return -ENOMEM;
	if (capture_init(&cap[1], max) < 0) {
		free(cap[0].buf);
		return -ENOMEM;
	}
	if (pipe2(out_p, O_CLOEXEC) < 0 || pipe2(err_p, O_CLOEXEC) < 0) {
		r = -errno;
		goto fail;
	}
	deadline = s->timeout_ms ? now_ms() + s->timeout_ms : 0;
	r = start_child(s, out_p[1], err_p[1], deadline, &pid);
	close(out_p[1]);
	close(err_p[1]);
	out_p[1] = err_p[1] = -1;
	if (r < 0)
		goto fail;
	cap[0].fd = out_p[0];
	cap[1].fd = err_p[0];
	out_p[0] = err_p[0] = -1;

	r = supervise(s, pid, deadline, cap);
	capture_close(&cap[0]);
	capture_close(&cap[1]);
	if (r < 0 && r != -ETIMEDOUT && r != -ECANCELED) {
		free(cap[0].buf);
		free(cap[1].buf);
		return r;
	}
	s->out = cap[0].buf;
	s->out_len = cap[0].len;
	s->out_truncated = cap[0].truncated;
	s->err = cap[1].buf;
	s->err_len = cap[1].len;
	s->err_truncated = cap[1].truncated;
	return r;

fail:
	for (int i = 0; i < 2; i++) {
		if (out_p[i] >= 0)
			close(out_p[i]);
		if (err_p[i] >= 0)
			close(err_p[i]);
	}
	free(cap[0].buf);
	free(cap[1].buf);
	return r;
}

void hr_spawn_release(struct hr_spawn *s)
{
	if (!s)
		return;
	free(s->out);
	free(s->err);
	s->out = s->err = NULL;
	s->out_len = s->err_len = 0;
}
