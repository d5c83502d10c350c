/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hr-rows.h - block-wide reductions for the row kernels (reduce, norm).
 *
 * Why a block and not a wave per row: a vocabulary row (152k columns) on
 * one wave keeps 31 of 32 (or 63 of 64) lanes of a CU idle; a block of up
 * to 1024 threads reads it at full bandwidth.  Include after hr-kernel.h.
 *
 * Rules for the caller of these helpers (and so for the launch geometry
 * written in each .list): blockDim.x is a multiple of 64 and at most 1024,
 * blockDim.y == blockDim.z == 1 - then every wave is full at wave 32 and at
 * wave 64, which the shuffles need.  Every thread of the block calls the
 * reduction (it synchronizes); every thread gets the same result (lane 0 of
 * each wave publishes, all threads combine the published values in wave
 * order), so the result does not depend on which lane asks.
 */
#ifndef HR_ROWS_H
#define HR_ROWS_H

/* 1024 threads / 32 lanes. */
#define HR_MAX_WAVES_PER_BLOCK 32

/* A value and the index it came from (arg-reductions). */
template <typename C>
struct hr_argval {
	C v;
	uint32_t i;
};

/* Running maximum and sum of exp(x - max) (one-read softmax). */
template <typename C>
struct hr_maxsum {
	C m, s;
};

/* Count, mean and sum of squared deviations (M2) of a set of values: the
 * partial of a LayerNorm split across blocks (Chan et al.'s merge). */
template <typename C>
struct hr_meanm2 {
	C n, mean, m2;
};

/* Shuffles of the pairs, one member at a time. */
template <typename C>
HR_DEVICE hr_argval<C> hr_shfl_xor(hr_argval<C> a, int lane_mask, int width)
{
	a.v = hr_shfl_xor(a.v, lane_mask, width);
	a.i = hr_shfl_xor(a.i, lane_mask, width);
	return a;
}

template <typename C>
HR_DEVICE hr_maxsum<C> hr_shfl_xor(hr_maxsum<C> a, int lane_mask, int width)
{
	a.m = hr_shfl_xor(a.m, lane_mask, width);
	a.s = hr_shfl_xor(a.s, lane_mask, width);
	return a;
}

template <typename C>
HR_DEVICE hr_meanm2<C> hr_shfl_xor(hr_meanm2<C> a, int lane_mask, int width)
{
	a.n = hr_shfl_xor(a.n, lane_mask, width);
	a.mean = hr_shfl_xor(a.mean, lane_mask, width);
	a.m2 = hr_shfl_xor(a.m2, lane_mask, width);
	return a;
}

/* op(a, b) over the lanes of this thread's wave, every lane given the
 * result (no shared memory, no barrier: the lanes of a wave only, so the
 * waves of a block may each reduce their own row). */
template <typename T, typename Op>
HR_DEVICE T hr_wave_reduce(T v, const Op &op)
{
	const int ws = hr_wave_size();

	for (int m = ws >> 1; m > 0; m >>= 1)
		v = op(v, hr_shfl_xor(v, m, ws));
	return v;
}

/*
 * op(a, b) over every thread's v; see the rules above.  op must be
 * associative up to rounding; the combination order is fixed for a given
 * block size and wave size (results are reproducible run to run).
 */
template <typename T, typename Op>
HR_DEVICE T hr_block_reduce(T v, const Op &op)
{
	__shared__ T part[HR_MAX_WAVES_PER_BLOCK];
	const int ws = hr_wave_size();
	const int lane = (int)threadIdx.x & (ws - 1), wave = (int)threadIdx.x / ws;
	const int nwaves = (int)(blockDim.x + ws - 1) / ws;

	v = hr_wave_reduce(v, op);
	__syncthreads();                /* an earlier call may still read part[] */
	if (lane == 0)
		part[wave] = v;
	__syncthreads();
	v = part[0];
	for (int w = 1; w < nwaves; w++)
		v = op(v, part[w]);
	return v;
}

/*
 * f(value, j) for the elements j of [begin, end) of a contiguous row at
 * base, lane t of n lanes (a block's threads, or a wave's lanes for the
 * rows one wave reduces) taking j = begin + t, + n, ... in increasing
 * order, so a thread's first of equal values is its earliest (the
 * arg-reductions rely on it); value is hr_to_compute(base[j]).  1- to
 * 4-byte types go in 16-byte packs (4 f32, 8 f16/bf16 a load) between the
 * first 16-byte boundary and the last, the head and tail one by one: scalar
 * loads reach about half the bandwidth for 4-byte and a third for 2-byte
 * elements.  Wider types one by one.  U > 0: U packs loaded together before
 * any is used; U = 0: the compiler's schedule of a strided loop unrolled 4
 * times; U < 0: one pack at a time (the fewest registers: a row a wave of
 * at most a few packs a lane).  Positions in I (32 bits where the row is
 * known to be short).  Measured on an H200 (doc/BENCHMARKS.md,
 * 2026-11-28): U = 4 took the sampler's greedy pass (one block a
 * 151936-column row) from 23.8 to 15.5 us and f32 arg-reductions up 6-12 %,
 * and cost bf16 reductions of 4096 columns 6-10 %.
 */
template <int U, typename I = uint64_t, typename T, typename F>
HR_DEVICE void hr_row_each_by(const T *base, I begin, I end, I t, I n, F f)
{
	if constexpr (sizeof(T) <= 4) {
		constexpr int N = HR_VEC_BYTES / sizeof(T);
		typedef hr_vecn<T, N> V;
		const I mis = ((uintptr_t)(base + begin) / sizeof(T)) % N;
		I head = mis ? N - mis : 0;

		if (head > end - begin)
			head = end - begin;
		const I vb = begin + head, nv = (end - vb) / N;
		const V *pk = (const V *)(base + vb);

		for (I j = begin + t; j < vb; j += n)
			f(hr_to_compute(base[j]), j);
		I v = t;

		if constexpr (U > 0) {
			for (; v + (I)(U - 1) * n < nv; v += (I)U * n) {
				V q[U];

#pragma unroll
				for (int u = 0; u < U; u++)
					q[u] = pk[v + (I)u * n];
#pragma unroll
				for (int u = 0; u < U; u++)
#pragma unroll
					for (int k = 0; k < N; k++)
						f(hr_to_compute(q[u].v[k]),
						  vb + (v + (I)u * n) * N + k);
			}
		}
		auto pack = [&](I at) {
			const V q = pk[at];

#pragma unroll
			for (int k = 0; k < N; k++)
				f(hr_to_compute(q.v[k]), vb + at * N + k);
		};

		if constexpr (U < 0) {
#pragma unroll 1
			for (; v < nv; v += n)
				pack(v);
		} else {
#pragma unroll 4
			for (; v < nv; v += n)
				pack(v);
		}
		for (I j = vb + nv * N + t; j < end; j += n)
			f(hr_to_compute(base[j]), j);
	} else {
		for (I j = begin + t; j < end; j += n)
			f(hr_to_compute(base[j]), j);
	}
}

/* The walk by the block's threads. */
template <int U, typename T, typename F>
HR_DEVICE void hr_row_each(const T *base, uint64_t begin, uint64_t end, F f)
{
	hr_row_each_by<U, uint64_t>(base, begin, end, threadIdx.x, blockDim.x, f);
}

/* The usual operators. */
struct hr_op_sum {
	template <typename T>
	HR_INLINE T operator()(T a, T b) const { return a + b; }
};

/* NaN wins (torch): hr_max/hr_min return a NaN from either side. */
struct hr_op_max {
	template <typename T>
	HR_INLINE T operator()(T a, T b) const { return hr_max(a, b); }
};

struct hr_op_min {
	template <typename T>
	HR_INLINE T operator()(T a, T b) const { return hr_min(a, b); }
};

/*
 * Arg-reductions, torch's rule: a NaN beats any number (the first NaN wins),
 * otherwise the larger (smaller) value, ties to the lower index.  The
 * identity is (-inf or +inf, UINT32_MAX): any real element beats it.
 */
template <bool MAX>
struct hr_op_arg {
	template <typename C>
	HR_INLINE hr_argval<C> operator()(hr_argval<C> a, hr_argval<C> b) const
	{
		const bool an = a.v != a.v, bn = b.v != b.v;

		if (an || bn) {
			if (an && bn)
				return a.i <= b.i ? a : b;
			return an ? a : b;
		}
		if (MAX ? a.v > b.v : a.v < b.v)
			return a;
		if (MAX ? b.v > a.v : b.v < a.v)
			return b;
		return a.i <= b.i ? a : b;
	}
};

/*
 * Merge of two (max, sum of exp(x - max)) pairs.  A side that saw nothing
 * (m = -inf, s = 0) contributes nothing, without computing exp(-inf + inf).
 */
struct hr_op_maxsum {
	template <typename C>
	HR_INLINE hr_maxsum<C> operator()(hr_maxsum<C> a, hr_maxsum<C> b) const
	{
		hr_maxsum<C> r;

		if (b.m == (C)-INFINITY && b.s == (C)0)
			return a;
		if (a.m == (C)-INFINITY && a.s == (C)0)
			return b;
		r.m = hr_max(a.m, b.m);
		r.s = a.s * hr_exp(a.m - r.m) + b.s * hr_exp(b.m - r.m);
		return r;
	}
};

/*
 * Chan's merge of two (n, mean, M2) sets: the mean moves by the difference
 * of the means weighted by the counts, M2 gains that difference squared -
 * no sum of squares of large values is ever subtracted, so rows far from
 * zero (+-7e9) keep their variance.  An empty side contributes nothing.
 */
struct hr_op_meanm2 {
	template <typename C>
	HR_INLINE hr_meanm2<C> operator()(hr_meanm2<C> a, hr_meanm2<C> b) const
	{
		hr_meanm2<C> r;
		C d, wb;

		if (b.n == (C)0)
			return a;
		if (a.n == (C)0)
			return b;
		r.n = a.n + b.n;
		wb = b.n / r.n;
		d = b.mean - a.mean;
		r.mean = a.mean + d * wb;
		r.m2 = a.m2 + b.m2 + d * d * a.n * wb;
		return r;
	}
};

/* Adds x to a running (max, sum): one exp per element. */
template <typename C>
HR_DEVICE hr_maxsum<C> hr_maxsum_add(hr_maxsum<C> a, C x)
{
	if (x > a.m) {
		a.s = a.s * hr_exp(a.m - x) + (C)1;
		a.m = x;
	} else if (x != (C)-INFINITY) {
		/* x <= m, or x is NaN: NaN reaches s and stays there.  -inf adds
		 * nothing (exp(-inf - -inf) would be NaN on a row that starts
		 * with masked entries). */
		a.s += hr_exp(x - a.m);
	}
	return a;
}

#endif /* HR_ROWS_H */
