// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * indexing family: index_select, gather, index_add, scatter, scatter_add
 * along one dim of a tensor seen as [left, dim, right], candle's names and
 * argument order (ids dtype I first in the name: is_u32_f32):
 *
 *   is_I_T(numel, num_dims, hr_layout info, const I *ids, const T *inp,
 *          T *out, left_size, src_dim_size, ids_dim_size, right_size)
 *       out[l, j, r] = inp[l, ids[j], r]; out contiguous [left, ids, right];
 *       inp strided by (dims, strides of operand 0) when num_dims > 0, and
 *       then ids[j] is read at j * (stride of operand 1, dim 0) - candle
 *       ignores the ids' stride (a transposed or sliced ids view reads the
 *       wrong ids).
 *   gather_I_T(numel, const I *ids, const T *inp, T *out, left_size,
 *          src_dim_size, ids_dim_size, right_size)
 *       out[l, j, r] = inp[l, ids[l, j, r], r]; all contiguous.
 *   ia_I_T(const I *ids, ids_dim_size, const T *inp, T *out, left_size,
 *          src_dim_size, dst_dim_size, right_size)
 *       out[l, ids[j], r] += inp[l, j, r] for j < ids_dim_size.
 *   s_I_T / sa_I_T(const I *ids, const T *inp, T *out, left_size,
 *          src_dim_size, dst_dim_size, right_size)
 *       out[l, ids[l, j, r], r] = (+=) inp[l, j, r] for j < src_dim_size.
 *
 * The largest value of I is candle's padding sentinel: is/gather write 0,
 * the others skip it.  Ids outside [0, dim) are treated the same way
 * (candle asserts): no access outside the buffers, ever.  Additions and
 * scatters run one thread per (l, r) column over j in order, so duplicate
 * ids add (or the last one wins) deterministically, without atomics.
 * f16/bf16 add in float and round per step; integers wrap.
 */
#include "hr-kernel.h"

template <typename I> HR_DEVICE I max_id(void);
template <> __device__ __forceinline__ uint8_t max_id<uint8_t>(void) { return 0xffu; }
template <> __device__ __forceinline__ uint32_t max_id<uint32_t>(void) { return 0xffffffffu; }
template <> __device__ __forceinline__ int64_t max_id<int64_t>(void) { return INT64_MAX; }

/* True and *at = the id when id is a valid position in [0, dim). */
template <typename I>
HR_DEVICE bool id_ok(I id, uint64_t dim, uint64_t *at)
{
	if (id == max_id<I>() || (int64_t)id < 0 || (uint64_t)id >= dim)
		return false;
	*at = (uint64_t)id;
	return true;
}

template <typename T>
HR_DEVICE T zero(void) { return hr_cast<T>((uint8_t)0); }

/* a + b in T: float types through the compute type, integers wrapping. */
template <typename T> HR_DEVICE T add(T a, T b)
{
	return hr_from_compute<T>(hr_to_compute(a) + hr_to_compute(b));
}
template <> __device__ __forceinline__ uint8_t add<uint8_t>(uint8_t a, uint8_t b)
{
	return (uint8_t)(a + b);
}
template <> __device__ __forceinline__ int64_t add<int64_t>(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

template <typename I, typename T>
HR_DEVICE void index_select(uint64_t numel, uint64_t num_dims, const hr_layout &info,
			    const I *ids, const T *inp, T *out, uint64_t src_dim,
			    uint64_t ids_dim, uint64_t right)
{
	if (!hr_dims_ok(num_dims))
		return;
	const uint64_t *dims = HR_DIMS(info), *strides = HR_STRIDES(info, 0);
	const bool contig = num_dims == 0 || hr_is_contiguous(num_dims, dims, strides);
	const uint64_t ids_stride = num_dims == 0 ? 1 : HR_STRIDES(info, 1)[0];

	if (ids_dim == 0 || right == 0)
		return;
	/* Contiguous rows of whole 16-byte packs (the common embedding
	 * lookup): one pack a thread, one index computation per pack instead
	 * of per element (a 2-byte element was 8 divisions a pack). */
	constexpr uint64_t N = HR_VEC_BYTES / sizeof(T);
	if (contig && sizeof(T) <= 8 && right % N == 0 && numel % N == 0 &&
	    hr_aligned_to(inp, HR_VEC_BYTES) && hr_aligned_to(out, HR_VEC_BYTES)) {
		const hr_vecn<T, N> *vin = (const hr_vecn<T, N> *)inp;
		hr_vecn<T, N> *vout = (hr_vecn<T, N> *)out;

		HR_GRID_STRIDE_LOOP(v, numel / N) {
			uint64_t r, j, at;
			const uint64_t lj = hr_divmod(v, right / N, &r);
			const uint64_t l = hr_divmod(lj, ids_dim, &j);

			if (!id_ok(ids[j * ids_stride], src_dim, &at)) {
				for (uint64_t k = 0; k < N; k++)
					out[v * N + k] = zero<T>();
				continue;
			}
			vout[v] = vin[(l * src_dim + at) * (right / N) + r];
		}
		return;
	}
	HR_GRID_STRIDE_LOOP(i, numel) {
		uint64_t r, j, at;
		const uint64_t lj = hr_divmod(i, right, &r);
		const uint64_t l = hr_divmod(lj, ids_dim, &j);

		if (!id_ok(ids[j * ids_stride], src_dim, &at)) {
			out[i] = zero<T>();
			continue;
		}
		const uint64_t s = (l * src_dim + at) * right + r;
		out[i] = inp[contig ? s : hr_strided_offset(s, num_dims, dims, strides)];
	}
}

template <typename I, typename T>
HR_DEVICE void gather(uint64_t numel, const I *ids, const T *inp, T *out, uint64_t src_dim,
		      uint64_t ids_dim, uint64_t right)
{
	if (ids_dim == 0 || right == 0)
		return;
	/* Along the last dim (right == 1, torch.gather(x, -1, ids)) with rows
	 * a multiple of 4: 4 adjacent outputs of one row a thread - one
	 * division, one 4-id load and one 4-element store for 4 elements (was
	 * two divisions and scalar loads and stores each). */
	constexpr uint64_t N = 4;
	if (right == 1 && ids_dim % N == 0 && numel % N == 0 &&
	    hr_aligned_to(ids, sizeof(I) * N) && hr_aligned_to(out, sizeof(T) * N)) {
		const hr_vecn<I, N> *vid = (const hr_vecn<I, N> *)ids;
		hr_vecn<T, N> *vout = (hr_vecn<T, N> *)out;

		HR_GRID_STRIDE_LOOP(v, numel / N) {
			uint64_t r, at;
			const uint64_t l = hr_divmod(v, ids_dim / N, &r);
			const hr_vecn<I, N> q = vid[v];
			const T *row = inp + l * src_dim;
			hr_vecn<T, N> o;

#pragma unroll
			for (uint64_t k = 0; k < N; k++)
				o.v[k] = id_ok(q.v[k], src_dim, &at) ? row[at] : zero<T>();
			vout[v] = o;
		}
		return;
	}
	HR_GRID_STRIDE_LOOP(i, numel) {
		uint64_t r, at;
		const uint64_t l = hr_divmod(i, right * ids_dim, &r);

		hr_divmod(r, right, &r);
		out[i] = id_ok(ids[i], src_dim, &at) ? inp[(l * src_dim + at) * right + r] : zero<T>();
	}
}

/* ids_per_col: index_add reads ids[j] (shared by all columns); scatter
 * reads the ids element next to the source element. */
template <bool ASSIGN, bool IDS_PER_ELEM, typename I, typename T>
HR_DEVICE void scatter_cols(const I *ids, const T *inp, T *out, uint64_t left,
			    uint64_t src_dim, uint64_t dst_dim, uint64_t right)
{
	HR_GRID_STRIDE_LOOP(c, left * right) {
		uint64_t r, at;
		const uint64_t l = hr_divmod(c, right, &r);

		for (uint64_t j = 0; j < src_dim; j++) {
			const uint64_t s = (l * src_dim + j) * right + r;

			if (!id_ok(ids[IDS_PER_ELEM ? s : j], dst_dim, &at))
				continue;
			T *o = out + (l * dst_dim + at) * right + r;
			*o = ASSIGN ? inp[s] : add(*o, inp[s]);
		}
	}
}

#define INDEXING(I, IS, T, TS) \
	HR_KERNEL void is_##IS##_##TS(size_t numel, size_t num_dims, HR_LAYOUT_PARAM(info), \
				      const I *ids, const T *inp, T *out, size_t left_size, \
				      size_t src_dim_size, size_t ids_dim_size, size_t right_size) \
	{ \
		(void)left_size; \
		index_select<I, T>(numel, num_dims, info, ids, inp, out, src_dim_size, \
				   ids_dim_size, right_size); \
	} \
	HR_KERNEL void gather_##IS##_##TS(size_t numel, const I *ids, const T *inp, T *out, \
					  size_t left_size, size_t src_dim_size, \
					  size_t ids_dim_size, size_t right_size) \
	{ \
		(void)left_size; \
		gather<I, T>(numel, ids, inp, out, src_dim_size, ids_dim_size, right_size); \
	} \
	HR_KERNEL void ia_##IS##_##TS(const I *ids, size_t ids_dim_size, const T *inp, T *out, \
				      size_t left_size, size_t src_dim_size, \
				      size_t dst_dim_size, size_t right_size) \
	{ \
		(void)src_dim_size; \
		scatter_cols<false, false, I, T>(ids, inp, out, left_size, ids_dim_size, \
						 dst_dim_size, right_size); \
	} \
	HR_KERNEL void s_##IS##_##TS(const I *ids, const T *inp, T *out, size_t left_size, \
				     size_t src_dim_size, size_t dst_dim_size, size_t right_size) \
	{ \
		scatter_cols<true, true, I, T>(ids, inp, out, left_size, src_dim_size, \
					       dst_dim_size, right_size); \
	} \
	HR_KERNEL void sa_##IS##_##TS(const I *ids, const T *inp, T *out, size_t left_size, \
				      size_t src_dim_size, size_t dst_dim_size, size_t right_size) \
	{ \
		scatter_cols<false, true, I, T>(ids, inp, out, left_size, src_dim_size, \
						dst_dim_size, right_size); \
	}

#define INDEXING_T(I, IS) \
	INDEXING(I, IS, float, f32) \
	INDEXING(I, IS, double, f64) \
	INDEXING(I, IS, hr_f16, f16) \
	INDEXING(I, IS, hr_bf16, bf16) \
	INDEXING(I, IS, uint8_t, u8) \
	INDEXING(I, IS, uint32_t, u32) \
	INDEXING(I, IS, int64_t, i64)

INDEXING_T(uint8_t, u8)
INDEXING_T(uint32_t, u32)
INDEXING_T(int64_t, i64)
