/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The backends of a context (backend.h): the one list of implementations
 * (struct hr_backend_ops, each naming its platform) and the one open
 * attempt per backend.  Adding a backend is a file implementing the ops
 * and one line in the list below.
 * Layer: backend (lib/layers).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "backend.h"
#include "cuda.h"
#include "hip.h"
#include "backend/host/host.h"
#include "context.h"
#include "target/target.h"
#include "shared/util.h"

/* In the order devices are numbered (devices.c). */
static const struct hr_backend_ops *const backends[] = {
	&hr_hip_ops,
	&hr_cuda_ops,
	&hr_host_ops,
};

#define N_BACKENDS HR_ARRAY_SIZE(backends)

struct be_slot {
	bool tried;
	int err;                        /* result of the one open attempt */
	struct hr_backend *b;
};

struct hr_backends {
	pthread_mutex_t lock;           /* a leaf: held only around an open */
	struct be_slot slot[N_BACKENDS];
};

const struct hr_backend_ops *hr_backend_at(size_t i)
{
	return i < N_BACKENDS ? backends[i] : NULL;
}

static int backend_index(int platform)
{
	for (size_t i = 0; i < N_BACKENDS; i++)
		if ((int)backends[i]->platform == platform)
			return (int)i;
	return -1;
}

const struct hr_backend_ops *hr_backend_for(int platform)
{
	int i = backend_index(platform);

	return i < 0 ? NULL : backends[i];
}

static int backends_new(struct hanzo_rocm *ctx HR_UNUSED, void **ret)
{
	struct hr_backends *bs = calloc(1, sizeof(*bs));

	if (!bs)
		return -ENOMEM;
	pthread_mutex_init(&bs->lock, NULL);
	*ret = bs;
	return 0;
}

static void backends_free(void *p)
{
	struct hr_backends *bs = p;

	for (size_t i = 0; i < N_BACKENDS; i++)
		if (bs->slot[i].b)
			backends[i]->close(bs->slot[i].b);
	pthread_mutex_destroy(&bs->lock);
	free(bs);
}

int hr_backend_get(struct hanzo_rocm *ctx, int platform, struct hr_backend **b)
{
	int i = backend_index(platform);
	struct hr_backends *bs;
	struct be_slot *s;
	void *p;
	int r;

	if (i < 0)
		return -EINVAL;
	r = hr_ctx_lazy(ctx, HR_SLOT_BACKENDS, backends_new, backends_free, &p);
	if (r < 0)
		return r;
	bs = p;
	s = &bs->slot[i];
	pthread_mutex_lock(&bs->lock);
	/* One attempt per context: a missing driver is not retried per call. */
	if (!s->tried) {
		s->err = backends[i]->open(ctx, &s->b);
		s->tried = true;
	}
	r = s->err;
	pthread_mutex_unlock(&bs->lock);
	if (r < 0)
		return r;
	*b = s->b;
	return 0;
}

int hr_backend_enumerate(struct hanzo_rocm *ctx, const struct hr_backend_ops *ops,
                         struct hr_device *devs, size_t max, size_t *n)
{
	struct hr_backend *b = NULL;
	int r;

	*n = 0;
	if (!ops)
		return -EINVAL;
	if (!ops->enumerate_unopened) {
		r = hr_backend_get(ctx, ops->platform, &b);
		if (r == -ENODEV)
			return 0;
		if (r < 0)
			return r;
	}
	return ops->enumerate(ctx, b, devs, max, n);
}
