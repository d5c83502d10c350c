// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * unary family: out[i] = op(inp[offset(i)]).  The input may be strided or
 * broadcast (hr_layout strides of operand 0, num_dims == 0 = contiguous);
 * the output is always contiguous.  f16/bf16 compute in float.
 *
 *   u<op>_T(size_t numel, size_t num_dims, hr_layout info, const T *inp, T *out)
 *   uelu_T (..., T alpha, const T *inp, T *out)
 *   upowf_T(..., T exponent, const T *inp, T *out)
 *
 * In-place use (out == inp, contiguous) is allowed: each element is read
 * before it is written, by the same thread.  inp == NULL is in place on
 * out, whatever the layout (candle's `x = inp ? inp[strided_i] : out[i]`).
 */
#include "hr-kernel.h"

/* op on the compute type, wrapped to map storage T -> T. */
template <typename T, typename Op>
struct store_op {
	const Op &op;
	HR_INLINE store_op(const Op &o) : op(o) {}
	HR_INLINE T operator()(T x) const { return hr_from_compute<T>(op(hr_to_compute(x))); }
};

/* The element loop shared by every unary kernel. */
template <typename T, typename Op>
HR_DEVICE void unary_map(uint64_t numel, uint64_t num_dims, const hr_layout &info,
			 const T *inp, T *out, const Op &op)
{
	if (!hr_dims_ok(num_dims))
		return;
	const uint64_t *dims = HR_DIMS(info), *strides = HR_STRIDES(info, 0);

	if (!inp) {
		hr_map_contiguous(numel, out, out, store_op<T, Op>(op));
	} else if (num_dims == 0 || hr_is_contiguous(num_dims, dims, strides)) {
		hr_map_contiguous(numel, inp, out, store_op<T, Op>(op));
	} else {
		hr_map_strided(numel, num_dims, dims, strides, inp, out, store_op<T, Op>(op));
	}
}

/* Stable logistic: exp() only of a non-positive number, never overflows. */
template <typename C>
HR_DEVICE C sigmoid(C x)
{
	C e = hr_exp(-hr_fabs(x));
	C r = C(1) / (C(1) + e);

	return x >= C(0) ? r : e * r;
}

/* Float operations, C = float (also for f16/bf16) or double. */
#define FLOAT_OP(name, expr) \
	struct op_##name { \
		template <typename C> HR_INLINE C operator()(C x) const { return (expr); } \
	};

FLOAT_OP(copy, x)
FLOAT_OP(neg, -x)
FLOAT_OP(recip, C(1) / x)
FLOAT_OP(exp, hr_exp(x))
FLOAT_OP(log, hr_log(x))
FLOAT_OP(sin, hr_sin(x))
FLOAT_OP(cos, hr_cos(x))
FLOAT_OP(tanh, hr_tanh(x))
FLOAT_OP(erf, hr_erf(x))
FLOAT_OP(ceil, hr_ceil(x))
FLOAT_OP(floor, hr_floor(x))
FLOAT_OP(round, hr_round(x))
FLOAT_OP(normcdf, hr_normcdf(x))
FLOAT_OP(abs, hr_fabs(x))
FLOAT_OP(sqr, x * x)
FLOAT_OP(sqrt, hr_sqrt(x))
/* tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
FLOAT_OP(gelu, C(0.5) * x *
	 (C(1) + hr_tanh(C(0.79788456080286535588) * (x + C(0.044715) * x * x * x))))
/* exact: x * Phi(x); normcdf avoids the cancellation of 1 + erf(x/sqrt2) */
FLOAT_OP(gelu_erf, x * hr_normcdf(x))
FLOAT_OP(relu, x > C(0) ? x : C(0))
FLOAT_OP(silu, x * sigmoid(x))
FLOAT_OP(sign, C((x > C(0)) - (x < C(0))))
FLOAT_OP(sigmoid, sigmoid(x))
#undef FLOAT_OP

/* Signed-integer operations wrap (two's complement) instead of overflowing. */
#define INT_OP(name, expr) \
	struct iop_##name { \
		HR_INLINE int64_t operator()(int64_t x) const \
		{ \
			uint64_t u = (uint64_t)x; \
			return (int64_t)(expr); \
		} \
	};

INT_OP(neg, 0 - u)
INT_OP(abs, x < 0 ? 0 - u : u)
INT_OP(sqr, u * u)
#undef INT_OP

struct iop_sign {
	HR_INLINE int64_t operator()(int64_t x) const { return (x > 0) - (x < 0); }
};

/* x >= 0 ? x : alpha (e^x - 1); expm1 keeps precision near 0. */
template <typename C>
struct op_elu {
	C alpha;
	HR_INLINE C operator()(C x) const { return x >= C(0) ? x : alpha * hr_expm1(x); }
};

template <typename C>
struct op_powf {
	C e;
	HR_INLINE C operator()(C x) const { return hr_pow(x, e); }
};

#define UNARY(OP, FUNCTOR, T, SUF) \
	HR_KERNEL void OP##_##SUF(size_t numel, size_t num_dims, HR_LAYOUT_PARAM(info), \
				  const T *inp, T *out) \
	{ \
		unary_map<T>(numel, num_dims, info, inp, out, FUNCTOR()); \
	}

#define UNARY_FLOATS(OP, FUNCTOR) \
	UNARY(OP, FUNCTOR, float, f32) \
	UNARY(OP, FUNCTOR, double, f64) \
	UNARY(OP, FUNCTOR, hr_f16, f16) \
	UNARY(OP, FUNCTOR, hr_bf16, bf16)

UNARY_FLOATS(ucopy, op_copy)
UNARY_FLOATS(uneg, op_neg)
UNARY_FLOATS(urecip, op_recip)
UNARY_FLOATS(uexp, op_exp)
UNARY_FLOATS(ulog, op_log)
UNARY_FLOATS(usin, op_sin)
UNARY_FLOATS(ucos, op_cos)
UNARY_FLOATS(utanh, op_tanh)
UNARY_FLOATS(uerf, op_erf)
UNARY_FLOATS(uceil, op_ceil)
UNARY_FLOATS(ufloor, op_floor)
UNARY_FLOATS(uround, op_round)
UNARY_FLOATS(unormcdf, op_normcdf)
UNARY_FLOATS(uabs, op_abs)
UNARY_FLOATS(usqr, op_sqr)
UNARY_FLOATS(usqrt, op_sqrt)
UNARY_FLOATS(ugelu, op_gelu)
UNARY_FLOATS(ugelu_erf, op_gelu_erf)
UNARY_FLOATS(urelu, op_relu)
UNARY_FLOATS(usilu, op_silu)
UNARY_FLOATS(usign, op_sign)
UNARY_FLOATS(usigmoid, op_sigmoid)

/* Integer copies (dtype-preserving strided -> contiguous copy). */
UNARY(ucopy, op_copy, uint8_t, u8)
UNARY(ucopy, op_copy, uint32_t, u32)
UNARY(ucopy, op_copy, int64_t, i64)
UNARY(uneg, iop_neg, int64_t, i64)
UNARY(uabs, iop_abs, int64_t, i64)
UNARY(usqr, iop_sqr, int64_t, i64)
UNARY(usign, iop_sign, int64_t, i64)

/* Parameterised ops: the scalar travels as T and is widened once. */
#define UNARY_PARAM(OP, FUNCTOR, PARAM, T, SUF) \
	HR_KERNEL void OP##_##SUF(size_t numel, size_t num_dims, HR_LAYOUT_PARAM(info), \
				  T PARAM, const T *inp, T *out) \
	{ \
		FUNCTOR<hr_compute<T>::type> op = { hr_to_compute(PARAM) }; \
		unary_map<T>(numel, num_dims, info, inp, out, op); \
	}

#define UNARY_PARAM_FLOATS(OP, FUNCTOR, PARAM) \
	UNARY_PARAM(OP, FUNCTOR, PARAM, float, f32) \
	UNARY_PARAM(OP, FUNCTOR, PARAM, double, f64) \
	UNARY_PARAM(OP, FUNCTOR, PARAM, hr_f16, f16) \
	UNARY_PARAM(OP, FUNCTOR, PARAM, hr_bf16, bf16)

UNARY_PARAM_FLOATS(uelu, op_elu, alpha)
UNARY_PARAM_FLOATS(upowf, op_powf, exponent)
