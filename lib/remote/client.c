/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The remote tier's side of the base library that waits on servers: the
 * circuit breaker and time budget that bound every wait, and the loader of
 * the HTTP module (remote.so), trust-checked as plugins are.  See
 * remote.h.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "remote.h"
#include "shared/trust.h"

void hr_remote_guard_init(struct hr_remote_guard *g, unsigned threshold,
                          unsigned backoff_ms, unsigned backoff_cap_ms,
                          unsigned budget_ms)
{
	memset(g, 0, sizeof(*g));
	g->threshold = threshold ? threshold : 1;
	g->backoff_ms = backoff_ms;
	g->backoff_cap_ms = backoff_cap_ms < backoff_ms ? backoff_ms : backoff_cap_ms;
	g->budget_ms = budget_ms;
	g->backoff_now_ms = backoff_ms;
}

enum hr_remote_reason hr_remote_guard_enter(struct hr_remote_guard *g,
                                            uint64_t now_ns, unsigned *timeout_ms)
{
	uint64_t budget_ns = (uint64_t)g->budget_ms * 1000000u, left_ms;

	if (g->spent_ns >= budget_ns)
		return HR_REMOTE_BUDGET;
	if (g->open_until_ns && now_ns < g->open_until_ns)
		return HR_REMOTE_BREAKER_OPEN;
	left_ms = (budget_ns - g->spent_ns + 999999u) / 1000000u;
	if (*timeout_ms > left_ms)
		*timeout_ms = (unsigned)left_ms;
	return HR_REMOTE_OK;
}

static bool is_failure(enum hr_remote_reason r)
{
	return r == HR_REMOTE_TIMEOUT || r == HR_REMOTE_CONNECT || r == HR_REMOTE_HTTP_5XX;
}

void hr_remote_guard_leave(struct hr_remote_guard *g, uint64_t start_ns,
                           uint64_t now_ns, enum hr_remote_reason r)
{
	g->spent_ns += now_ns > start_ns ? now_ns - start_ns : 0;
	if (!is_failure(r)) {
		g->failures = 0;
		g->open_until_ns = 0;
		g->backoff_now_ms = g->backoff_ms;
		return;
	}
	if (++g->failures < g->threshold && !g->open_until_ns)
		return;
	/* Open, or a failed probe of an open breaker: back off, doubling. */
	g->open_until_ns = now_ns + (uint64_t)g->backoff_now_ms * 1000000u;
	g->backoff_now_ms = g->backoff_now_ms > g->backoff_cap_ms / 2 ?
	                    g->backoff_cap_ms : g->backoff_now_ms * 2;
}

int hr_remote_http_load(const char *path, const struct hr_remote_http_ops **ops,
                        void **dl, char *why, size_t n)
{
	const struct hr_remote_http_ops *o;
	char *dir = strdup(path), *slash, proc[64], buf[512];
	struct stat st;
	int dfd = -1, fd = -1, r;
	void *h;

	if (!dir)
		return -ENOMEM;
	slash = strrchr(dir, '/');
	if (!slash || slash == dir || !slash[1]) {
		snprintf(why, n, "%s: the module must be named by an absolute path", path);
		r = -EINVAL;
		goto out;
	}
	*slash = '\0';
	dfd = hr_trust_open_dir(NULL, dir, buf, sizeof(buf));
	if (dfd < 0) {
		r = dfd;
		snprintf(why, n, "%s is %s", dir, r == -EPERM ? buf : strerror(-r));
		goto out;
	}
	fd = openat(dfd, slash + 1, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		r = -errno;
		snprintf(why, n, "%s: %s", path, strerror(-r));
		goto out;
	}
	if (!S_ISREG(st.st_mode) || *hr_trust_stat(NULL, &st, HR_TRUST_SELF, path, buf, sizeof(buf))) {
		r = -EPERM;
		snprintf(why, n, "%s is %s", path, S_ISREG(st.st_mode) ? buf : "not a regular file");
		goto out;
	}
	/* The descriptor that was checked is the file that is loaded. */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	h = dlopen(proc, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();

		snprintf(why, n, "%s: dlopen failed: %s", path, e ? e : "unknown error");
		r = -ENOEXEC;
		goto out;
	}
	o = dlsym(h, HR_REMOTE_HTTP_SYMBOL);
	if (!o || o->abi != HR_REMOTE_HTTP_ABI || !o->client_new || !o->client_free ||
	    !o->get || !o->put || !o->redis_new || !o->redis_free || !o->lease_take ||
	    !o->lease_held || !o->lease_release) {
		snprintf(why, n, "%s: not a remote module of ABI %d", path, HR_REMOTE_HTTP_ABI);
		dlclose(h);
		r = -ENOEXEC;
		goto out;
	}
	*ops = o;
	*dl = h;
	r = 0;
out:
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	free(dir);
	return r;
}
