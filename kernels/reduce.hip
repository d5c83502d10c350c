// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * reduce family: sums, minima, maxima and arg-minima/maxima over the last
 * el_to_sum_per_block elements of a (strided) tensor, candle's argument
 * order with the layout by value:
 *
 *   fast_OP_T(size_t src_numel, size_t el_to_sum_per_block, size_t num_dims,
 *             hr_layout info, const T *src, T *dst)         OP = sum min max
 *   fast_argOP_T(..., const T *src, uint32_t *dst)          OP = min max
 *
 * The caller permutes the reduced dims innermost (as candle does): row r is
 * logical elements [r * el, (r + 1) * el) of the layout (dims, strides of
 * operand 0; num_dims == 0 = contiguous), so any set of reduced dims works.
 * dst[r] for r < src_numel / el.  One block reduces one row (blocks stride
 * over rows); a short row one wave (fast_reduce).
 *
 * When rows are few and long (32 rows x 151936 logits) one block per row
 * leaves most of the GPU idle, so each op also has a two-pass form:
 *
 *   fast_OP_split_T(same arguments, void *ws)     grid (rows, splits)
 *   fast_OP_finish_T(size_t rows, size_t splits, const void *ws, T *dst)
 *
 * Block (x, y) reduces chunk y of row x into ws[x * splits + y]; the finish
 * kernel combines each row's chunks in chunk order - no atomics, the same
 * result every run.  ws holds rows * splits partials (see reduce.list).
 *
 * f16/bf16 accumulate in float, f64 in double.  min/max propagate NaN;
 * argmin/argmax: the first NaN wins, ties go to the lower index (torch);
 * indices are positions within the row.
 */
#include "hr-kernel.h"
#include "hr-rows.h"

/* Row reductions over chunk [begin, end) of row `row`, one block. */
template <typename T>
struct row_src {
	const T *src;
	uint64_t el, num_dims;
	const uint64_t *dims, *strides;
	bool contig;

	HR_INLINE typename hr_compute<T>::type at(uint64_t row, uint64_t j) const
	{
		uint64_t i = row * el + j;

		return hr_to_compute(src[contig ? i : hr_strided_offset(i, num_dims, dims, strides)]);
	}
};

template <typename T>
HR_DEVICE row_src<T> make_src(uint64_t el, uint64_t num_dims, const hr_layout &info,
			      const T *src)
{
	row_src<T> s;

	s.src = src;
	s.el = el;
	s.num_dims = num_dims;
	s.dims = HR_DIMS(info);
	s.strides = HR_STRIDES(info, 0);
	s.contig = num_dims == 0 || hr_is_contiguous(num_dims, s.dims, s.strides);
	return s;
}

enum { OP_SUM, OP_MIN, OP_MAX, OP_ARGMIN, OP_ARGMAX };

/* Per op: the partial type, its identity, how an element joins it, the
 * block's and the wave's combination, and the final value. */
template <int OP, typename C> struct red_op;

template <typename C> struct red_op<OP_SUM, C> {
	typedef C part;
	static HR_INLINE part identity() { return (C)0; }
	static HR_INLINE part add(part a, C x, uint64_t) { return a + x; }
	static HR_INLINE part join(part a, part b) { return a + b; }
	static HR_INLINE part block(part a) { return hr_block_reduce(a, hr_op_sum()); }
	static HR_INLINE part wave(part a) { return hr_wave_reduce(a, hr_op_sum()); }
};

template <typename C> struct red_op<OP_MAX, C> {
	typedef C part;
	static HR_INLINE part identity() { return (C)-INFINITY; }
	static HR_INLINE part add(part a, C x, uint64_t) { return hr_max(a, x); }
	static HR_INLINE part join(part a, part b) { return hr_max(a, b); }
	static HR_INLINE part block(part a) { return hr_block_reduce(a, hr_op_max()); }
	static HR_INLINE part wave(part a) { return hr_wave_reduce(a, hr_op_max()); }
};

template <typename C> struct red_op<OP_MIN, C> {
	typedef C part;
	static HR_INLINE part identity() { return (C)INFINITY; }
	static HR_INLINE part add(part a, C x, uint64_t) { return hr_min(a, x); }
	static HR_INLINE part join(part a, part b) { return hr_min(a, b); }
	static HR_INLINE part block(part a) { return hr_block_reduce(a, hr_op_min()); }
	static HR_INLINE part wave(part a) { return hr_wave_reduce(a, hr_op_min()); }
};

template <int OP, typename C> struct red_arg {
	typedef hr_argval<C> part;
	static HR_INLINE part identity()
	{
		part p = { (C)(OP == OP_ARGMAX ? -INFINITY : INFINITY), 0xffffffffu };
		return p;
	}
	static HR_INLINE part add(part a, C x, uint64_t j)
	{
		part b = { x, (uint32_t)j };
		return hr_op_arg<OP == OP_ARGMAX>()(a, b);
	}
	static HR_INLINE part join(part a, part b) { return hr_op_arg<OP == OP_ARGMAX>()(a, b); }
	static HR_INLINE part block(part a) { return hr_block_reduce(a, hr_op_arg<OP == OP_ARGMAX>()); }
	static HR_INLINE part wave(part a) { return hr_wave_reduce(a, hr_op_arg<OP == OP_ARGMAX>()); }
};
template <typename C> struct red_op<OP_ARGMIN, C> : red_arg<OP_ARGMIN, C> {};
template <typename C> struct red_op<OP_ARGMAX, C> : red_arg<OP_ARGMAX, C> {};

/* The stored result: the value, or the index for arg-reductions. */
template <typename T, typename C>
HR_DEVICE T red_result(C v) { return hr_from_compute<T>(v); }
template <typename T, typename C>
HR_DEVICE uint32_t red_result(hr_argval<C> v) { return v.i; }

/* Chunk [begin, end) of one row, reduced by the whole block. */
template <int OP, typename T>
HR_DEVICE typename red_op<OP, typename hr_compute<T>::type>::part
reduce_chunk(const row_src<T> &s, uint64_t row, uint64_t begin, uint64_t end)
{
	typedef red_op<OP, typename hr_compute<T>::type> R;
	typename R::part acc = R::identity();

	/* Each thread visits increasing indices: its first of equal values is
	 * its earliest, which the arg-reductions rely on. */
	if (s.contig && sizeof(T) <= 4) {
		/* 16-byte packs (hr_row_each), 4 a thread in flight for 4-byte types */
		hr_row_each<sizeof(T) == 4 ? 4 : 0>(s.src + row * s.el, begin, end,
			    [&](typename hr_compute<T>::type v, uint64_t j) { acc = R::add(acc, v, j); });
		return R::block(acc);
	}
	for (uint64_t j = begin + threadIdx.x; j < end; j += blockDim.x)
		acc = R::add(acc, s.at(row, j), j);
	return R::block(acc);
}

/*
 * A row of at most RED_WAVE_ROW_BYTES bytes a lane of a wave (2 KiB on
 * wave 32, 4 KiB on wave 64) is reduced by one wave, the waves of a block
 * taking rows of their own (wave w of block b: rows b x waves + w, then
 * gridDim.x x waves on): no shared memory, no barrier, and a block's start
 * shared by its waves' rows.  Measured on an H200 (doc/BENCHMARKS.md,
 * 2026-11-29, rows read from the L2): bf16 16384 x 1024 sum 2538 -> 4053
 * GB/s, 65536 x 256 793 -> 2349; f32 at 1024 columns (32 elements a lane)
 * a block a row stayed faster (argmax 2567 against 2410 GB/s), hence a
 * limit in bytes.  The launch lines' wave_rows keys (kernels/reduce.list)
 * say the same per type, so the library's grid gives each wave a row;
 * t/kernel/test-launch checks the two agree.  Any grid still reduces every
 * row.  Contiguous rows only: a strided row's positions in this path took
 * registers from every row's (bf16 sum 34, f32 46 against 32 on sm_90;
 * 64-thread blocks need 32 for a whole multiprocessor, and a 4096 x 4096
 * bf16 sum from the L2 lost 20 % to the tail of a second wave of blocks),
 * so a strided short row is a block's, on the grid the library gave (a
 * block takes its waves-a-block rows in turn); a block that is not whole
 * waves reduces rows as one block.  The walk is one 16-byte pack a lane at
 * a time (hr_row_each_by<-1>): a row is at most 4 packs a lane.
 */
#define RED_WAVE_ROW_BYTES 64

template <typename T>
HR_DEVICE constexpr uint64_t red_wave_row()
{
	return RED_WAVE_ROW_BYTES / sizeof(T);
}

template <int OP, typename T, typename D>
HR_DEVICE void fast_reduce(uint64_t numel, uint64_t el, uint64_t num_dims,
			   const hr_layout &info, const T *src, D *dst)
{
	typedef red_op<OP, typename hr_compute<T>::type> R;

	if (!hr_dims_ok(num_dims))
		return;
	if (el == 0)
		return;
	const row_src<T> s = make_src(el, num_dims, info, src);
	const uint64_t rows = numel / el, ws = (uint64_t)hr_wave_size();

	if (s.contig && blockDim.x % ws == 0 && el <= ws * red_wave_row<T>()) {  /* block-uniform */
		const uint64_t nw = blockDim.x / ws;

		for (uint64_t row = blockIdx.x * nw + threadIdx.x / ws; row < rows;
		     row += gridDim.x * nw) {   /* wave-uniform */
			typename R::part acc = R::identity();

			/* 32-bit positions: el <= 64 x 32 */
			hr_row_each_by<-1, uint32_t>(s.src + row * el, 0u, (uint32_t)el,
				(uint32_t)(threadIdx.x % ws), (uint32_t)ws,
				[&](typename hr_compute<T>::type v, uint64_t j) { acc = R::add(acc, v, j); });
			acc = R::wave(acc);
			if (threadIdx.x % ws == 0)
				dst[row] = red_result<D>(acc);
		}
		return;
	}
	for (uint64_t row = blockIdx.x; row < rows; row += gridDim.x) {
		typename R::part r = reduce_chunk<OP>(s, row, 0, el);

		if (threadIdx.x == 0)
			dst[row] = red_result<D>(r);
	}
}

/* Chunk size of a row cut into `splits` chunks (the last may be short or empty). */
HR_DEVICE uint64_t chunk_of(uint64_t el, uint64_t splits)
{
	return (el + splits - 1) / splits;
}

template <int OP, typename T>
HR_DEVICE void fast_reduce_split(uint64_t numel, uint64_t el, uint64_t num_dims,
				 const hr_layout &info, const T *src, void *ws)
{
	if (!hr_dims_ok(num_dims))
		return;
	typedef red_op<OP, typename hr_compute<T>::type> R;
	if (el == 0)
		return;
	const row_src<T> s = make_src(el, num_dims, info, src);
	const uint64_t rows = numel / el, splits = gridDim.y, chunk = chunk_of(el, splits);
	const uint64_t y = blockIdx.y;
	const uint64_t begin = y * chunk < el ? y * chunk : el;
	const uint64_t end = begin + chunk < el ? begin + chunk : el;
	typename R::part *part = (typename R::part *)ws;

	for (uint64_t row = blockIdx.x; row < rows; row += gridDim.x) {
		typename R::part r = reduce_chunk<OP>(s, row, begin, end);

		if (threadIdx.x == 0)
			part[row * splits + y] = r;
	}
}

template <int OP, typename T, typename D>
HR_DEVICE void fast_reduce_finish(uint64_t rows, uint64_t splits, const void *ws, D *dst)
{
	typedef red_op<OP, typename hr_compute<T>::type> R;
	const typename R::part *part = (const typename R::part *)ws;

	HR_GRID_STRIDE_LOOP(row, rows) {
		typename R::part acc = R::identity();

		for (uint64_t y = 0; y < splits; y++)
			acc = R::join(acc, part[row * splits + y]);
		dst[row] = red_result<D>(acc);
	}
}

#define REDUCE(NAME, OP, T, D, SUF) \
	HR_KERNEL void NAME##_##SUF(size_t src_numel, size_t el_to_sum_per_block, \
				    size_t num_dims, HR_LAYOUT_PARAM(info), \
				    const T *src, D *dst) \
	{ \
		fast_reduce<OP, T, D>(src_numel, el_to_sum_per_block, num_dims, info, src, dst); \
	} \
	HR_KERNEL void NAME##_split_##SUF(size_t src_numel, size_t el_to_sum_per_block, \
					  size_t num_dims, HR_LAYOUT_PARAM(info), \
					  const T *src, void *ws) \
	{ \
		fast_reduce_split<OP, T>(src_numel, el_to_sum_per_block, num_dims, info, src, ws); \
	} \
	HR_KERNEL void NAME##_finish_##SUF(size_t rows, size_t splits, const void *ws, D *dst) \
	{ \
		fast_reduce_finish<OP, T, D>(rows, splits, ws, dst); \
	}

#define REDUCE_ALL(T, SUF) \
	REDUCE(fast_sum, OP_SUM, T, T, SUF) \
	REDUCE(fast_min, OP_MIN, T, T, SUF) \
	REDUCE(fast_max, OP_MAX, T, T, SUF) \
	REDUCE(fast_argmin, OP_ARGMIN, T, uint32_t, SUF) \
	REDUCE(fast_argmax, OP_ARGMAX, T, uint32_t, SUF)

REDUCE_ALL(float, f32)
REDUCE_ALL(double, f64)
REDUCE_ALL(hr_f16, f16)
REDUCE_ALL(hr_bf16, bf16)
