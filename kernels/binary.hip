/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * binary - element-wise operations on two tensors of one dtype.
 *
 *   b{add,sub,mul,div,maximum,minimum}_T  T in f32 f64 f16 bf16 u8 u32 i64
 *   {eq,ne,lt,le,gt,ge}_T                 same dtypes, output u8 (0 or 1)
 *   silu_mul_T                            silu(lhs) * rhs, T in f32 f64 f16 bf16
 *
 * Signature (candle's, with the layout by value):
 *   (size_t numel, size_t num_dims, hr_layout info,
 *    const T *lhs, const T *rhs, OUT *out)
 * info: v[0..8) dims, v[8..16) lhs strides, v[16..24) rhs strides (elements,
 * 0 = broadcast); num_dims == 0 means both inputs are contiguous.  The output
 * is always contiguous; it may be one of the inputs when that input is
 * contiguous too (in place).
 *
 * Semantics the CPU reference must share:
 *  - f16/bf16 are computed in float and rounded once (RNE) on store;
 *  - integers wrap (two's complement, done in unsigned arithmetic), and
 *    integer x / 0 == 0; i64 INT64_MIN / -1 == INT64_MIN (wraps) - no traps;
 *  - bmaximum/bminimum propagate NaN from either side (as torch.maximum);
 *  - comparisons follow IEEE: any comparison with NaN is 0, except ne (1).
 */
#include "hr-kernel.h"

/* ------------------------------------------------------------------ */
/* Operations on the compute type (float for f16/bf16)                  */
/* ------------------------------------------------------------------ */
#define BIN_FN __device__ __forceinline__

struct op_add {
	template <typename C> BIN_FN C operator()(C a, C b) const { return a + b; }
	BIN_FN int64_t operator()(int64_t a, int64_t b) const
	{
		return (int64_t)((uint64_t)a + (uint64_t)b);
	}
};

struct op_sub {
	template <typename C> BIN_FN C operator()(C a, C b) const { return a - b; }
	BIN_FN int64_t operator()(int64_t a, int64_t b) const
	{
		return (int64_t)((uint64_t)a - (uint64_t)b);
	}
};

struct op_mul {
	template <typename C> BIN_FN C operator()(C a, C b) const { return a * b; }
	/* Keep u8 products unsigned rather than relying on int promotion. */
	BIN_FN uint8_t operator()(uint8_t a, uint8_t b) const
	{
		return (uint8_t)((unsigned)a * (unsigned)b);
	}
	BIN_FN int64_t operator()(int64_t a, int64_t b) const
	{
		return (int64_t)((uint64_t)a * (uint64_t)b);
	}
};

struct op_div {
	BIN_FN float operator()(float a, float b) const { return a / b; }
	BIN_FN double operator()(double a, double b) const { return a / b; }
	/* Integer division by zero is defined as 0: no trap, no UB. */
	BIN_FN uint8_t operator()(uint8_t a, uint8_t b) const
	{
		return b ? (uint8_t)(a / b) : (uint8_t)0;
	}
	BIN_FN uint32_t operator()(uint32_t a, uint32_t b) const
	{
		return b ? a / b : 0u;
	}
	BIN_FN int64_t operator()(int64_t a, int64_t b) const
	{
		if (b == 0)
			return 0;
		if (b == -1)   /* INT64_MIN / -1 overflows: wrap instead */
			return (int64_t)(0u - (uint64_t)a);
		return a / b;
	}
};

struct op_maximum {
	template <typename C> BIN_FN C operator()(C a, C b) const { return hr_max(a, b); }
};

struct op_minimum {
	template <typename C> BIN_FN C operator()(C a, C b) const { return hr_min(a, b); }
};

/* silu(a) * b = a / (1 + e^-a) * b; exact expf/exp, not the fast intrinsics. */
struct op_silu_mul {
	template <typename C> BIN_FN C operator()(C a, C b) const
	{
		return a / ((C)1 + hr_exp(-a)) * b;
	}
};

struct op_eq { template <typename C> BIN_FN bool operator()(C a, C b) const { return a == b; } };
struct op_ne { template <typename C> BIN_FN bool operator()(C a, C b) const { return a != b; } };
struct op_lt { template <typename C> BIN_FN bool operator()(C a, C b) const { return a < b; } };
struct op_le { template <typename C> BIN_FN bool operator()(C a, C b) const { return a <= b; } };
struct op_gt { template <typename C> BIN_FN bool operator()(C a, C b) const { return a > b; } };
struct op_ge { template <typename C> BIN_FN bool operator()(C a, C b) const { return a >= b; } };

/* Storage -> compute -> storage around an arithmetic op (result dtype T). */
template <typename T, typename Op>
struct arith {
	BIN_FN T operator()(T a, T b) const
	{
		typedef typename hr_compute<T>::type C;
		return hr_from_compute<T>((C)Op()(hr_to_compute(a), hr_to_compute(b)));
	}
};

/* ... and around a predicate (result u8). */
template <typename T, typename Op>
struct predicate {
	BIN_FN uint8_t operator()(T a, T b) const
	{
		return Op()(hr_to_compute(a), hr_to_compute(b)) ? 1 : 0;
	}
};

/* ------------------------------------------------------------------ */
/* Index mapping                                                        */
/* ------------------------------------------------------------------ */
/*
 * An operand whose strides are row-major contiguous over its innermost
 * dims and 0 over the rest (a bias row broadcast over a batch, or a fully
 * contiguous operand) is read at i % period: one division instead of one
 * per dim.  Returns that period, or 0 when the layout is more general.
 */
HR_DEVICE uint64_t row_period(uint64_t num_dims, const uint64_t *dims,
			      const uint64_t *strides)
{
	uint64_t acc = 1;
	uint64_t d = num_dims;
	while (d > 0 && (dims[d - 1] == 1 || strides[d - 1] == acc)) {
		acc *= dims[d - 1];
		d--;
	}
	for (; d > 0; d--)
		if (dims[d - 1] != 1 && strides[d - 1] != 0)
			return 0;
	return acc;
}

HR_DEVICE uint64_t period_offset(uint64_t i, uint64_t period, uint64_t numel)
{
	uint64_t r;
	if (period >= numel)
		return i;
	hr_divmod(i, period, &r);
	return r;
}

/* ------------------------------------------------------------------ */
/* Contiguous and row-broadcast path: 16-byte vector loads and stores  */
/* ------------------------------------------------------------------ */
/* Vectors: hr_vecn and hr_aligned_to (hr-kernel.h). */
/*
 * out[i] = f(lhs[i % lp], rhs[i % rp]): contiguous operands (period >=
 * numel, no division) and row broadcasts.  N elements per vector: 16 bytes
 * of the wider of input and output.  When a pointer is not aligned to the
 * vector (the host may pre-apply odd element offsets) or a period is not a
 * multiple of N, everything takes the scalar loop.
 */
template <typename T, typename R, typename F>
HR_DEVICE void binary_periodic(uint64_t numel, uint64_t lp, uint64_t rp,
			       const T *lhs, const T *rhs, R *out)
{
	constexpr int N = HR_VEC_BYTES / (sizeof(T) > sizeof(R) ? sizeof(T) : sizeof(R));
	const F f;
	uint64_t done = 0;

	if (hr_aligned_to(lhs, sizeof(T) * N) && hr_aligned_to(rhs, sizeof(T) * N) &&
	    hr_aligned_to(out, sizeof(R) * N) &&
	    (lp >= numel || lp % N == 0) && (rp >= numel || rp % N == 0)) {
		const hr_vecn<T, N> *l = (const hr_vecn<T, N> *)lhs;
		const hr_vecn<T, N> *r = (const hr_vecn<T, N> *)rhs;
		hr_vecn<R, N> *o = (hr_vecn<R, N> *)out;
		HR_GRID_STRIDE_LOOP(k, numel / N) {
			/* k * N is a multiple of N, and so is its remainder. */
			hr_vecn<T, N> a = l[period_offset(k * N, lp, numel) / N];
			hr_vecn<T, N> b = r[period_offset(k * N, rp, numel) / N];
			hr_vecn<R, N> c;
#pragma unroll
			for (int j = 0; j < N; j++)
				c.v[j] = f(a.v[j], b.v[j]);
			o[k] = c;
		}
		done = numel / N * N;
	}
	for (uint64_t i = done + hr_global_id(); i < numel; i += hr_global_size())
		out[i] = f(lhs[period_offset(i, lp, numel)],
			   rhs[period_offset(i, rp, numel)]);
}

/*
 * Sliced views (see hr_rows_vectorizable): one offset computation and one
 * vector access per operand per N elements.  Returns false, having done
 * nothing, when the layout or the pointers do not allow it.
 */
template <typename T, typename R, typename F>
HR_DEVICE bool binary_rows(uint64_t numel, uint64_t num_dims, const uint64_t *dims,
			   const uint64_t *ls, const uint64_t *rs,
			   const T *lhs, const T *rhs, R *out)
{
	constexpr int N = HR_VEC_BYTES / (sizeof(T) > sizeof(R) ? sizeof(T) : sizeof(R));
	const F f;

	if (sizeof(T) > 4 || !hr_aligned_to(lhs, sizeof(T) * N) ||
	    !hr_aligned_to(rhs, sizeof(T) * N) || !hr_aligned_to(out, sizeof(R) * N) ||
	    !hr_rows_vectorizable(num_dims, dims, ls, N) ||
	    !hr_rows_vectorizable(num_dims, dims, rs, N))
		return false;
	HR_GRID_STRIDE_LOOP(k, numel / N) {
		uint64_t o[2];
		hr_strided_offsets<2>(k * N, num_dims, dims, { ls, rs }, o);
		hr_vecn<T, N> a = *(const hr_vecn<T, N> *)(lhs + o[0]);
		hr_vecn<T, N> b = *(const hr_vecn<T, N> *)(rhs + o[1]);
		hr_vecn<R, N> c;
#pragma unroll
		for (int j = 0; j < N; j++)
			c.v[j] = f(a.v[j], b.v[j]);
		((hr_vecn<R, N> *)out)[k] = c;
	}
	return true;
}

/* ------------------------------------------------------------------ */
/* The map: periodic (contiguous, row broadcast) path, general path    */
/* ------------------------------------------------------------------ */
template <typename T, typename R, typename F>
HR_DEVICE void binary_map(uint64_t numel, uint64_t num_dims,
			  const hr_layout &info, const T *lhs, const T *rhs,
			  R *out)
{
	if (!hr_dims_ok(num_dims))
		return;
	const F f;
	const uint64_t *dims = HR_DIMS(info);
	const uint64_t *ls = HR_STRIDES(info, 0);
	const uint64_t *rs = HR_STRIDES(info, 1);
	/* Uniform across the grid: every thread takes the same branch. */
	uint64_t lp = numel, rp = numel;
	if (num_dims != 0) {
		lp = row_period(num_dims, dims, ls);
		rp = row_period(num_dims, dims, rs);
	}

	if (lp && rp) {
		binary_periodic<T, R, F>(numel, lp, rp, lhs, rhs, out);
	} else if (binary_rows<T, R, F>(numel, num_dims, dims, ls, rs, lhs, rhs, out)) {
		/* done: sliced views, 16-byte accesses */
	} else {
		HR_GRID_STRIDE_LOOP(i, numel) {
			uint64_t o[2];
			hr_strided_offsets<2>(i, num_dims, dims, { ls, rs }, o);
			out[i] = f(lhs[o[0]], rhs[o[1]]);
		}
	}
}

/* ------------------------------------------------------------------ */
/* Entry points                                                         */
/* ------------------------------------------------------------------ */
/* F names a functor template: arith (result T) or predicate (result u8). */
#define HR_BINARY(NAME, T, R, F, OP) \
	HR_KERNEL void NAME(size_t numel, size_t num_dims, HR_LAYOUT_PARAM(info), \
			    const T *lhs, const T *rhs, R *out) \
	{ \
		binary_map<T, R, F<T, OP> >(numel, num_dims, info, lhs, rhs, out); \
	}

#define HR_ARITH(OP, SUFFIX, T) HR_BINARY(b##OP##_##SUFFIX, T, T, arith, op_##OP)
#define HR_CMP(OP, SUFFIX, T) HR_BINARY(OP##_##SUFFIX, T, uint8_t, predicate, op_##OP)

#define HR_ALL_OPS(SUFFIX, T) \
	HR_ARITH(add, SUFFIX, T) \
	HR_ARITH(sub, SUFFIX, T) \
	HR_ARITH(mul, SUFFIX, T) \
	HR_ARITH(div, SUFFIX, T) \
	HR_ARITH(maximum, SUFFIX, T) \
	HR_ARITH(minimum, SUFFIX, T) \
	HR_CMP(eq, SUFFIX, T) \
	HR_CMP(ne, SUFFIX, T) \
	HR_CMP(lt, SUFFIX, T) \
	HR_CMP(le, SUFFIX, T) \
	HR_CMP(gt, SUFFIX, T) \
	HR_CMP(ge, SUFFIX, T)

#define HR_SILU_MUL(SUFFIX, T) \
	HR_BINARY(silu_mul_##SUFFIX, T, T, arith, op_silu_mul)

HR_ALL_OPS(f32, float)
HR_ALL_OPS(f64, double)
HR_ALL_OPS(f16, hr_f16)
HR_ALL_OPS(bf16, hr_bf16)
HR_ALL_OPS(u8, uint8_t)
HR_ALL_OPS(u32, uint32_t)
HR_ALL_OPS(i64, int64_t)

HR_SILU_MUL(f32, float)
HR_SILU_MUL(f64, double)
HR_SILU_MUL(f16, hr_f16)
HR_SILU_MUL(bf16, hr_bf16)
