// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sampling family: the next token from each row of logits, and top-k,
 * without sorting the vocabulary.  One block a row; rows are contiguous
 * (row r at x + r * ncols).
 *
 *   sample_T(const T *x, uint32_t *dst, int ncols, const float *temperature,
 *            const int32_t *top_k, const float *top_p, const float *min_p,
 *            const uint64_t *seed, const uint64_t *offset)
 *       dst[r] = a token drawn from row r's filtered distribution.  Every
 *       parameter array has one entry a row; a NULL array turns its filter
 *       off.  q_j = exp((x_j - max) / temperature) (temperature <= 0:
 *       greedy, as top_k = 1).  The order of the row is (logit descending,
 *       index ascending); every filter keeps a prefix of it:
 *         min_p > 0:        tokens with q_j >= min_p (q_max = 1);
 *         0 < top_k < ncols: the first top_k tokens of those;
 *         top_p < 1:        the shortest prefix of those whose mass is
 *                           >= top_p times their mass;
 *       and the token is drawn from the prefix in proportion to q_j.
 *       Greedy is top_k = 1 (the largest logit, the lower index on a tie).
 *       Randomness: Philox-4x32-10 (Salmon et al., SC'11) with key =
 *       seed[r] (low word first) and counter = (offset[r] low, high, 0, 0);
 *       its first output word u gives the point floor(Z * u / 2^32) of the
 *       prefix's mass Z (40-bit fixed point, below), and the token is the
 *       first, in index order, whose running mass exceeds it: the same
 *       seed and offset give the same token on every device, the host
 *       backend included (up to exp's last-bit rounding at a boundary).
 *       A row whose maximum is NaN gets ncols.  ncols <= 2^23.
 *
 *   topk_T(const T *x, T *values, uint32_t *dst, int ncols, int k)
 *       values[r, i], dst[r, i]: the i-th of the k largest elements of
 *       row r and its index, largest first, ties to the lower index, NaN
 *       larger than any number (torch.topk, sorted).  1 <= k <=
 *       min(ncols, 1024); the kernel writes nothing otherwise.
 *
 * How, top_k in (1, 1024] and below ncols (sample_T) and topk_T: one pass
 * over the row keeps the candidates above a running threshold in shared
 * memory (smp_topk_words, below); the k survivors are sorted, and the
 * sampler's filters and draw are prefix sums over them, giving the token
 * the passes below give.
 *
 * How, otherwise (the approach of FlashInfer's sorting-free sampling: one
 * block a row, the cut found by repeated block reductions instead of a sort):
 * each logit has a 32-bit key in its order (NaN highest, -0 as +0).  A
 * prefix of the row's order ends at a pivot (key K, index I); the pivot
 * of the shortest prefix whose weight reaches a target is found by a
 * radix select, 4 bits a pass, 8 passes: each pass histograms the weight
 * of the candidates (count for top-k, mass for top-p) over the next 4
 * bits of their key in each thread's registers (16 bins), adds them to
 * its wave's 16 bins in shared memory (integer atomics: the sums do not
 * depend on their order), and one thread walks the 16 bins, summed over
 * the waves, from the top.  (Shared-memory atomics on 256
 * bins were 2.2 ms for 32 x 151936 on an H100: logits' keys crowd a few
 * exponent bins, so the atomics serialize.)  Greedy rows (top_k = 1) take
 * one arg-max reduction instead.  The pivot's index among the elements of key K is
 * then found by a search in index order (smp_find).  Masses are 40-bit
 * fixed point (q * 2^40, u64): sums are exact and independent of the
 * block's size, the wave size and the order atomics land in, so the
 * token is reproducible run to run; tokens with q < 2^-40 have no mass.
 * smp_find splits the row into one contiguous segment a wave, sums each,
 * and the wave whose segment holds the point walks it a wave-width at a
 * time with a wave prefix sum.  No workspace; static shared memory only
 * (the waves' bins, and the one-pass top-k's 2048-word candidate buffer;
 * the k <= 1024 survivors are sorted with a bitonic network, not the row).
 */
#include "hr-kernel.h"
#include "hr-rows.h"

#define SMP_FIX_ONE 1099511627776.0f     /* 2^40 */
#define SMP_MAX_NCOLS (1 << 23)
#define SMP_TOPK_MAX 1024
#define SMP_DIGIT_BITS 4
#define SMP_DIGITS (1 << SMP_DIGIT_BITS)
#define SMP_UNROLL 8
#define SMP_UNROLL_SELECT 4  /* beside 16 u64 bins: 8 spilled at 64 registers (sm_90, 1024 threads) */

typedef unsigned long long smp_u64;

/* The order key of a logit: unsigned order = the logit's, NaN highest, -0 as +0. */
HR_DEVICE uint32_t smp_key(float v)
{
	uint32_t u = hr_f32_bits(v);

	if (v != v)
		return 0xffffffffu;
	if ((u & 0x7fffffffu) == 0)
		u = 0;
	return u & 0x80000000u ? ~u : u | 0x80000000u;
}

/* A prefix of the order, ended by its last element (key, idx); off: all. */
struct smp_cut {
	uint32_t key, idx;
	bool on;
};

HR_DEVICE bool smp_in(const smp_cut &c, uint32_t k, uint32_t j)
{
	return !c.on || k > c.key || (k == c.key && j <= c.idx);
}

/* A row's filters: the candidates are the tokens that pass all of them. */
struct smp_row {
	float m, invt, minp;
	bool use_q, use_minp;           /* use_q: masses are needed */
	smp_cut c1, c2;
};

HR_DEVICE float smp_q(const smp_row &r, float v)
{
	return v == r.m ? 1.0f : hr_exp((v - r.m) * r.invt);
}

HR_DEVICE smp_u64 smp_fix(float q)
{
	if (!(q > 0.0f))
		return 0;               /* 0 and NaN */
	if (q >= 1.0f)
		return (smp_u64)SMP_FIX_ONE;
	return (smp_u64)(q * SMP_FIX_ONE);
}

/* Element j of value v: is it a candidate, and its weight (mass or 1). */
HR_DEVICE bool smp_cand(const smp_row &r, float v, uint32_t key, uint32_t j, bool mass, smp_u64 *w)
{
	if (!smp_in(r.c1, key, j) || !smp_in(r.c2, key, j))
		return false;
	if (r.use_q) {
		const float q = smp_q(r, v);

		if (r.use_minp && !(q >= r.minp))
			return false;
		*w = mass ? smp_fix(q) : 1;
	} else {
		*w = 1;
	}
	return true;
}

/*
 * f(value, j) for j = start, start + stride, ... < end, SMP_UNROLL loads
 * issued before any is used: one block a row keeps too few bytes in flight
 * with one load a thread at a time (an arg-max of 32 x 151936 took 70 us
 * on an H100 that way, about 9 GB/s a multiprocessor).
 */
template <int U, typename T, typename F>
HR_DEVICE void smp_each(const T *x, uint32_t start, uint32_t end, uint32_t stride, F f)
{
	uint32_t j = start;

	for (; j < end && end - j > (uint32_t)(U - 1) * stride; j += (uint32_t)U * stride) {
		float v[U];

		for (int u = 0; u < U; u++)
			v[u] = hr_to_f32(x[j + (uint32_t)u * stride]);
		for (int u = 0; u < U; u++)
			f(v[u], j + (uint32_t)u * stride);
	}
	for (; j < end; j += stride)
		f(hr_to_f32(x[j]), j);
}

/*
 * The first index j, in index order, of the candidates (of key `key` when
 * only_key) whose running weight exceeds t; n when there is none.  Every
 * thread of the block calls it and gets the answer.
 */
template <typename T>
HR_DEVICE uint32_t smp_find(const T *x, uint32_t n, const smp_row &r, bool mass, bool only_key,
			    uint32_t key, smp_u64 t)
{
	__shared__ smp_u64 wsum[HR_MAX_WAVES_PER_BLOCK];
	__shared__ smp_u64 sh_base;
	__shared__ uint32_t sh_seg, sh_res;
	const int ws = hr_wave_size();
	const int lane = (int)threadIdx.x & (ws - 1), wave = (int)threadIdx.x / ws;
	const int nw = (int)blockDim.x / ws;
	const uint32_t seg = (n + (uint32_t)nw - 1) / (uint32_t)nw;
	const uint32_t s0 = (uint32_t)wave * seg < n ? (uint32_t)wave * seg : n;
	const uint32_t s1 = s0 + seg < n ? s0 + seg : n;
	smp_u64 acc = 0;

	smp_each<SMP_UNROLL>(x, s0 + (uint32_t)lane, s1, (uint32_t)ws, [&](float v, uint32_t j) {
		const uint32_t k = smp_key(v);
		smp_u64 w;

		if ((!only_key || k == key) && smp_cand(r, v, k, j, mass, &w))
			acc += w;
	});
	acc = hr_wave_sum(acc, ws);
	if (lane == 0)
		wsum[wave] = acc;
	__syncthreads();
	if (threadIdx.x == 0) {
		smp_u64 base = 0;
		int sel = nw;

		for (int w = 0; w < nw; w++) {
			if (base + wsum[w] > t) {
				sel = w;
				break;
			}
			base += wsum[w];
		}
		sh_seg = (uint32_t)sel;
		sh_base = base;
		sh_res = n;
	}
	__syncthreads();
	if ((uint32_t)wave == sh_seg) {
		smp_u64 base = sh_base;

		for (uint32_t c = s0; c < s1; c += (uint32_t)ws) {
			const uint32_t j = c + (uint32_t)lane;
			smp_u64 w = 0, incl;

			if (j < s1) {
				const float v = hr_to_f32(x[j]);
				const uint32_t k = smp_key(v);

				if (!((!only_key || k == key) && smp_cand(r, v, k, j, mass, &w)))
					w = 0;
			}
			incl = hr_wave_prefix_sum(w, ws);
			const int first = hr_wave_min(base + incl > t ? lane : ws, ws);

			if (first < ws) {
				if (lane == 0)
					sh_res = c + (uint32_t)first;
				break;
			}
			base += hr_shfl(incl, ws - 1, ws);
		}
	}
	__syncthreads();
	return sh_res;
}

/* The total weight of the candidates. */
template <typename T>
HR_DEVICE smp_u64 smp_total(const T *x, uint32_t n, const smp_row &r, bool mass)
{
	smp_u64 acc = 0;

	smp_each<SMP_UNROLL>(x, threadIdx.x, n, blockDim.x, [&](float v, uint32_t j) {
		smp_u64 w;

		if (smp_cand(r, v, smp_key(v), j, mass, &w))
			acc += w;
	});
	return hr_block_reduce(acc, hr_op_sum());
}

/*
 * The shortest prefix of the candidates (in the row's order) whose weight
 * is >= target (> 0): its last element in *out.  False (out untouched)
 * when all the candidates weigh less.
 */
template <typename T>
HR_DEVICE bool smp_select(const T *x, uint32_t n, const smp_row &r, bool mass, smp_u64 target,
			  smp_cut *out)
{
	__shared__ smp_u64 part[HR_MAX_WAVES_PER_BLOCK][SMP_DIGITS];
	__shared__ smp_u64 sh_above;
	__shared__ uint32_t sh_prefix;
	__shared__ int sh_found;
	const int ws = hr_wave_size();
	const int wave = (int)threadIdx.x / ws, nw = (int)blockDim.x / ws;
	uint32_t prefix = 0;
	smp_u64 above = 0;

	for (int shift = 32 - SMP_DIGIT_BITS; shift >= 0; shift -= SMP_DIGIT_BITS) {
		smp_u64 acc[SMP_DIGITS];

		for (int b = 0; b < SMP_DIGITS; b++)
			acc[b] = 0;
		for (int i = (int)threadIdx.x; i < nw * SMP_DIGITS; i += (int)blockDim.x)
			part[i / SMP_DIGITS][i % SMP_DIGITS] = 0;
		__syncthreads();
		smp_each<SMP_UNROLL_SELECT>(x, threadIdx.x, n, blockDim.x, [&](float v, uint32_t j) {
			const uint32_t k = smp_key(v);
			smp_u64 w;

			if (shift < 32 - SMP_DIGIT_BITS && (k >> (shift + SMP_DIGIT_BITS)) != prefix)
				return;
			if (smp_cand(r, v, k, j, mass, &w)) {
				const uint32_t d = (k >> shift) & (SMP_DIGITS - 1);

				for (int b = 0; b < SMP_DIGITS; b++)
					acc[b] += d == (uint32_t)b ? w : 0;
			}
		});
		for (int b = 0; b < SMP_DIGITS; b++)
			if (acc[b])
				atomicAdd(&part[wave][b], acc[b]);
		__syncthreads();
		if (threadIdx.x == 0) {
			smp_u64 cum = above;
			int d = SMP_DIGITS - 1;

			for (; d >= 0; d--) {
				smp_u64 h = 0;

				for (int w = 0; w < nw; w++)
					h += part[w][d];
				if (cum + h >= target)
					break;
				cum += h;
			}
			sh_found = d >= 0;
			sh_above = cum;
			sh_prefix = prefix << SMP_DIGIT_BITS | (uint32_t)(d < 0 ? 0 : d);
		}
		__syncthreads();
		if (!sh_found)
			return false;
		prefix = sh_prefix;
		above = sh_above;
	}
	/* Key K = prefix: the element of key K where the weight reaches target. */
	out->key = prefix;
	out->idx = smp_find(x, n, r, mass, true, prefix, target - above - 1);
	out->on = true;
	return true;
}

/*
 * The one-pass top-k (topk_T, and sample_T with 1 < top_k <= 1024 and
 * top_k < ncols): each element is a distinct 64-bit word, its key above
 * (0xffffffff - index), so (key desc, index asc) is the words' unsigned
 * order.  The block walks the row in tiles of SMP_TILE_U elements a thread
 * (the next tile's loads issued before this one is filtered) and appends
 * the words above a running threshold t (at first 0, below every word) to
 * a shared buffer of SMP_CAP words, a wave at a time (one shared atomic a
 * wave, the lanes' places from ballots).  A wave whose words do not fit
 * marks the overflow; the block then sets t to the k-th largest word of
 * the buffer (smp_kth) and keeps the k words >= t, and the words still
 * pending are filtered against the new t and appended again.  Every word
 * of the row's top k is >= t at any time, so the buffer ends holding them.
 * Logits in random order admit about k ln(n / tile) words after the first
 * tile; a row in ascending order admits all of them and costs one select
 * per SMP_CAP - k elements - right, only slower.
 */
#define SMP_CAP 2048            /* >= SMP_TOPK_MAX + one wave's tile (64 x SMP_TILE_U) */
#define SMP_TILE_U 8
#define SMP_NONE 0xffffffffu
/* sample_topk and sample_passes are not inlined into sample_row on NVIDIA:
 * the two paths in one function spilled on sm_90 at its 64 registers (1024
 * threads).  Inlined elsewhere: on AMD a call keeps its frame in scratch
 * (40 bytes a lane on gfx90a with ROCm 5.7), and out of line the host
 * compiler moved barriers apart. */
#if defined(HR_CUDA)
#define SMP_NOINLINE static __device__ __noinline__
#else
#define SMP_NOINLINE HR_DEVICE
#endif

HR_DEVICE uint32_t smp_popc(smp_u64 m)
{
	return (uint32_t)__popcll(m);
}

/* The word of element j: its order is the row's (key desc, index asc). */
HR_DEVICE smp_u64 smp_word(float v, uint32_t j)
{
	return (smp_u64)smp_key(v) << 32 | (smp_u64)(0xffffffffu - j);
}

HR_DEVICE uint32_t smp_word_idx(smp_u64 w)
{
	return 0xffffffffu - (uint32_t)w;
}

/* The logit of a word (-0 comes back as +0, a NaN as the default NaN). */
HR_DEVICE float smp_word_val(smp_u64 w)
{
	const uint32_t k = (uint32_t)(w >> 32);

	return hr_bits_f32(k & 0x80000000u ? k ^ 0x80000000u : ~k);
}

/*
 * The k-th largest of the distinct words buf[0, m) (1 <= k <= m), for every
 * thread: a radix select from the top, 4 bits a pass, the bins counted with
 * one ballot a bin; it stops as soon as the chosen bin holds one word.
 */
HR_DEVICE smp_u64 smp_kth(const smp_u64 *buf, uint32_t m, uint32_t k)
{
	__shared__ uint32_t part[HR_MAX_WAVES_PER_BLOCK][SMP_DIGITS];
	__shared__ uint32_t hist[SMP_DIGITS];
	__shared__ smp_u64 sh_word;
	const int ws = hr_wave_size();
	const int lane = (int)threadIdx.x & (ws - 1), wave = (int)threadIdx.x / ws;
	const int nw = (int)blockDim.x / ws;
	smp_u64 prefix = 0;
	uint32_t need = k;

	for (int shift = 64 - SMP_DIGIT_BITS; shift >= 0; shift -= SMP_DIGIT_BITS) {
		uint32_t cnt = 0;       /* lane b: bin b of this wave */

		for (uint32_t c = 0; c < m; c += blockDim.x) {
			const uint32_t i = c + threadIdx.x;
			const smp_u64 e = i < m ? buf[i] : 0;
			const bool in = i < m && (shift == 64 - SMP_DIGIT_BITS ||
						  (e >> (shift + SMP_DIGIT_BITS)) == prefix);
			const uint32_t d = (uint32_t)(e >> shift) & (SMP_DIGITS - 1);

			for (int b = 0; b < SMP_DIGITS; b++) {
				const uint32_t h = smp_popc(hr_ballot(in && d == (uint32_t)b));

				cnt += lane == b ? h : 0;
			}
		}
		if (lane < SMP_DIGITS)
			part[wave][lane] = cnt;
		__syncthreads();
		if (threadIdx.x < SMP_DIGITS) {
			uint32_t h = 0;

			for (int w = 0; w < nw; w++)
				h += part[w][threadIdx.x];
			hist[threadIdx.x] = h;
		}
		__syncthreads();
		int d = SMP_DIGITS - 1;

		for (; d > 0 && need > hist[d]; d--)
			need -= hist[d];
		prefix = prefix << SMP_DIGIT_BITS | (smp_u64)d;
		if (hist[d] == 1 && shift > 0) {        /* the word is the bin's only one */
			for (uint32_t i = threadIdx.x; i < m; i += blockDim.x)
				if (buf[i] >> shift == prefix)
					sh_word = buf[i];
			__syncthreads();
			return sh_word;
		}
	}
	return prefix;
}

/* Keeps the words of buf[0, m) that are >= t at buf[0, *n), *n their count. */
HR_DEVICE void smp_compact(smp_u64 *buf, uint32_t m, smp_u64 t, uint32_t *n)
{
	const int ws = hr_wave_size();
	const int lane = (int)threadIdx.x & (ws - 1);
	const smp_u64 below = ((smp_u64)1 << lane) - 1;

	if (threadIdx.x == 0)
		*n = 0;
	__syncthreads();
	/* a chunk's words go below the chunk's end: no later chunk is overwritten */
	for (uint32_t c = 0; c < m; c += blockDim.x) {
		const uint32_t i = c + threadIdx.x;
		const smp_u64 e = i < m ? buf[i] : 0;
		const bool keep = i < m && e >= t;
		const smp_u64 msk = hr_ballot(keep);
		uint32_t at = 0;

		if (lane == 0 && msk)
			at = atomicAdd(n, smp_popc(msk));
		at = hr_shfl(at, 0, ws);
		__syncthreads();
		if (keep)
			buf[at + smp_popc(msk & below)] = e;
	}
	__syncthreads();
}

/* Descending bitonic network over buf[0, pad), pad a power of two. */
HR_DEVICE void smp_sort_desc(smp_u64 *buf, uint32_t pad)
{
	for (uint32_t s = 2; s <= pad; s <<= 1) {
		for (uint32_t h = s >> 1; h > 0; h >>= 1) {
			for (uint32_t i = threadIdx.x; i < pad; i += blockDim.x) {
				const uint32_t o = i ^ h;

				if (o > i) {
					const smp_u64 a = buf[i], b = buf[o];

					if ((i & s) == 0 ? a < b : a > b) {
						buf[i] = b;
						buf[o] = a;
					}
				}
			}
			__syncthreads();
		}
	}
}

/*
 * The k largest words of row x (1 <= k <= min(n, SMP_TOPK_MAX)) at
 * buf[0, k), largest first, in one pass over the row; buf holds SMP_CAP.
 */
template <typename T>
HR_DEVICE void smp_topk_words(const T *x, uint32_t n, uint32_t k, smp_u64 *buf)
{
	__shared__ uint32_t sh_cnt, sh_fail[2];
	const int ws = hr_wave_size();
	const int lane = (int)threadIdx.x & (ws - 1);
	const smp_u64 below = ((smp_u64)1 << lane) - 1;
	const uint32_t bs = blockDim.x, tile = bs * SMP_TILE_U;
	const uint32_t ntiles = (n + tile - 1) / tile;
	smp_u64 t = 0;
	uint32_t round = 0, pad = 1;
	T cur[SMP_TILE_U], nxt[SMP_TILE_U];

	if (threadIdx.x == 0) {
		sh_cnt = 0;
		sh_fail[0] = sh_fail[1] = SMP_NONE;
	}
	for (int u = 0; u < SMP_TILE_U; u++) {
		const uint32_t j = threadIdx.x + (uint32_t)u * bs;

		cur[u] = x[j < n ? j : 0];
	}
	__syncthreads();
	for (uint32_t ti = 0; ti < ntiles; ti++) {
		const uint32_t base = ti * tile + threadIdx.x;
		smp_u64 w[SMP_TILE_U];
		uint32_t pend = 0;

		if (ti + 1 < ntiles)
			for (int u = 0; u < SMP_TILE_U; u++) {
				const uint32_t j = base + tile + (uint32_t)u * bs;

				nxt[u] = x[j < n ? j : 0];
			}
		for (int u = 0; u < SMP_TILE_U; u++) {
			const uint32_t j = base + (uint32_t)u * bs;

			w[u] = j < n ? smp_word(hr_to_f32(cur[u]), j) : 0;
			pend |= (w[u] > t ? 1u : 0u) << u;
		}
		/* rounds: append; on an overflow, raise t and append what is left */
		for (;;) {
			const uint32_t f = round++ & 1;
			uint32_t tot = 0;

			for (int u = 0; u < SMP_TILE_U; u++)
				tot += smp_popc(hr_ballot(pend >> u & 1));
			if (tot) {
				uint32_t at = 0;

				if (lane == 0) {
					at = atomicAdd(&sh_cnt, tot);
					if (at + tot > SMP_CAP)
						atomicMin(&sh_fail[f], at);
				}
				at = hr_shfl(at, 0, ws);
				if (at + tot <= SMP_CAP) {
					for (int u = 0; u < SMP_TILE_U; u++) {
						const smp_u64 msk = hr_ballot(pend >> u & 1);

						if (pend >> u & 1)
							buf[at + smp_popc(msk & below)] = w[u];
						at += smp_popc(msk);
					}
					pend = 0;
				}
			}
			__syncthreads();
			/* the reservations are contiguous: buf[0, fail) is written */
			const uint32_t fail = sh_fail[f];

			if (fail == SMP_NONE)
				break;
			t = smp_kth(buf, fail, k);      /* its barriers: sh_fail[f] read by all */
			if (threadIdx.x == 0)
				sh_fail[f] = SMP_NONE;
			smp_compact(buf, fail, t, &sh_cnt);
			for (int u = 0; u < SMP_TILE_U; u++)
				if (!(w[u] > t))
					pend &= ~(1u << u);
		}
		for (int u = 0; u < SMP_TILE_U; u++)
			cur[u] = nxt[u];
	}
	const uint32_t m = sh_cnt;

	if (m > k) {
		t = smp_kth(buf, m, k);
		smp_compact(buf, m, t, &sh_cnt);
	}
	while (pad < k)
		pad <<= 1;
	for (uint32_t i = k + threadIdx.x; i < pad; i += bs)
		buf[i] = 0;                     /* below every word */
	__syncthreads();
	smp_sort_desc(buf, pad);
}

/* Philox-4x32-10's first output word for key (k0, k1), counter (c0, c1, 0, 0). */
HR_DEVICE uint32_t smp_philox(uint64_t seed, uint64_t offset)
{
	uint32_t c0 = (uint32_t)offset, c1 = (uint32_t)(offset >> 32), c2 = 0, c3 = 0;
	uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);

	for (int i = 0; i < 10; i++) {
		if (i) {
			k0 += 0x9E3779B9u;
			k1 += 0xBB67AE85u;
		}
		const uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
		const uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n1 = (uint32_t)p1;
		const uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1, n3 = (uint32_t)p0;

		c0 = n0;
		c1 = n1;
		c2 = n2;
		c3 = n3;
	}
	return c0;
}

/*
 * sample_T for 1 < top_k <= SMP_TOPK_MAX, top_k < n: the same token as the
 * passes over the row, from the top_k candidates of one pass.  The row's
 * maximum is the first candidate (a NaN there: the row's maximum is NaN,
 * every mass 0, token n).  q is non-decreasing in the logit, so the tokens
 * passing min_p are a prefix of the order and "the first top_k of them" is
 * the candidates that pass; top_p's cut and the draw are prefix sums over
 * the candidates (each thread sums its candidate's predecessors: exact
 * integers, k^2 / blockDim adds a thread).
 */
template <typename T>
SMP_NOINLINE uint32_t sample_topk(const T *x, uint32_t n, uint32_t k, uint32_t row,
			       const float *temperature, const float *top_p, const float *min_p,
			       const uint64_t *seed, const uint64_t *offset)
{
	__shared__ smp_u64 buf[SMP_CAP];
	__shared__ uint32_t sh_tok;
	smp_u64 *mass = buf + SMP_TOPK_MAX;     /* free once the k words are sorted */
	smp_row r;
	smp_u64 acc = 0;

	smp_topk_words(x, n, k, buf);
	if ((uint32_t)(buf[0] >> 32) == 0xffffffffu)
		return n;                       /* NaN */
	/* the row's parameters read again here: fewer registers during the pass */
	const float t = temperature ? temperature[row] : 1.0f;     /* > 0: not greedy */
	const float p = top_p ? top_p[row] : 1.0f;
	const float mp = min_p ? min_p[row] : 0.0f;

	r.m = smp_word_val(buf[0]);
	r.invt = 1.0f / t;
	r.minp = mp;
	r.use_minp = mp > 0.0f;
	r.use_q = true;
	for (uint32_t i = threadIdx.x; i < k; i += blockDim.x) {
		const float q = smp_q(r, smp_word_val(buf[i]));

		mass[i] = r.use_minp && !(q >= r.minp) ? 0 : smp_fix(q);
		acc += mass[i];
	}
	if (threadIdx.x == 0)
		sh_tok = n;
	const smp_u64 z1 = hr_block_reduce(acc, hr_op_sum());   /* its barriers: mass[] written */

	if (p < 1.0f && z1 > 0) {
		smp_u64 target = (smp_u64)ceil((double)(p > 0.0f ? p : 0.0f) * (double)z1);
		uint32_t cut = k;

		if (target < 1)
			target = 1;
		for (uint32_t i = threadIdx.x; i < k; i += blockDim.x) {
			smp_u64 cum = 0;

			for (uint32_t l = 0; l <= i; l++)
				cum += mass[l];
			if (cum >= target && i < cut)
				cut = i;
		}
		cut = hr_block_reduce(cut, hr_op_min());
		for (uint32_t i = cut + 1 + threadIdx.x; i < k; i += blockDim.x)
			mass[i] = 0;
		__syncthreads();
	}
	acc = 0;
	for (uint32_t i = threadIdx.x; i < k; i += blockDim.x)
		acc += mass[i];
	const smp_u64 z = hr_block_reduce(acc, hr_op_sum());
	if (!z)
		return n;
	const smp_u64 u = smp_philox(seed ? seed[row] : 0, offset ? offset[row] : 0);
	const smp_u64 point = (z >> 32) * u + (((z & 0xffffffffull) * u) >> 32);

	/* the first token, in index order, whose running mass exceeds point */
	for (uint32_t i = threadIdx.x; i < k; i += blockDim.x) {
		const smp_u64 w = mass[i];
		const uint32_t j = smp_word_idx(buf[i]);
		smp_u64 before = 0;

		if (!w)
			continue;
		for (uint32_t l = 0; l < k; l++)
			before += smp_word_idx(buf[l]) < j ? mass[l] : 0;
		if (before <= point && point - before < w)
			sh_tok = j;
	}
	__syncthreads();
	return sh_tok;
}

/* sample_T by passes over the row (top_k off or above SMP_TOPK_MAX). */
template <typename T>
SMP_NOINLINE uint32_t sample_passes(const T *x, uint32_t n, int32_t k, float t, float p, float mp,
				    uint64_t seed, uint64_t offset)
{
	float m = -INFINITY;
	smp_row r;

	smp_each<SMP_UNROLL>(x, threadIdx.x, n, blockDim.x, [&](float v, uint32_t) { m = hr_max(m, v); });
	m = hr_block_reduce(m, hr_op_max());
	r.m = m;
	r.invt = 1.0f / t;
	r.minp = mp;
	r.use_minp = mp > 0.0f;
	r.use_q = true;
	r.c1.on = r.c2.on = false;
	r.c1.key = r.c2.key = r.c1.idx = r.c2.idx = 0;
	if (k > 0 && (uint32_t)k < n)
		smp_select(x, n, r, false, (smp_u64)k, &r.c1);
	if (p < 1.0f && k != 1) {
		const smp_u64 z = smp_total(x, n, r, true);
		smp_u64 target = (smp_u64)ceil((double)(p > 0.0f ? p : 0.0f) * (double)z);

		if (target < 1)
			target = 1;
		if (z > 0)
			smp_select(x, n, r, true, target, &r.c2);
	}
	const smp_u64 z = smp_total(x, n, r, true);
	const smp_u64 u = smp_philox(seed, offset);
	const smp_u64 point = (z >> 32) * u + (((z & 0xffffffffull) * u) >> 32);
	return z ? smp_find(x, n, r, true, false, 0, point) : n;
}

/* The first largest element's index (n when it is NaN): one read of the row
 * in 16-byte packs (hr_row_each), out of line like the other paths (its
 * packs in flight beside sample_topk's registers spilled on sm_90). */
template <typename T>
SMP_NOINLINE uint32_t sample_greedy(const T *x, uint32_t n)
{
	hr_argval<float> a;

	a.v = -INFINITY;
	a.i = UINT32_MAX;
	/* a thread's j increase: its first element, then a larger one, or the
	 * first NaN after numbers (hr_op_arg's order, 3 compares an element) */
	hr_row_each<4>(x, 0, n, [&](float v, uint64_t j) {
		if (a.i == UINT32_MAX || v > a.v || (v != v && a.v == a.v)) {
			a.v = v;
			a.i = (uint32_t)j;
		}
	});
	a = hr_block_reduce(a, hr_op_arg<true>());
	return a.v != a.v ? n : a.i;
}

template <typename T>
HR_DEVICE void sample_row(const T *xs, uint32_t *dst, int ncols, const float *temperature,
			  const int32_t *top_k, const float *top_p, const float *min_p,
			  const uint64_t *seed, const uint64_t *offset)
{
	const uint32_t row = blockIdx.x;

	if (ncols <= 0 || ncols > SMP_MAX_NCOLS || blockDim.x % 64 != 0)
		return;
	const uint32_t n = (uint32_t)ncols;
	const T *x = xs + (size_t)row * n;
	float t = temperature ? temperature[row] : 1.0f;
	int32_t k = top_k ? top_k[row] : 0;
	const float p = top_p ? top_p[row] : 1.0f;
	const float mp = min_p ? min_p[row] : 0.0f;

	if (!(t > 0.0f)) {
		k = 1;                  /* greedy */
		t = 1.0f;
	}
	if (k == 1) {                   /* greedy: the first largest, one pass */
		const uint32_t tok = sample_greedy(x, n);

		if (threadIdx.x == 0)
			dst[row] = tok;
		return;
	}
	if (k > 1 && k <= SMP_TOPK_MAX && (uint32_t)k < n) {
		const uint32_t tok = sample_topk(x, n, (uint32_t)k, row, temperature, top_p, min_p,
						 seed, offset);

		if (threadIdx.x == 0)
			dst[row] = tok;
		return;
	}
	const uint32_t tok = sample_passes(x, n, k, t, p, mp, seed ? seed[row] : 0,
					   offset ? offset[row] : 0);

	if (threadIdx.x == 0)
		dst[row] = tok;
}

template <typename T>
HR_DEVICE void topk_row(const T *xs, T *values, uint32_t *dst, int ncols, int k)
{
	__shared__ smp_u64 buf[SMP_CAP];
	const uint32_t row = blockIdx.x;

	if (k < 1 || k > SMP_TOPK_MAX || k > ncols || ncols > SMP_MAX_NCOLS || blockDim.x % 64 != 0)
		return;
	const uint32_t n = (uint32_t)ncols, kk = (uint32_t)k;
	const T *x = xs + (size_t)row * n;

	smp_topk_words(x, n, kk, buf);
	for (uint32_t i = threadIdx.x; i < kk; i += blockDim.x) {
		const uint32_t j = smp_word_idx(buf[i]);

		values[(size_t)row * kk + i] = x[j];
		dst[(size_t)row * kk + i] = j;
	}
}

#define SAMPLING(T, SUF) \
	HR_KERNEL void __launch_bounds__(1024) sample_##SUF(const T *x, uint32_t *dst, int ncols, \
		const float *temperature, const int32_t *top_k, const float *top_p, \
		const float *min_p, const uint64_t *seed, const uint64_t *offset) \
	{ \
		sample_row<T>(x, dst, ncols, temperature, top_k, top_p, min_p, seed, offset); \
	} \
	HR_KERNEL void __launch_bounds__(1024) topk_##SUF(const T *x, T *values, uint32_t *dst, \
							   int ncols, int k) \
	{ \
		topk_row<T>(x, values, dst, ncols, k); \
	}

SAMPLING(float, f32)
SAMPLING(hr_f16, f16)
SAMPLING(hr_bf16, bf16)
