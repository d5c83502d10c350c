// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sort family: argsort of each row, candle's names and argument order:
 *
 *   asort_asc_T / asort_desc_T(const T *x, uint32_t *dst, int ncols, int ncols_pad)
 *       dst[row, k] = the index of the k-th smallest (largest) element of
 *       row x[row, :]; ncols_pad = the smallest power of two >= ncols.
 *       Bitonic sort of the row's indices in shared memory (dynamic,
 *       ncols_pad * 4 bytes), the whole block on one row.
 *   asort_asc_wide_T / asort_desc_wide_T(const T *x, uint32_t *dst, int ncols,
 *       int ncols_pad, uint32_t *ws)
 *       the same for rows whose indices do not fit in shared memory (LLM
 *       vocabularies): the bitonic network runs on ws, rows * ncols_pad
 *       u32 of global scratch; the block's barriers order its stages.
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

template <bool ASC, typename T>
HR_DEVICE void asort_row(const T *x, uint32_t *dst, int ncols, int ncols_pad, uint32_t *idx)
{
	const uint64_t n = ncols > 0 ? (uint64_t)ncols : 0, row = blockIdx.x;
	const uint32_t pad = ncols_pad > 0 ? (uint32_t)ncols_pad : 0;

	/* A pad that is not a power of two >= ncols would leave the row unsorted. */
	if (n == 0 || pad < n || (pad & (pad - 1)) != 0)
		return;
	x += row * n;
	dst += row * n;
	if (sizeof(T) <= 2 && pad <= 65536)
		bitonic16<ASC>(x, idx, (uint32_t)n, pad);
	else
		bitonic<ASC>(x, idx, (uint32_t)n, pad);
	for (uint64_t i = threadIdx.x; i < n; i += blockDim.x)
		dst[i] = idx[i];
}

#define SORT(T, SUF) \
	HR_KERNEL void asort_asc_##SUF(const T *x, uint32_t *dst, int ncols, int ncols_pad) \
	{ \
		HR_DYNAMIC_SHARED(uint32_t, idx); \
		asort_row<true, T>(x, dst, ncols, ncols_pad, idx); \
	} \
	HR_KERNEL void asort_desc_##SUF(const T *x, uint32_t *dst, int ncols, int ncols_pad) \
	{ \
		HR_DYNAMIC_SHARED(uint32_t, idx); \
		asort_row<false, T>(x, dst, ncols, ncols_pad, idx); \
	} \
	HR_KERNEL void asort_asc_wide_##SUF(const T *x, uint32_t *dst, int ncols, \
					    int ncols_pad, uint32_t *ws) \
	{ \
		asort_row<true, T>(x, dst, ncols, ncols_pad, \
				   ws + (uint64_t)blockIdx.x * (uint32_t)(ncols_pad > 0 ? ncols_pad : 0)); \
	} \
	HR_KERNEL void asort_desc_wide_##SUF(const T *x, uint32_t *dst, int ncols, \
					     int ncols_pad, uint32_t *ws) \
	{ \
		asort_row<false, T>(x, dst, ncols, ncols_pad, \
				    ws + (uint64_t)blockIdx.x * (uint32_t)(ncols_pad > 0 ? ncols_pad : 0)); \
	}

SORT(float, f32)
SORT(double, f64)
SORT(hr_f16, f16)
SORT(hr_bf16, bf16)
SORT(uint8_t, u8)
SORT(uint32_t, u32)
SORT(int64_t, i64)
