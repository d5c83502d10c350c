// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * quantized family: ggml's block formats q4_0, q4_1, q5_0, q5_1, q8_0 (32
 * elements a block), q4_K, q5_K, q6_K (256 a super-block) and q8_1 for the
 * activations, byte for byte as ggml stores them (ggml-common.h; see
 * doc/KERNELS.md), candle's names and argument order:
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
 * N consecutive 32-bit words at p, which is only 2-byte aligned.  fast: the
 * matrix starts 4-byte aligned (every device allocation does), so p - 2 is
 * inside it when p is not 4-byte aligned: N aligned 32-bit loads from
 * p rounded down, one 16-bit load for the last half word, and shifts - about
 * half the load instructions of 2N 16-bit loads, and no branch (lanes of a
 * wave see both alignments when blocks are 18, 22, 34 or 210 bytes).  The
 * bytes read are those of the words and the 2 before p, never past them.
 */
template <int N>
HR_DEVICE void ldw(const uint8_t *p, uint32_t *w, bool fast)
{
	if (fast) {
		const uint32_t mis = (uint32_t)((uintptr_t)p & 2u);     /* 0 or 2 */
		const uint32_t *a = (const uint32_t *)(const void *)(p - mis);
		uint32_t cur = a[0];

#pragma unroll
		for (int k = 0; k < N; k++) {
			const uint32_t next = k + 1 < N ? a[k + 1] : (mis ? ld16(p + 4 * N - 2) : 0u);

			w[k] = mis ? (cur >> 16 | next << 16) : cur;
			cur = next;
		}
	} else {
#pragma unroll
		for (int k = 0; k < N; k++)
			w[k] = ld32(p + 4 * k);
	}
}

/*
 * A 32-element unit of a block (a whole block of the 32-element formats, a
 * sub-block of a K-quant), unpacked: q[w] holds elements 4w..4w+3 as signed
 * bytes (0..63, or -128..127 for q8_0), and element i of half h = i / 16 is
 * a[h] * (q - z) + c[h].  The 32-element formats (K = false) have one a and
 * c (c: the term ggml multiplies by the q8_1 block's s), the K-quants
 * (K = true) a scale and a minimum per half (q4_K, q5_K: the same for both).
 */
struct unit {
	uint32_t q[8];
	float a[2], c[2];
	int z;
};

HR_DEVICE void nibbles(const uint32_t *v, uint32_t *q)
{
#pragma unroll
	for (int w = 0; w < 4; w++) {
		q[w] = v[w] & 0x0f0f0f0fu;
		q[w + 4] = (v[w] >> 4) & 0x0f0f0f0fu;
	}
}

HR_DEVICE void unit_s(unit &u, float a, float c)
{
	u.a[0] = u.a[1] = a;
	u.c[0] = u.c[1] = c;
	u.z = 0;
}

/* Bit 4 of four consecutive elements (qh bits 0..3 of h) into their bytes. */
HR_DEVICE uint32_t spread4(uint32_t h)
{
	return (h & 1) << 4 | (h & 2) << 11 | (h & 4) << 18 | (h & 8) << 25;
}

/*
 * One trait per format: bytes per block, element j (0..qk-1) of a block
 * (get: the dequantizers and get_rows), and unpack: the 32-element unit
 * `sub` of a block (the mat-vec kernels).
 */
/*
 * Unit ik of a row at xr, ggml's layout, for the 32-element formats: a block
 * is its scale field(s) (sc bytes: d, or d and m), qh (q5: 4 bytes), then
 * qs (16 bytes, 32 for q8_0); the words from qh on load at once (ldw).
 * al: 0 the matrix is 2-byte aligned, 1 4-byte, 2 16-byte.
 */
#define UNIT_AT_GGML32 \
	static HR_INLINE void unit_at(const uint8_t *xr, uint64_t ik, int al, unit &u) \
	{ \
		const uint8_t *b = xr + ik * bytes; \
		uint32_t v[(qh + qsb) / 4]; \
		ldw<(qh + qsb) / 4>(b + sc, v, al != 0); \
		from(v, b, u); \
	}

struct fmt_q4_0 {
	static constexpr int bytes = 18, qk = 32, sc = 2, qh = 0, qsb = 16, row_qk = 32;
	static constexpr bool K = false, planar_layout = false;
	static HR_INLINE float get(const uint8_t *b, int j)
	{
		const uint32_t q = b[2 + (j & 15)];

		return ((int)(j < 16 ? q & 15 : q >> 4) - 8) * ldh(b);
	}
	static HR_INLINE void quad(const uint8_t *b, int j, float *o)
	{
		const uint32_t w = ld32(b + 2 + (j & 15)) >> (j < 16 ? 0 : 4);
		const float d = ldh(b);

		for (int e = 0; e < 4; e++)
			o[e] = ((int)(w >> (8 * e) & 15) - 8) * d;
	}
	static HR_INLINE void from(const uint32_t *v, const uint8_t *scale, unit &u)
	{
		const float d = ldh(scale);

		nibbles(v, u.q);
		unit_s(u, d, -8.0f * d);
	}
	UNIT_AT_GGML32
};

struct fmt_q4_1 {
	static constexpr int bytes = 20, qk = 32, sc = 4, qh = 0, qsb = 16, row_qk = 32;
	static constexpr bool K = false, planar_layout = false;
	static HR_INLINE float get(const uint8_t *b, int j)
	{
		const uint32_t q = b[4 + (j & 15)];

		return (float)(j < 16 ? q & 15 : q >> 4) * ldh(b) + ldh(b + 2);
	}
	static HR_INLINE void quad(const uint8_t *b, int j, float *o)
	{
		const uint32_t w = ld32(b + 4 + (j & 15)) >> (j < 16 ? 0 : 4);
		const float d = ldh(b), m = ldh(b + 2);

		for (int e = 0; e < 4; e++)
			o[e] = (float)(w >> (8 * e) & 15) * d + m;
	}
	static HR_INLINE void from(const uint32_t *v, const uint8_t *scale, unit &u)
	{
		nibbles(v, u.q);
		unit_s(u, ldh(scale), ldh(scale + 2));
	}
	UNIT_AT_GGML32
};

/* q5_0 {half d; u8 qh[4]; u8 qs[16]}, q5_1 {half d, m; u8 qh[4]; u8 qs[16]}:
 * qh bit j is bit 4 of element j. */
template <int OFF>
HR_DEVICE uint32_t q5_get(const uint8_t *b, int j)
{
	const uint32_t q = b[OFF + 4 + (j & 15)];
	const uint32_t h = (ld32(b + OFF) >> j) & 1;

	return (j < 16 ? q & 15 : q >> 4) | h << 4;
}

/* Elements j..j+3 (j a multiple of 4) of a q5 block: 4 bits and the fifth. */
template <int OFF>
HR_DEVICE uint32_t q5_quad(const uint8_t *b, int j)
{
	const uint32_t w = ld32(b + OFF + 4 + (j & 15)) >> (j < 16 ? 0 : 4);

	return (w & 0x0f0f0f0fu) | spread4(ld32(b + OFF) >> j);
}

/* v: qh, then the 4 words of qs (a ggml block's order from qh on). */
HR_DEVICE void q5_from(const uint32_t *v, unit &u)
{
	nibbles(v + 1, u.q);
#pragma unroll
	for (int w = 0; w < 4; w++) {
		u.q[w] |= spread4(v[0] >> (4 * w));
		u.q[w + 4] |= spread4(v[0] >> (16 + 4 * w));
	}
}

struct fmt_q5_0 {
	static constexpr int bytes = 22, qk = 32, sc = 2, qh = 4, qsb = 16, row_qk = 32;
	static constexpr bool K = false, planar_layout = false;
	static HR_INLINE float get(const uint8_t *b, int j)
	{
		return ((int)q5_get<2>(b, j) - 16) * ldh(b);
	}
	static HR_INLINE void quad(const uint8_t *b, int j, float *o)
	{
		const uint32_t w = q5_quad<2>(b, j);
		const float d = ldh(b);

		for (int e = 0; e < 4; e++)
			o[e] = ((int)(w >> (8 * e) & 31) - 16) * d;
	}
	static HR_INLINE void from(const uint32_t *v, const uint8_t *scale, unit &u)
	{
		const float d = ldh(scale);

		q5_from(v, u);
		unit_s(u, d, -16.0f * d);
	}
	UNIT_AT_GGML32
};

struct fmt_q5_1 {
	static constexpr int bytes = 24, qk = 32, sc = 4, qh = 4, qsb = 16, row_qk = 32;
	static constexpr bool K = false, planar_layout = false;
	static HR_INLINE float get(const uint8_t *b, int j)
	{
		return (float)q5_get<4>(b, j) * ldh(b) + ldh(b + 2);
	}
	static HR_INLINE void quad(const uint8_t *b, int j, float *o)
	{
		const uint32_t w = q5_quad<4>(b, j);
		const float d = ldh(b), m = ldh(b + 2);

		for (int e = 0; e < 4; e++)
			o[e] = (float)(w >> (8 * e) & 31) * d + m;
	}
	static HR_INLINE void from(const uint32_t *v, const uint8_t *scale, unit &u)
	{
		q5_from(v, u);
		unit_s(u, ldh(scale), ldh(scale + 2));
	}
	UNIT_AT_GGML32
};

struct fmt_q8_0 {
	static constexpr int bytes = 34, qk = 32, sc = 2, qh = 0, qsb = 32, row_qk = 32;
	static constexpr bool K = false, planar_layout = false;
	static HR_INLINE float get(const uint8_t *b, int j)
	{
		return (float)(int8_t)b[2 + j] * ldh(b);
	}
	static HR_INLINE void quad(const uint8_t *b, int j, float *o)
	{
		const uint32_t w = ld32(b + 2 + j);
		const float d = ldh(b);

		for (int e = 0; e < 4; e++)
			o[e] = (float)(int8_t)(uint8_t)(w >> (8 * e)) * d;
	}
	static HR_INLINE void from(const uint32_t *v, const uint8_t *scale, unit &u)
	{
#pragma unroll
		for (int w = 0; w < 8; w++)
			u.q[w] = v[w];
		unit_s(u, ldh(scale), 0.0f);
	}
	UNIT_AT_GGML32
};



/*
 * The planar layout of a 32-element format ("Qp", doc/KERNELS.md): groups
 * of 8 ggml blocks (256 elements), each group the 8 blocks' fields plane
 * by plane - the 8 qs (16 bytes each, 32 for q8_0), the 8 qh (q5: 4 bytes
 * each), the 8 scale fields (2 or 4 bytes each) - byte for byte the fields
 * of the ggml blocks, so a group is 8 blocks' bytes (144, 160, 176, 192,
 * 272: multiples of 16).  A row is ncols / 256 groups (ncols a multiple of
 * 256), so where the matrix is 16-byte aligned every unit's qs is too: one
 * 16-byte load a lane where ggml's 18-34-byte blocks take 5-9 narrower
 * loads and shifts, and a wave's lanes read adjacent 16 bytes.
 */
template <typename F>
struct planar {
	static constexpr int bytes = F::bytes, qk = F::qk, group = 8 * F::bytes;
	static constexpr int sc = F::sc, qh = F::qh, qsb = F::qsb;
	static constexpr int row_qk = 256;
	static constexpr bool K = false, planar_layout = true;
	/* Block b's field offsets in its group: qs, qh, the scales. */
	static HR_INLINE int off_qs(int b) { return b * qsb; }
	static HR_INLINE int off_qh(int b) { return 8 * qsb + b * qh; }
	static HR_INLINE int off_sc(int b) { return 8 * (qsb + qh) + b * sc; }
	static HR_INLINE void unit_at(const uint8_t *xr, uint64_t ik, int al, unit &u)
	{
		unit_in(xr + ik / 8 * group, (int)(ik % 8), al, u);
	}
	/* Block b of the group at g. */
	static HR_INLINE void unit_in(const uint8_t *g, int b, int al, unit &u)
	{
		uint32_t v[(qh + qsb) / 4];
		uint32_t *vq = v + qh / 4;
		const uint8_t *q = g + off_qs(b);

		if (al == 2) {
#pragma unroll
			for (int k = 0; k < qsb / 16; k++) {
				const hr_vecn<uint32_t, 4> p = ((const hr_vecn<uint32_t, 4> *)(const void *)q)[k];

#pragma unroll
				for (int e = 0; e < 4; e++)
					vq[4 * k + e] = p.v[e];
			}
		} else {
#pragma unroll
			for (int k = 0; k < qsb / 4; k++)
				vq[k] = al ? ((const uint32_t *)(const void *)q)[k] : ld32(q + 4 * k);
		}
		if (qh > 0)
			v[0] = al ? *(const uint32_t *)(const void *)(g + off_qh(b)) : ld32(g + off_qh(b));
		F::from(v, g + off_sc(b), u);
	}
};
typedef planar<fmt_q4_0> fmt_q4_0p;
typedef planar<fmt_q4_1> fmt_q4_1p;
typedef planar<fmt_q5_0> fmt_q5_0p;
typedef planar<fmt_q5_1> fmt_q5_1p;
typedef planar<fmt_q8_0> fmt_q8_0p;

/*
 * K-quants: super-blocks of 256 elements in 8 sub-blocks of 32 (q4_K,
 * q5_K: a 6-bit scale and min each, packed in 12 bytes) or 16 sub-blocks
 * of 16 (q6_K: an i8 scale each).  Element j: sub-block j / 32 of 64-element
 * chunk j / 64 - low nibbles of qs[32 c + l] are chunk c's first 32
 * elements, high nibbles its last 32.  The q8_1 dot of a 32-element unit
 * sums q8 * d8 itself, as ggml's (no s).
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
	static constexpr int bytes = Q5 ? 176 : 144, qk = 256, qs = Q5 ? 48 : 16, row_qk = 256;
	static constexpr bool K = true, planar_layout = false;
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
	static HR_INLINE void quad(const uint8_t *b, int j, float *o)
	{
		const int sub = j / 32, l = j % 32;
		uint32_t w = ld32(b + qs + 32 * (sub / 2) + l) >> ((sub & 1) ? 4 : 0) & 0x0f0f0f0fu;
		int sc, m;

		if (Q5)
			w |= (ld32(b + 16 + l) >> sub & 0x01010101u) << 4;
		k_scale_min(b + 4, sub, &sc, &m);
		const float d = ldh(b), dm = ldh(b + 2);

		for (int e = 0; e < 4; e++)
			o[e] = d * (float)(sc * (int)(w >> (8 * e) & 255)) - dm * (float)m;
	}
	static HR_INLINE void unpack(const uint8_t *b, int sub, bool fast, unit &u)
	{
		uint32_t v[8];
		int sc, m;

		ldw<8>(b + qs + 32 * (sub / 2), v, fast);
#pragma unroll
		for (int w = 0; w < 8; w++)
			u.q[w] = (sub & 1) ? (v[w] >> 4) & 0x0f0f0f0fu : v[w] & 0x0f0f0f0fu;
		if (Q5) {
			ldw<8>(b + 16, v, fast);
#pragma unroll
			for (int w = 0; w < 8; w++)
				u.q[w] |= ((v[w] >> sub) & 0x01010101u) << 4;
		}
		k_scale_min(b + 4, sub, &sc, &m);
		u.a[0] = u.a[1] = ldh(b) * (float)sc;
		u.c[0] = u.c[1] = -ldh(b + 2) * (float)m;
		u.z = 0;
	}
	static HR_INLINE void unit_at(const uint8_t *xr, uint64_t ik, int al, unit &u)
	{
		unpack(xr + ik / 8 * bytes, (int)(ik % 8), al != 0, u);
	}
};
typedef fmt_qK<false> fmt_q4_K;
typedef fmt_qK<true> fmt_q5_K;

/* q6_K {u8 ql[128]; u8 qh[64]; i8 scales[16]; f16 d}: half h = j / 128,
 * quarter t = (j % 128) / 32, l = j % 32: 4 low bits from ql[64 h + 32 (t & 1)
 * + l] (high nibble for t >= 2), 2 high bits (qh[32 h + l] >> 2 t) & 3;
 * x = d * scales[8 h + 2 t + l / 16] * (q - 32). */
struct fmt_q6_K {
	static constexpr int bytes = 210, qk = 256, row_qk = 256;
	static constexpr bool K = true, planar_layout = false;
	static HR_INLINE float get(const uint8_t *b, int j)
	{
		const int h = j / 128, t = (j % 128) / 32, l = j % 32;
		const uint32_t v = b[64 * h + 32 * (t & 1) + l];
		const int q = (int)((t >= 2 ? v >> 4 : v & 15) | ((b[128 + 32 * h + l] >> (2 * t)) & 3) << 4);

		/* (d * scale) * q as ggml: the same value, and the same sign of 0 */
		return ldh(b + 208) * (float)(int8_t)b[192 + 8 * h + 2 * t + l / 16] * (float)(q - 32);
	}
	static HR_INLINE void quad(const uint8_t *b, int j, float *o)
	{
		const int h = j / 128, t = (j % 128) / 32, l = j % 32;
		const uint32_t lo = ld32(b + 64 * h + 32 * (t & 1) + l) >> (t >= 2 ? 4 : 0) & 0x0f0f0f0fu;
		const uint32_t w = lo | (ld32(b + 128 + 32 * h + l) >> (2 * t) & 0x03030303u) << 4;
		const float ds = ldh(b + 208) * (float)(int8_t)b[192 + 8 * h + 2 * t + l / 16];

		for (int e = 0; e < 4; e++)
			o[e] = ds * (float)((int)(w >> (8 * e) & 255) - 32);
	}
	static HR_INLINE void unpack(const uint8_t *b, int sub, bool fast, unit &u)
	{
		const int h = sub / 4, t = sub % 4;
		const float d = ldh(b + 208);
		uint32_t lo[8], hi[8];

		ldw<8>(b + 64 * h + 32 * (t & 1), lo, fast);
		ldw<8>(b + 128 + 32 * h, hi, fast);
#pragma unroll
		for (int w = 0; w < 8; w++)
			u.q[w] = (t >= 2 ? (lo[w] >> 4) & 0x0f0f0f0fu : lo[w] & 0x0f0f0f0fu) |
			         ((hi[w] >> (2 * t)) & 0x03030303u) << 4;
		u.a[0] = d * (float)(int8_t)b[192 + 8 * h + 2 * t];
		u.a[1] = d * (float)(int8_t)b[192 + 8 * h + 2 * t + 1];
		u.c[0] = u.c[1] = 0.0f;
		u.z = 32;
	}
	static HR_INLINE void unit_at(const uint8_t *xr, uint64_t ik, int al, unit &u)
	{
		unpack(xr + ik / 8 * bytes, (int)(ik % 8), al != 0, u);
	}
};

/*
 * The dot product of a unit with a q8_1 block (d8, s8 = d8 * sum(q8) as
 * stored, the 8 words of q8 in v), ggml's arithmetic: the 32-element
 * formats take the c term from s8, the K-quants sum q8 themselves.
 */
template <bool K>
HR_DEVICE float dot_q8_1(const unit &u, float d8, float s8, const uint32_t *v)
{
	int si[2] = { 0, 0 }, sy[2] = { 0, 0 };

#pragma unroll
	for (int w = 0; w < 8; w++) {
		si[w / 4] = hr_dp4a((int)u.q[w], (int)v[w], si[w / 4]);
		if (K)
			sy[w / 4] = hr_dp4a(0x01010101, (int)v[w], sy[w / 4]);
	}
	if (!K)
		return u.a[0] * d8 * (float)(si[0] + si[1]) + u.c[0] * s8;
	return d8 * (u.a[0] * (float)(si[0] - u.z * sy[0]) + u.c[0] * (float)sy[0] +
	             u.a[1] * (float)(si[1] - u.z * sy[1]) + u.c[1] * (float)sy[1]);
}

/* The dot product of a unit with 32 floats. */
HR_DEVICE float dot_f32(const unit &u, const float *y)
{
	float s = 0.0f;

#pragma unroll
	for (int h = 0; h < 2; h++) {
		float qy = 0.0f, sy = 0.0f;

#pragma unroll
		for (int i = 16 * h; i < 16 * h + 16; i++) {
			const float yi = y[i];

			qy += (float)((int)(int8_t)(u.q[i / 4] >> (8 * (i % 4)))) * yi;
			sy += yi;
		}
		s += u.a[h] * qy + (u.c[h] - u.a[h] * (float)u.z) * sy;
	}
	return s;
}

#define Q8_1_BYTES 36

/* ------------------------------------------------------------------ */

/*
 * q8_1 of rows of x: P = false, ggml's 36-byte blocks; P = true, the planar
 * q8_1p (groups of 8 blocks: their 8 x 32 quants, then their 8 (d, s) f16
 * pairs, 288 bytes; kx_padded a multiple of 256, else nothing is written).
 * The same bytes either way, at qs(ib) and ds(ib).
 */
template <bool P>
HR_DEVICE uint8_t *q8_qs(uint8_t *yr, uint64_t ib)
{
	return P ? yr + ib / 8 * 8 * Q8_1_BYTES + 32 * (ib % 8) : yr + ib * Q8_1_BYTES + 4;
}

template <bool P>
HR_DEVICE uint8_t *q8_ds(uint8_t *yr, uint64_t ib)
{
	return P ? yr + ib / 8 * 8 * Q8_1_BYTES + 256 + 4 * (ib % 8) : yr + ib * Q8_1_BYTES;
}

template <bool P>
HR_DEVICE void quantize(const float *x, void *vy, int kx, int kx_padded)
{
	const uint64_t nb = kx_padded > 0 && (!P || kx_padded % 256 == 0) ? (uint64_t)kx_padded / QK : 0;
	const float *xr = x + (uint64_t)blockIdx.y * (uint64_t)(kx > 0 ? kx : 0);
	uint8_t *yr = (uint8_t *)vy + (uint64_t)blockIdx.y * nb * Q8_1_BYTES;

	/*
	 * A grid of a thread an element (hanzo_rocm_op_run's launch: work =
	 * rows x kx_padded): 32 lanes a block, one element each, amax and the
	 * sum by shuffles, a byte store a lane (adjacent lanes, adjacent bytes).
	 * One thread a block (the catalogue's work, rows x blocks) read its 32
	 * floats and wrote its block alone: 128 threads for a 4096-float row,
	 * ~4 us on an H100 ahead of a ~17 us mat-vec (doc/BENCHMARKS.md).
	 * blockDim.x a multiple of 32 keeps a block's 32 lanes in one wave.
	 */
	if (hr_global_size() >= nb * QK && blockDim.x % QK == 0) {
		const uint64_t i = hr_global_id(), ib = i / QK;

		if (ib < nb) {          /* whole groups of 32 lanes: uniform */
			const float v = i < (uint64_t)(kx > 0 ? kx : 0) ? xr[i] : 0.0f;
			const float amax = hr_wave_max(fabsf(v), QK);
			const float d = amax / 127.0f, id = d != 0.0f ? 1.0f / d : 0.0f;
			const int q = (int)roundf(v * id), sum = hr_wave_sum(q, QK);
			uint8_t *ds = q8_ds<P>(yr, ib);

			q8_qs<P>(yr, ib)[i % QK] = (uint8_t)(q & 0xff);
			if (i % QK == 0) {
				*(uint16_t *)ds = hr_f32_to_f16(d).bits;
				*(uint16_t *)(ds + 2) = hr_f32_to_f16(d * (float)sum).bits;
			}
		}
		return;
	}
	HR_GRID_STRIDE_LOOP(ib, nb) {
		uint8_t *qs = q8_qs<P>(yr, ib), *ds = q8_ds<P>(yr, ib);
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
			*(uint16_t *)(qs + j) = (uint16_t)((q0 & 0xff) | (q1 & 0xff) << 8);
		}
		*(uint16_t *)ds = hr_f32_to_f16(d).bits;
		*(uint16_t *)(ds + 2) = hr_f32_to_f16(d * (float)sum).bits;
	}
}

HR_KERNEL void quantize_q8_1(const float *x, void *vy, int kx, int kx_padded)
{
	quantize<false>(x, vy, kx, kx_padded);
}

HR_KERNEL void quantize_q8_1p(const float *x, void *vy, int kx, int kx_padded)
{
	quantize<true>(x, vy, kx, kx_padded);
}

/*
 * Four elements to y, one 16-byte (f32) or 8-byte (f16) store where y is
 * aligned to it (al), else one by one.
 */
template <typename T>
HR_DEVICE void store4(T *y, const float *o, bool al)
{
	if (al) {
		hr_vecn<T, 4> v;

#pragma unroll
		for (int e = 0; e < 4; e++)
			v.v[e] = hr_from_compute<T>(o[e]);
		*(hr_vecn<T, 4> *)y = v;
	} else {
#pragma unroll
		for (int e = 0; e < 4; e++)
			y[e] = hr_from_compute<T>(o[e]);
	}
}

/*
 * The dequantizers and get_rows: a thread takes 4 consecutive elements
 * (F::quad: one 32-bit word of each field they come from) and stores them
 * at once; adjacent threads write adjacent 16 bytes (launch: vec=4).  The
 * element-by-element form, byte loads and 4-byte stores, reached 44-53% of
 * the copy bandwidth on an H100 (doc/BENCHMARKS.md).  k and ncols are
 * multiples of the block, so of 4; a k that is not still ends one by one.
 */
template <typename F, typename T>
HR_DEVICE void dequantize_block(const void *vx, T *y, int k)
{
	const uint8_t *x = (const uint8_t *)vx;
	const uint64_t n = k > 0 ? (uint64_t)k : 0;
	const bool al = hr_aligned_to(y, 4 * sizeof(T));

	HR_GRID_STRIDE_LOOP(i, n / 4) {
		float o[4];
		uint64_t j;
		const uint64_t b = hr_divmod(4 * i, (uint64_t)F::qk, &j);

		F::quad(x + b * F::bytes, (int)j, o);
		store4(y + 4 * i, o, al);
	}
	HR_GRID_STRIDE_LOOP(i, n % 4)
		y[n / 4 * 4 + i] = hr_from_compute<T>(F::get(x + (n / 4 * 4 + i) / F::qk * F::bytes,
		                                              (int)((n / 4 * 4 + i) % F::qk)));
}

template <typename F>
HR_DEVICE void get_rows(const void *vx, const uint32_t *ids, float *dst, int ncols, int nids)
{
	const uint8_t *x = (const uint8_t *)vx;
	const uint64_t nc = ncols > 0 ? (uint64_t)ncols / 4 * 4 : 0, n = nc * (nids > 0 ? nids : 0);
	const uint64_t row_bytes = nc / F::qk * F::bytes;
	const bool al = hr_aligned_to(dst, 16) && ncols % 4 == 0;

	if (nc != (uint64_t)(ncols > 0 ? ncols : 0))
		return;         /* not a multiple of the block: not a valid row */
	HR_GRID_STRIDE_LOOP(i, n / 4) {
		float o[4];
		uint64_t c;
		const uint64_t r = hr_divmod(4 * i, nc, &c);

		F::quad(x + ids[r] * row_bytes + c / F::qk * F::bytes, (int)(c % F::qk), o);
		store4(dst + 4 * i, o, al);
	}
}

/*
 * The mat-vec kernels.  Lanes take a row's 32-element units whole (adjacent
 * lanes read adjacent blocks: coalesced), each unit's words loaded with
 * 32-bit loads (ldw), unpacked once and dotted with the B columns of y.
 * Two mappings, chosen by the grid (uniform, so no divergence):
 *  - a grid of at least one block per row (the `rows` launch): a block per
 *    row (blocks stride over rows), its threads stride over the units, a
 *    block-wide sum (hr-rows.h: blockDim.x a multiple of 64);
 *  - a smaller grid: a wave per row, blockDim.x / wave size rows a block
 *    (blocks stride over rows in groups of that many), a wave sum - no
 *    shared memory, no barrier.
 */
HR_DEVICE void load_y_f32(const float *y, bool y16, float *yb)
{
	if (y16) {
		const hr_vecn<float, 4> *yv = (const hr_vecn<float, 4> *)y;

#pragma unroll
		for (int k = 0; k < QK / 4; k++) {
			const hr_vecn<float, 4> p = yv[k];

			for (int e = 0; e < 4; e++)
				yb[4 * k + e] = p.v[e];
		}
	} else {
#pragma unroll
		for (int k = 0; k < QK; k++)
			yb[k] = y[k];
	}
}

/* The q8_1 block at yb: its 8 words, d8 and s8. */
HR_DEVICE void load_q8_1(const uint8_t *yb, bool yal, uint32_t *v, float *d8, float *s8)
{
	if (yal) {
		const uint32_t *yw = (const uint32_t *)(const void *)yb;
		const uint32_t ds = yw[0];
		hr_f16 h;

#pragma unroll
		for (int w = 0; w < 8; w++)
			v[w] = yw[1 + w];
		h.bits = (uint16_t)(ds & 0xffffu);
		*d8 = hr_f16_to_f32(h);
		h.bits = (uint16_t)(ds >> 16);
		*s8 = hr_f16_to_f32(h);
	} else {
		for (int w = 0; w < 8; w++)
			v[w] = ld32(yb + 4 + 4 * w);
		*d8 = ldh(yb);
		*s8 = ldh(yb + 2);
	}
}

/*
 * Block b of the q8_1p group at g: its 8 words of quants (two 16-byte
 * loads where yal is 2: vy 16-byte aligned; 32-bit where 1; else 16-bit),
 * d8 and s8 (one 32-bit load where yal).
 */
HR_DEVICE void load_q8_1p(const uint8_t *g, int b, int yal, uint32_t *v, float *d8, float *s8)
{
	const uint8_t *q = g + 32 * b, *ds = g + 256 + 4 * b;
	uint32_t dsw;
	hr_f16 h;

	if (yal == 2) {
#pragma unroll
		for (int k = 0; k < 2; k++) {
			const hr_vecn<uint32_t, 4> p = ((const hr_vecn<uint32_t, 4> *)(const void *)q)[k];

#pragma unroll
			for (int e = 0; e < 4; e++)
				v[4 * k + e] = p.v[e];
		}
	} else {
#pragma unroll
		for (int w = 0; w < 8; w++)
			v[w] = yal ? ((const uint32_t *)(const void *)q)[w] : ld32(q + 4 * w);
	}
	dsw = yal ? *(const uint32_t *)(const void *)ds : ld32(ds);
	h.bits = (uint16_t)(dsw & 0xffffu);
	*d8 = hr_f16_to_f32(h);
	h.bits = (uint16_t)(dsw >> 16);
	*s8 = hr_f16_to_f32(h);
}

/*
 * Column j's q8_1 block of unit ik: Y = 1 ggml's 36-byte blocks (yal: vy
 * 4-byte aligned), Y = 2 the planar q8_1p (quantize_q8_1p; nby a multiple
 * of 8; yal 2: vy 16-byte aligned, two 16-byte loads of the quants).
 */
template <int Y>
HR_DEVICE void load_y8(const void *vy, uint64_t j, uint64_t nby, uint64_t ik, int yal, uint32_t *v,
                       float *d8, float *s8)
{
	const uint64_t ib = j * nby + ik;

	if (Y == 1) {
		load_q8_1((const uint8_t *)vy + ib * Q8_1_BYTES, yal != 0, v, d8, s8);
		return;
	}
	load_q8_1p((const uint8_t *)vy + ib / 8 * 8 * Q8_1_BYTES, (int)(ib % 8), yal, v, d8, s8);
}

/*
 * acc[i][j] += row i . column j over U units iu, iu + step, ... (U * step
 * past iu inside the row) for the nv (1..R) rows at xr, xr + row_bytes, ...
 * Every unit of x is loaded before any is used: U * R units' loads in flight
 * a lane (a q4_0 unit is 18 bytes: one at a time keeps too few bytes in
 * flight to cover the memory's latency).  Each column's block of y is loaded
 * once for the R rows (y is read from cache once per unit and R rows, not
 * per row: with f32 y, 128 bytes of it against 18 of a q4_0 unit).
 * Q8: y is B columns of q8_1 blocks (nby a column), else one f32 column.
 */
template <typename F, int B, int Y, int R, int U>
HR_DEVICE void mv_step(const uint8_t *xr, uint64_t row_bytes, int nv, const void *vy, uint64_t nby,
                       uint64_t iu, uint64_t step, int al, int yal, float (*acc)[B])
{
	unit u[U][R];

#pragma unroll
	for (int k = 0; k < U; k++) {
		const uint64_t ik = iu + (uint64_t)k * step;

#pragma unroll
		for (int i = 0; i < R; i++)
			if (i < nv)
				F::unit_at(xr + (uint64_t)i * row_bytes, ik, al, u[k][i]);
	}
#pragma unroll
	for (int k = 0; k < U; k++) {
		const uint64_t ik = iu + (uint64_t)k * step;

		if (Y) {
#pragma unroll
			for (int j = 0; j < B; j++) {
				uint32_t v[8];
				float d8, s8;

				load_y8<Y>(vy, (uint64_t)j, nby, ik, yal, v, &d8, &s8);
#pragma unroll
				for (int i = 0; i < R; i++)
					if (i < nv)
						acc[i][j] += dot_q8_1<F::K>(u[k][i], d8, s8, v);
			}
		} else {
			float yb[QK];

			load_y_f32((const float *)vy + ik * QK, yal != 0, yb);
#pragma unroll
			for (int i = 0; i < R; i++)
				if (i < nv)
					acc[i][0] += dot_f32(u[k][i], yb);
		}
	}
}

/*
 * The planar layout with q8_1p activations (F planar, Y = 2): the units
 * first, first + step, ... < nu of R rows, step a multiple of 8 (a wave, or
 * a block of a multiple of 64), so a thread's block within each group it
 * visits is the same, first % 8, and its pointers into x and y advance by
 * step / 8 groups: no index arithmetic a unit (the generic loop's unit_at
 * and load_y8 recompute both addresses from the unit's index, which left
 * the kernel issue-bound: ~75 instructions a unit against ~35 here).
 */
/* U units a thread apart by step of R rows: every unit's x loaded first
 * (U x R loads in flight), then each column's y and the dot products. */
template <typename F, int B, int R, int U>
HR_DEVICE void mvp_step(const uint8_t *gx, const uint8_t *gy, int b, uint64_t row_bytes, int nv,
                        uint64_t col, uint64_t sx, uint64_t sy, int al, int yal, float (*acc)[B])
{
	unit u[U][R];

#pragma unroll
	for (int k = 0; k < U; k++)
#pragma unroll
		for (int i = 0; i < R; i++)
			if (i < nv)
				F::unit_in(gx + (uint64_t)k * sx + (uint64_t)i * row_bytes, b, al, u[k][i]);
#pragma unroll
	for (int k = 0; k < U; k++) {
#pragma unroll
		for (int j = 0; j < B; j++) {
			uint32_t v[8];
			float d8, s8;

			load_q8_1p(gy + (uint64_t)k * sy + (uint64_t)j * col, b, yal, v, &d8, &s8);
#pragma unroll
			for (int i = 0; i < R; i++)
				if (i < nv)
					acc[i][j] += dot_q8_1<false>(u[k][i], d8, s8, v);
		}
	}
}

/*
 * The planar layout with q8_1p activations (F planar, Y = 2): the units
 * first, first + step, ... < nu of R rows, step a multiple of 8 (a wave, or
 * a block of a multiple of 64), so a thread's block within each group it
 * visits is the same, first % 8, and its pointers into x and y advance by
 * step / 8 groups: no index arithmetic a unit (the generic loop's unit_at
 * and load_y8 recompute both addresses from the unit's index).  U units at
 * a time, then one by one.
 */
template <typename F, int B, int R, int U>
HR_DEVICE void mvp_rows(const uint8_t *xr, uint64_t row_bytes, int nv, const void *vy, uint64_t nby,
                        uint64_t nu, uint64_t first, uint64_t step, int al, int yal,
                        float (*acc)[B])
{
	const int b = (int)(first % 8);
	const uint64_t col = nby / 8 * 8 * Q8_1_BYTES;          /* bytes a column of y */
	const uint64_t sx = step / 8 * (uint64_t)F::group, sy = step / 8 * 8 * Q8_1_BYTES;
	const uint8_t *gx = xr + first / 8 * (uint64_t)F::group;
	const uint8_t *gy = (const uint8_t *)vy + first / 8 * 8 * Q8_1_BYTES;
	/* nu < 2^31 (ncols is an int): 32-bit counting */
	const uint32_t n = (uint32_t)nu, st = (uint32_t)step;
	uint32_t iu = (uint32_t)first;

	for (; iu + (uint32_t)(U - 1) * st < n; iu += (uint32_t)U * st, gx += U * sx, gy += U * sy)
		mvp_step<F, B, R, U>(gx, gy, b, row_bytes, nv, col, sx, sy, al, yal, acc);
	for (; iu < n; iu += st, gx += sx, gy += sy)
		mvp_step<F, B, R, 1>(gx, gy, b, row_bytes, nv, col, sx, sy, al, yal, acc);
}

/* mvp_rows where F is planar (instantiated for those only). */
template <bool P>
struct mvp_sel {
	template <typename F, int B, int R, int U>
	static HR_INLINE bool run(const uint8_t *, uint64_t, int, const void *, uint64_t, uint64_t,
	                          uint64_t, uint64_t, int, int, float (*)[B])
	{
		return false;
	}
};

template <>
struct mvp_sel<true> {
	template <typename F, int B, int R, int U>
	static HR_INLINE bool run(const uint8_t *xr, uint64_t row_bytes, int nv, const void *vy,
	                          uint64_t nby, uint64_t nu, uint64_t first, uint64_t step, int al,
	                          int yal, float (*acc)[B])
	{
		mvp_rows<F, B, R, U>(xr, row_bytes, nv, vy, nby, nu, first, step, al, yal, acc);
		return true;
	}
};

/* The units first, first + step, ... < nu: U at a time, then one by one. */
template <typename F, int B, int Y, int R, int U>
HR_DEVICE void mv_rows(const uint8_t *xr, uint64_t row_bytes, int nv, const void *vy, uint64_t nby,
                       uint64_t nu, uint64_t first, uint64_t step, int al, int yal,
                       float (*acc)[B])
{
	uint64_t iu = first;

	if (Y == 2 && step % 8 == 0 &&
	    mvp_sel<F::planar_layout>::template run<F, B, R, U>(xr, row_bytes, nv, vy, nby, nu, first, step,
	                                                    al, yal, acc))
		return;

	for (; iu + (uint64_t)(U - 1) * step < nu; iu += (uint64_t)U * step)
		mv_step<F, B, Y, R, U>(xr, row_bytes, nv, vy, nby, iu, step, al, yal, acc);
	for (; iu < nu; iu += step)
		mv_step<F, B, Y, R, 1>(xr, row_bytes, nv, vy, nby, iu, step, al, yal, acc);
}

/* Rows a wave takes at once (R) and units a lane loads at once (U) in the
 * wave-per-row mapping, by columns of y (0: f32 y) and y's layout, as
 * measured on an H100 (doc/BENCHMARKS.md): the f32 form gains most from
 * sharing y's loads over 4 rows (about 2x), the q8_1 form at batch 1 and 2
 * is fastest one row, one unit at a time (more of either costs registers,
 * so occupancy, and lost 5-20%), at batch 4 and 8 4 rows share y again
 * (+10-30%).  (y staged in shared-memory tiles was slower still: 45% of the
 * copy for q4_0.)  The planar layout on an H200: 2 rows at batch 2 (+5-7%
 * for q4_0 and q4_1 there; 6-10% slower at batch 1), and one unit at a
 * time (2 or 4 units in flight a lane were 3-20% slower). */
template <int B, int Y>
struct mv_shape {
#if defined(__AMDGCN__)
	/* AMD: 4 rows' accumulators, units and y exceed the 128 VGPRs a
	 * kernel gets at a 1024-thread bound and spill (gfx90a, ROCm 5.2):
	 * one row at a time there until measured on an AMD GPU. */
	static constexpr int R = 1;
#else
	static constexpr int R = B == 0 || B >= 4 ? 4 : Y == 2 && B == 2 ? 2 : 1;
#endif
	static constexpr int U = 1;
};

/*
 * dst[j * ld + r] = row r of vx . column j, for the rows: Y = 0 one f32
 * column, Y = 1 B columns of q8_1, Y = 2 B columns of the planar q8_1p
 * (nrows_y a multiple of 256, else nothing is written).
 */
template <typename F, int B, int Y>
HR_DEVICE void mat_vec(const void *vx, const void *vy, float *dst, int ncols, int nrows,
                       int nrows_y, int ld)
{
	const int per = F::qk / QK, ws = hr_wave_size();
	const uint64_t nu = ncols > 0 ? (uint64_t)ncols / F::row_qk * (F::row_qk / QK) : 0;
	const uint64_t nby = nrows_y > 0 ? (uint64_t)nrows_y / QK : 0;
	const uint64_t nr = nrows > 0 ? (uint64_t)nrows : 0, ldd = ld > 0 ? (uint64_t)ld : 0;
	const uint64_t row_bytes = nu / per * F::bytes;
	/* x: 32-bit loads where it starts 4-byte aligned (ldw), the planar
	 * layout's 16-byte loads where 16-byte aligned; y: q8_1 blocks (36
	 * bytes) 32-bit where vy is 4-byte aligned, q8_1p as x, f32 y in 16-byte
	 * packs where y is 16-aligned */
	const int al = hr_aligned_to(vx, 16) ? 2 : hr_aligned_to(vx, 4) ? 1 : 0;
	const int yal = Y == 0 ? hr_aligned_to(vy, 16) : Y == 1 ? hr_aligned_to(vy, 4) :
	                hr_aligned_to(vy, 16) ? 2 : hr_aligned_to(vy, 4) ? 1 : 0;

	if (Y == 2 && nrows_y % 256 != 0)
		return;

	if ((uint64_t)gridDim.x >= nr || blockDim.x < (unsigned)ws) {
		for (uint64_t r = blockIdx.x; r < nr; r += gridDim.x) {
			float acc[1][B];

			for (int j = 0; j < B; j++)
				acc[0][j] = 0.0f;
			mv_rows<F, B, Y, 1, 1>((const uint8_t *)vx + r * row_bytes, row_bytes, 1, vy, nby,
			                        nu, threadIdx.x, blockDim.x, al, yal, acc);
			for (int j = 0; j < B; j++) {
				const float s = hr_block_reduce(acc[0][j], hr_op_sum());

				if (threadIdx.x == 0)
					dst[(uint64_t)j * ldd + r] = s;
			}
		}
		return;
	}
	/* A wave per MV_R rows: groups of MV_R rows dealt to the grid's waves
	 * in turn (no division: a 64-bit one, to split the rows into each
	 * wave's contiguous share, cost every wave ~100 instructions, more
	 * than a 4096-column row's units - Nsight Compute, doc/BENCHMARKS.md). */
	constexpr int MV_R = mv_shape<Y ? B : 0, Y>::R, MV_U = mv_shape<Y ? B : 0, Y>::U;
	const unsigned wshift = ws == 64 ? 6 : 5;
	const uint64_t rpb = blockDim.x >> wshift, lane = threadIdx.x & (unsigned)(ws - 1);
	const uint64_t waves = (uint64_t)gridDim.x * rpb, wave = blockIdx.x * rpb + (threadIdx.x >> wshift);

#if defined(__AMDGCN__)
	/* nrows is an int, so 32-bit rows on AMD: r + st < 2^32 (the 64-bit
	 * loop left the q6_K f32 form 20 VGPRs more, spilling, on gfx942 with
	 * ROCm 5.7; on sm_90 the 32-bit loop cost the planar batch 8 a
	 * quarter, 605 against 794 GB/s for q4_0p: doc/BENCHMARKS.md) */
	if (wave * MV_R >= nr)
		return;         /* the whole wave: no barrier in this mapping */
	const uint32_t n = (uint32_t)nr, st = waves * MV_R < n ? (uint32_t)(waves * MV_R) : n;

	for (uint32_t r = (uint32_t)(wave * MV_R); r < n; r += st) {
		const int nv = n - r < MV_R ? (int)(n - r) : MV_R;
#else
	for (uint64_t r = wave * MV_R; r < nr; r += waves * MV_R) {
		const int nv = nr - r < MV_R ? (int)(nr - r) : MV_R;
#endif
		float acc[MV_R][B];

		for (int i = 0; i < MV_R; i++)
			for (int j = 0; j < B; j++)
				acc[i][j] = 0.0f;
		mv_rows<F, B, Y, MV_R, MV_U>((const uint8_t *)vx + r * row_bytes, row_bytes, nv, vy,
		                              nby, nu, lane, (uint64_t)ws, al, yal, acc);
		for (int i = 0; i < MV_R; i++) {
			for (int j = 0; j < B; j++) {
				const float s = hr_wave_sum(acc[i][j], ws);

				if (lane == 0 && i < nv)
					dst[(uint64_t)j * ldd + r + (uint64_t)i] = s;
			}
		}
	}
}

template <typename F>
HR_DEVICE void dequantize_mul_mat_vec(const void *vx, const float *y, float *dst, int ncols,
                                      int nrows)
{
	mat_vec<F, 1, 0>(vx, y, dst, ncols, nrows, 0, 0);
}

template <typename F, int B, int Y>
HR_DEVICE void mul_mat_vec_q8_1(const void *vx, const void *vy, float *dst, int ncols_x,
                                int nrows_x, int nrows_y, int nrows_dst)
{
#if defined(__AMDGCN__)
	/* AMD: all B columns' y words at once spill at B >= 7 on gfx90a (128
	 * VGPRs): the columns one after another there. */
	const uint64_t cb = nrows_y > 0 ? (uint64_t)nrows_y / QK * Q8_1_BYTES : 0;

	for (int j = 0; j < B; j++)
		mat_vec<F, 1, Y>(vx, (const uint8_t *)vy + (uint64_t)j * cb,
		                    dst + (uint64_t)j * (uint64_t)(nrows_dst > 0 ? nrows_dst : 0), ncols_x,
		                    nrows_x, nrows_y, nrows_dst);
#else
	mat_vec<F, B, Y>(vx, vy, dst, ncols_x, nrows_x, nrows_y, nrows_dst);
#endif
}

#define MMVQ(Q, B) \
	HR_KERNEL void mul_mat_vec_##Q##_q8_1_cuda##B(const void *vx, const void *vy, float *dst, \
						      int ncols_x, int nrows_x, int nrows_y, \
						      int nrows_dst) \
	{ \
		mul_mat_vec_q8_1<fmt_##Q, B, 1>(vx, vy, dst, ncols_x, nrows_x, nrows_y, nrows_dst); \
	}

#define MMVQP(Q, B) \
	HR_KERNEL void mul_mat_vec_##Q##p_q8_1p_cuda##B(const void *vx, const void *vy, float *dst, \
							int ncols_x, int nrows_x, int nrows_y, \
							int nrows_dst) \
	{ \
		mul_mat_vec_q8_1<fmt_##Q##p, B, 2>(vx, vy, dst, ncols_x, nrows_x, nrows_y, nrows_dst); \
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

/*
 * ggml blocks to the planar layout (TO_P) and back, a thread a block: each
 * field's bytes moved 2 at a time (every field is a whole number of 16-bit
 * words at an even offset).  k elements, a multiple of 256 (whole groups);
 * any other k writes nothing.
 */
template <typename F, bool TO_P>
HR_DEVICE void pack(const void *src, void *dst, int k)
{
	typedef planar<F> P;
	const uint64_t nb = k > 0 && k % P::row_qk == 0 ? (uint64_t)k / QK : 0;
	const uint8_t *s = (const uint8_t *)src;
	uint8_t *d = (uint8_t *)dst;

	HR_GRID_STRIDE_LOOP(ib, nb) {
		const int b = (int)(ib % 8);
		const uint64_t blk = ib * F::bytes, grp = ib / 8 * P::group;
		/* (offset in the block, in the group, bytes) of sc, qh, qs */
		const int f[3][3] = { { 0, P::off_sc(b), F::sc }, { F::sc, P::off_qh(b), F::qh },
		                      { F::sc + F::qh, P::off_qs(b), F::qsb } };

#pragma unroll
		for (int i = 0; i < 3; i++) {
			const uint64_t from = TO_P ? blk + (uint64_t)f[i][0] : grp + (uint64_t)f[i][1];
			const uint64_t to = TO_P ? grp + (uint64_t)f[i][1] : blk + (uint64_t)f[i][0];

			for (int e = 0; e < f[i][2]; e += 2)
				*(uint16_t *)(d + to + e) = *(const uint16_t *)(s + from + e);
		}
	}
}

#define QUANTP(Q) \
	HR_KERNEL void pack_##Q##p(const void *vx, void *vp, int k) \
	{ \
		pack<fmt_##Q, true>(vx, vp, k); \
	} \
	HR_KERNEL void unpack_##Q##p(const void *vp, void *vx, int k) \
	{ \
		pack<fmt_##Q, false>(vp, vx, k); \
	} \
	HR_KERNEL void dequantize_mul_mat_vec_##Q##p(const void *vx, const float *y, float *dst, \
						     int ncols, int nrows) \
	{ \
		dequantize_mul_mat_vec<fmt_##Q##p>(vx, y, dst, ncols, nrows); \
	} \
	MMVQP(Q, 1) MMVQP(Q, 2) MMVQP(Q, 3) MMVQP(Q, 4) MMVQP(Q, 5) MMVQP(Q, 6) MMVQP(Q, 7) \
	MMVQP(Q, 8)

QUANTP(q4_0)
QUANTP(q4_1)
QUANTP(q5_0)
QUANTP(q5_1)
QUANTP(q8_0)
