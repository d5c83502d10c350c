// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * affine family: out[i] = inp[offset(i)] * mul + add (candle's argument
 * order).  Strided/broadcast input (strides of operand 0, num_dims == 0 =
 * contiguous), contiguous output; in-place use is allowed.
 *
 *   affine_T(size_t numel, size_t num_dims, hr_layout info,
 *            const T *inp, T *out, T mul, T add)
 *
 * f16/bf16 compute in float; integers wrap modulo 2^bits.
 */
#include "hr-kernel.h"

template <typename C>
struct op_affine {
	C mul, add;
	HR_INLINE C operator()(C x) const { return x * mul + add; }
};

/* Signed overflow is undefined in C++: do the arithmetic unsigned. */
template <>
struct op_affine<int64_t> {
	int64_t mul, add;
	HR_INLINE int64_t operator()(int64_t x) const
	{
		return (int64_t)((uint64_t)x * (uint64_t)mul + (uint64_t)add);
	}
};

/* uint8_t would promote to int; keep the result modulo 256. */
template <>
struct op_affine<uint8_t> {
	uint8_t mul, add;
	HR_INLINE uint8_t operator()(uint8_t x) const
	{
		return (uint8_t)((uint32_t)x * mul + add);
	}
};

/* op on the compute type, wrapped to map storage T -> T. */
template <typename T>
struct store_op {
	const op_affine<typename hr_compute<T>::type> &op;
	HR_INLINE store_op(const op_affine<typename hr_compute<T>::type> &o) : op(o) {}
	HR_INLINE T operator()(T x) const { return hr_from_compute<T>(op(hr_to_compute(x))); }
};

template <typename T>
HR_DEVICE void affine_map(uint64_t numel, uint64_t num_dims, const hr_layout &info,
			  const T *inp, T *out, T mul, T add)
{
	if (!hr_dims_ok(num_dims))
		return;
	typedef typename hr_compute<T>::type C;
	const op_affine<C> op = { hr_to_compute(mul), hr_to_compute(add) };
	const uint64_t *dims = HR_DIMS(info), *strides = HR_STRIDES(info, 0);

	if (num_dims == 0 || hr_is_contiguous(num_dims, dims, strides)) {
		hr_map_contiguous(numel, inp, out, store_op<T>(op));
	} else {
		hr_map_strided(numel, num_dims, dims, strides, inp, out, store_op<T>(op));
	}
}

#define AFFINE(T, SUF) \
	HR_KERNEL void affine_##SUF(size_t numel, size_t num_dims, HR_LAYOUT_PARAM(info), \
				    const T *inp, T *out, T mul, T add) \
	{ \
		affine_map<T>(numel, num_dims, info, inp, out, mul, add); \
	}

AFFINE(float, f32)
AFFINE(double, f64)
AFFINE(hr_f16, f16)
AFFINE(hr_bf16, bf16)
AFFINE(uint8_t, u8)
AFFINE(uint32_t, u32)
AFFINE(int64_t, i64)
