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
 * input is contiguous.  The output is contiguous.  On strided layouts only
 * the selected one of t and f is read.
 */
#include "hr-kernel.h"

/* The three operands' strides, for hr_strided_offsets. */
#define WHERE_STRIDES(info) { HR_STRIDES(info, 0), HR_STRIDES(info, 1), HR_STRIDES(info, 2) }

/* Vectors: hr_vecn and hr_aligned_to (hr-kernel.h). */
/*
 * Contiguous fast path with 16-byte vectors of the wider of I and T (both t
 * and f are read: a sector holds both branches' values anyway).  Pointers
 * not aligned to the vector (odd element offsets) take the scalar loop.
 */
template <typename I, typename T>
HR_DEVICE void where_contiguous(uint64_t numel, const I *ids, const T *t,
				const T *f, T *out)
{
	constexpr int N = HR_VEC_BYTES / (sizeof(I) > sizeof(T) ? sizeof(I) : sizeof(T));
	uint64_t done = 0;

	if (hr_aligned_to(ids, sizeof(I) * N) && hr_aligned_to(t, sizeof(T) * N) &&
	    hr_aligned_to(f, sizeof(T) * N) && hr_aligned_to(out, sizeof(T) * N)) {
		const hr_vecn<I, N> *c = (const hr_vecn<I, N> *)ids;
		const hr_vecn<T, N> *a = (const hr_vecn<T, N> *)t;
		const hr_vecn<T, N> *b = (const hr_vecn<T, N> *)f;
		hr_vecn<T, N> *o = (hr_vecn<T, N> *)out;
		HR_GRID_STRIDE_LOOP(k, numel / N) {
			hr_vecn<I, N> ck = c[k];
			hr_vecn<T, N> ak = a[k], bk = b[k], ok;
#pragma unroll
			for (int j = 0; j < N; j++)
				ok.v[j] = ck.v[j] != 0 ? ak.v[j] : bk.v[j];
			o[k] = ok;
		}
		done = numel / N * N;
	}
	for (uint64_t i = done + hr_global_id(); i < numel; i += hr_global_size())
		out[i] = ids[i] != 0 ? t[i] : f[i];
}

/*
 * Sliced views (see hr_rows_vectorizable): one offset computation and one
 * vector access per operand per N elements.  Returns false, having done
 * nothing, when the layout or the pointers do not allow it.
 */
template <typename I, typename T>
HR_DEVICE bool where_rows(uint64_t numel, uint64_t num_dims, const hr_layout &info,
			  const I *ids, const T *t, const T *f, T *out)
{
	constexpr int N = HR_VEC_BYTES / (sizeof(I) > sizeof(T) ? sizeof(I) : sizeof(T));
	const uint64_t *dims = HR_DIMS(info);

	if (sizeof(I) > 4 || sizeof(T) > 4 ||
	    !hr_aligned_to(ids, sizeof(I) * N) || !hr_aligned_to(t, sizeof(T) * N) ||
	    !hr_aligned_to(f, sizeof(T) * N) || !hr_aligned_to(out, sizeof(T) * N) ||
	    !hr_rows_vectorizable(num_dims, dims, HR_STRIDES(info, 0), N) ||
	    !hr_rows_vectorizable(num_dims, dims, HR_STRIDES(info, 1), N) ||
	    !hr_rows_vectorizable(num_dims, dims, HR_STRIDES(info, 2), N))
		return false;
	HR_GRID_STRIDE_LOOP(k, numel / N) {
		uint64_t o[3];
		hr_strided_offsets<3>(k * N, num_dims, dims, WHERE_STRIDES(info), o);
		hr_vecn<I, N> ck = *(const hr_vecn<I, N> *)(ids + o[0]);
		hr_vecn<T, N> ak = *(const hr_vecn<T, N> *)(t + o[1]);
		hr_vecn<T, N> bk = *(const hr_vecn<T, N> *)(f + o[2]);
		hr_vecn<T, N> ok;
#pragma unroll
		for (int j = 0; j < N; j++)
			ok.v[j] = ck.v[j] != 0 ? ak.v[j] : bk.v[j];
		((hr_vecn<T, N> *)out)[k] = ok;
	}
	return true;
}

template <typename I, typename T>
HR_DEVICE void where_map(uint64_t numel, uint64_t num_dims, const hr_layout &info,
			 const I *ids, const T *t, const T *f, T *out)
{
	if (!hr_dims_ok(num_dims))
		return;
	const uint64_t *dims = HR_DIMS(info);

	/* Uniform across the grid: every thread takes the same branch. */
	if (num_dims == 0 ||
	    (hr_is_contiguous(num_dims, dims, HR_STRIDES(info, 0)) &&
	     hr_is_contiguous(num_dims, dims, HR_STRIDES(info, 1)) &&
	     hr_is_contiguous(num_dims, dims, HR_STRIDES(info, 2)))) {
		where_contiguous<I, T>(numel, ids, t, f, out);
	} else if (where_rows<I, T>(numel, num_dims, info, ids, t, f, out)) {
		/* done: sliced views, 16-byte accesses */
	} else {
		HR_GRID_STRIDE_LOOP(i, numel) {
			uint64_t o[3];
			hr_strided_offsets<3>(i, num_dims, dims, WHERE_STRIDES(info), o);
			out[i] = ids[o[0]] != 0 ? t[o[1]] : f[o[2]];
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
