/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The backends of a context (backend.h): the platform -> implementation
 * table and the one open attempt per backend.  Adding a backend is a slot
 * here and a file implementing struct hr_backend_ops.
 * Layer: backend (lib/layers).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "backend.h"
#include "backend-cuda.h"
#include "backend-hip.h"
#include "backend-host.h"
#include "context.h"
#include "target.h"

struct be_slot {
	bool tried;
	int err;                        /* result of the one open attempt */
	void *b;
};

struct hr_backends {
	pthread_mutex_t lock;           /* a leaf: held only around an open */
	struct be_slot cuda, hip, host;
};

static int backends_new(struct hanzo_rocm *ctx, void **ret)
{
	struct hr_backends *bs = calloc(1, sizeof(*bs));

	(void)ctx;
	if (!bs)
		return -ENOMEM;
	pthread_mutex_init(&bs->lock, NULL);
	*ret = bs;
	return 0;
}

static void backends_free(void *p)
{
	struct hr_backends *bs = p;

	if (bs->cuda.b)
		hr_cuda_close(bs->cuda.b);
	if (bs->hip.b)
		hr_hip_close(bs->hip.b);
	if (bs->host.b)
		hr_host_close(bs->host.b);
	pthread_mutex_destroy(&bs->lock);
	free(bs);
}

int hr_backend_get(struct hanzo_rocm *ctx, int platform,
                   const struct hr_backend_ops **ops, void **b)
{
	struct hr_backends *bs;
	struct be_slot *s;
	void *p;
	int r;

	if (platform != HR_PLATFORM_NVIDIA && platform != HR_PLATFORM_AMD &&
	    platform != HR_PLATFORM_HOST)
		return -EINVAL;
	r = hr_ctx_lazy(ctx, HR_SLOT_BACKENDS, backends_new, backends_free, &p);
	if (r < 0)
		return r;
	bs = p;
	s = platform == HR_PLATFORM_NVIDIA ? &bs->cuda :
	    platform == HR_PLATFORM_HOST ? &bs->host : &bs->hip;
	pthread_mutex_lock(&bs->lock);
	/* One attempt per context: a missing driver is not retried per call. */
	if (!s->tried) {
		s->err = platform == HR_PLATFORM_NVIDIA ? hr_cuda_open(ctx, &s->b) :
		         platform == HR_PLATFORM_HOST ? hr_host_open(ctx, &s->b)
		                                      : hr_hip_open(ctx, &s->b);
		s->tried = true;
	}
	r = s->err;
	pthread_mutex_unlock(&bs->lock);
	if (r < 0)
		return r;
	*ops = platform == HR_PLATFORM_NVIDIA ? &hr_cuda_ops :
	       platform == HR_PLATFORM_HOST ? &hr_host_ops : &hr_hip_ops;
	*b = s->b;
	return 0;
}
