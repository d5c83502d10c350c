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

/* Offsets of linear index i (< numel) in all three operands, one
 * decomposition; num_dims >= 1. */
HR_DEVICE void offsets3(uint64_t i, uint64_t num_dims, const hr_layout &info,
			uint64_t *o0, uint64_t *o1, uint64_t *o2)
{
	const uint64_t *dims = HR_DIMS(info);
	const uint64_t *s0 = HR_STRIDES(info, 0);
	const uint64_t *s1 = HR_STRIDES(info, 1);
	const uint64_t *s2 = HR_STRIDES(info, 2);
	uint64_t a = 0, b = 0, c = 0;

	/* i < numel, so what is left for the outermost dim needs no division.
	 * Not unrolled, to keep the register count down (see
	 * hr_strided_offset). */
#pragma unroll 1
	for (uint64_t d = num_dims - 1; d > 0; d--) {
		uint64_t r;
		i = hr_divmod(i, dims[d], &r);
		a += r * s0[d];
		b += r * s1[d];
		c += r * s2[d];
	}
	*o0 = a + i * s0[0];
	*o1 = b + i * s1[0];
	*o2 = c + i * s2[0];
}

/* N elements moved as one 16-byte (or smaller) memory operation. */
template <typename T, int N>
struct alignas(sizeof(T) * N) vec {
	T v[N];
};

HR_DEVICE bool is_aligned(const void *p, uint64_t to)
{
	return ((uintptr_t)p & (to - 1)) == 0;
}

/*
 * Contiguous fast path with 16-byte vectors of the wider of I and T (both t
 * and f are read: a sector holds both branches' values anyway).  Pointers
 * not aligned to the vector (odd element offsets) take the scalar loop.
 */
template <typename I, typename T>
HR_DEVICE void where_contiguous(uint64_t numel, const I *ids, const T *t,
				const T *f, T *out)
{
	constexpr int N = 16 / (sizeof(I) > sizeof(T) ? sizeof(I) : sizeof(T));
	uint64_t done = 0;

	if (is_aligned(ids, sizeof(I) * N) && is_aligned(t, sizeof(T) * N) &&
	    is_aligned(f, sizeof(T) * N) && is_aligned(out, sizeof(T) * N)) {
		const vec<I, N> *c = (const vec<I, N> *)ids;
		const vec<T, N> *a = (const vec<T, N> *)t;
		const vec<T, N> *b = (const vec<T, N> *)f;
		vec<T, N> *o = (vec<T, N> *)out;
		HR_GRID_STRIDE_LOOP(k, numel / N) {
			vec<I, N> ck = c[k];
			vec<T, N> ak = a[k], bk = b[k], ok;
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
	constexpr int N = 16 / (sizeof(I) > sizeof(T) ? sizeof(I) : sizeof(T));
	const uint64_t *dims = HR_DIMS(info);

	if (sizeof(I) > 4 || sizeof(T) > 4 ||
	    !is_aligned(ids, sizeof(I) * N) || !is_aligned(t, sizeof(T) * N) ||
	    !is_aligned(f, sizeof(T) * N) || !is_aligned(out, sizeof(T) * N) ||
	    !hr_rows_vectorizable(num_dims, dims, HR_STRIDES(info, 0), N) ||
	    !hr_rows_vectorizable(num_dims, dims, HR_STRIDES(info, 1), N) ||
	    !hr_rows_vectorizable(num_dims, dims, HR_STRIDES(info, 2), N))
		return false;
	HR_GRID_STRIDE_LOOP(k, numel / N) {
		uint64_t io, to, fo;
		offsets3(k * N, num_dims, info, &io, &to, &fo);
		vec<I, N> ck = *(const vec<I, N> *)(ids + io);
		vec<T, N> ak = *(const vec<T, N> *)(t + to);
		vec<T, N> bk = *(const vec<T, N> *)(f + fo);
		vec<T, N> ok;
#pragma unroll
		for (int j = 0; j < N; j++)
			ok.v[j] = ck.v[j] != 0 ? ak.v[j] : bk.v[j];
		((vec<T, N> *)out)[k] = ok;
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
