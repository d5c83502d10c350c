// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sort family: argsort of each row, candle's names and argument order:
 *
 *   asort_asc_T / asort_desc_T(const T *x, uint32_t *dst, int ncols, int ncols_pad)
 *       dst[row, k] = the index of the k-th smallest (largest) element of
 *       row x[row, :]; ncols_pad = the smallest power of two >= ncols.
 *       In shared memory (dynamic, ncols_pad * 4 bytes), the whole block on
 *       one row: 1-, 2- and 4-byte types an LSD radix sort (radix_shared)
 *       from 256 (1-, 2-byte) or 512 (4-byte) padded columns up to 4
 *       elements a thread, the rest a bitonic sort of the row's indices.
 *   asort_asc_wide_T / asort_desc_wide_T(const T *x, uint32_t *dst, int ncols,
 *       int ncols_pad, uint32_t *ws)
 *       the same for rows whose indices do not fit in shared memory (LLM
 *       vocabularies), on ws, rows * ncols_pad * 3 u32 of global scratch.
 *       Types of up to 4 bytes: an LSD radix sort of order-preserving keys
 *       (radix_row below, 4 bits a pass: 2 passes for u8, 4 for f16/bf16,
 *       8 for f32/u32); f64 and i64 run the bitonic network on ws (the
 *       block's barriers order its stages).
 *   asort_asc_multi_T / asort_desc_multi_T(const T *x, uint32_t *dst,
 *       int ncols, int ncols_pad, uint32_t *ws, int pass), T of 1 to 4 bytes
 *       the wide form's radix sort with a row over gridDim.y blocks, in 2
 *       launches a pass (pass = 0, 1, ...; asort_multi_row below), on ws,
 *       rows * ncols_pad * 4 u32.  hanzo_rocm_op_run takes it for the rows
 *       asort_asc_T cannot hold (the f64 and i64 ones take the wide form).
 *
 * The order is total: (value, index), so ties keep their original order
 * (stable) in both directions, and the result does not depend on the
 * block size.  NaN sorts after every number ascending and before every
 * number descending (torch).  Candle runs one thread per column (rows over
 * 1024 columns fail) and sorts at most what fits in shared memory.
 */
#include "hr-kernel.h"

/* True when element a goes before element b. */
template <bool ASC, typename T>
HR_DEVICE bool before(const T *x, uint32_t a, uint32_t b, uint32_t n)
{
	typedef typename hr_compute<T>::type C;

	if (a >= n || b >= n)           /* padding goes last */
		return a < b;
	const C va = hr_to_compute(x[a]), vb = hr_to_compute(x[b]);
	const bool na = va != va, nb = vb != vb;

	if (na || nb) {
		if (na && nb)
			return a < b;
		return ASC ? nb : na;   /* NaN last ascending, first descending */
	}
	if (va != vb)
		return ASC ? va < vb : va > vb;
	return a < b;
}

/* The bitonic network over idx[0, pad) for one row; every thread of the
 * block takes part (it synchronizes). */
template <bool ASC, typename T>
HR_DEVICE void bitonic(const T *x, uint32_t *idx, uint32_t n, uint32_t pad)
{
	for (uint32_t i = threadIdx.x; i < pad; i += blockDim.x)
		idx[i] = i;
	__syncthreads();
	for (uint32_t k = 2; k <= pad; k <<= 1) {
		for (uint32_t j = k >> 1; j > 0; j >>= 1) {
			for (uint32_t i = threadIdx.x; i < pad; i += blockDim.x) {
				const uint32_t p = i ^ j;

				if (p > i) {
					const uint32_t a = idx[i], b = idx[p];
					/* ascending run when bit k of i is clear */
					const bool up = (i & k) == 0;

					if (up ? before<ASC>(x, b, a, n) : before<ASC>(x, a, b, n)) {
						idx[i] = b;
						idx[p] = a;
					}
				}
			}
			__syncthreads();
		}
	}
}

/*
 * 1- and 2-byte types: the value's order as a 16-bit key (NaN highest, -0
 * as +0, so equal values tie), descending by its complement, and the
 * index below it: the (key << 16 | index) words sort as plain integers in
 * exactly before<ASC>'s order, and the network compares words in shared
 * memory instead of loading two elements from global memory for every
 * comparison (55 stages at 1024 columns).  Rows of up to 65536 columns.
 */
HR_DEVICE uint32_t sort_ord16(uint16_t b, bool nan)
{
	if (nan)
		return 0xffffu;
	if ((b & 0x7fffu) == 0)
		b = 0;
	return b & 0x8000u ? (uint32_t)(uint16_t)~b : (uint32_t)(b | 0x8000u);
}

HR_DEVICE uint32_t sort_ord(hr_f16 v) { return sort_ord16(v.bits, hr_to_f32(v) != hr_to_f32(v)); }
HR_DEVICE uint32_t sort_ord(hr_bf16 v) { return sort_ord16(v.bits, hr_to_f32(v) != hr_to_f32(v)); }
HR_DEVICE uint32_t sort_ord(uint8_t v) { return v; }
template <typename T>
HR_DEVICE uint32_t sort_ord(T) { return 0; }   /* wider types take bitonic() */

template <bool ASC, typename T>
HR_DEVICE void bitonic16(const T *x, uint32_t *key, uint32_t n, uint32_t pad)
{
	for (uint32_t i = threadIdx.x; i < pad; i += blockDim.x) {
		const uint32_t o = i < n ? sort_ord(x[i]) : 0xffffu;   /* padding last */

		key[i] = ((i < n && !ASC) ? (~o & 0xffffu) : o) << 16 | i;
	}
	__syncthreads();
	for (uint32_t k = 2; k <= pad; k <<= 1) {
		for (uint32_t j = k >> 1; j > 0; j >>= 1) {
			for (uint32_t i = threadIdx.x; i < pad; i += blockDim.x) {
				const uint32_t p = i ^ j;

				if (p > i) {
					const uint32_t a = key[i], b = key[p];

					if ((i & k) == 0 ? b < a : a < b) {
						key[i] = b;
						key[p] = a;
					}
				}
			}
			__syncthreads();
		}
	}
	for (uint32_t i = threadIdx.x; i < pad; i += blockDim.x)
		key[i] &= 0xffffu;
	__syncthreads();
}

/*
 * The wide form for 1-, 2- and 4-byte types: a stable LSD radix sort of
 * the row's order keys, one block a row, 4 bits a pass.  The key of an
 * element is an unsigned integer in exactly before<ASC>'s order (NaN
 * highest ascending, -0 as +0, complemented for descending); a stable sort
 * by key from index order is stable by (key, index), so ties keep their
 * order.  The bitonic network on global memory it replaces ran 171 stages
 * over the whole padded row at 151936 columns (0.01-0.02x torch on an
 * H100); a pass here reads the row's keys and indices once and writes them
 * once.
 *
 * A pass takes tiles of 4 * B elements in order, thread t elements
 * 4t .. 4t + 3 of the tile (8 a thread measured no faster on an H100 and
 * spills with the staging below at 64 registers).  Each thread writes its
 * count of every digit to its column of cnt (16 x B u16, digit-major); an
 * exclusive block scan of cnt in (digit, thread) order gives every element
 * its place in the tile sorted by (digit, index): cnt[d][t] + its rank
 * among its own thread's elements of digit d.  The tile goes through
 * shared memory in that order (keys, then indices) and thread i writes
 * tile places i, i + B, ... to the digit's base in the row (gbase, from
 * the pass's histogram) + i - the digit's start in the tile: runs of
 * consecutive addresses.  While it writes the keys every thread counts
 * the next pass's digit in registers, so only the first pass reads the
 * row an extra time for its histogram.

 * Buffers (ws row = 3 x ncols_pad u32): kA = keys, iA = indices, kB =
 * keys; even passes write (kA, iA), odd passes (kB, dst); the last pass
 * (odd: the pass count is even) writes only dst.  Block: a multiple of 64
 * (every wave full at wave 32 and 64), at most 1024.
 */
#define SORT_RADIX_BITS 4
#define SORT_RADIX_DIGITS 16
#define SORT_RADIX_PER_THREAD 4
#define SORT_RADIX_MAX_BLOCK 1024
#define SORT_MAX_WAVES (SORT_RADIX_MAX_BLOCK / 32)

template <typename T> struct radix_key;

template <> struct radix_key<float> {
	static constexpr int BITS = 32;
	static HR_INLINE uint32_t of(float v)
	{
		uint32_t u = hr_f32_bits(v);

		if (v != v)
			return 0xffffffffu;
		if ((u & 0x7fffffffu) == 0)
			u = 0;
		return u & 0x80000000u ? ~u : u | 0x80000000u;
	}
};
template <> struct radix_key<uint32_t> {
	static constexpr int BITS = 32;
	static HR_INLINE uint32_t of(uint32_t v) { return v; }
};
template <> struct radix_key<uint8_t> {
	static constexpr int BITS = 8;
	static HR_INLINE uint32_t of(uint8_t v) { return v; }
};
template <> struct radix_key<hr_f16> {
	static constexpr int BITS = 16;
	static HR_INLINE uint32_t of(hr_f16 v) { return sort_ord(v); }
};
template <> struct radix_key<hr_bf16> {
	static constexpr int BITS = 16;
	static HR_INLINE uint32_t of(hr_bf16 v) { return sort_ord(v); }
};

/* f64 and i64 take the bitonic network (no 64-bit radix pass here). */
template <> struct radix_key<double> {
	static constexpr int BITS = 0;
	static HR_INLINE uint32_t of(double) { return 0; }
};
template <> struct radix_key<int64_t> {
	static constexpr int BITS = 0;
	static HR_INLINE uint32_t of(int64_t) { return 0; }
};

template <bool ASC, typename T>
HR_DEVICE uint32_t radix_of(T v)
{
	const uint32_t k = radix_key<T>::of(v);
	const uint32_t m = radix_key<T>::BITS % 32 == 0 ? 0xffffffffu : (1u << radix_key<T>::BITS % 32) - 1;

	return ASC ? k : ~k & m;
}

/* Counts of the 16 digits, two 16-bit counters a register (a thread sees
 * at most 65535 elements of a row: radix_fits), no dynamically indexed
 * array (that would live in scratch memory). */
#define SORT_RADIX_CREGS (SORT_RADIX_DIGITS / 2)

/* Adds 1 to the counter of digit d; d >= 16 adds nothing. */
HR_DEVICE void radix_count(uint32_t (&c)[SORT_RADIX_CREGS], uint32_t d)
{
#pragma unroll
	for (uint32_t k = 0; k < SORT_RADIX_CREGS; k++)
		c[k] += (uint32_t)(d == 2 * k) | (uint32_t)(d == 2 * k + 1) << 16;
}

/* The block's counts c[] into hist[] (zeroed by the caller, then a
 * barrier); c[] is zeroed. */
HR_DEVICE void radix_hist_add(uint32_t (&c)[SORT_RADIX_CREGS], uint32_t *hist)
{
	const int ws = hr_wave_size();

#pragma unroll
	for (int k = 0; k < SORT_RADIX_CREGS; k++) {
		const uint32_t lo = hr_wave_sum(c[k] & 0xffffu, ws), hi = hr_wave_sum(c[k] >> 16, ws);

		if (((int)threadIdx.x & (ws - 1)) == 0) {
			if (lo)
				atomicAdd(&hist[2 * k], lo);
			if (hi)
				atomicAdd(&hist[2 * k + 1], hi);
		}
		c[k] = 0;
	}
}

/* The shared memory of a pass over tiles (radix_tile), for blocks of up to
 * MAXB threads: stage 2 x SORT_RADIX_PER_THREAD x MAXB u32 (a tile's keys
 * and indices), tbl
 * SORT_RADIX_DIGITS x SORT_MAX_WAVES (each wave's count of each digit),
 * gbase 16 (each digit's next place in the output), tstart 17. */
struct radix_sm {
	uint32_t *stage, *tbl, *gbase, *tstart;
};

/* Position of slot e of this thread in a tile at base: wave w holds
 * [w E ws, (w + 1) E ws), slot e of lane l the position w E ws + e ws + l,
 * so a wave's slots in (e, lane) order are the tile's positions in order
 * and each slot's load is one contiguous run a wave. */
HR_DEVICE uint32_t radix_slot(uint32_t base, uint32_t e)
{
	const uint32_t ws = (uint32_t)hr_wave_size(), t = threadIdx.x;

	return base + (t / ws) * SORT_RADIX_PER_THREAD * ws + e * ws + (t & (ws - 1));
}

/*
 * The keys and indices of the tile at base (elements [base, min(base + 4B,
 * end)) of the row) for pass p: from x (pass 0: keys from the values, the
 * index the column) or from (kin, iin).  Loaded a tile ahead of radix_tile,
 * so the loads' latency hides behind the tile before.
 */
template <bool ASC, typename T>
HR_DEVICE void radix_load(const T *x, const uint32_t *kin, const uint32_t *iin, uint32_t base,
			  uint32_t end, int p, uint32_t (&key)[SORT_RADIX_PER_THREAD],
			  uint32_t (&id)[SORT_RADIX_PER_THREAD])
{
#pragma unroll
	for (uint32_t e = 0; e < SORT_RADIX_PER_THREAD; e++) {
		const uint32_t j = radix_slot(base, e);
		uint32_t k = 0, i = j;  /* values, then one store each: stores in the
					 * branches were merged into a store to key or
					 * id by address, which put both in scratch */

		if (j < end) {
			if (p == 0) {
				k = radix_of<ASC>(x[j]);
			} else {
				k = kin[j];
				i = iin[j];
			}
		}
		key[e] = k;
		id[e] = i;
	}
}

/*
 * One tile of pass p (the digit at bit 4p), its keys and indices loaded
 * (radix_load): each element ranked among its wave's elements of the same
 * digit by ballots (4 of the digit's bits: no per-thread counters), the
 * waves' counts of each digit into tbl[digit][wave], one wave's scan of tbl
 * in (digit, wave) order - so the tile's order is (digit, position):
 * stable - and the tile through shared memory in that order (keys and
 * indices together), thread i writing places i, i + B, ... to the digit's next place
 * in the output, m.gbase[digit], + i - the digit's start in the tile: runs
 * of consecutive addresses.  gbase advances by the tile's counts.  NEXT:
 * counts the next pass's digit of every key it writes into c.
 */
template <bool NEXT>
HR_DEVICE void radix_tile(const uint32_t (&key)[SORT_RADIX_PER_THREAD],
			  const uint32_t (&id)[SORT_RADIX_PER_THREAD], uint32_t base, uint32_t end,
			  uint32_t *kout, uint32_t *iout, int p, bool last, const radix_sm &m,
			  uint32_t (&c)[SORT_RADIX_CREGS])
{
	constexpr uint32_t E = SORT_RADIX_PER_THREAD, DM = SORT_RADIX_DIGITS - 1;
	const uint32_t ws = (uint32_t)hr_wave_size(), t = threadIdx.x, B = blockDim.x;
	const uint32_t lane = t & (ws - 1), w = t / ws, nw = B / ws, M = SORT_RADIX_DIGITS * nw;
	const uint32_t sh = (uint32_t)p * SORT_RADIX_BITS;
	const uint64_t lt = ((uint64_t)1 << lane) - 1;
	uint32_t *const stage = m.stage, *const tbl = m.tbl, *const gbase = m.gbase;
	uint32_t *const tstart = m.tstart;
	uint32_t pos[E], run = 0;       /* run: lane d < 16, digit d's count in the earlier slots */

#pragma unroll
	for (uint32_t e = 0; e < E; e++) {
		const bool valid = radix_slot(base, e) < end;
		const uint32_t d = key[e] >> sh & DM;
		const uint64_t v = hr_ballot(valid);
		uint64_t mk = v, ml = v;

#pragma unroll
		for (uint32_t b = 0; b < SORT_RADIX_BITS; b++) {
			const uint64_t bb = hr_ballot(valid && (d >> b & 1));

			mk &= d >> b & 1 ? bb : ~bb;
			ml &= lane >> b & 1 ? bb : ~bb;
		}
		pos[e] = hr_shfl(run, (int)d, (int)ws) + (uint32_t)__popcll(mk & lt);
		run += (uint32_t)__popcll(ml);
	}
	if (lane < SORT_RADIX_DIGITS)
		tbl[lane * nw + w] = run;
	__syncthreads();
	if (w == 0) {
		/* exclusive scan of tbl[0, M) in (digit, wave) order */
		const uint32_t cn = (M + ws - 1) / ws, lo = lane * cn < M ? lane * cn : M;
		const uint32_t hi = lo + cn < M ? lo + cn : M;
		uint32_t sum = 0, z;

		for (uint32_t i = lo; i < hi; i++)
			sum += tbl[i];
		z = hr_wave_prefix_sum(sum, (int)ws) - sum;
		for (uint32_t i = lo; i < hi; i++) {
			const uint32_t y = tbl[i];

			tbl[i] = z;
			z += y;
		}
		if (lane == ws - 1)
			tstart[SORT_RADIX_DIGITS] = z;  /* the tile's element count */
	}
	__syncthreads();
#pragma unroll
	for (uint32_t e = 0; e < E; e++)
		pos[e] += tbl[(key[e] >> sh & DM) * nw + w];
	if (t < SORT_RADIX_DIGITS)
		tstart[t] = tbl[t * nw];
	__syncthreads();
	const uint32_t total = tstart[SORT_RADIX_DIGITS];

	/* keys at stage[0, tile), indices at stage[tile, 2 tile) */
#pragma unroll
	for (uint32_t e = 0; e < E; e++)
		if (radix_slot(base, e) < end) {
			stage[pos[e]] = key[e];
			stage[E * B + pos[e]] = id[e];
		}
	__syncthreads();
	for (uint32_t i = t; i < total; i += B) {
		const uint32_t k = stage[i], d = k >> sh & DM, o = gbase[d] + i - tstart[d];

		if (!last) {
			kout[o] = k;
			if constexpr (NEXT)
				radix_count(c, k >> (sh + SORT_RADIX_BITS) & DM);
		}
		iout[o] = stage[E * B + i];
	}
	__syncthreads();
	/* no barrier after: gbase is read again after the next tile's first
	 * three, tstart rewritten after its first */
	if (t < SORT_RADIX_DIGITS)
		gbase[t] += tstart[t + 1] - tstart[t];
}

/* Pass p over the tiles of [lo, hi) in order, each tile's loads issued
 * while the one before is placed. */
template <bool ASC, bool NEXT, typename T>
HR_DEVICE void radix_tiles(const T *x, const uint32_t *kin, const uint32_t *iin, uint32_t *kout,
			   uint32_t *iout, uint32_t lo, uint32_t hi, int p, bool last,
			   const radix_sm &m, uint32_t (&c)[SORT_RADIX_CREGS])
{
	const uint32_t tile = SORT_RADIX_PER_THREAD * blockDim.x;
	uint32_t key[SORT_RADIX_PER_THREAD], id[SORT_RADIX_PER_THREAD];
	uint32_t nkey[SORT_RADIX_PER_THREAD], nid[SORT_RADIX_PER_THREAD];

	if (lo >= hi)
		return;
	radix_load<ASC>(x, kin, iin, lo, hi, p, nkey, nid);
	for (uint32_t base = lo; base < hi; base += tile) {
#pragma unroll
		for (uint32_t e = 0; e < SORT_RADIX_PER_THREAD; e++) {
			key[e] = nkey[e];
			id[e] = nid[e];
		}
		if (hi - base > tile)
			radix_load<ASC>(x, kin, iin, base + tile, hi, p, nkey, nid);
		radix_tile<NEXT>(key, id, base, hi, kout, iout, p, last, m, c);
	}
}

/*
 * Counts of the 16 digits at bit sh of the keys [lo, hi) (pass 0 from x,
 * else kin) into hist (zeroed, then a barrier, by the caller): lane d of
 * each wave counts digit d by ballots, 16 loads in flight a lane (8
 * measured 19 us a count launch at 32 x 151936 f32 on an H200, 16 about 16).
 */
template <bool ASC, typename T>
HR_DEVICE void radix_hist(const T *x, const uint32_t *kin, uint32_t lo, uint32_t hi, int p,
			  uint32_t *hist)
{
	constexpr uint32_t U = 16, DM = SORT_RADIX_DIGITS - 1;
	const uint32_t ws = (uint32_t)hr_wave_size(), t = threadIdx.x, B = blockDim.x;
	const uint32_t lane = t & (ws - 1), sh = (uint32_t)p * SORT_RADIX_BITS;
	uint32_t cnt = 0;

	for (uint32_t j0 = lo + (t - lane) * U; j0 < hi; j0 += U * B) {
		uint32_t k[U];

#pragma unroll
		for (uint32_t u = 0; u < U; u++) {
			const uint32_t j = j0 + u * ws + lane;

			k[u] = j < hi ? (p == 0 ? radix_of<ASC>(x[j]) : kin[j]) : 0;
		}
#pragma unroll
		for (uint32_t u = 0; u < U; u++) {
			const uint32_t d = k[u] >> sh & DM;
			uint64_t ml = hr_ballot(j0 + u * ws + lane < hi);

#pragma unroll
			for (uint32_t b = 0; b < SORT_RADIX_BITS; b++) {
				const uint64_t bb = hr_ballot(d >> b & 1);

				ml &= lane >> b & 1 ? bb : ~bb;
			}
			cnt += (uint32_t)__popcll(ml);
		}
	}
	if (lane < SORT_RADIX_DIGITS && cnt)
		atomicAdd(&hist[lane], cnt);
}

template <bool ASC, typename T>
HR_DEVICE void radix_row(const T *x, uint32_t *dst, uint32_t n, uint32_t pad, uint32_t *w)
{
	__shared__ uint32_t stage[2 * SORT_RADIX_PER_THREAD * SORT_RADIX_MAX_BLOCK];
	__shared__ uint32_t tbl[SORT_RADIX_DIGITS * SORT_MAX_WAVES];
	__shared__ uint32_t hist[SORT_RADIX_DIGITS], gbase[SORT_RADIX_DIGITS];
	__shared__ uint32_t tstart[SORT_RADIX_DIGITS + 1];
	const radix_sm m = { stage, tbl, gbase, tstart };
	constexpr int PASSES = radix_key<T>::BITS / SORT_RADIX_BITS;
	const uint32_t t = threadIdx.x;
	uint32_t *kA = w, *iA = w + pad, *kB = w + 2 * (uint64_t)pad;
	uint32_t c[SORT_RADIX_CREGS];

#pragma unroll
	for (int k = 0; k < SORT_RADIX_CREGS; k++)
		c[k] = 0;
	if (t < SORT_RADIX_DIGITS)
		hist[t] = 0;
	__syncthreads();
	radix_hist<ASC>(x, (const uint32_t *)nullptr, 0, n, 0, hist);
	__syncthreads();

	for (int p = 0; p < PASSES; p++) {
		const bool last = p == PASSES - 1;
		const uint32_t *kin = p & 1 ? kA : kB, *iin = p & 1 ? iA : dst;
		uint32_t *kout = p & 1 ? kB : kA, *iout = p & 1 ? dst : iA;

		if (t == 0) {
			uint32_t s = 0;

			for (int k = 0; k < SORT_RADIX_DIGITS; k++) {
				gbase[k] = s;
				s += hist[k];
				hist[k] = 0;
			}
		}
		__syncthreads();
		radix_tiles<ASC, true>(x, kin, iin, kout, iout, 0, n, p, last, m, c);
		if (!last) {
			radix_hist_add(c, hist);
			__syncthreads();
		}
	}
}

/*
 * The shared-memory form for 1-, 2- and 4-byte types: a stable LSD radix
 * sort of the row's radix keys (radix_of: 4 bits a pass, 2 passes for u8,
 * 4 for f16/bf16, 8 for f32/u32) in the kernel's own ncols_pad u32 of
 * shared memory, no scratch and no other shared memory - the same launch
 * as the bitonic network it replaces from 256 (1- and 2-byte keys) or 512
 * (4-byte keys) padded columns up: per pass 5 barriers (7 in the first 3
 * passes of 4-byte keys, whose keys and indices go through shared memory
 * apart until the index can take the sorted low 12 bits' place) and every
 * element written and read once in shared memory: 9 barriers a row for u8,
 * 19 for f16/bf16, 45 for f32/u32, where the network takes
 * log2(pad) (log2(pad) + 1) / 2 stages of a barrier and a compare-exchange
 * (45 at 512, 55 at 1024, 66 at 2048, 78 at 4096; the 4-byte network also
 * loads both elements from global memory at every comparison).  From 512
 * 4-byte keys on it is the faster (8192 x 512 f32 on an H200: 1.33x torch
 * against the network's 0.75x, 2026-11-28).
 *
 * Wave w holds positions [w E ws, (w + 1) E ws) of the row, E = pad / B
 * rounded up, at most SORT_SHARED_MAX_E = 4 (the launch's own block, about
 * pad / 4 threads, gives 4 up to 4096 columns: half the waves of pad / 2,
 * so cheaper barriers and scans - 4096 x 1024 f32 0.65x -> 0.89x torch on
 * an H200; 8 a thread took 56 registers on sm_90 against 32, halving the
 * blocks an SM holds, so 4097 to 8192 columns keep the network), slot e of
 * lane l the position w E ws + e ws + l; a position >= ncols takes no part.  A pass ranks each
 * element in (digit, position) order: within its wave by ballots (4 of the
 * digit's bits, so no per-thread counters), the wave's count of each digit
 * into tbl[digit][wave] (16 waves-many u32 at the start of the buffer),
 * one wave scans tbl, and the element goes to tbl + its rank in its wave -
 * stable, so ties keep their index order as the network's (value, index)
 * order does.  1- and 2-byte keys travel packed with their index as
 * key << 16 | index, 4-byte keys from pass 3 on as key with its low 12
 * bits (sorted) replaced by the index (the row has at most 4096 columns
 * here).
 */
#define SORT_SHARED_MAX_E 4
/* pad <= SORT_SHARED_MAX_E x 1024 = 2^12: an index in 12 bits, in a
 * 4-byte key's place from pass 3 on (its low 3 digits sorted) */
#define SORT_SHARED_IDX_MASK 0xfffu
#define SORT_SHARED_PACK_PASS 3

/* false (nothing done, nothing written): the launch does not suit it. */
template <bool ASC, typename T>
HR_DEVICE bool radix_shared(const T *x, uint32_t *dst, uint32_t n, uint32_t pad, uint32_t *sh)
{
	constexpr int BITS = radix_key<T>::BITS;
	constexpr bool PACK = BITS <= 16;
	constexpr int PASSES = BITS / SORT_RADIX_BITS;
	constexpr uint32_t DM = SORT_RADIX_DIGITS - 1;
	const uint32_t ws = (uint32_t)hr_wave_size(), B = blockDim.x, t = threadIdx.x;
	const uint32_t lane = t & (ws - 1), w = t / ws, nw = B / ws;
	const uint32_t E = (pad + B - 1) / B, M = SORT_RADIX_DIGITS * nw;
	const uint32_t first = w * E * ws + lane;
	const uint64_t lt = ((uint64_t)1 << lane) - 1;
	uint32_t *tbl = sh;
	uint32_t key[SORT_SHARED_MAX_E], id[SORT_SHARED_MAX_E], pos[SORT_SHARED_MAX_E];

	if (BITS == 0 || B % ws != 0 || E > SORT_SHARED_MAX_E || M > pad || pad > SORT_SHARED_IDX_MASK + 1)
		return false;
#pragma unroll
	for (uint32_t e = 0; e < SORT_SHARED_MAX_E; e++) {
		const uint32_t q = first + e * ws;

		key[e] = 0;
		id[e] = q;
		if (e < E && q < n) {
			const uint32_t k = radix_of<ASC>(x[q]);

			key[e] = PACK ? k << 16 | q : k;
		}
	}
	for (int p = 0; p < PASSES; p++) {
		const uint32_t shift = (uint32_t)p * SORT_RADIX_BITS + (PACK ? 16 : 0);
		const bool last = p == PASSES - 1;
		/* 4-byte keys: packed with the index once their low 12 bits are
		 * sorted (the index takes them: pad <= 4 x 1024) */
		const bool pk = PACK || p >= SORT_SHARED_PACK_PASS;
		uint32_t run = 0;       /* lane d < 16: digit d's count in the earlier slots */

		if (!PACK && p == SORT_SHARED_PACK_PASS) {
#pragma unroll
			for (uint32_t e = 0; e < SORT_SHARED_MAX_E; e++)
				key[e] = (key[e] & ~SORT_SHARED_IDX_MASK) | id[e];
		}

#pragma unroll
		for (uint32_t e = 0; e < SORT_SHARED_MAX_E; e++) {
			if (e < E) {    /* the same for the whole block */
				const bool valid = first + e * ws < n;
				const uint32_t d = key[e] >> shift & DM;
				const uint64_t v = hr_ballot(valid);
				uint64_t m = v, ml = v;

#pragma unroll
				for (uint32_t b = 0; b < SORT_RADIX_BITS; b++) {
					const uint64_t bb = hr_ballot(valid && (d >> b & 1));

					m &= d >> b & 1 ? bb : ~bb;
					ml &= lane >> b & 1 ? bb : ~bb;
				}
				pos[e] = hr_shfl(run, (int)d, (int)ws) + (uint32_t)__popcll(m & lt);
				run += (uint32_t)__popcll(ml);
			}
		}
		if (lane < SORT_RADIX_DIGITS)
			tbl[lane * nw + w] = run;
		__syncthreads();
		if (w == 0) {
			/* exclusive scan of tbl[0, M) in (digit, wave) order */
			const uint32_t c = (M + ws - 1) / ws, lo = lane * c < M ? lane * c : M;
			const uint32_t hi = lo + c < M ? lo + c : M;
			uint32_t s = 0, z;

			for (uint32_t i = lo; i < hi; i++)
				s += tbl[i];
			z = hr_wave_prefix_sum(s, (int)ws) - s;
			for (uint32_t i = lo; i < hi; i++) {
				const uint32_t y = tbl[i];

				tbl[i] = z;
				z += y;
			}
		}
		__syncthreads();
#pragma unroll
		for (uint32_t e = 0; e < SORT_SHARED_MAX_E; e++)
			if (e < E && first + e * ws < n)
				pos[e] += tbl[(key[e] >> shift & DM) * nw + w];
		__syncthreads();        /* tbl is read: the buffer takes the row */
		if (!pk) {
#pragma unroll
			for (uint32_t e = 0; e < SORT_SHARED_MAX_E; e++)
				if (e < E && first + e * ws < n)
					sh[pos[e]] = key[e];
			__syncthreads();
#pragma unroll
			for (uint32_t e = 0; e < SORT_SHARED_MAX_E; e++)
				if (e < E && first + e * ws < n)
					key[e] = sh[first + e * ws];
			__syncthreads();
		}
#pragma unroll
		for (uint32_t e = 0; e < SORT_SHARED_MAX_E; e++)
			if (e < E && first + e * ws < n)
				sh[pos[e]] = pk ? key[e] : id[e];
		__syncthreads();
		if (last)
			break;
#pragma unroll
		for (uint32_t e = 0; e < SORT_SHARED_MAX_E; e++)
			if (e < E && first + e * ws < n) {
				if (pk)
					key[e] = sh[first + e * ws];
				else
					id[e] = sh[first + e * ws];
			}
		__syncthreads();
	}
	for (uint32_t i = t; i < n; i += B)
		dst[i] = sh[i] & (PACK ? 0xffffu : SORT_SHARED_IDX_MASK);
	return true;
}

/* RADIX: the shared-memory radix form where it serves (radix_shared); the
 * wide form's fallback on global scratch takes the network alone. */
template <bool ASC, bool RADIX, typename T>
HR_DEVICE void asort_row(const T *x, uint32_t *dst, int ncols, int ncols_pad, uint32_t *idx)
{

	const uint64_t n = ncols > 0 ? (uint64_t)ncols : 0, row = blockIdx.x;
	const uint32_t pad = ncols_pad > 0 ? (uint32_t)ncols_pad : 0;

	/* A pad that is not a power of two >= ncols would leave the row unsorted. */
	if (n == 0 || pad < n || (pad & (pad - 1)) != 0)
		return;
	x += row * n;
	dst += row * n;
	/* the radix form from where it takes fewer barriers (radix_shared) */
	if constexpr (RADIX && radix_key<T>::BITS > 0) {
		if (pad >= (radix_key<T>::BITS <= 16 ? 256u : 512u) &&
		    radix_shared<ASC>(x, dst, (uint32_t)n, pad, idx))
			return;
	}
	if (sizeof(T) <= 2 && pad <= 65536)
		bitonic16<ASC>(x, idx, (uint32_t)n, pad);
	else
		bitonic<ASC>(x, idx, (uint32_t)n, pad);
	for (uint64_t i = threadIdx.x; i < n; i += blockDim.x)
		dst[i] = idx[i];
}

/* The wide form: row blockIdx.x on its 3 * ncols_pad u32 of ws. */
template <bool ASC, typename T>
HR_DEVICE void asort_wide_row(const T *x, uint32_t *dst, int ncols, int ncols_pad, uint32_t *ws)
{
	const uint64_t n = ncols > 0 ? (uint64_t)ncols : 0, row = blockIdx.x;
	const uint32_t pad = ncols_pad > 0 ? (uint32_t)ncols_pad : 0;
	uint32_t *w = ws + row * 3 * (uint64_t)pad;

	/* 16-bit counters: at most 65535 elements a thread */
	const bool radix_fits = n <= 65535ull * blockDim.x;

	if (radix_key<T>::BITS == 0 || blockDim.x > SORT_RADIX_MAX_BLOCK || blockDim.x % 64 != 0 ||
	    !radix_fits) {
		asort_row<ASC, false, T>(x, dst, ncols, ncols_pad, w);
		return;
	}
	if (n == 0 || pad < n || (pad & (pad - 1)) != 0)
		return;
	radix_row<ASC, T>(x + row * n, dst + row * n, (uint32_t)n, pad, w);
}

/*
 * The multi-block form (asort_*_multi_T): the wide form's LSD radix sort
 * with a row spread over the grid's gridDim.y blocks, launched 2 x passes
 * times (u8 4, f16/bf16 8, f32/u32 16; hanzo_rocm_op_run does it from the
 * #@passes line), argument pass = 0, 1, ... in order on one stream.  Block
 * (r, s) owns chunk s of row r, columns [s C, (s + 1) C), C = ceil(ncols /
 * S).  Launch 2p counts digit p (bits 4p .. 4p + 3) of its chunk's keys
 * into cnt[s][digit]; launch 2p + 1 finds its chunk's place of each digit
 * from every block's counts (the digit's start in the row, then the
 * earlier chunks' counts of it) and moves its chunk's keys and indices
 * there tile by tile (radix_tile), stable as the one-block form: a row's
 * order is the same for any number of blocks.  The one-block form runs a
 * pass as a chain of tiles on one multiprocessor (32 rows of 151936 took 32
 * of an H200's 132); here S blocks a row run S shorter chains at once, S
 * from the library's rows-split rule (split_share=1: one wave of the
 * device's resident blocks, each chunk at least split_min = 1024 columns).
 *
 * ws row (4 x ncols_pad u32): kA, iA, kB as the wide form, then cnt, 16 u32
 * a block (S <= ncols_pad / 16).  Block: a multiple of 64, at most
 * SORT_MULTI_MAX_BLOCK (its static shared memory, 8.8 KiB); any other
 * launch, pass or S writes nothing.
 */
#define SORT_MULTI_MAX_BLOCK 256

template <bool ASC, typename T>
HR_DEVICE void asort_multi_row(const T *x, uint32_t *dst, int ncols, int ncols_pad, uint32_t *ws,
			       int pass)
{
	__shared__ uint32_t stage[2 * SORT_RADIX_PER_THREAD * SORT_MULTI_MAX_BLOCK];
	__shared__ uint32_t tbl[SORT_RADIX_DIGITS * SORT_MULTI_MAX_BLOCK / 32];
	__shared__ uint32_t hist[SORT_RADIX_DIGITS], before[SORT_RADIX_DIGITS];
	__shared__ uint32_t gbase[SORT_RADIX_DIGITS], tstart[SORT_RADIX_DIGITS + 1];
	const radix_sm m = { stage, tbl, gbase, tstart };
	constexpr int PASSES = radix_key<T>::BITS / SORT_RADIX_BITS;
	const uint32_t n = ncols > 0 ? (uint32_t)ncols : 0, pad = ncols_pad > 0 ? (uint32_t)ncols_pad : 0;
	const uint32_t t = threadIdx.x, B = blockDim.x, S = gridDim.y, s = blockIdx.y;
	const uint64_t row = blockIdx.x;
	uint32_t c[SORT_RADIX_CREGS];

	if (PASSES == 0 || n == 0 || pad < n || (pad & (pad - 1)) != 0 || B % 64 != 0 ||
	    B > SORT_MULTI_MAX_BLOCK || pass < 0 || pass >= 2 * PASSES || S > pad / 16)
		return;
	const int p = pass >> 1;
	const bool last = p == PASSES - 1;
	const uint32_t chunk = n / S + (n % S != 0);
	const uint32_t lo = (uint64_t)s * chunk < n ? s * chunk : n, hi = n - lo < chunk ? n : lo + chunk;
	uint32_t *const w = ws + row * 4 * (uint64_t)pad, *const cnt = w + 3 * (uint64_t)pad;
	uint32_t *const kA = w, *const iA = w + pad, *const kB = w + 2 * (uint64_t)pad;
	const uint32_t *kin = p & 1 ? kA : kB, *iin = p & 1 ? iA : dst + row * n;
	uint32_t *kout = p & 1 ? kB : kA, *iout = p & 1 ? dst + row * n : iA;

	x += row * n;
#pragma unroll
	for (int k = 0; k < SORT_RADIX_CREGS; k++)
		c[k] = 0;
	if (t < SORT_RADIX_DIGITS)
		hist[t] = before[t] = 0;
	__syncthreads();
	if ((pass & 1) == 0) {
		radix_hist<ASC>(x, kin, lo, hi, p, hist);
		__syncthreads();
		if (t < SORT_RADIX_DIGITS)
			cnt[s * SORT_RADIX_DIGITS + t] = hist[t];
		return;
	}
	/* every block's counts: the row's of each digit, the earlier chunks';
	 * B is a multiple of 16, so thread t sees digit t % 16 only: sums in
	 * registers (independent loads), then one add a digit a wave */
	{
		const uint32_t ws = (uint32_t)hr_wave_size();
		uint32_t tot = 0, bef = 0;

#pragma unroll 4
		for (uint32_t i = t; i < S * SORT_RADIX_DIGITS; i += B) {
			const uint32_t v = cnt[i];

			tot += v;
			bef += i / SORT_RADIX_DIGITS < s ? v : 0;
		}
		for (uint32_t o = SORT_RADIX_DIGITS; o < ws; o <<= 1) {
			tot += hr_shfl_xor(tot, (int)o, (int)ws);
			bef += hr_shfl_xor(bef, (int)o, (int)ws);
		}
		if ((t & (ws - 1)) < SORT_RADIX_DIGITS) {
			atomicAdd(&hist[t % SORT_RADIX_DIGITS], tot);
			atomicAdd(&before[t % SORT_RADIX_DIGITS], bef);
		}
	}
	__syncthreads();
	if (t == 0) {
		uint32_t z = 0;

		for (int k = 0; k < SORT_RADIX_DIGITS; k++) {
			gbase[k] = z + before[k];
			z += hist[k];
		}
	}
	__syncthreads();
	radix_tiles<ASC, false>(x, kin, iin, kout, iout, lo, hi, p, last, m, c);
}

#define SORT_MULTI(T, SUF) \
	HR_KERNEL void __launch_bounds__(SORT_MULTI_MAX_BLOCK) asort_asc_multi_##SUF(const T *x, uint32_t *dst, \
					    int ncols, int ncols_pad, uint32_t *ws, int pass) \
	{ \
		asort_multi_row<true, T>(x, dst, ncols, ncols_pad, ws, pass); \
	} \
	HR_KERNEL void __launch_bounds__(SORT_MULTI_MAX_BLOCK) asort_desc_multi_##SUF(const T *x, uint32_t *dst, \
					     int ncols, int ncols_pad, uint32_t *ws, int pass) \
	{ \
		asort_multi_row<false, T>(x, dst, ncols, ncols_pad, ws, pass); \
	}

#define SORT(T, SUF) \
	HR_KERNEL void __launch_bounds__(SORT_RADIX_MAX_BLOCK) asort_asc_##SUF(const T *x, uint32_t *dst, int ncols, \
					    int ncols_pad) \
	{ \
		HR_DYNAMIC_SHARED(uint32_t, idx); \
		asort_row<true, true, T>(x, dst, ncols, ncols_pad, idx); \
	} \
	HR_KERNEL void __launch_bounds__(SORT_RADIX_MAX_BLOCK) asort_desc_##SUF(const T *x, uint32_t *dst, int ncols, \
					     int ncols_pad) \
	{ \
		HR_DYNAMIC_SHARED(uint32_t, idx); \
		asort_row<false, true, T>(x, dst, ncols, ncols_pad, idx); \
	} \
	HR_KERNEL void __launch_bounds__(SORT_RADIX_MAX_BLOCK) asort_asc_wide_##SUF(const T *x, uint32_t *dst, int ncols, \
					    int ncols_pad, uint32_t *ws) \
	{ \
		asort_wide_row<true, T>(x, dst, ncols, ncols_pad, ws); \
	} \
	HR_KERNEL void __launch_bounds__(SORT_RADIX_MAX_BLOCK) asort_desc_wide_##SUF(const T *x, uint32_t *dst, int ncols, \
					     int ncols_pad, uint32_t *ws) \
	{ \
		asort_wide_row<false, T>(x, dst, ncols, ncols_pad, ws); \
	}

SORT(float, f32)
SORT(double, f64)
SORT(hr_f16, f16)
SORT(hr_bf16, bf16)
SORT(uint8_t, u8)
SORT(uint32_t, u32)
SORT(int64_t, i64)

SORT_MULTI(float, f32)
SORT_MULTI(hr_f16, f16)
SORT_MULTI(hr_bf16, bf16)
SORT_MULTI(uint8_t, u8)
SORT_MULTI(uint32_t, u32)
