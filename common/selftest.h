/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hanzo-rocm selftest: every kernel of every family against a float64 CPU
 * reference.  A family file (selftest-<family>.c) turns a kernel name into
 * a struct st_kernel: dtypes, argument order, input generator, reference
 * and comparison rule.  The generic driver (selftest-run.c) builds the
 * inputs and layouts of each case, launches, and compares.
 */
#ifndef HR_SELFTEST_H
#define HR_SELFTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hanzo-rocm.h"
#include "selftest-families.h"

enum st_dtype { ST_F32, ST_F64, ST_F16, ST_BF16, ST_U8, ST_U32, ST_I64, ST_NDTYPES };

/* One element on the host: float dtypes in f (exact), integers in u
 * (i64 as two's complement bits). */
struct st_val {
	double f;
	uint64_t u;
};

/* Parses "f32"… at s (whole string); -EINVAL otherwise. */
int st_dtype_parse(const char *s, enum st_dtype *dt);
const char *st_dtype_name(enum st_dtype dt);
size_t st_dtype_size(enum st_dtype dt);
bool st_dtype_is_float(enum st_dtype dt);

/* Host conversions, round to nearest even; NaN stays NaN. */
uint16_t st_f32_to_f16(float f);
float st_f16_to_f32(uint16_t h);
uint16_t st_f32_to_bf16(float f);
float st_bf16_to_f32(uint16_t b);

/* Element i of a host buffer of dtype dt.  Stores of floats round through
 * float for f16/bf16 (the kernels' rule); integer stores keep the low bits. */
struct st_val st_load(enum st_dtype dt, const void *buf, size_t i);
void st_store(enum st_dtype dt, void *buf, size_t i, struct st_val v);
/* A float value as st_val (u is left 0); an integer one (f = its value). */
struct st_val st_fv(double f);
struct st_val st_iv(int64_t i);

/* xorshift64*: deterministic, seeded per kernel so runs are reproducible. */
uint64_t st_rand(uint64_t *s);
/* Uniform in [lo, hi), never exactly 0. */
double st_uniform(uint64_t *s, double lo, double hi);

struct st_device;
struct st_result;

enum st_shape {
	ST_EW,          /* (numel, num_dims, info, ...): strided inputs, contiguous out */
	ST_FILL,        /* fill_T(buf, value, numel) */
	ST_COPY2D,      /* copy2d_T(src, dst, d1, d2, src_stride, dst_stride) */
	ST_CONST_SET,   /* const_set_T(numel, num_dims, info, value, out): strided out */
	/* Row-wise families: the family's run hook builds and checks its cases. */
	ST_REDUCE,      /* fast_OP_T(numel, el, num_dims, info, src, dst) + split/finish */
	ST_NORM,        /* softmax/rmsnorm/layernorm/add_rmsnorm: one block per row */
	ST_ROPE,        /* rope_i/rope/rope_thd/rope_pos/rope_i_pos */
	ST_INDEX,       /* is/gather/ia/s/sa: ids and data along one dim */
	ST_SORT,        /* asort_{asc,desc}[_wide]_T: argsort per row */
	ST_QUANT,       /* quantized: ggml blocks, dequantize, mat-vec */
	ST_CONV,        /* conv: convolutions, im2col, pooling, upsampling */
	ST_ATTN,        /* attention: KV-cache write, paged decode, varlen prefill */
	ST_SAMPLE,      /* sampling: sample_T (filters + Philox), topk_T */
};

enum st_arg {
	ST_ARG_NUMEL, ST_ARG_NDIMS, ST_ARG_INFO,
	ST_ARG_IN0, ST_ARG_IN1, ST_ARG_IN2, ST_ARG_OUT,
	ST_ARG_SCALAR0, ST_ARG_SCALAR1,
};

enum st_cmp {
	ST_CMP_EXACT,   /* bit-exact (any NaN matches any NaN) */
	ST_CMP_TOL,     /* |got - ref| <= tol * max(1, |ref|), NaN only where ref is NaN */
};

#define ST_MAX_ARGS 10

struct st_kernel {
	char name[64];
	const char *family;
	enum st_shape shape;
	int op;                         /* family-private operation code */
	int n_in;
	enum st_dtype in[3], out;
	/* Scalar arguments (of dtype scalar_dt), rounded to that dtype before
	 * the reference sees them. */
	int n_scalar;
	enum st_dtype scalar_dt;
	struct st_val scalar[2];
	enum st_arg args[ST_MAX_ARGS];
	int n_args;
	enum st_cmp cmp;
	double tol;
	/* Input operand k's next value (stored into in[k], then read back). */
	struct st_val (*gen)(const struct st_kernel *k, int operand, uint64_t *rng);
	/* The reference of one element: double for ST_CMP_TOL (in ref->f), or the
	 * exact value of dtype out.  Unused for fill shapes. */
	struct st_val (*ref)(const struct st_kernel *k, const struct st_val *in);
	/* Row-wise shapes (ST_REDUCE, ST_NORM, ST_ROPE): runs every case of
	 * the kernel (kh is the loaded kernel, or the first of several for
	 * the reduce family's two-pass form); returns the failed rows. */
	int (*run)(struct st_device *d, const struct st_kernel *k,
	           struct hanzo_rocm_kernel *kh,
	           void (*emit)(void *data, const struct st_result *r), void *data);
};

/* Tolerance of a float dtype (doc/KERNELS.md): f32 1e-5, f16 1e-3, bf16 1.6e-2;
 * f64 1e-12; 0 for integers. */
double st_tolerance(enum st_dtype dt);

/*
 * Family planners: fill k from a kernel name; -ENOENT when the name is not
 * one this selftest knows (reported, counted as a failure: a kernel without
 * a reference is untested).
 */
#define ST_DECLARE_PLAN(f) int st_plan_##f(const char *name, struct st_kernel *k);
ST_FAMILIES(ST_DECLARE_PLAN)
#undef ST_DECLARE_PLAN
/* -ENOPKG: a family this selftest knows nothing of (a third-party one:
 * reported as skipped, not failed); -ENOENT: a kernel of a known family
 * without a reference. */
int st_plan(const char *family, const char *name, struct st_kernel *k);
/* The families of plugins/families, in its order: the i-th, NULL past the end. */
const char *st_family(size_t i);

/* Helpers for the planners. */
/* "<prefix><dtype>" -> dtype; false if name does not have that shape. */
bool st_name_dtype(const char *name, const char *prefix, enum st_dtype *dt);
void st_args(struct st_kernel *k, int n, ...);

/* One row of results. */
struct st_result {
	const char *kernel;
	const char *family;
	const char *casename;
	size_t numel;
	double max_err;                 /* NaN when nothing was compared */
	double tol;
	double gbps;                    /* < 0 when not measured */
	bool ok;
	char why[160];                  /* when !ok: what failed */
};

struct st_device;
/* Per-device state (scratch buffers for the bandwidth runs). */
int st_device_new(struct hanzo_rocm *ctx, unsigned device, size_t bench_numel,
                  struct st_device **ret);
void st_device_free(struct st_device *d);

/*
 * Runs every case of kernel k; calls emit for each row.  Returns the
 * number of failed rows.
 */
typedef void (*st_emit_fn)(void *data, const struct st_result *r);
int st_run_kernel(struct st_device *d, const struct st_kernel *k,
                  st_emit_fn emit, void *data);

/*
 * Helpers of the row-wise families (selftest-rows.c): device buffers of
 * any size (the driver's scratch is for element-wise cases), a launch with
 * the kernel's own geometry, and the comparison rules of the driver.
 */
struct hanzo_rocm *st_device_ctx(struct st_device *d);
unsigned st_device_index(struct st_device *d);
/* A device buffer of `bytes` (+ guard bytes of poison, 0xff, after it);
 * with host != NULL its first `bytes` are host's. */
#define ST_GUARD_BYTES 64
int st_dbuf_new(struct st_device *d, const void *host, size_t bytes, uint64_t *ptr);
int st_dbuf_get(struct st_device *d, uint64_t ptr, void *host, size_t bytes);
void st_dbuf_free(struct st_device *d, uint64_t ptr);
/* Launch and wait (with `shared` bytes of dynamic shared memory); a
 * failure is recorded in res. */
int st_launch_sync(struct st_device *d, struct hanzo_rocm_kernel *kh, unsigned gx,
                   unsigned gy, unsigned bx, void **args, struct st_result *res);
int st_launch_shared(struct st_device *d, struct hanzo_rocm_kernel *kh, unsigned gx,
                     unsigned gy, unsigned bx, unsigned shared, void **args,
                     struct st_result *res);
/* Launch by work (hanzo_rocm_kernel_launch_work: the library's geometry),
 * then wait; failures are recorded in res. */
int st_launch_work(struct st_device *d, struct hanzo_rocm_kernel *kh, uint64_t rows,
                   uint64_t cols, void **args, struct st_result *res);
void st_result_start(struct st_result *res, const struct st_kernel *k,
                     const char *casename, size_t numel);
void st_fail(struct st_result *res, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Element i of dtype dt at got against a double reference within tol
 * (|d| <= tol * max(1, |ref|); NaN only where ref is NaN, inf exactly). */
void st_check_float(enum st_dtype dt, double tol, size_t i, const void *got, double want,
                    struct st_result *res);
/* The bytes in [from, to) still hold the poison (0xff). */
void st_check_poison(const void *buf, size_t from, size_t to, struct st_result *res);

#endif
