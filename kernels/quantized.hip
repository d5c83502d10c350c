// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * quantized family: ggml's block formats q4_0, q4_1, q5_0, q5_1, q8_0 (32
 * elements a block), q4_K, q5_K, q6_K (256 a super-block) and q8_1 for the
 * activations, byte for byte as ggml stores them (ggml-common.h; see
 * KERNELS.md), candle's names and argument order:
 *
 *   quantize_q8_1(const float *x, void *vy, int kx, int kx_padded)
 *       row blockIdx.y of x (kx floats) -> kx_padded / 32 q8_1 blocks at
 *       vy + blockIdx.y * (kx_padded / 32) blocks; elements past kx are 0.
 *       d = amax / 127, q = roundf(x * (1 / d)), s = d * sum(q)
 *       (ggml-quants.c's reference rule).  One thread per block.
 *   dequantize_block_Q_f32 / _f16(const void *vx, T *y, int k)
 *       k elements (a multiple of the block) of blocks at vx -> y.
 *   get_rows_Q(const void *vx, const uint32_t *ids, float *dst, int ncols,
 *       int nids)   dst[r, :] = dequantized row ids[r] of the ncols-column
 *       matrix vx (ncols a multiple of the block: 32, or 256 for K).
 *   dequantize_mul_mat_vec_Q(const void *vx, const float *y, float *dst,
 *       int ncols, int nrows)   dst[r] = sum_c x[r, c] * y[c], f32 dequant.
 *   mul_mat_vec_Q_q8_1_cudaB (B = 1..8)(const void *vx, const void *vy,
 *       float *dst, int ncols_x, int nrows_x, int nrows_y, int nrows_dst)
 *       dst[j * nrows_dst + r] = sum_c x[r, c] * y_j[c] for the B columns
 *       y_j, q8_1 rows of nrows_y (padded) elements; integer dot products
 *       (hr_dp4a: sdot4 / dp4a where the target has one, scalar otherwise).
 *
 * Why only 2-byte loads on block fields: blocks are 18, 20, 22, 24, 34,
 * 36, 144, 176 and 210 bytes, so a block (and so its 32-bit words) is only 2-byte aligned;
 * a wider load faults on some targets and is undefined in C++ anyway.
 */
#include "hr-kernel.h"
#include "hr-rows.h"

#define QK 32

HR_DEVICE uint32_t ld16(const uint8_t *p)
{
	return *(const uint16_t *)p;
}

/* A 32-bit little-endian word at a 2-byte aligned address. */
HR_DEVICE uint32_t ld32(const uint8_t *p)
{
	return ld16(p) | ld16(p + 2) << 16;
}

HR_DEVICE float ldh(const uint8_t *p)
{
	hr_f16 h;

	h.bits = (uint16_t)ld16(p);
	return hr_f16_to_f32(h);
}

/*
 * One trait per format: bytes per block, element j (0..31) of a block, and
 * the dot product of a block with a q8_1 block (d8, s8 = d8 * sum(q8),
 * the 8 words of q8).
 */
struct fmt_q4_0 {
	static constexpr int bytes = 18, qk = 32;
	static HR_INLINE float get(const uint8_t *b, int j)
	{
		const uint32_t q = b[2 + (j & 15)];

		return ((int)(j < 16 ? q & 15 : q >> 4) - 8) * ldh(b);
	}
	static HR_INLINE float dot(const uint8_t *b, int sub, float d8, float s8, const int *u)
	{
		int s = 0;

		(void)sub;
		for (int w = 0; w < 4; w++) {
			const uint32_t v = ld32(b + 2 + 4 * w);

			s = hr_dp4a((int)(v & 0x0f0f0f0fu), u[w], s);
			s = hr_dp4a((int)((v >> 4) & 0x0f0f0f0fu), u[w + 4], s);
		}
		return ldh(b) * (d8 * (float)s - 8.0f * s8);
	}
};

struct fmt_q4_1 {
	static constexpr int bytes = 20, qk = 32;
	static HR_INLINE float get(const uint8_t *b, int j)
	{
		const uint32_t q = b[4 + (j & 15)];

		return (float)(j < 16 ? q & 15 : q >> 4) * ldh(b) + ldh(b + 2);
	}
	static HR_INLINE float dot(const uint8_t *b, int sub, float d8, float s8, const int *u)
	{
		int s = 0;

		(void)sub;
		for (int w = 0; w < 4; w++) {
			const uint32_t v = ld32(b + 4 + 4 * w);

			s = hr_dp4a((int)(v & 0x0f0f0f0fu), u[w], s);
			s = hr_dp4a((int)((v >> 4) & 0x0f0f0f0fu), u[w + 4], s);
		}
		return ldh(b) * d8 * (float)s + ldh(b + 2) * s8;
	}
};

/* Bit 4 of four consecutive elements (qh bits 0..3 of h) into their bytes. */
HR_DEVICE uint32_t spread4(uint32_t h)
{
	return (h & 1) << 4 | (h & 2) << 11 | (h & 4) << 18 | (h & 8) << 25;
}

/* q5_0 {half d; u8 qh[4]; u8 qs[16]}, q5_1 {half d, m; u8 qh[4]; u8 qs[16]}:
 * qh bit j is bit 4 of element j. */
template <int OFF>
HR_DEVICE uint32_t q5_get(const uint8_t *b, int j)
{
	const uint32_t q = b[OFF + 4 + (j & 15)];
	const uint32_t h = (ld32(b + OFF) >> j) & 1;

	return (j < 16 ? q & 15 : q >> 4) | h << 4;
}

template <int OFF>
HR_DEVICE int q5_dot(const uint8_t *b, const int *u)
{
	const uint32_t qh = ld32(b + OFF);
	int s = 0;

	for (int w = 0; w < 4; w++) {
		const uint32_t v = ld32(b + OFF + 4 + 4 * w);
		const uint32_t lo = (v & 0x0f0f0f0fu) | spread4(qh >> (4 * w));
		const uint32_t hi = ((v >> 4) & 0x0f0f0f0fu) | spread4(qh >> (16 + 4 * w));

		s = hr_dp4a((int)lo, u[w], s);
		s = hr_dp4a((int)hi, u[w + 4], s);
	}
	return s;
}

struct fmt_q5_0 {
	static constexpr int bytes = 22, qk = 32;
	static HR_INLINE float get(const uint8_t *b, int j)
	{
		return ((int)q5_get<2>(b, j) - 16) * ldh(b);
	}
	static HR_INLINE float dot(const uint8_t *b, int sub, float d8, float s8, const int *u)
	{
		(void)sub;
		return ldh(b) * (d8 * (float)q5_dot<2>(b, u) - 16.0f * s8);
	}
};

struct fmt_q5_1 {
	static constexpr int bytes = 24, qk = 32;
	static HR_INLINE float get(const uint8_t *b, int j)
	{
		return (float)q5_get<4>(b, j) * ldh(b) + ldh(b + 2);
	}
	static HR_INLINE float dot(const uint8_t *b, int sub, float d8, float s8, const int *u)
	{
		(void)sub;
		return ldh(b) * d8 * (float)q5_dot<4>(b, u) + ldh(b + 2) * s8;
	}
};

struct fmt_q8_0 {
	static constexpr int bytes = 34, qk = 32;
	static HR_INLINE float get(const uint8_t *b, int j)
	{
		return (float)(int8_t)b[2 + j] * ldh(b);
	}
	static HR_INLINE float dot(const uint8_t *b, int sub, float d8, float s8, const int *u)
	{
		int s = 0;

		(void)sub;
		(void)s8;
		for (int w = 0; w < 8; w++)
			s = hr_dp4a((int)ld32(b + 2 + 4 * w), u[w], s);
		return ldh(b) * d8 * (float)s;
	}
};


/*
 * K-quants: super-blocks of 256 elements in 8 sub-blocks of 32 (q4_K,
 * q5_K: a 6-bit scale and min each, packed in 12 bytes) or 16 sub-blocks
 * of 16 (q6_K: an i8 scale each).  Element j: sub-block j / 32 of 64-element
 * chunk j / 64 - low nibbles of qs[32 c + l] are chunk c's first 32
 * elements, high nibbles its last 32.  The q8_1 dot takes one 32-element
 * sub-block (`sub`) and, as ggml's, sums q8 * d8 itself (no s).
 */
HR_DEVICE void k_scale_min(const uint8_t *sc, int j, int *d, int *m)
{
	if (j < 4) {
		*d = sc[j] & 63;
		*m = sc[j + 4] & 63;
	} else {
		*d = (sc[j + 4] & 15) | (sc[j - 4] >> 6) << 4;
		*m = (sc[j + 4] >> 4) | (sc[j] >> 6) << 4;
	}
}

/* q4_K {f16 d, dmin; u8 scales[12]; u8 qs[128]}, q5_K {f16 d, dmin;
 * u8 scales[12]; u8 qh[32]; u8 qs[128]}: x = d * sc * q - dmin * m, qh[l]
 * bit s is bit 4 of element 32 s + l. */
template <bool Q5>
struct fmt_qK {
	static constexpr int bytes = Q5 ? 176 : 144, qk = 256, qs = Q5 ? 48 : 16;
	static HR_INLINE float get(const uint8_t *b, int j)
	{
		const int sub = j / 32, l = j % 32;
		const uint32_t v = b[qs + 32 * (sub / 2) + l];
		int sc, m, q = (int)((sub & 1) ? v >> 4 : v & 15);

		if (Q5)
			q |= (b[16 + l] >> sub & 1) << 4;
		k_scale_min(b + 4, sub, &sc, &m);
		return ldh(b) * (float)(sc * q) - ldh(b + 2) * (float)m;
	}
	static HR_INLINE float dot(const uint8_t *b, int sub, float d8, float s8, const int *u)
	{
		int sc, m, si = 0, sy = 0;

		(void)s8;
		for (int w = 0; w < 8; w++) {
			const uint32_t v = ld32(b + qs + 32 * (sub / 2) + 4 * w);
			uint32_t q = (sub & 1) ? (v >> 4) & 0x0f0f0f0fu : v & 0x0f0f0f0fu;

			if (Q5)
				q |= ((ld32(b + 16 + 4 * w) >> sub) & 0x01010101u) << 4;
			si = hr_dp4a((int)q, u[w], si);
			sy = hr_dp4a(0x01010101, u[w], sy);
		}
		k_scale_min(b + 4, sub, &sc, &m);
		return d8 * (ldh(b) * (float)(sc * si) - ldh(b + 2) * (float)(m * sy));
	}
};
typedef fmt_qK<false> fmt_q4_K;
typedef fmt_qK<true> fmt_q5_K;

/* q6_K {u8 ql[128]; u8 qh[64]; i8 scales[16]; f16 d}: half h = j / 128,
 * quarter t = (j % 128) / 32, l = j % 32: 4 low bits from ql[64 h + 32 (t & 1)
 * + l] (high nibble for t >= 2), 2 high bits (qh[32 h + l] >> 2 t) & 3;
 * x = d * scales[8 h + 2 t + l / 16] * (q - 32). */
struct fmt_q6_K {
	static constexpr int bytes = 210, qk = 256;
	static HR_INLINE float get(const uint8_t *b, int j)
	{
		const int h = j / 128, t = (j % 128) / 32, l = j % 32;
		const uint32_t v = b[64 * h + 32 * (t & 1) + l];
		const int q = (int)((t >= 2 ? v >> 4 : v & 15) | ((b[128 + 32 * h + l] >> (2 * t)) & 3) << 4);

		/* (d * scale) * q as ggml: the same value, and the same sign of 0 */
		return ldh(b + 208) * (float)(int8_t)b[192 + 8 * h + 2 * t + l / 16] * (float)(q - 32);
	}
	static HR_INLINE float dot(const uint8_t *b, int sub, float d8, float s8, const int *u)
	{
		const int h = sub / 4, t = sub % 4;
		int si[2] = { 0, 0 }, sy[2] = { 0, 0 };

		(void)s8;
		for (int w = 0; w < 8; w++) {
			const uint32_t v = ld32(b + 64 * h + 32 * (t & 1) + 4 * w);
			const uint32_t lo = t >= 2 ? (v >> 4) & 0x0f0f0f0fu : v & 0x0f0f0f0fu;
			const uint32_t hi = (ld32(b + 128 + 32 * h + 4 * w) >> (2 * t)) & 0x03030303u;

			si[w / 4] = hr_dp4a((int)(lo | hi << 4), u[w], si[w / 4]);
			sy[w / 4] = hr_dp4a(0x01010101, u[w], sy[w / 4]);
		}
		return ldh(b + 208) * d8 *
		       (float)((int8_t)b[192 + 8 * h + 2 * t] * (si[0] - 32 * sy[0]) +
		               (int8_t)b[192 + 8 * h + 2 * t + 1] * (si[1] - 32 * sy[1]));
	}
};

#define Q8_1_BYTES 36

/* ------------------------------------------------------------------ */

HR_KERNEL void quantize_q8_1(const float *x, void *vy, int kx, int kx_padded)
{
	const uint64_t nb = kx_padded > 0 ? (uint64_t)kx_padded / QK : 0;
	const float *xr = x + (uint64_t)blockIdx.y * (uint64_t)(kx > 0 ? kx : 0);
	uint8_t *yr = (uint8_t *)vy + (uint64_t)blockIdx.y * nb * Q8_1_BYTES;

	HR_GRID_STRIDE_LOOP(ib, nb) {
		uint8_t *b = yr + ib * Q8_1_BYTES;
		float v[QK], amax = 0.0f;
		int sum = 0;

		for (int j = 0; j < QK; j++) {
			const uint64_t c = ib * QK + (uint64_t)j;

			v[j] = c < (uint64_t)kx ? xr[c] : 0.0f;
			amax = fmaxf(amax, fabsf(v[j]));
		}
		const float d = amax / 127.0f, id = d != 0.0f ? 1.0f / d : 0.0f;

		for (int j = 0; j < QK; j += 2) {
			const int q0 = (int)roundf(v[j] * id), q1 = (int)roundf(v[j + 1] * id);

			sum += q0 + q1;
			*(uint16_t *)(b + 4 + j) = (uint16_t)((q0 & 0xff) | (q1 & 0xff) << 8);
		}
		*(uint16_t *)b = hr_f32_to_f16(d).bits;
		*(uint16_t *)(b + 2) = hr_f32_to_f16(d * (float)sum).bits;
	}
}

template <typename F, typename T>
HR_DEVICE void dequantize_block(const void *vx, T *y, int k)
{
	const uint8_t *x = (const uint8_t *)vx;

	HR_GRID_STRIDE_LOOP(i, k > 0 ? k : 0)
		y[i] = hr_from_compute<T>(F::get(x + (i / F::qk) * F::bytes, (int)(i % F::qk)));
}

template <typename F>
HR_DEVICE void get_rows(const void *vx, const uint32_t *ids, float *dst, int ncols, int nids)
{
	const uint8_t *x = (const uint8_t *)vx;
	const uint64_t nc = ncols > 0 ? (uint64_t)ncols : 0, n = nc * (nids > 0 ? nids : 0);
	const uint64_t row_bytes = nc / F::qk * F::bytes;

	HR_GRID_STRIDE_LOOP(i, n) {
		const uint64_t r = i / nc, c = i % nc;

		dst[i] = F::get(x + ids[r] * row_bytes + c / F::qk * F::bytes, (int)(c % F::qk));
	}
}

/* One block per row (blocks stride over rows); threads stride over the
 * row's elements; a block-wide sum (hr-rows.h). */
template <typename F>
HR_DEVICE void dequantize_mul_mat_vec(const void *vx, const float *y, float *dst, int ncols,
                                      int nrows)
{
	const uint64_t nc = ncols > 0 ? (uint64_t)ncols : 0;
	const uint64_t row_bytes = nc / F::qk * F::bytes;

	for (uint64_t r = blockIdx.x; r < (uint64_t)(nrows > 0 ? nrows : 0); r += gridDim.x) {
		const uint8_t *xr = (const uint8_t *)vx + r * row_bytes;
		float acc = 0.0f;

		for (uint64_t c = threadIdx.x; c < nc; c += blockDim.x)
			acc += F::get(xr + c / F::qk * F::bytes, (int)(c % F::qk)) * y[c];
		acc = hr_block_reduce(acc, hr_op_sum());
		if (threadIdx.x == 0)
			dst[r] = acc;
	}
}

/* One block per row; each thread takes whole blocks of 32 and does B
 * integer dot products against the B q8_1 columns. */
template <typename F, int B>
HR_DEVICE void mul_mat_vec_q8_1(const void *vx, const void *vy, float *dst, int ncols_x,
                                int nrows_x, int nrows_y, int nrows_dst)
{
	/* units of 32 elements: a block of x (a sub-block of a K-quant), a
	 * block of q8_1 */
	const int per = F::qk / QK;
	const uint64_t nu = ncols_x > 0 ? (uint64_t)ncols_x / F::qk * per : 0;
	const uint64_t nby = nrows_y > 0 ? (uint64_t)nrows_y / QK : 0;
	const uint8_t *y = (const uint8_t *)vy;

	for (uint64_t r = blockIdx.x; r < (uint64_t)(nrows_x > 0 ? nrows_x : 0); r += gridDim.x) {
		const uint8_t *xr = (const uint8_t *)vx + r * (nu / per) * F::bytes;

		/* column by column: the row of x comes from cache after the first,
		 * and one column's words are live at a time (all B at once spill) */
		for (int j = 0; j < B; j++) {
			const uint8_t *yc = y + (uint64_t)j * nby * Q8_1_BYTES;
			float acc = 0.0f;

			for (uint64_t iu = threadIdx.x; iu < nu; iu += blockDim.x) {
				const uint8_t *yb = yc + iu * Q8_1_BYTES;
				int u[8];

				for (int w = 0; w < 8; w++)
					u[w] = (int)ld32(yb + 4 + 4 * w);
				acc += F::dot(xr + iu / per * F::bytes, (int)(iu % per), ldh(yb),
				              ldh(yb + 2), u);
			}
			acc = hr_block_reduce(acc, hr_op_sum());
			if (threadIdx.x == 0)
				dst[(uint64_t)j * (uint64_t)nrows_dst + r] = acc;
		}
	}
}

#define MMVQ(Q, B) \
	HR_KERNEL void mul_mat_vec_##Q##_q8_1_cuda##B(const void *vx, const void *vy, float *dst, \
						      int ncols_x, int nrows_x, int nrows_y, \
						      int nrows_dst) \
	{ \
		mul_mat_vec_q8_1<fmt_##Q, B>(vx, vy, dst, ncols_x, nrows_x, nrows_y, nrows_dst); \
	}

#define QUANT(Q) \
	HR_KERNEL void dequantize_block_##Q##_f32(const void *vx, float *y, int k) \
	{ \
		dequantize_block<fmt_##Q, float>(vx, y, k); \
	} \
	HR_KERNEL void dequantize_block_##Q##_f16(const void *vx, hr_f16 *y, int k) \
	{ \
		dequantize_block<fmt_##Q, hr_f16>(vx, y, k); \
	} \
	HR_KERNEL void get_rows_##Q(const void *vx, const uint32_t *ids, float *dst, int ncols, \
				    int nids) \
	{ \
		get_rows<fmt_##Q>(vx, ids, dst, ncols, nids); \
	} \
	HR_KERNEL void dequantize_mul_mat_vec_##Q(const void *vx, const float *y, float *dst, \
						  int ncols, int nrows) \
	{ \
		dequantize_mul_mat_vec<fmt_##Q>(vx, y, dst, ncols, nrows); \
	} \
	MMVQ(Q, 1) MMVQ(Q, 2) MMVQ(Q, 3) MMVQ(Q, 4) MMVQ(Q, 5) MMVQ(Q, 6) MMVQ(Q, 7) MMVQ(Q, 8)

QUANT(q4_0)
QUANT(q4_1)
QUANT(q5_0)
QUANT(q5_1)
QUANT(q8_0)
QUANT(q4_K)
QUANT(q5_K)
QUANT(q6_K)
