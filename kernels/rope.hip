// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rope family: rotary position embeddings, candle's three layouts plus the
 * positions-table form inference engines call on q and k in place.
 * Each rotation: (a, b) -> (a cos - b sin, a sin + b cos), in float
 * (double for f64), with 64-bit indices and grid-stride loops over pairs.
 *
 *   rope_i_T(src, cos, sin, dst, bh, td, stride_b)      interleaved pairs
 *       (2i, 2i+1) of the last dim; src [b, h, t, d] contiguous, bh = b*h,
 *       td = t*d; cos/sin [t, d/2].
 *   rope_T(src, cos, sin, dst, bh, td, d, stride_b)     NeoX: pairs
 *       (i, i + d/2) of each row of d; same src and cos/sin shapes.
 *   rope_thd_T(src, cos, sin, dst, b, t, h, d, stride_b) NeoX pairs, src
 *       [b, t, h, d]; cos/sin [t, d/2].
 *   With stride_b > 0, cos/sin are [b, t, d/2] (one table per batch entry)
 *   and stride_b is the number of src elements per batch entry (h*t*d).
 *   dst may be src.
 *
 *   rope_pos_T / rope_i_pos_T(const int64_t *pos, T *q, T *k, cos, sin,
 *       ntok, nq_heads, nk_heads, head_dim, rot_dim, q_stride, k_stride,
 *       max_pos)
 *       token t of q is q[t * q_stride + head * head_dim + i] (k likewise;
 *       k may be NULL); the first rot_dim (even, <= head_dim) dims of each
 *       head rotate by position pos[t], NeoX pairs (i, i + rot_dim/2) or
 *       interleaved pairs (2i, 2i+1); cos/sin [max_pos, rot_dim/2].  In
 *       place.  A position outside [0, max_pos) leaves its token unchanged
 *       (no read outside the tables).
 */
#include "hr-kernel.h"

template <typename T>
HR_DEVICE void rotate(const T *src, T *dst, uint64_t i1, uint64_t i2, T cs, T sn)
{
	typedef typename hr_compute<T>::type C;
	const C a = hr_to_compute(src[i1]), b = hr_to_compute(src[i2]);
	const C c = hr_to_compute(cs), s = hr_to_compute(sn);

	dst[i1] = hr_from_compute<T>(a * c - b * s);
	dst[i2] = hr_from_compute<T>(a * s + b * c);
}

/* Offset of batch entry (element 2 * pair) into the per-batch tables. */
HR_DEVICE uint64_t batch_cs(uint64_t pair, uint64_t stride_b, uint64_t per_batch)
{
	if (stride_b == 0)
		return 0;
	uint64_t r;
	return hr_divmod(2 * pair, stride_b, &r) * per_batch;
}

template <typename T>
HR_DEVICE void rope_i(const T *src, const T *cos, const T *sin, T *dst, uint64_t bh,
		      uint64_t td, uint64_t stride_b)
{
	if (td < 2)
		return;
	const uint64_t half_td = td / 2;

	HR_GRID_STRIDE_LOOP(p, bh * half_td) {
		uint64_t r;
		hr_divmod(p, half_td, &r);
		const uint64_t cs = r + batch_cs(p, stride_b, half_td);

		rotate(src, dst, 2 * p, 2 * p + 1, cos[cs], sin[cs]);
	}
}

template <typename T>
HR_DEVICE void rope_neox(const T *src, const T *cos, const T *sin, T *dst, uint64_t bh,
			 uint64_t td, uint64_t d, uint64_t stride_b)
{
	if (d < 2 || td < d)
		return;
	const uint64_t half_d = d / 2, half_td = td / 2;

	HR_GRID_STRIDE_LOOP(p, bh * half_td) {
		uint64_t i_td, i_d;
		const uint64_t i_bh = hr_divmod(p, half_td, &i_td);
		const uint64_t i_t = hr_divmod(i_td, half_d, &i_d);
		const uint64_t i1 = i_bh * td + i_t * d + i_d;
		const uint64_t cs = i_t * half_d + i_d + batch_cs(p, stride_b, half_td);

		rotate(src, dst, i1, i1 + half_d, cos[cs], sin[cs]);
	}
}

template <typename T>
HR_DEVICE void rope_thd(const T *src, const T *cos, const T *sin, T *dst, uint64_t b,
			uint64_t t, uint64_t h, uint64_t d, uint64_t stride_b)
{
	if (d < 2 || t == 0 || h == 0)
		return;
	const uint64_t half_d = d / 2;

	HR_GRID_STRIDE_LOOP(p, b * t * h * half_d) {
		uint64_t i_d, i_h, i_t;
		const uint64_t i_bth = hr_divmod(p, half_d, &i_d);
		hr_divmod(hr_divmod(i_bth, h, &i_h), t, &i_t);
		const uint64_t i1 = i_bth * d + i_d;
		const uint64_t cs = i_t * half_d + i_d + batch_cs(p, stride_b, t * half_d);

		rotate(src, dst, i1, i1 + half_d, cos[cs], sin[cs]);
	}
}

template <bool INTERLEAVED, typename T>
HR_DEVICE void rope_pos(const int64_t *pos, T *q, T *k, const T *cos, const T *sin,
			uint64_t ntok, uint64_t nq, uint64_t nk, uint64_t head_dim,
			uint64_t rot_dim, uint64_t q_stride, uint64_t k_stride, uint64_t max_pos)
{
	const uint64_t half = rot_dim / 2, heads = nq + (k ? nk : 0);

	if (half == 0 || rot_dim > head_dim)
		return;
	HR_GRID_STRIDE_LOOP(w, ntok * heads * half) {
		uint64_t i, head;
		const uint64_t th = hr_divmod(w, half, &i);
		const uint64_t tok = hr_divmod(th, heads, &head);
		const int64_t ps = pos[tok];
		T *base;
		uint64_t i1, i2;

		if (ps < 0 || (uint64_t)ps >= max_pos)
			continue;
		if (head < nq)
			base = q + tok * q_stride + head * head_dim;
		else
			base = k + tok * k_stride + (head - nq) * head_dim;
		i1 = INTERLEAVED ? 2 * i : i;
		i2 = INTERLEAVED ? 2 * i + 1 : i + half;
		rotate((const T *)base, base, i1, i2, cos[(uint64_t)ps * half + i],
		       sin[(uint64_t)ps * half + i]);
	}
}

#define ROPE(T, SUF) \
	HR_KERNEL void rope_i_##SUF(const T *src, const T *cos, const T *sin, T *dst, \
				    size_t bh, size_t td, size_t stride_b) \
	{ \
		rope_i<T>(src, cos, sin, dst, bh, td, stride_b); \
	} \
	HR_KERNEL void rope_##SUF(const T *src, const T *cos, const T *sin, T *dst, \
				  size_t bh, size_t td, size_t d, size_t stride_b) \
	{ \
		rope_neox<T>(src, cos, sin, dst, bh, td, d, stride_b); \
	} \
	HR_KERNEL void rope_thd_##SUF(const T *src, const T *cos, const T *sin, T *dst, \
				      size_t b, size_t t, size_t h, size_t d, size_t stride_b) \
	{ \
		rope_thd<T>(src, cos, sin, dst, b, t, h, d, stride_b); \
	} \
	HR_KERNEL void rope_pos_##SUF(const int64_t *pos, T *q, T *k, const T *cos, \
				      const T *sin, size_t ntok, size_t nq_heads, \
				      size_t nk_heads, size_t head_dim, size_t rot_dim, \
				      size_t q_stride, size_t k_stride, size_t max_pos) \
	{ \
		rope_pos<false, T>(pos, q, k, cos, sin, ntok, nq_heads, nk_heads, head_dim, \
				   rot_dim, q_stride, k_stride, max_pos); \
	} \
	HR_KERNEL void rope_i_pos_##SUF(const int64_t *pos, T *q, T *k, const T *cos, \
					const T *sin, size_t ntok, size_t nq_heads, \
					size_t nk_heads, size_t head_dim, size_t rot_dim, \
					size_t q_stride, size_t k_stride, size_t max_pos) \
	{ \
		rope_pos<true, T>(pos, q, k, cos, sin, ntok, nq_heads, nk_heads, head_dim, \
				  rot_dim, q_stride, k_stride, max_pos); \
	}

ROPE(float, f32)
ROPE(double, f64)
ROPE(hr_f16, f16)
ROPE(hr_bf16, bf16)
