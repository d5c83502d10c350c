// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fill family: buffer initialisation and 2-D copies, every dtype.
 *
 *   fill_T(T *buf, T value, size_t numel)
 *   copy2d_T(const T *src, T *dst, size_t d1, size_t d2,
 *            size_t src_stride, size_t dst_stride)
 *       d1 rows of d2 elements; row r starts at src + r * src_stride and
 *       dst + r * dst_stride (strides in elements)
 *   const_set_T(size_t numel, size_t num_dims, hr_layout info, T value, T *out)
 *       strided output (strides of operand 0, num_dims == 0 = contiguous)
 *
 * These only move bits, so f16/bf16 need no conversion.
 */
#include "hr-kernel.h"

template <typename T>
HR_DEVICE void fill_map(T *buf, T value, uint64_t numel)
{
	hr_fill_contiguous(numel, buf, value);
}

template <typename T>
HR_DEVICE void copy2d_map(const T *src, T *dst, uint64_t d1, uint64_t d2,
			  uint64_t src_stride, uint64_t dst_stride)
{
	/* d1 * d2 is the element count of a real buffer: it cannot wrap. */
	HR_GRID_STRIDE_LOOP(i, d1 * d2) {
		uint64_t col, row = hr_divmod(i, d2, &col);

		dst[row * dst_stride + col] = src[row * src_stride + col];
	}
}

template <typename T>
HR_DEVICE void const_set_map(uint64_t numel, uint64_t num_dims, const hr_layout &info,
			     T value, T *out)
{
	if (!hr_dims_ok(num_dims))
		return;
	const uint64_t *dims = HR_DIMS(info), *strides = HR_STRIDES(info, 0);

	if (num_dims == 0 || hr_is_contiguous(num_dims, dims, strides)) {
		hr_fill_contiguous(numel, out, value);
	} else {
		HR_GRID_STRIDE_LOOP(i, numel)
			out[hr_strided_offset(i, num_dims, dims, strides)] = value;
	}
}

#define FILL(T, SUF) \
	HR_KERNEL void fill_##SUF(T *buf, T value, size_t numel) \
	{ \
		fill_map<T>(buf, value, numel); \
	} \
	HR_KERNEL void copy2d_##SUF(const T *src, T *dst, size_t d1, size_t d2, \
				    size_t src_stride, size_t dst_stride) \
	{ \
		copy2d_map<T>(src, dst, d1, d2, src_stride, dst_stride); \
	} \
	HR_KERNEL void const_set_##SUF(size_t numel, size_t num_dims, HR_LAYOUT_PARAM(info), \
				       T value, T *out) \
	{ \
		const_set_map<T>(numel, num_dims, info, value, out); \
	}

FILL(float, f32)
FILL(double, f64)
FILL(hr_f16, f16)
FILL(hr_bf16, bf16)
FILL(uint8_t, u8)
FILL(uint32_t, u32)
FILL(int64_t, i64)
