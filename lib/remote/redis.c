/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * remote.so's Redis client (hiredis): the leases of a single compile across
 * nodes (remote.h, hr_remote_before_compile).  Bounded as the HTTP
 * transport: a connect timeout and a timeout on every command.  Built
 * without hiredis, redis_new says so and the library falls back to a
 * jittered re-check.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "remote.h"
#include "redis.h"

#ifdef HR_HAVE_HIREDIS
#include <hiredis/hiredis.h>

/* "redis://HOST:PORT" (no path, user or password): host and port. */
static int parse_url(const char *url, char *host, size_t n, int *port)
{
	const char *h, *c;
	char *end;
	long p;

	if (strncmp(url, "redis://", 8) != 0)
		return -EINVAL;
	h = url + 8;
	c = strrchr(h, ':');
	if (!c || c == h || (size_t)(c - h) >= n || strpbrk(h, "/@?#"))
		return -EINVAL;
	errno = 0;
	p = strtol(c + 1, &end, 10);
	if (errno || *end || c[1] == '\0' || p < 1 || p > 65535)
		return -EINVAL;
	memcpy(host, h, (size_t)(c - h));
	host[c - h] = '\0';
	*port = (int)p;
	return 0;
}

void *hr_redis_new(const char *url, unsigned connect_ms, unsigned timeout_ms,
                   char *why, size_t n)
{
	struct timeval ct = { connect_ms / 1000, (connect_ms % 1000) * 1000 };
	struct timeval tt = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };
	char host[256];
	redisContext *c;
	int port;

	if (parse_url(url, host, sizeof(host), &port) < 0) {
		snprintf(why, n, "'%s' is not redis://HOST:PORT", url);
		return NULL;
	}
	c = redisConnectWithTimeout(host, port, ct);
	if (!c || c->err) {
		snprintf(why, n, "%s: %s", url, c ? c->errstr : "out of memory");
		if (c)
			redisFree(c);
		return NULL;
	}
	if (redisSetTimeout(c, tt) != REDIS_OK) {
		snprintf(why, n, "%s: cannot set the command timeout", url);
		redisFree(c);
		return NULL;
	}
	return c;
}

void hr_redis_free(void *redis)
{
	if (redis)
		redisFree(redis);
}

int hr_redis_lease_take(void *redis, const char *name, const char *token, unsigned ms)
{
	redisReply *rep = redisCommand(redis, "SET %s %s NX PX %u", name, token, ms);
	int r;

	if (!rep)
		return -EIO;
	if (rep->type == REDIS_REPLY_STATUS && strcmp(rep->str, "OK") == 0)
		r = 1;
	else if (rep->type == REDIS_REPLY_NIL)
		r = 0;
	else
		r = -EIO;
	freeReplyObject(rep);
	return r;
}

int hr_redis_lease_held(void *redis, const char *name)
{
	redisReply *rep = redisCommand(redis, "EXISTS %s", name);
	int r;

	if (!rep)
		return -EIO;
	r = rep->type == REDIS_REPLY_INTEGER ? rep->integer > 0 : -EIO;
	freeReplyObject(rep);
	return r;
}

int hr_redis_lease_release(void *redis, const char *name, const char *token)
{
	/* Only the holder's lease: one that expired and was taken again by
	 * another node is that node's. */
	static const char script[] =
		"if redis.call('GET', KEYS[1]) == ARGV[1] then "
		"return redis.call('DEL', KEYS[1]) else return 0 end";
	redisReply *rep = redisCommand(redis, "EVAL %s 1 %s %s", script, name, token);
	int r;

	if (!rep)
		return -EIO;
	r = rep->type == REDIS_REPLY_INTEGER ? 0 : -EIO;
	freeReplyObject(rep);
	return r;
}

#else

void *hr_redis_new(const char *url, unsigned connect_ms, unsigned timeout_ms,
                   char *why, size_t n)
{
	(void)url, (void)connect_ms, (void)timeout_ms;
	snprintf(why, n, "remote.so was built without hiredis");
	return NULL;
}

void hr_redis_free(void *redis)
{
	(void)redis;
}

int hr_redis_lease_take(void *redis, const char *name, const char *token, unsigned ms)
{
	(void)redis, (void)name, (void)token, (void)ms;
	return -ENOTSUP;
}

int hr_redis_lease_held(void *redis, const char *name)
{
	(void)redis, (void)name;
	return -ENOTSUP;
}

int hr_redis_lease_release(void *redis, const char *name, const char *token)
{
	(void)redis, (void)name, (void)token;
	return -ENOTSUP;
}

#endif
