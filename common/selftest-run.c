/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * selftest: the generic driver.  For each case of a kernel: random inputs
 * (the family's generator, stored in the input dtype and read back so the
 * reference sees exactly what the GPU sees), a poisoned output (0xff bytes:
 * NaN for floats) with guard elements around it, launch with a small grid
 * (so grid-stride loops run several rounds), copy back, compare every
 * element with the reference and check the guards still hold the poison.
 * Then bandwidth on a large contiguous run: bytes moved / event time.
 *
 * Cases of element-wise kernels (strides of operands 0, 1, 2 as [row, col]
 * of a 37 x 139 view; the numbers are odd so no vector path covers a tail):
 *   contig   5125 elements, num_dims 0, 16-byte aligned buffers
 *   offset    769 elements, num_dims 0, every pointer one element in
 *   strided  op0 transposed {1,37}, op1 row broadcast {0,1}, op2 dense
 *   bcast    op0 row broadcast {0,1}, op1 dense, op2 column broadcast {1,0}
 *   sliced   op0 and op2 column slices of a 37 x 151 tensor {151,1}, op1
 *            transposed, every pointer 3 elements in (a storage offset)
 * Every launch goes through hanzo_rocm_kernel_launch_work: the library
 * picks the grid from the kernel's launch metadata, so this proves it too.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hanzo-rocm-tools.h"
#include "selftest.h"

#define ROWS 37
#define COLS 139
#define GUARD 16                /* poisoned elements after every output */
#define SCRATCH_ELEMS (2 * ROWS * COLS + 2 * ROWS * 151 + 64)
#define N_SCRATCH 4
#define BENCH_REPS 7


struct st_device {
	struct hanzo_rocm *ctx;
	unsigned dev;
	uint64_t scratch[N_SCRATCH];   /* inputs 0..2, output 3 (SCRATCH_ELEMS x 8 B) */
	size_t bench_numel;
	uint64_t pool[N_SCRATCH];      /* bench_numel x 8 B each (the widest dtype) */
	void *ev[2];
};

struct ew_case {
	const char *name;
	size_t numel;
	size_t ndims;                  /* 0 or 2 */
	uint64_t strides[3][2];
	size_t buflen[3];
	size_t offset;                 /* elements, applied to every pointer */
};

static const struct ew_case ew_cases[] = {
	{ "contig", 5125, 0, { { 0 } }, { 5125, 5125, 5125 }, 0 },
	{ "offset", 769, 0, { { 0 } }, { 769, 769, 769 }, 1 },
	{ "strided", ROWS * COLS, 2, { { 1, ROWS }, { 0, 1 }, { COLS, 1 } },
	  { ROWS * COLS, COLS, ROWS * COLS }, 0 },
	{ "bcast", ROWS * COLS, 2, { { 0, 1 }, { COLS, 1 }, { 1, 0 } },
	  { COLS, ROWS * COLS, ROWS }, 0 },
	{ "sliced", ROWS * COLS, 2, { { COLS + 12, 1 }, { 1, ROWS }, { COLS + 12, 1 } },
	  { ROWS * (COLS + 12), ROWS * COLS, ROWS * (COLS + 12) }, 3 },
};

struct hanzo_rocm *st_device_ctx(struct st_device *d)
{
	return d->ctx;
}

unsigned st_device_index(struct st_device *d)
{
	return d->dev;
}

void st_device_free(struct st_device *d)
{
	if (!d)
		return;
	for (int i = 0; i < N_SCRATCH; i++) {
		if (d->scratch[i])
			hr_runtime_mem_free(d->ctx, d->dev, d->scratch[i]);
		if (d->pool[i])
			hr_runtime_mem_free(d->ctx, d->dev, d->pool[i]);
	}
	for (int i = 0; i < 2; i++)
		if (d->ev[i])
			hr_runtime_event_destroy(d->ctx, d->dev, d->ev[i]);
	free(d);
}

/* Bandwidth buffers hold random bytes: timing must not see zero pages. */
static int pool_init(struct st_device *d)
{
	size_t bytes = d->bench_numel * 8;
	uint64_t *host = malloc(bytes), s = 0x5eed;
	int r = 0;

	if (!host)
		return -ENOMEM;
	for (size_t i = 0; i < bytes / 8; i++)
		host[i] = st_rand(&s);
	for (int i = 0; i < N_SCRATCH && r == 0; i++) {
		r = hr_runtime_alloc(d->ctx, d->dev, bytes, &d->pool[i]);
		if (r == 0)
			r = hr_runtime_copy_htod(d->ctx, d->dev, d->pool[i], host, bytes);
	}
	free(host);
	for (int i = 0; i < 2 && r == 0; i++)
		r = hr_runtime_event_create(d->ctx, d->dev, &d->ev[i]);
	return r;
}

int st_device_new(struct hanzo_rocm *ctx, unsigned device, size_t bench_numel,
                  struct st_device **ret)
{
	struct st_device *d = calloc(1, sizeof(*d));
	int r = 0;

	if (!d)
		return -ENOMEM;
	d->ctx = ctx;
	d->dev = device;
	d->bench_numel = bench_numel;
	for (int i = 0; i < N_SCRATCH && r == 0; i++)
		r = hr_runtime_alloc(ctx, device, SCRATCH_ELEMS * 8, &d->scratch[i]);
	if (r == 0 && bench_numel)
		r = pool_init(d);
	if (r < 0) {
		st_device_free(d);
		return r;
	}
	*ret = d;
	return 0;
}

/* Argument storage of one launch. */
struct launch {
	size_t numel, ndims;
	struct hanzo_rocm_layout info;
	uint64_t ptr[4];               /* in0, in1, in2, out */
	uint8_t scalar[2][8];
	size_t d1, d2, sstride, dstride;
	void *args[ST_MAX_ARGS];
};

static void *arg_ptr(struct launch *l, enum st_arg a)
{
	switch (a) {
	case ST_ARG_NUMEL: return &l->numel;
	case ST_ARG_NDIMS: return &l->ndims;
	case ST_ARG_INFO: return &l->info;
	case ST_ARG_IN0: return &l->ptr[0];
	case ST_ARG_IN1: return &l->ptr[1];
	case ST_ARG_IN2: return &l->ptr[2];
	case ST_ARG_OUT: return &l->ptr[3];
	case ST_ARG_SCALAR0: return l->scalar[0];
	case ST_ARG_SCALAR1: return l->scalar[1];
	}
	return NULL;
}

/* The argument array in the kernel's order, by shape. */
static void launch_args(const struct st_kernel *k, struct launch *l)
{
	switch (k->shape) {
	case ST_EW:
		for (int i = 0; i < k->n_args; i++)
			l->args[i] = arg_ptr(l, k->args[i]);
		break;
	case ST_FILL:           /* (buf, value, numel) */
		l->args[0] = &l->ptr[3];
		l->args[1] = l->scalar[0];
		l->args[2] = &l->numel;
		break;
	case ST_COPY2D:         /* (src, dst, d1, d2, src_stride, dst_stride) */
		l->args[0] = &l->ptr[0];
		l->args[1] = &l->ptr[3];
		l->args[2] = &l->d1;
		l->args[3] = &l->d2;
		l->args[4] = &l->sstride;
		l->args[5] = &l->dstride;
		break;
	case ST_CONST_SET:      /* (numel, num_dims, info, value, out) */
		l->args[0] = &l->numel;
		l->args[1] = &l->ndims;
		l->args[2] = &l->info;
		l->args[3] = l->scalar[0];
		l->args[4] = &l->ptr[3];
		break;
	case ST_REDUCE:         /* row-wise shapes run through k->run */
	case ST_NORM:
	case ST_ROPE:
	case ST_INDEX:
	case ST_SORT:
	case ST_QUANT:
	case ST_CONV:
	case ST_ATTN:
	case ST_SAMPLE:
		break;
	}
}

/* Element-wise work: the library's geometry (grid-stride loops). */
static int launch(struct hanzo_rocm_kernel *kh, size_t work, struct launch *l)
{
	return hanzo_rocm_kernel_launch_work(kh, work, 1, NULL, l->args);
}

static void fail(struct st_result *res, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void fail(struct st_result *res, const char *fmt, ...)
{
	va_list ap;

	if (!res->ok)
		return;         /* keep the first reason */
	res->ok = false;
	va_start(ap, fmt);
	vsnprintf(res->why, sizeof(res->why), fmt, ap);
	va_end(ap);
}

static void fmt_val(enum st_dtype dt, struct st_val v, char *buf, size_t n)
{
	if (st_dtype_is_float(dt))
		snprintf(buf, n, "%.9g", v.f);
	else if (dt == ST_I64)
		snprintf(buf, n, "%lld", (long long)(int64_t)v.u);
	else
		snprintf(buf, n, "%llu", (unsigned long long)v.u);
}

/* Compares one element; updates res (max error, first mismatch). */
static void check_elem(const struct st_kernel *k, size_t i, struct st_val got,
                       const void *got_raw, struct st_val want, struct st_result *res)
{
	size_t sz = st_dtype_size(k->out);
	char g[48], w[48];
	double err;
	bool bad;

	if (k->cmp == ST_CMP_EXACT) {
		uint8_t want_raw[8];
		struct st_val ws;

		st_store(k->out, want_raw, 0, want);
		ws = st_load(k->out, want_raw, 0);
		bad = memcmp(got_raw, want_raw, sz) != 0 &&
		      !(st_dtype_is_float(k->out) && isnan(got.f) && isnan(ws.f));
		err = !bad ? 0 : (isnan(got.f) || isnan(ws.f)) ? INFINITY :
		      fabs(got.f - ws.f) > 0 ? fabs(got.f - ws.f) : 1e-300;
		want = ws;
	} else if (isnan(want.f)) {
		bad = !isnan(got.f);
		err = bad ? INFINITY : 0;
	} else if (isnan(got.f) || isinf(want.f) || isinf(got.f)) {
		bad = got.f != want.f;
		err = bad ? INFINITY : 0;
	} else {
		err = fabs(got.f - want.f) / fmax(1.0, fabs(want.f));
		bad = err > k->tol;
	}
	if (isnan(res->max_err) || err > res->max_err)
		res->max_err = err;
	if (bad) {
		fmt_val(k->out, got, g, sizeof(g));
		fmt_val(k->out, want, w, sizeof(w));
		fail(res, "element %zu: got %s, want %s", i, g, w);
	}
}

/* Elements outside [start, start + n) of a downloaded output keep the poison. */
static void check_guards(const uint8_t *buf, size_t total, size_t sz,
                         const uint8_t *expect_written, struct st_result *res)
{
	for (size_t i = 0; i < total; i++) {
		if (expect_written[i])
			continue;
		for (size_t b = 0; b < sz; b++) {
			if (buf[i * sz + b] != 0xff) {
				fail(res, "element %zu outside the output was written", i);
				return;
			}
		}
	}
}

static size_t elem_offset(const struct ew_case *c, int operand, size_t i)
{
	if (c->ndims == 0)
		return i;
	return (i / COLS) * c->strides[operand][0] + (i % COLS) * c->strides[operand][1];
}

static uint64_t seed_of(const char *name, const char *casename)
{
	uint64_t h = 1469598103934665603ULL;

	for (const char *p = name; *p; p++)
		h = (h ^ (uint8_t)*p) * 1099511628211ULL;
	for (const char *p = casename; *p; p++)
		h = (h ^ (uint8_t)*p) * 1099511628211ULL;
	return h | 1;
}

/* Rounds k's scalars to their dtype (the reference must see what the GPU
 * gets) and writes their bytes into l. */
static void scalars(struct st_kernel *k, struct launch *l)
{
	for (int j = 0; j < k->n_scalar; j++) {
		memset(l->scalar[j], 0, 8);
		st_store(k->scalar_dt, l->scalar[j], 0, k->scalar[j]);
		k->scalar[j] = st_load(k->scalar_dt, l->scalar[j], 0);
	}
}

static int upload_inputs(struct st_device *d, const struct st_kernel *k, void *host[3],
                         const size_t len[3], const char *casename)
{
	uint64_t rng = seed_of(k->name, casename);

	for (int op = 0; op < k->n_in; op++) {
		size_t sz = st_dtype_size(k->in[op]);
		int r;

		host[op] = malloc(len[op] * sz);
		if (!host[op])
			return -ENOMEM;
		for (size_t i = 0; i < len[op]; i++)
			st_store(k->in[op], host[op], i, k->gen(k, op, &rng));
		r = hr_runtime_copy_htod(d->ctx, d->dev, d->scratch[op], host[op], len[op] * sz);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Fills the device output with poison; returns the host copy (poisoned). */
static uint8_t *poison_out(struct st_device *d, size_t bytes, int *r)
{
	uint8_t *out = malloc(bytes);

	if (!out) {
		*r = -ENOMEM;
		return NULL;
	}
	memset(out, 0xff, bytes);
	*r = hr_runtime_copy_htod(d->ctx, d->dev, d->scratch[3], out, bytes);
	return out;
}

static int run_and_fetch(struct st_device *d, struct hanzo_rocm_kernel *kh, size_t work,
                         struct launch *l, uint8_t *out, size_t bytes, struct st_result *res)
{
	int r = launch(kh, work, l);

	if (r < 0) {
		fail(res, "launch: %s", hanzo_rocm_strerror(r));
		return r;
	}
	r = hr_runtime_synchronize(d->ctx, d->dev, NULL);
	if (r == 0)
		r = hr_runtime_copy_dtoh(d->ctx, d->dev, out, d->scratch[3], bytes);
	if (r < 0)
		fail(res, "run: %s", hanzo_rocm_strerror(r));
	return r;
}

static void run_ew_case(struct st_device *d, struct hanzo_rocm_kernel *kh,
                        struct st_kernel *k, const struct ew_case *c, struct st_result *res)
{
	size_t osz = st_dtype_size(k->out), total = c->offset + c->numel + GUARD;
	size_t len[3];
	void *host[3] = { NULL, NULL, NULL };
	uint8_t *out = NULL, *written = NULL;
	struct launch l;
	int r;

	memset(&l, 0, sizeof(l));
	for (int op = 0; op < 3; op++)
		len[op] = c->buflen[op] + c->offset;
	r = upload_inputs(d, k, host, len, c->name);
	if (r == 0)
		out = poison_out(d, total * osz, &r);
	if (r < 0 || !out) {
		fail(res, "device buffers: %s", hanzo_rocm_strerror(r < 0 ? r : -ENOMEM));
		goto out;
	}
	l.numel = c->numel;
	l.ndims = c->ndims;
	if (c->ndims) {
		const size_t dims[2] = { ROWS, COLS };
		const size_t st[3][2] = { { c->strides[0][0], c->strides[0][1] },
		                          { c->strides[1][0], c->strides[1][1] },
		                          { c->strides[2][0], c->strides[2][1] } };
		const size_t *const strides[3] = { st[0], st[1], st[2] };

		hanzo_rocm_layout_init(&l.info, 2, dims, 3, strides);
	}
	for (int op = 0; op < 3; op++)
		l.ptr[op] = d->scratch[op] + c->offset * st_dtype_size(k->in[op]);
	l.ptr[3] = d->scratch[3] + c->offset * osz;
	scalars(k, &l);
	launch_args(k, &l);
	if (run_and_fetch(d, kh, c->numel, &l, out, total * osz, res) < 0)
		goto out;
	for (size_t i = 0; i < c->numel; i++) {
		struct st_val in[3];

		for (int op = 0; op < k->n_in && op < 3; op++)
			in[op] = st_load(k->in[op], host[op], c->offset + elem_offset(c, op, i));
		check_elem(k, i, st_load(k->out, out, c->offset + i), out + (c->offset + i) * osz,
		           k->ref(k, in), res);
	}
	written = calloc(total, 1);
	if (written) {
		memset(written + c->offset, 1, c->numel);
		check_guards(out, total, osz, written, res);
	}
out:
	for (int op = 0; op < 3; op++)
		free(host[op]);
	free(out);
	free(written);
}

/*
 * fill, copy2d, const_set: the expected destination buffer is built on the
 * host (poison where nothing may be written) and compared whole.
 */
static void run_region_case(struct st_device *d, struct hanzo_rocm_kernel *kh,
                            struct st_kernel *k, int which, struct st_result *res)
{
	size_t sz = st_dtype_size(k->out), total, work;
	void *src = NULL;
	uint8_t *out = NULL, *want = NULL, *written = NULL;
	struct launch l;
	int r = 0;

	memset(&l, 0, sizeof(l));
	scalars(k, &l);
	l.ptr[3] = d->scratch[3];
	if (k->shape == ST_FILL) {
		size_t off = which ? 1 : 0;            /* "offset": misaligned start */
		l.numel = work = which ? 769 : 5125;
		total = off + l.numel + GUARD;
		l.ptr[3] += off * sz;
		written = calloc(total, 1);
		if (written)
			memset(written + off, 1, l.numel);
	} else if (k->shape == ST_CONST_SET) {
		/* contig, or a strided output with holes: [37, 139] at strides {278, 2}. */
		l.numel = work = ROWS * COLS;
		total = (which ? 2 * ROWS * COLS : ROWS * COLS) + GUARD;
		written = calloc(total, 1);
		if (which) {
			l.ndims = 2;
			l.info.v[0] = ROWS;
			l.info.v[1] = COLS;
			l.info.v[8] = 2 * COLS;
			l.info.v[9] = 2;
		}
		for (size_t i = 0; written && i < l.numel; i++)
			written[which ? (i / COLS) * 2 * COLS + (i % COLS) * 2 : i] = 1;
	} else {
		/* copy2d: 37 rows of 139, dense or with row gaps (151 / 145). */
		size_t len[3] = { 0, 0, 0 };
		void *host[3] = { NULL, NULL, NULL };

		l.d1 = ROWS;
		l.d2 = COLS;
		l.sstride = which ? 151 : COLS;
		l.dstride = which ? 145 : COLS;
		work = ROWS * COLS;
		total = ROWS * l.dstride + GUARD;
		len[0] = ROWS * l.sstride;
		r = upload_inputs(d, k, host, len, which ? "strided" : "contig");
		src = host[0];
		l.ptr[0] = d->scratch[0];
		written = calloc(total, 1);
		for (size_t i = 0; written && i < work; i++)
			written[(i / COLS) * l.dstride + i % COLS] = 1;
	}
	if (r == 0)
		out = poison_out(d, total * sz, &r);
	want = malloc(total * sz);
	if (r < 0 || !written || !want) {
		fail(res, "buffers: %s", hanzo_rocm_strerror(r < 0 ? r : -ENOMEM));
		goto out;
	}
	launch_args(k, &l);
	if (run_and_fetch(d, kh, work, &l, out, total * sz, res) < 0)
		goto out;
	memset(want, 0xff, total * sz);
	for (size_t i = 0, w = 0; i < total; i++) {
		if (!written[i])
			continue;
		if (k->shape == ST_COPY2D)
			memcpy(want + i * sz, (uint8_t *)src + ((w / COLS) * l.sstride + w % COLS) * sz, sz);
		else
			memcpy(want + i * sz, l.scalar[0], sz);
		w++;
	}
	res->max_err = 0;
	for (size_t i = 0; i < total; i++) {
		if (memcmp(out + i * sz, want + i * sz, sz) != 0) {
			char g[48], w[48];

			res->max_err = INFINITY;
			fmt_val(k->out, st_load(k->out, out, i), g, sizeof(g));
			fmt_val(k->out, st_load(k->out, want, i), w, sizeof(w));
			fail(res, "element %zu%s: got %s, want %s", i,
			     written[i] ? "" : " (outside the output)", g, w);
			break;
		}
	}
out:
	free(src);
	free(out);
	free(want);
	free(written);
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

/*
 * The bandwidth inputs hold the kernel's own kind of data (sin of random
 * bits would time the slow argument reduction of huge values, not memory):
 * a tile from the family's generator, uploaded once and repeated over the
 * whole buffer on the device by the fill family's copy2d_u8 with a source
 * stride of 0.  Without the fill family the buffers keep random bytes.
 */
#define TILE 65536
static void bench_inputs(struct st_device *d, const struct st_kernel *k)
{
	size_t pool_bytes = d->bench_numel * 8;
	struct hanzo_rocm_kernel *rep;
	uint64_t rng = seed_of(k->name, "bench");
	struct launch l;
	void *tile;

	if (hanzo_rocm_kernel_get(d->ctx, d->dev, "fill", "copy2d_u8", &rep) < 0)
		return;
	tile = malloc(TILE * 8);
	if (!tile)
		return;
	memset(&l, 0, sizeof(l));
	for (int op = 0; op < k->n_in; op++) {
		size_t sz = st_dtype_size(k->in[op]);
		size_t tn = pool_bytes / sz < TILE ? pool_bytes / sz : TILE, tbytes = tn * sz;

		for (size_t i = 0; i < tn; i++)
			st_store(k->in[op], tile, i, k->gen(k, op, &rng));
		if (hr_runtime_copy_htod(d->ctx, d->dev, d->pool[op], tile, tbytes) < 0)
			break;
		l.ptr[0] = d->pool[op];
		l.ptr[3] = d->pool[op] + tbytes;
		/* tbytes > 0: pool_bytes >= 8 >= sz (--bench-size keeps it small). */
		l.d1 = pool_bytes / tbytes - 1; // NOLINT(clang-analyzer-core.UndefinedBinaryOperatorResult)
		l.d2 = l.dstride = tbytes;
		l.sstride = 0;
		l.args[0] = &l.ptr[0];
		l.args[1] = &l.ptr[3];
		l.args[2] = &l.d1;
		l.args[3] = &l.d2;
		l.args[4] = &l.sstride;
		l.args[5] = &l.dstride;
		if (l.d1 && launch(rep, l.d1 * l.d2, &l) < 0)
			break;
	}
	hr_runtime_synchronize(d->ctx, d->dev, NULL);
	free(tile);
}

static size_t max_elem_size(const struct st_kernel *k)
{
	size_t m = st_dtype_size(k->out);

	for (int op = 0; op < k->n_in; op++)
		if (st_dtype_size(k->in[op]) > m)
			m = st_dtype_size(k->in[op]);
	return m;
}

/*
 * GB/s of a contiguous run over the bandwidth pool; < 0 when not measured.
 * The element count fills the pool for the widest operand, so every dtype
 * moves about as many bytes (2^24 u8 elements would time the launch).
 */
static double bench(struct st_device *d, struct hanzo_rocm_kernel *kh, struct st_kernel *k)
{
	size_t n = d->bench_numel * 8 / max_elem_size(k), bytes = 0, work = n;
	float ms[BENCH_REPS];
	struct launch l;

	if (!d->bench_numel)
		return -1;
	bench_inputs(d, k);
	memset(&l, 0, sizeof(l));
	scalars(k, &l);
	for (int op = 0; op < 4; op++)
		l.ptr[op] = d->pool[op];
	l.numel = n;
	switch (k->shape) {
	case ST_EW:
		for (int op = 0; op < k->n_in; op++)
			bytes += n * st_dtype_size(k->in[op]);
		bytes += n * st_dtype_size(k->out);
		break;
	case ST_FILL:
	case ST_CONST_SET:
		bytes = n * st_dtype_size(k->out);
		break;
	case ST_COPY2D:
		l.d2 = l.sstride = l.dstride = 4096;
		l.d1 = n / 4096;
		work = l.d1 * l.d2;
		bytes = 2 * work * st_dtype_size(k->out);
		break;
	case ST_REDUCE:
	case ST_NORM:
	case ST_ROPE:
	case ST_INDEX:
	case ST_SORT:
	case ST_QUANT:
	case ST_CONV:
	case ST_ATTN:
	case ST_SAMPLE:
		return -1;
	}
	launch_args(k, &l);
	if (launch(kh, work, &l) < 0 ||
	    hr_runtime_synchronize(d->ctx, d->dev, NULL) < 0)
		return -1;
	for (int i = 0; i < BENCH_REPS; i++) {
		if (hr_runtime_event_record(d->ctx, d->dev, d->ev[0], NULL) < 0 ||
		    launch(kh, work, &l) < 0 ||
		    hr_runtime_event_record(d->ctx, d->dev, d->ev[1], NULL) < 0 ||
		    hr_runtime_event_elapsed(d->ctx, d->dev, d->ev[0], d->ev[1], &ms[i]) < 0)
			return -1;
	}
	qsort(ms, BENCH_REPS, sizeof(ms[0]), cmp_float);
	return ms[BENCH_REPS / 2] > 0 ? (double)bytes / (ms[BENCH_REPS / 2] * 1e-3) / 1e9 : -1;
}

int st_run_kernel(struct st_device *d, const struct st_kernel *kspec,
                  st_emit_fn emit, void *data)
{
	static const char *const region_cases[2] = { "contig", "strided" };
	static const char *const fill_cases[2] = { "contig", "offset" };
	struct st_result res[5];
	struct hanzo_rocm_kernel *kh;
	struct st_kernel k = *kspec;
	int n, failed = 0, r;

	r = hanzo_rocm_kernel_get(d->ctx, d->dev, k.family, k.name, &kh);
	if (r < 0) {
		st_result_start(&res[0], &k, "load", 0);
		fail(&res[0], "kernel_get: %s", hanzo_rocm_strerror(r));
		emit(data, &res[0]);
		return 1;
	}
	if (k.run)              /* row-wise families: their own cases */
		return k.run(d, &k, kh, emit, data);
	if (k.shape == ST_EW) {
		n = (int)(sizeof(ew_cases) / sizeof(ew_cases[0]));
		for (int c = 0; c < n; c++) {
			st_result_start(&res[c], &k, ew_cases[c].name, ew_cases[c].numel);
			run_ew_case(d, kh, &k, &ew_cases[c], &res[c]);
		}
	} else {
		n = 2;
		for (int c = 0; c < n; c++) {
			const char *name = k.shape == ST_FILL ? fill_cases[c] : region_cases[c];

			st_result_start(&res[c], &k, name, k.shape == ST_FILL && c ? 769 :
			            k.shape == ST_FILL ? 5125 : ROWS * COLS);
			run_region_case(d, kh, &k, c, &res[c]);
		}
	}
	res[0].gbps = bench(d, kh, &k);
	for (int c = 0; c < n; c++) {
		failed += !res[c].ok;
		emit(data, &res[c]);
	}
	return failed;
}
