/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A process runner for the compilers: posix_spawn (no shell), output captured
 * through pipes with poll, a deadline after which the process group dies.
 * Layer: util (lib/layers).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hr-spawn.h"

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

/* Signals a caller may ignore and a compiler must see with their default action. */
static void default_signals(sigset_t *set)
{
	static const int sigs[] = { SIGPIPE, SIGCHLD, SIGINT, SIGQUIT, SIGHUP,
	                            SIGTERM, SIGALRM, SIGUSR1, SIGUSR2, SIGXFSZ };

	sigemptyset(set);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(set, sigs[i]);
}

static int start_child(struct hr_spawn *s, int out_w, int err_w, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t mask, defs;
	int r;

	r = posix_spawn_file_actions_init(&fa);
	if (r)
		return -r;
	r = posix_spawnattr_init(&attr);
	if (r) {
		posix_spawn_file_actions_destroy(&fa);
		return -r;
	}
	sigemptyset(&mask);
	default_signals(&defs);
	/* Own process group: the timeout kills hipcc and the clang it runs. */
	if (!(r = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0)) &&
	    !(r = posix_spawn_file_actions_adddup2(&fa, out_w, 1)) &&
	    !(r = posix_spawn_file_actions_adddup2(&fa, err_w, 2)) &&
	    !(r = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP |
	                                          POSIX_SPAWN_SETSIGMASK |
	                                          POSIX_SPAWN_SETSIGDEF)) &&
	    !(r = posix_spawnattr_setpgroup(&attr, 0)) &&
	    !(r = posix_spawnattr_setsigmask(&attr, &mask)) &&
	    !(r = posix_spawnattr_setsigdefault(&attr, &defs)))
		r = posix_spawn(pid, s->argv[0], &fa, &attr, s->argv,
		                s->envp ? s->envp : environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	return -r;
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
static int supervise(struct hr_spawn *s, pid_t pid, struct capture cap[2])
{
	uint64_t deadline = s->timeout_ms ? now_ms() + s->timeout_ms : 0;
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
	int r;

	if (!s)
		return -EINVAL;
	s->out = s->err = NULL;
	s->out_len = s->err_len = 0;
	s->out_truncated = s->err_truncated = s->timed_out = false;
	s->exit_status = -1;
	if (!s->argv || !s->argv[0] || s->argv[0][0] != '/')
		return -EINVAL;
	/*
	 * posix_spawn reports a failed exec only where it can use CLONE_VFORK;
	 * elsewhere (valgrind, some libcs) the child just exits 127.  Ask first.
	 */
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
	r = start_child(s, out_p[1], err_p[1], &pid);
	close(out_p[1]);
	close(err_p[1]);
	out_p[1] = err_p[1] = -1;
	if (r < 0)
		goto fail;
	cap[0].fd = out_p[0];
	cap[1].fd = err_p[0];
	out_p[0] = err_p[0] = -1;

	r = supervise(s, pid, cap);
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
