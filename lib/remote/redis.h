/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* remote.so's Redis leases (redis.c), as hr_remote_http_ops has them. */
#ifndef HR_REMOTE_REDIS_H
#define HR_REMOTE_REDIS_H

#include <stddef.h>

void *hr_redis_new(const char *url, unsigned connect_ms, unsigned timeout_ms,
                   char *why, size_t n);
void hr_redis_free(void *redis);
int hr_redis_lease_take(void *redis, const char *name, const char *token, unsigned ms);
int hr_redis_lease_held(void *redis, const char *name);
int hr_redis_lease_release(void *redis, const char *name, const char *token);

#endif
