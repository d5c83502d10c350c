/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * selftest: helpers of the row-wise families (reduce, norm, rope).  Their
 * cases need buffers of any size (a 151936-column row), their own launch
 * geometry (one block per row, a second grid dimension for split rows) and
 * several outputs; the element-wise driver's scratch and launch fit none of
 * that.  Comparison rules are the driver's.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hanzo-rocm-tools.h"
#include "selftest.h"

int st_dbuf_new(struct st_device *d, const void *host, size_t bytes, uint64_t *ptr)
{
	size_t total = bytes + ST_GUARD_BYTES;
	uint8_t *img = malloc(total);
	int r;

	if (!img)
		return -ENOMEM;
	memset(img, 0xff, total);
	if (host && bytes)
		memcpy(img, host, bytes);
	r = hr_runtime_alloc(st_device_ctx(d), st_device_index(d), total, ptr);
	if (r == 0) {
		r = hr_runtime_copy_htod(st_device_ctx(d), st_device_index(d), *ptr, img, total);
		if (r < 0)
			hr_runtime_mem_free(st_device_ctx(d), st_device_index(d), *ptr);
	}
	free(img);
	return r;
}

int st_dbuf_get(struct st_device *d, uint64_t ptr, void *host, size_t bytes)
{
	return hr_runtime_copy_dtoh(st_device_ctx(d), st_device_index(d), host, ptr, bytes);
}

void st_dbuf_free(struct st_device *d, uint64_t ptr)
{
	if (ptr)
		hr_runtime_mem_free(st_device_ctx(d), st_device_index(d), ptr);
}

void st_fail(struct st_result *res, const char *fmt, ...)
{
	va_list ap;

	if (!res->ok)
		return;         /* keep the first reason */
	res->ok = false;
	va_start(ap, fmt);
	vsnprintf(res->why, sizeof(res->why), fmt, ap);
	va_end(ap);
}

int st_launch_sync(struct st_device *d, struct hanzo_rocm_kernel *kh, unsigned gx,
                   unsigned gy, unsigned bx, void **args, struct st_result *res)
{
	return st_launch_shared(d, kh, gx, gy, bx, 0, args, res);
}

int st_launch_work(struct st_device *d, struct hanzo_rocm_kernel *kh, uint64_t rows,
                   uint64_t cols, void **args, struct st_result *res)
{
	int r = hanzo_rocm_kernel_launch_work(kh, rows, cols, NULL, args);

	if (r < 0) {
		st_fail(res, "launch_work: %s", hanzo_rocm_strerror(r));
		return r;
	}
	r = hr_runtime_synchronize(st_device_ctx(d), st_device_index(d), NULL);
	if (r < 0)
		st_fail(res, "run: %s", hanzo_rocm_strerror(r));
	return r;
}

int st_launch_shared(struct st_device *d, struct hanzo_rocm_kernel *kh, unsigned gx,
                     unsigned gy, unsigned bx, unsigned shared, void **args,
                     struct st_result *res)
{
	unsigned grid[3] = { gx ? gx : 1, gy ? gy : 1, 1 }, block[3] = { bx, 1, 1 };
	int r = hanzo_rocm_kernel_launch(kh, grid, block, shared, NULL, args);

	if (r < 0) {
		st_fail(res, "launch: %s", hanzo_rocm_strerror(r));
		return r;
	}
	r = hr_runtime_synchronize(st_device_ctx(d), st_device_index(d), NULL);
	if (r < 0)
		st_fail(res, "run: %s", hanzo_rocm_strerror(r));
	return r;
}

void st_result_start(struct st_result *res, const struct st_kernel *k,
                     const char *casename, size_t numel)
{
	memset(res, 0, sizeof(*res));
	res->kernel = k->name;
	res->family = k->family;
	res->casename = casename;
	res->numel = numel;
	res->max_err = NAN;
	res->tol = k->cmp == ST_CMP_TOL ? k->tol : 0;
	res->gbps = -1;
	res->ok = true;
}

void st_check_float(enum st_dtype dt, double tol, size_t i, const void *got_buf, double want,
                    struct st_result *res)
{
	double got = st_load(dt, got_buf, i).f, err;
	bool bad;

	if (isnan(want)) {
		bad = !isnan(got);
		err = bad ? INFINITY : 0;
	} else if (isnan(got) || isinf(want) || isinf(got)) {
		bad = got != want;
		err = bad ? INFINITY : 0;
	} else {
		err = fabs(got - want) / fmax(1.0, fabs(want));
		bad = err > tol;
	}
	if (isnan(res->max_err) || err > res->max_err)
		res->max_err = err;
	if (bad)
		st_fail(res, "element %zu: got %.9g, want %.9g", i, got, want);
}

void st_check_poison(const void *buf, size_t from, size_t to, struct st_result *res)
{
	const uint8_t *b = buf;

	for (size_t i = from; i < to; i++) {
		if (b[i] != 0xff) {
			st_fail(res, "byte %zu outside the output was written", i);
			return;
		}
	}
}
