/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ternary - element-wise select.
 *
 *   where_<I>_<T>(size_t numel, size_t num_dims, hr_layout info,
 *                 const I *ids, const T *t, const T *f, T *out)
 *   I in u8 u32 i64; T in f32 f64 f16 bf16 u8 u32 i64 (21 kernels)
 *
 * out[i] = ids[i] != 0 ? t[i] : f[i], bit-exact (values are copied, never
 * converted).  info: v[0..8) dims, v[8..16) ids strides, v[16..24) t strides,
 * v[24..32) f strides (elements, 0 = broadcast); num_dims == 0 means every
 * input is contiguous.  The output is contiguous.  Only the selected one of
 * t and f is read.
 */
#include "hr-kernel.h"

/* Offsets of linear index i in all three operands, one decomposition. */
HR_DEVICE void offsets3(uint64_t i, uint64_t num_dims, const hr_layout &info,
			uint64_t *o0, uint64_t *o1, uint64_t *o2)
{
	const uint64_t *dims = HR_DIMS(info);
	const uint64_t *s0 = HR_STRIDES(info, 0);
	const uint64_t *s1 = HR_STRIDES(info, 1);
	const uint64_t *s2 = HR_STRIDES(info, 2);
	uint64_t a = 0, b = 0, c = 0;

	for (uint64_t d = num_dims; d-- > 0;) {
		uint64_t r;
		i = hr_divmod(i, dims[d], &r);
		a += r * s0[d];
		b += r * s1[d];
		c += r * s2[d];
	}
	*o0 = a;
	*o1 = b;
	*o2 = c;
}

template <typename I, typename T>
HR_DEVICE void where_map(uint64_t numel, uint64_t num_dims, const hr_layout &info,
			 const I *__restrict__ ids, const T *__restrict__ t,
			 const T *__restrict__ f, T *__restrict__ out)
{
	const uint64_t *dims = HR_DIMS(info);

	/* Uniform across the grid: every thread takes the same branch. */
	if (num_dims == 0 ||
	    (hr_is_contiguous(num_dims, dims, HR_STRIDES(info, 0)) &&
	     hr_is_contiguous(num_dims, dims, HR_STRIDES(info, 1)) &&
	     hr_is_contiguous(num_dims, dims, HR_STRIDES(info, 2)))) {
		HR_GRID_STRIDE_LOOP(i, numel)
			out[i] = ids[i] != 0 ? t[i] : f[i];
	} else {
		HR_GRID_STRIDE_LOOP(i, numel) {
			uint64_t io, to, fo;
			offsets3(i, num_dims, info, &io, &to, &fo);
			out[i] = ids[io] != 0 ? t[to] : f[fo];
		}
	}
}

#define HR_WHERE(IN, I, TN, T) \
	HR_KERNEL void where_##IN##_##TN(size_t numel, size_t num_dims, \
					 HR_LAYOUT_PARAM(info), const I *ids, \
					 const T *t, const T *f, T *out) \
	{ \
		where_map<I, T>(numel, num_dims, info, ids, t, f, out); \
	}

#define HR_WHERE_IDS(IN, I) \
	HR_WHERE(IN, I, f32, float) \
	HR_WHERE(IN, I, f64, double) \
	HR_WHERE(IN, I, f16, hr_f16) \
	HR_WHERE(IN, I, bf16, hr_bf16) \
	HR_WHERE(IN, I, u8, uint8_t) \
	HR_WHERE(IN, I, u32, uint32_t) \
	HR_WHERE(IN, I, i64, int64_t)

HR_WHERE_IDS(u8, uint8_t)
HR_WHERE_IDS(u32, uint32_t)
HR_WHERE_IDS(i64, int64_t)
