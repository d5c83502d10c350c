// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * attention family: what an inference runtime calls per layer - the KV-cache
 * write, decode against a paged KV cache (one pass, or split-K plus a
 * log-sum-exp combine) and prefill over variable-length packed sequences.
 * Portable code with f32 accumulation and online softmax; the prefill of
 * f16/bf16 at head dims up to 128 runs on the matrix units where the target
 * has them (through hr-matrix.h: flash_varlen_mma on MFMA and WMMA,
 * flash_varlen_sync on NVIDIA's mma.sync with cp.async and ldmatrix).
 * kernels/attention.list has the argument lists, the launch rules and the
 * layouts; doc/ATTENTION.md the reasoning.  In short:
 *
 *   cache   key_cache / value_cache [num_blocks, block_size, kv_heads, D]
 *           each (vLLM v1's [2, num_blocks, block_size, kv_heads, D] is
 *           both halves of one buffer: pass base and base + its half).
 *   logit   s = scale * q.k; s = softcap * tanh(s / softcap) when
 *           softcap > 0; s -= slope[h] * |j - (i + Lk - Lq)| with ALiBi
 *           (the FlashAttention-2 bias; in decode vLLM's
 *           slope * (j - seq_len + 1)).
 *   masks   key j of query i (0-based in its sequence, Lq queries, Lk keys)
 *           is seen when i + Lk - Lq - left <= j <= i + Lk - Lq + right
 *           (left/right < 0: unbounded; causal: right = 0 - the diagonal is
 *           aligned bottom-right).  A query that sees no key writes 0 and
 *           an LSE of -inf.
 *   GQA     query head h reads kv head h / (num_heads / num_kv_heads).
 *
 * Thread layout (both forms): blocks of 128 threads = 16 groups of 8 lanes;
 * lane l of a group holds dims l, l + 8, ... of its query and of its output
 * (every head dim of the family is a multiple of 8); a key's dot product is
 * a butterfly over the 8 lanes.  Every loop that contains a shuffle or a
 * barrier has block-uniform bounds (keys outside a row's range are masked,
 * not skipped), as NVIDIA's full-mask shuffles need.
 */
#include "hr-kernel.h"

#define ATT_GROUP 8                              /* lanes per key / query row */
#define ATT_BLOCK 128                            /* threads per block */
#define ATT_NGROUPS (ATT_BLOCK / ATT_GROUP)      /* 16 */
#define ATT_BN 16                                /* keys per shared tile (prefill) */

HR_DEVICE float att_neg_inf(void)
{
	return hr_bits_f32(0xff800000u);
}

/* The logit of key j for a query whose diagonal key is `diag`. */
HR_DEVICE float att_logit(float dot, float scale, float softcap, float slope, int64_t rel)
{
	float s = dot * scale;

	if (softcap > 0.f)
		s = softcap * hr_tanh(s / softcap);
	if (slope != 0.f)
		s -= slope * (float)(rel < 0 ? -rel : rel);
	return s;
}

/* One query row's online-softmax state; lane l holds dims l + 8 i. */
template <int D>
struct att_state {
	float m, l;
	float acc[D / ATT_GROUP];
};

template <int D>
HR_DEVICE void att_init(att_state<D> &st)
{
	st.m = att_neg_inf();
	st.l = 0.f;
#pragma unroll
	for (int i = 0; i < D / ATT_GROUP; i++)
		st.acc[i] = 0.f;
}

/* Adds key with logit s (-inf: masked) and value vload(i) (dim lane + 8 i). */
template <int D, typename F>
HR_DEVICE void att_step(att_state<D> &st, float s, const F &vload)
{
	if (!(s > att_neg_inf()))
		return;         /* masked (or NaN from a NaN input: skipped alike) */
	const float mn = hr_fmax(st.m, s);
	const float corr = hr_exp(st.m - mn);  /* exp(-inf) = 0 on the first key */
	const float p = hr_exp(s - mn);

	st.l = st.l * corr + p;
#pragma unroll
	for (int i = 0; i < D / ATT_GROUP; i++)
		st.acc[i] = st.acc[i] * corr + p * vload(i);
	st.m = mn;
}

/* q . k over the group's 8 lanes; every lane gets the sum. */
template <int D, typename F>
HR_DEVICE float att_dot(const float *qf, const F &kload, bool valid)
{
	float dot = 0.f;

	if (valid) {
#pragma unroll
		for (int i = 0; i < D / ATT_GROUP; i++)
			dot += qf[i] * kload(i);
	}
	return hr_wave_sum(dot, ATT_GROUP);
}

/* ------------------------------------------------------------------ */
/* KV-cache write                                                       */
/* ------------------------------------------------------------------ */
/*
 * Token t's heads key[t * key_stride + h * head_dim + d] go to slot
 * slot_mapping[t] (block slot / block_size, row slot % block_size).  A slot
 * < 0 (padding) or >= num_blocks * block_size writes nothing.
 */
template <typename T>
HR_DEVICE void reshape_and_cache(const T *key, const T *value, T *key_cache, T *value_cache,
				 const int64_t *slot_mapping, uint64_t num_tokens,
				 uint64_t num_kv_heads, uint64_t head_dim, uint64_t block_size,
				 uint64_t num_blocks, uint64_t key_stride, uint64_t value_stride)
{
	const uint64_t per_tok = num_kv_heads * head_dim;

	if (per_tok == 0 || block_size == 0)
		return;
	HR_GRID_STRIDE_LOOP(e, num_tokens * per_tok) {
		uint64_t hd;
		const uint64_t t = hr_divmod(e, per_tok, &hd);
		const int64_t slot = slot_mapping[t];

		if (slot < 0 || (uint64_t)slot / block_size >= num_blocks)
			continue;
		const uint64_t dst = (uint64_t)slot * per_tok + hd;
		key_cache[dst] = key[t * key_stride + hd];
		value_cache[dst] = value[t * value_stride + hd];
	}
}

/* ------------------------------------------------------------------ */
/* Paged decode                                                         */
/* ------------------------------------------------------------------ */
/*
 * The decode's fast path: 2-byte K/V (f16, bf16), head dims 64, 128, 256,
 * 16-byte aligned caches.  Each key's row is read by LK = D / 8 lanes with
 * one 16-byte load each (8 dims a lane: lane l holds dims 8 l .. 8 l + 7),
 * KR = 128 / LK keys a row of loads, a step of U rows (U x 2 x 16 bytes of
 * K and V a thread), and the next step's loads are issued before this
 * step's math (two steps in registers: the loads' latency hides behind the
 * dot products, the exponentials and the V update).  Each key is converted
 * to f32 once for all GH heads, and the GH x U dot products reduce their
 * butterflies together.  With GH query heads sharing a KV head
 * (group % GH == 0), the block of the group's first head takes all GH of
 * them over the same keys - each key is read from memory once, not once a
 * head - and the other heads' blocks return at once; the launch rule knows
 * (attention.list: split_share=4, the splits count rows / 4 blocks of work).
 * A split's chunk is a whole number of steps.  The state, the per-head
 * merge through shared memory and what is written (out and lse, or the
 * split's partials) are those of the portable path below.
 */
#define ATT_DEC_U 4
/* RDNA (wave 32) keeps the portable decode: there the fast path needs more
 * than 256 VGPRs (gfx1201, clang 21: 12-33 spilled a kernel, t/rocm
 * check-rocm, 2026-11-25). */
#if defined(__AMDGCN_WAVEFRONT_SIZE) && __AMDGCN_WAVEFRONT_SIZE == 32
#define ATT_DEC_FAST 0
#else
#define ATT_DEC_FAST 1
#endif

/* (block_size > 0) key indices and page offsets fit 32 bits; a page and a
 * block to read masked keys from */
template <int D>
HR_DEVICE bool att_dec_fast_ok(size_t esize, const void *k, const void *v, uint64_t block_size,
			       uint64_t max_blocks_per_seq, uint64_t num_blocks)
{
	return esize == 2 && (D == 64 || D == 128 || D == 256) && hr_aligned_to(k, 16) &&
	       hr_aligned_to(v, 16) && max_blocks_per_seq >= 1 && num_blocks >= 1 &&
	       max_blocks_per_seq <= 0x7fffffffu / block_size;
}

/* Reduce-scatter of N values over the W lanes of a row (N == W, a power of
 * two): at each level the lanes whose bit H is set keep the upper half and
 * add their partner's; afterwards v[0] of lane i is the sum of value i
 * over the W lanes. */
template <int H, int W>
HR_DEVICE void att_rs_level(float *v, int lane)
{
	const bool up = (lane & H) != 0;

#pragma unroll
	for (int i = 0; i < H; i++) {           /* H == 0: nothing */
		const float send = up ? v[i] : v[i + H];
		const float keep = up ? v[i + H] : v[i];

		v[i] = keep + hr_shfl_xor(send, H, W);
	}
}

/* The levels spelled out (constant indices: v stays in registers; a loop
 * over the levels left v in local memory on sm_90). */
template <int N, int W>
HR_DEVICE void att_reduce_scatter(float *v, int lane)
{
	static_assert(N <= 32 && (N & (N - 1)) == 0, "N: a power of two up to 32");
	att_rs_level<N / 2, W>(v, lane);
	att_rs_level<N / 4, W>(v, lane);
	att_rs_level<N / 8, W>(v, lane);
	att_rs_level<N / 16, W>(v, lane);
	att_rs_level<N / 32, W>(v, lane);
}

template <typename T, int D, int GH>
HR_DEVICE void paged_decode_fast(T *out, float *lse, float *ws, const T *q, const T *key_cache,
				 const T *value_cache, const int32_t *block_tables,
				 const int32_t *seq_lens, const float *alibi_slopes,
				 uint64_t num_seqs, uint64_t num_heads, uint64_t num_kv_heads,
				 uint64_t block_size, uint64_t max_blocks_per_seq,
				 uint64_t num_blocks, uint64_t q_stride, float scale, float softcap,
				 int window_left, float *sm_m, float *sm_l, float *sm_acc)
{
	constexpr int LK = D / 8, KR = ATT_BLOCK / LK, U = ATT_DEC_U, STEP = KR * U;
	typedef hr_vecn<T, 8> V;
	const uint64_t rows = num_seqs * num_heads, splits = gridDim.y, y = blockIdx.y;
	const int tid = (int)threadIdx.x, kr = tid / LK, lane = tid % LK;
	const uint64_t group = num_heads / num_kv_heads;
	const int64_t max_len = (int64_t)(max_blocks_per_seq * block_size);
	const uint32_t bs = (uint32_t)block_size;       /* max_len < 2^31: att_dec_fast_ok */

	for (uint64_t row = blockIdx.x; row < rows; row += gridDim.x) {
		uint64_t h0;
		const uint64_t seq = hr_divmod(row, num_heads, &h0);

		if (h0 % GH)
			continue;       /* the head set's first block does the set */
		const uint64_t kvh = h0 / group;
		int64_t len = seq_lens[seq];

		len = len < 0 ? 0 : (len > max_len ? max_len : len);
		const int64_t lo = window_left >= 0 && len - 1 - window_left > 0 ? len - 1 - window_left : 0;
		/* chunks of whole steps: no split ends on a part-empty step */
		int64_t chunk = (len - lo + (int64_t)splits - 1) / (int64_t)splits;

		chunk = (chunk + STEP - 1) / STEP * STEP;
		const int64_t begin = lo + (int64_t)y * chunk;
		const int64_t end = begin + chunk < len ? begin + chunk : len;
		const int32_t *bt = block_tables + seq * max_blocks_per_seq;
		float qf[GH][8], m[GH], l[GH], acc[GH][8], slope[GH];

#pragma unroll
		for (int g = 0; g < GH; g++) {
			const T *qrow = q + seq * q_stride + (h0 + g) * D + lane * 8;

			slope[g] = alibi_slopes ? alibi_slopes[h0 + g] : 0.f;
			m[g] = att_neg_inf();
			l[g] = 0.f;
#pragma unroll
			for (int e = 0; e < 8; e++) {
				qf[g][e] = hr_to_f32(qrow[e]);
				acc[g][e] = 0.f;
			}
		}
		/* U keys' K and V of one step: key base + u KR + kr, lane's 8 dims.
		 * No branch around a load (a load under a branch waits for the
		 * one before it): a key past end or in an invalid block reads
		 * block 0 (att_dec_fast_ok: num_blocks >= 1) and is masked. */
		auto load = [&](int64_t base, V *kk, V *vv, bool *oo) {
#pragma unroll
			for (int u = 0; u < U; u++) {
				const int64_t j = base + u * KR + kr;
				const bool in = j < end;
				const uint32_t jj = in ? (uint32_t)j : (uint32_t)begin;
				const uint32_t pg = jj / bs, r = jj - pg * bs;
				const int64_t b = bt[pg];
				const bool okb = in && b >= 0 && (uint64_t)b < num_blocks;
				const uint64_t off = (((uint64_t)(okb ? b : 0) * bs + r) * num_kv_heads +
						      kvh) * D + (uint64_t)lane * 8;

				kk[u] = *(const V *)(key_cache + off);
				vv[u] = *(const V *)(value_cache + off);
				oo[u] = okb;
			}
		};
		/* GH x U == LK (d128, 4 heads, U 4): the dot products' butterflies
		 * become one reduce-scatter - lane i ends with the whole dot of
		 * (head i / U, key i % U) - so each logit and exponential is
		 * computed once, not once a lane; the weights go back by shuffles. */
		constexpr bool RS = GH * U == LK;
		const int gi = lane / U, ui = lane % U;
		const float my_slope = RS && alibi_slopes ? alibi_slopes[h0 + gi] : 0.f;
		float my_m = att_neg_inf(), my_l = 0.f;
		V kp[U], vp[U];
		bool ok[U];

#pragma unroll
		for (int u = 0; u < U; u++)
			ok[u] = false;
		if (begin < end)
			load(begin, kp, vp, ok);
		for (int64_t base = begin; base < end; base += STEP) {
			/* the next step's loads are in flight during this step's math */
			V kn[U], vn[U];
			bool okn[U];

#pragma unroll
			for (int u = 0; u < U; u++)
				okn[u] = false;
			if (base + STEP < end)          /* block-uniform */
				load(base + STEP, kn, vn, okn);
			float s[GH][U];

#pragma unroll
			for (int u = 0; u < U; u++) {
				float kf[8];

#pragma unroll
				for (int e = 0; e < 8; e++)
					kf[e] = ok[u] ? hr_to_f32(kp[u].v[e]) : 0.f;
#pragma unroll
				for (int g = 0; g < GH; g++) {
					float dot = 0.f;

#pragma unroll
					for (int e = 0; e < 8; e++)
						dot += qf[g][e] * kf[e];
					s[g][u] = dot;
				}
			}
			if (RS) {
				float v[GH * U];

#pragma unroll
				for (int i = 0; i < GH * U; i++)
					v[i] = s[i / U][i % U];
				att_reduce_scatter<GH * U, LK>(v, lane);
				unsigned okm = 0;

#pragma unroll
				for (int u = 0; u < U; u++)
					okm |= (unsigned)ok[u] << u;
				const int64_t j = base + ui * KR + kr;
				float sc = (okm >> ui) & 1u ? att_logit(v[0], scale, softcap, my_slope,
									 j - (len - 1))
							    : att_neg_inf();

				if (!(sc > att_neg_inf()))
					sc = att_neg_inf();
				float mx = sc;

#pragma unroll
				for (int o = U / 2; o > 0; o >>= 1)
					mx = hr_fmax(mx, hr_shfl_xor(mx, o, LK));
				mx = hr_fmax(mx, my_m);
				const bool live = mx > att_neg_inf();
				const float corr = live ? hr_exp(my_m - mx) : 1.f;  /* 0 on the first key */
				const float pw = sc > att_neg_inf() ? hr_exp(sc - mx) : -1.f;

				my_l = my_l * corr + (pw > 0.f ? pw : 0.f);
				my_m = mx;
#pragma unroll
				for (int g = 0; g < GH; g++) {
					const float cg = hr_shfl(corr, g * U, LK);

#pragma unroll
					for (int e = 0; e < 8; e++)
						acc[g][e] *= cg;
#pragma unroll
					for (int u = 0; u < U; u++)
						s[g][u] = hr_shfl(pw, g * U + u, LK);
				}
			} else {
#pragma unroll
				for (int o = LK / 2; o > 0; o >>= 1) {
#pragma unroll
					for (int g = 0; g < GH; g++) {
#pragma unroll
						for (int u = 0; u < U; u++)
							s[g][u] += hr_shfl_xor(s[g][u], o, LK);
					}
				}
				/* per head: logits, the running max, then s = the weight
				 * (< 0: masked or NaN, skipped as att_step does) */
#pragma unroll
				for (int g = 0; g < GH; g++) {
					float mx = m[g];

#pragma unroll
					for (int u = 0; u < U; u++) {
						const int64_t j = base + u * KR + kr;
						float sc = ok[u] ? att_logit(s[g][u], scale, softcap, slope[g],
									     j - (len - 1))
								 : att_neg_inf();

						if (!(sc > att_neg_inf()))
							sc = att_neg_inf();
						s[g][u] = sc;
						mx = hr_fmax(mx, sc);
					}
					if (!(mx > att_neg_inf())) {
#pragma unroll
						for (int u = 0; u < U; u++)
							s[g][u] = -1.f;
						continue;
					}
					const float corr = hr_exp(m[g] - mx);  /* 0 on the first key */

					l[g] *= corr;
#pragma unroll
					for (int e = 0; e < 8; e++)
						acc[g][e] *= corr;
#pragma unroll
					for (int u = 0; u < U; u++) {
						const float pu = s[g][u] > att_neg_inf() ? hr_exp(s[g][u] - mx)
											 : -1.f;

						if (pu >= 0.f)
							l[g] += pu;
						s[g][u] = pu;
					}
					m[g] = mx;
				}
			}
#pragma unroll
			for (int u = 0; u < U; u++) {
				if (!ok[u])
					continue;
				float vf[8];

#pragma unroll
				for (int e = 0; e < 8; e++)
					vf[e] = hr_to_f32(vp[u].v[e]);
#pragma unroll
				for (int g = 0; g < GH; g++) {
					if (s[g][u] < 0.f)
						continue;
#pragma unroll
					for (int e = 0; e < 8; e++)
						acc[g][e] += s[g][u] * vf[e];
				}
			}
#pragma unroll
			for (int u = 0; u < U; u++) {
				kp[u] = kn[u];
				vp[u] = vn[u];
				ok[u] = okn[u];
			}
		}
		if (RS) {
			/* every lane: head g's state from its U lanes (l summed) */
#pragma unroll
			for (int o = U / 2; o > 0; o >>= 1)
				my_l += hr_shfl_xor(my_l, o, LK);
#pragma unroll
			for (int g = 0; g < GH; g++) {
				m[g] = hr_shfl(my_m, g * U, LK);
				l[g] = hr_shfl(my_l, g * U, LK);
			}
		}
		/* Per head: merge the KR key slots' states. */
#pragma unroll
		for (int g = 0; g < GH; g++) {
			const uint64_t orow = row + g;

			if (lane == 0) {
				sm_m[kr] = m[g];
				sm_l[kr] = l[g];
			}
#pragma unroll
			for (int e = 0; e < 8; e++)
				sm_acc[kr * D + lane * 8 + e] = acc[g][e];
			__syncthreads();
			float mm = att_neg_inf(), ll = 0.f, w[KR];

#pragma unroll
			for (int k = 0; k < KR; k++)
				mm = hr_fmax(mm, sm_m[k]);
#pragma unroll
			for (int k = 0; k < KR; k++) {
				w[k] = sm_m[k] > att_neg_inf() ? hr_exp(sm_m[k] - mm) : 0.f;
				ll += sm_l[k] * w[k];
			}
			for (int d = tid; d < D; d += ATT_BLOCK) {
				float a = 0.f;

#pragma unroll
				for (int k = 0; k < KR; k++)
					a += sm_acc[k * D + d] * w[k];
				a = ll > 0.f ? a / ll : 0.f;
				if (splits == 1)
					out[orow * D + d] = hr_from_f32<T>(a);
				else
					ws[(y * rows + orow) * D + d] = a;
			}
			if (tid == 0) {
				const float lv = ll > 0.f ? mm + hr_log(ll) : att_neg_inf();

				if (splits > 1)
					ws[splits * rows * D + y * rows + orow] = lv;
				else if (lse)
					lse[orow] = lv;
			}
			__syncthreads();        /* the shared state is reused */
		}
	}
}

/*
 * The decode on the matrix units (f16/bf16, D = 64 or 128, 4 query heads
 * sharing a KV head - the fast path's head set - where the target has a
 * matrix unit: kernels/hr-matrix.h).  The 4 heads are the rows of one
 * 16 x 16 x 16 tile (rows 4-15 zero): each wave takes 16-key tiles of the
 * split's chunk in turn (tile i to wave i % waves), stages the tile's K and
 * V rows in its shared buffers (zeros for masked keys), and runs
 *   S = Q K^T           D / 16 products (Q and K from shared memory),
 *   the online softmax  the 4 x 16 logits through shared memory, SEG =
 *                       wave / 4 lanes a head (2 or 1 keys a lane),
 *   O = O corr + P V    D / 16 products (P rounded to T, as FlashAttention
 *                       does; the row sums l stay f32, so the LSE is exact
 *                       to f32 and O / l off by P's rounding only).
 * The dot products and the V update leave the vector units: the portable
 * fast path above spends about 40 wave instructions a key on them, this
 * one 2 D / 16 matrix products a 16-key tile.  On NVIDIA the next tile's
 * K and V are copied by cp.async while this one's softmax and P V run (V's
 * fragments are in registers by then, so the buffers are free); elsewhere
 * they are loaded into registers before this tile's math and stored after.
 * The waves' states merge through shared memory (the tile buffers' bytes)
 * as the fast path's key slots do.
 */
/* 2-byte storage types: the matrix paths' inputs. */
template <typename T>
struct att_is_half { static const bool value = false; };
template <> struct att_is_half<hr_f16> { static const bool value = true; };
template <> struct att_is_half<hr_bf16> { static const bool value = true; };

#if HR_MMA != HR_MMA_NONE
#define ATT_DM_NW (ATT_BLOCK / HR_MMA_WAVE)     /* waves a block */
#define ATT_DM_PAD 8                            /* shared row padding (elements) */
#define ATT_DM_SEG (HR_MMA_WAVE / 4)            /* softmax lanes a head */
#define ATT_DM_KPL (16 / ATT_DM_SEG)            /* keys a softmax lane */
/* AMD: S's products one at a time (unrolled, every slice's fragments were
 * loaded at once: 319 VGPRs at d128 on gfx90a, spills on gfx11/gfx12) */
#if HR_MMA == HR_MMA_SYNC
#define ATT_DM_QK_UNROLL _Pragma("unroll")
#else
#define ATT_DM_QK_UNROLL _Pragma("unroll 1")
#endif

template <typename T, int D>
struct att_dm_wave {
	T ks[16][D + ATT_DM_PAD];               /* the tile's keys, row-major */
	T vs[16][D + ATT_DM_PAD];               /* its values */
	T ps[16][16 + ATT_DM_PAD];              /* P: rows 0-3 the heads', 4-15 zero */
	float ss[4][17];                        /* the 4 heads' logits */
	float corr[16];                         /* each row's rescale (rows 4-15: 1) */
};

template <int D>
struct att_dm_merge {
	float m[ATT_DM_NW][4], l[ATT_DM_NW][4];
	float acc[ATT_DM_NW][4][D];
};

template <typename T, int D>
struct att_dm_smem {
	T qs[16][D + ATT_DM_PAD];               /* rows 0-3 the heads' queries, 4-15 zero */
	union {
		att_dm_wave<T, D> w[ATT_DM_NW];
		att_dm_merge<D> mg;
	} u;
};

template <typename T, int D>
HR_DEVICE void paged_decode_mma(T *out, float *lse, float *ws, const T *q, const T *key_cache,
				const T *value_cache, const int32_t *block_tables,
				const int32_t *seq_lens, const float *alibi_slopes,
				uint64_t num_seqs, uint64_t num_heads, uint64_t num_kv_heads,
				uint64_t block_size, uint64_t max_blocks_per_seq,
				uint64_t num_blocks, uint64_t q_stride, float scale, float softcap,
				int window_left, int gh, att_dm_smem<T, D> &sm)
{
	constexpr int W = HR_MMA_WAVE, NW = ATT_DM_NW, KD = D / 16, CH = D / 8;
	constexpr int CPL = 16 * CH / W;        /* 16-byte chunks of K (and of V) a lane */
	constexpr int SEG = ATT_DM_SEG, KPL = ATT_DM_KPL, LD = D + ATT_DM_PAD;
	constexpr int64_t STRIDE = 16 * NW;     /* keys between a wave's tiles */
	const uint64_t rows = num_seqs * num_heads, splits = gridDim.y, y = blockIdx.y;
	const int tid = (int)threadIdx.x, wv = tid / W, t = tid % W;
	const int hh = t / SEG, c0 = (t % SEG) * KPL;   /* the softmax lane's head and keys */
	const uint64_t group = num_heads / num_kv_heads;
	const int64_t max_len = (int64_t)(max_blocks_per_seq * block_size);
	const uint32_t bs = (uint32_t)block_size;       /* max_len < 2^31: att_dec_fast_ok */
	const T zero = hr_from_f32<T>(0.f);
	att_dm_wave<T, D> &mw = sm.u.w[wv];

	for (uint64_t row = blockIdx.x; row < rows; row += gridDim.x) {
		uint64_t h0;
		const uint64_t seq = hr_divmod(row, num_heads, &h0);

		if (h0 % (uint64_t)gh)
			continue;       /* the head set's first block does the set */
		const uint64_t kvh = h0 / group;
		int64_t len = seq_lens[seq];

		len = len < 0 ? 0 : (len > max_len ? max_len : len);
		const int64_t lo = window_left >= 0 && len - 1 - window_left > 0 ? len - 1 - window_left : 0;
		/* chunks of whole block steps (a tile a wave) */
		int64_t chunk = (len - lo + (int64_t)splits - 1) / (int64_t)splits;

		chunk = (chunk + STRIDE - 1) / STRIDE * STRIDE;
		const int64_t begin = lo + (int64_t)y * chunk;
		const int64_t end = begin + chunk < len ? begin + chunk : len;
		const int32_t *bt = block_tables + seq * max_blocks_per_seq;
		const float slope = alibi_slopes && hh < gh ? alibi_slopes[h0 + (uint64_t)hh] : 0.f;

		for (int e = tid; e < 16 * D; e += ATT_BLOCK) {
			const int i = e / D, c = e % D;

			sm.qs[i][c] = i < gh ? q[seq * q_stride + (h0 + (uint64_t)i) * D + (uint64_t)c] : zero;
		}
		for (int e = t; e < 16 * 16; e += W)
			mw.ps[e / 16][e % 16] = zero;
		for (int e = t; e < 16; e += W)
			mw.corr[e] = 1.f;
		__syncthreads();

		/* Key c (< 16) of the tile at t0: its page's index in the table
		 * and its row in the page, from one division a tile (a tile spans
		 * at most two pages when bs >= 16). */
		struct att_tpos {
			uint32_t pg0, r0;
		};
		auto tile_at = [&](int64_t t0) {
			att_tpos p;

			p.pg0 = (uint32_t)t0 / bs;
			p.r0 = (uint32_t)t0 - p.pg0 * bs;
			return p;
		};
		auto key_at = [&](const att_tpos &p, int c, uint32_t *r) -> uint32_t {
			uint32_t rr = p.r0 + (uint32_t)c, pg = p.pg0;

			if (bs >= 16) {
				if (rr >= bs) {
					rr -= bs;
					pg++;
				}
			} else {
				const uint32_t n = rr / bs;

				pg += n;
				rr -= n * bs;
			}
			*r = rr;
			return pg;
		};
		/* Chunk i of lane t (16 keys x CH 16-byte chunks a tile, lane t
		 * takes t + W i): key kb + KS i, dims 8 pc ..; a masked key reads
		 * block 0 and is zeroed (no branch around a load). */
		constexpr int KS = W / CH;
		const int kb = t / CH, pc = t % CH;
		const uint64_t page_el = (uint64_t)bs * num_kv_heads * D, row_el = num_kv_heads * D;
		const uint64_t lane_el = kvh * D + (uint64_t)pc * 8;
		auto where = [&](int64_t t0, const att_tpos &p, int i, bool *okb) -> uint64_t {
			const int c = kb + KS * i;
			uint32_t r;
			const uint32_t pg = key_at(p, c, &r);
			const bool in = t0 + c < end;
			const int64_t b = bt[in ? pg : 0u];

			*okb = in && b >= 0 && (uint64_t)b < num_blocks;
			return (uint64_t)(*okb ? b : 0) * page_el + (uint64_t)r * row_el + lane_el;
		};
		float m = att_neg_inf(), l = 0.f;       /* head hh's state; l: this lane's keys */
		hr_mma_acc o[KD];

#pragma unroll
		for (int kk = 0; kk < KD; kk++)
			hr_mma_zero(o[kk]);
		/* S = Q K^T of the tile in mw.ks, its 4 rows to mw.ss */
		auto qk = [&]() {
			hr_mma_acc s;

			hr_mma_zero(s);
			ATT_DM_QK_UNROLL
			for (int kk = 0; kk < KD; kk++) {
				hr_mma_a<T> a;
				hr_mma_b<T> b;

				hr_mma_load_a_smem(a, &sm.qs[0][kk * 16], LD);
				hr_mma_load_bt_smem(b, &mw.ks[0][kk * 16], LD);
				hr_mma_run(s, a, b);
			}
#pragma unroll
			for (int e = 0; e < HR_MMA_NC; e++) {
				const int r = hr_mma_acc_row(e);

				if (r < 4)
					mw.ss[r][hr_mma_acc_col(e)] = s.v[e];
			}
		};
		/* the online softmax of lane (hh, keys c0 ..) over tile t0: P to
		 * mw.ps, the rows' rescale to mw.corr */
		auto softmax = [&](int64_t t0) {
			const att_tpos p = tile_at(t0);
			float sc[KPL], mx = m;

#pragma unroll
			for (int u = 0; u < KPL; u++) {
				const int64_t j = t0 + c0 + u;
				uint32_t r;
				const uint32_t pg = key_at(p, c0 + u, &r);
				bool ok = j < end;

				if (ok) {
					const int64_t b = bt[pg];

					ok = b >= 0 && (uint64_t)b < num_blocks;
				}
				float v = ok ? att_logit(mw.ss[hh][c0 + u], scale, softcap, slope,
							 j - (len - 1))
					     : att_neg_inf();

				if (!(v > att_neg_inf()))
					v = att_neg_inf();      /* masked, or NaN: skipped */
				sc[u] = v;
				mx = hr_fmax(mx, v);
			}
#pragma unroll
			for (int o2 = SEG / 2; o2 > 0; o2 >>= 1)
				mx = hr_fmax(mx, hr_shfl_xor(mx, o2, SEG));
			const bool live = mx > att_neg_inf();
			const float corr = live ? hr_exp(m - mx) : 1.f;        /* 0 on the first key */

			l *= corr;
#pragma unroll
			for (int u = 0; u < KPL; u++) {
				const float p = sc[u] > att_neg_inf() ? hr_exp(sc[u] - mx) : 0.f;

				l += p;
				mw.ps[hh][c0 + u] = hr_from_f32<T>(p);
			}
			if (live)
				m = mx;
			if (t % SEG == 0)
				mw.corr[hh] = corr;
		};
		/* O = O corr + P V; vfrag(kk): V's fragment of dims 16 kk .. */
		auto pv = [&](const auto &vfrag) {
			hr_mma_a<T> pa;

			hr_mma_load_a_smem(pa, &mw.ps[0][0], 16 + ATT_DM_PAD);
			float cr[HR_MMA_NC];

#pragma unroll
			for (int e = 0; e < HR_MMA_NC; e++)
				cr[e] = mw.corr[hr_mma_acc_row(e)];
#pragma unroll
			for (int kk = 0; kk < KD; kk++) {
#pragma unroll
				for (int e = 0; e < HR_MMA_NC; e++)
					o[kk].v[e] *= cr[e];
				hr_mma_run(o[kk], pa, vfrag(kk));
			}
		};
		int64_t t0 = begin + 16 * (int64_t)wv;

#if HR_MMA == HR_MMA_SYNC
		/* The next tile's K and V are copied by cp.async once this tile's
		 * S is taken and V's fragments are in registers, during the
		 * softmax and P V.  (Two groups, K's after S and V's after P V
		 * with V read from shared memory, measured slower: 2001 / 1780
		 * against 2084 / 1848 GB/s, doc/BENCHMARKS.md.) */
		auto copy = [&](int64_t tt) {
			const att_tpos p = tile_at(tt);

#pragma unroll
			for (int i = 0; i < CPL; i++) {
				bool okb;
				const uint64_t off = where(tt, p, i, &okb);

				hr_cp_async16(&mw.ks[kb + KS * i][pc * 8], key_cache + off, okb);
				hr_cp_async16(&mw.vs[kb + KS * i][pc * 8], value_cache + off, okb);
			}
			hr_cp_async_commit();
		};
		if (t0 < end)
			copy(t0);
		for (; t0 < end; t0 += STRIDE) {        /* wave-uniform bounds */
			hr_cp_async_wait<0>();
			hr_wave_barrier();
			qk();
			hr_mma_b<T> vb[KD];

#pragma unroll
			for (int kk = 0; kk < KD; kk++)
				hr_mma_load_b_smem(vb[kk], &mw.vs[0][kk * 16], LD);
			hr_wave_barrier();              /* ks and vs read, ss written */
			if (t0 + STRIDE < end)
				copy(t0 + STRIDE);
			softmax(t0);
			hr_wave_barrier();              /* ps, corr written */
			pv([&](int kk) -> const hr_mma_b<T> & { return vb[kk]; });
			hr_wave_barrier();              /* ps and corr read */
		}
#else
		/* The next tile's K and V are loaded into registers before this
		 * tile's math and stored after it. */
		typedef hr_vecn<T, 8> V8;
		V8 kx[CPL], vx[CPL];
		auto fetch = [&](int64_t tt) {
			const att_tpos p = tile_at(tt);

#pragma unroll
			for (int i = 0; i < CPL; i++) {
				bool okb;
				const uint64_t off = where(tt, p, i, &okb);
				const V8 k8 = *(const V8 *)(key_cache + off);
				const V8 v8 = *(const V8 *)(value_cache + off);

#pragma unroll
				for (int c = 0; c < 8; c++) {
					kx[i].v[c] = okb ? k8.v[c] : zero;
					vx[i].v[c] = okb ? v8.v[c] : zero;
				}
			}
		};
		if (t0 < end)
			fetch(t0);
		for (; t0 < end; t0 += STRIDE) {        /* wave-uniform bounds */
#pragma unroll
			for (int i = 0; i < CPL; i++) {
				*(V8 *)&mw.ks[kb + KS * i][pc * 8] = kx[i];
				*(V8 *)&mw.vs[kb + KS * i][pc * 8] = vx[i];
			}
			hr_wave_barrier();
			if (t0 + STRIDE < end)
				fetch(t0 + STRIDE);
			qk();
			hr_wave_barrier();
			softmax(t0);
			hr_wave_barrier();
			pv([&](int kk) {
				hr_mma_b<T> vb;

				hr_mma_load_b_smem(vb, &mw.vs[0][kk * 16], LD);
				return vb;
			});
			hr_wave_barrier();              /* every buffer read */
		}
#endif
		for (int o2 = SEG / 2; o2 > 0; o2 >>= 1)
			l += hr_shfl_xor(l, o2, SEG);
		__syncthreads();        /* every wave's tiles done: the buffers become the merge area */
		if (t % SEG == 0) {
			sm.u.mg.m[wv][hh] = m;
			sm.u.mg.l[wv][hh] = l;
		}
#pragma unroll
		for (int kk = 0; kk < KD; kk++) {
#pragma unroll
			for (int e = 0; e < HR_MMA_NC; e++) {
				const int r = hr_mma_acc_row(e);

				if (r < 4)
					sm.u.mg.acc[wv][r][kk * 16 + hr_mma_acc_col(e)] = o[kk].v[e];
			}
		}
		__syncthreads();
		for (int e = tid; e < gh * D; e += ATT_BLOCK) {
			const int g = e / D, d = e % D;
			const uint64_t orow = row + (uint64_t)g;
			float mm = att_neg_inf(), ll = 0.f, a = 0.f;

#pragma unroll
			for (int w = 0; w < NW; w++)
				mm = hr_fmax(mm, sm.u.mg.m[w][g]);
#pragma unroll
			for (int w = 0; w < NW; w++) {
				const float wt = sm.u.mg.m[w][g] > att_neg_inf() ? hr_exp(sm.u.mg.m[w][g] - mm)
										 : 0.f;

				ll += sm.u.mg.l[w][g] * wt;
				a += sm.u.mg.acc[w][g][d] * wt;
			}
			a = ll > 0.f ? a / ll : 0.f;
			if (splits == 1)
				out[orow * D + (uint64_t)d] = hr_from_f32<T>(a);
			else
				ws[(y * rows + orow) * D + (uint64_t)d] = a;
			if (d == 0) {
				const float lv = ll > 0.f ? mm + hr_log(ll) : att_neg_inf();

				if (splits > 1)
					ws[splits * rows * D + y * rows + orow] = lv;
				else if (lse)
					lse[orow] = lv;
			}
		}
		__syncthreads();        /* the shared state is reused by the next row */
	}
}
#endif /* HR_MMA != HR_MMA_NONE */

/* The decode's shared bytes; mma: the matrix path runs for (T, D). */
template <typename T, int D>
struct att_dec_shared {
	static constexpr size_t slots = sizeof(float) * ATT_NGROUPS * (D + 2);
#if HR_MMA != HR_MMA_NONE
	static constexpr bool mma = att_is_half<T>::value && (D == 64 || D == 128);
	static constexpr size_t tiles = mma ? sizeof(att_dm_smem<T, D>) : 0;
#else
	static constexpr bool mma = false;
	static constexpr size_t tiles = 0;
#endif
	static constexpr size_t bytes = slots > tiles ? slots : tiles;
};

/*
 * Block (row, y): row = seq * num_heads + h, y < gridDim.y the split.  The
 * sequence's visible keys [lo, len) (lo from window_left) are cut into
 * gridDim.y equal chunks; the 16 groups take keys lo + g, lo + g + 16, ...
 * of the chunk, then merge their states through shared memory.  One split:
 * out and lse are final.  Several: ws gets the chunk's normalized output
 * (f32, [splits][rows][D]) and its LSE ([splits][rows], after the outputs);
 * paged_attention_combine_T merges them.
 */
template <typename T, int D>
HR_DEVICE void paged_decode(T *out, float *lse, float *ws, const T *q, const T *key_cache,
			    const T *value_cache, const int32_t *block_tables,
			    const int32_t *seq_lens, const float *alibi_slopes, uint64_t num_seqs,
			    uint64_t num_heads, uint64_t num_kv_heads, uint64_t block_size,
			    uint64_t max_blocks_per_seq, uint64_t num_blocks, uint64_t q_stride,
			    float scale, float softcap, int window_left)
{
	constexpr int PER = D / ATT_GROUP;
	/* One buffer for every form: the key slots' states of the portable and
	 * fast paths (16 x (D + 2) floats), or the matrix path's tiles. */
	alignas(16) __shared__ unsigned char att_smem[att_dec_shared<T, D>::bytes];
	float *sm_m = (float *)(void *)att_smem, *sm_l = sm_m + ATT_NGROUPS;
	float (*sm_acc)[D] = (float (*)[D])(void *)(sm_l + ATT_NGROUPS);
	const uint64_t rows = num_seqs * num_heads, splits = gridDim.y, y = blockIdx.y;
	const int tid = (int)threadIdx.x, g = tid / ATT_GROUP, lane = tid % ATT_GROUP;

	if (blockDim.x != ATT_BLOCK || num_kv_heads == 0 || num_heads % num_kv_heads ||
	    block_size == 0 || (splits > 1 && !ws))
		return;
	const uint64_t group = num_heads / num_kv_heads;
	const int64_t max_len = (int64_t)(max_blocks_per_seq * block_size);

#if HR_MMA != HR_MMA_NONE
	if constexpr (att_dec_shared<T, D>::mma) {
		if (att_dec_fast_ok<D>(sizeof(T), key_cache, value_cache, block_size,
				       max_blocks_per_seq, num_blocks)) {
			paged_decode_mma<T, D>(out, lse, ws, q, key_cache, value_cache, block_tables,
					       seq_lens, alibi_slopes, num_seqs, num_heads,
					       num_kv_heads, block_size, max_blocks_per_seq, num_blocks,
					       q_stride, scale, softcap, window_left,
					       group % 4 == 0 ? 4 : group % 2 == 0 ? 2 : 1,
					       *(att_dm_smem<T, D> *)(void *)att_smem);
			return;
		}
	}
#endif

	/* KR = 1024 / D key slots of D floats fit sm_acc (16 x D), sm_m, sm_l. */
#if ATT_DEC_FAST
	/* (the matrix path above takes these where the target has one) */
	if constexpr (!att_dec_shared<T, D>::mma) {
		if (att_dec_fast_ok<D>(sizeof(T), key_cache, value_cache, block_size,
				       max_blocks_per_seq, num_blocks)) {
			if (group % 4 == 0)
				paged_decode_fast<T, D, 4>(out, lse, ws, q, key_cache, value_cache,
							   block_tables, seq_lens, alibi_slopes,
							   num_seqs, num_heads, num_kv_heads, block_size,
							   max_blocks_per_seq, num_blocks, q_stride, scale,
							   softcap, window_left, sm_m, sm_l, &sm_acc[0][0]);
			else
				paged_decode_fast<T, D, 1>(out, lse, ws, q, key_cache, value_cache,
							   block_tables, seq_lens, alibi_slopes,
							   num_seqs, num_heads, num_kv_heads, block_size,
							   max_blocks_per_seq, num_blocks, q_stride, scale,
							   softcap, window_left, sm_m, sm_l, &sm_acc[0][0]);
			return;
		}
	}
#endif
	for (uint64_t row = blockIdx.x; row < rows; row += gridDim.x) {
		uint64_t h;
		const uint64_t seq = hr_divmod(row, num_heads, &h);
		const uint64_t kvh = h / group;
		int64_t len = seq_lens[seq];

		len = len < 0 ? 0 : (len > max_len ? max_len : len);
		const int64_t lo = window_left >= 0 && len - 1 - window_left > 0 ? len - 1 - window_left : 0;
		const int64_t chunk = (len - lo + (int64_t)splits - 1) / (int64_t)splits;
		const int64_t begin = lo + (int64_t)y * chunk;
		const int64_t end = begin + chunk < len ? begin + chunk : len;
		const int32_t *bt = block_tables + seq * max_blocks_per_seq;
		const T *qrow = q + seq * q_stride + h * D;
		const float slope = alibi_slopes ? alibi_slopes[h] : 0.f;
		float qf[PER];
		att_state<D> st;

#pragma unroll
		for (int i = 0; i < PER; i++)
			qf[i] = hr_to_f32(qrow[lane + ATT_GROUP * i]);
		att_init(st);
		for (int64_t base = begin; base < end; base += ATT_NGROUPS) {
			const int64_t j = base + g;
			bool valid = j < end;
			uint64_t off = 0;

			if (valid) {
				const int64_t b = bt[(uint64_t)j / block_size];

				valid = b >= 0 && (uint64_t)b < num_blocks;
				off = (((uint64_t)b * block_size + (uint64_t)j % block_size) *
				       num_kv_heads + kvh) * D + lane;
			}
			const float dot = att_dot<D>(qf, [&](int i) {
				return hr_to_f32(key_cache[off + ATT_GROUP * i]);
			}, valid);
			const float s = valid ? att_logit(dot, scale, softcap, slope, j - (len - 1))
					      : att_neg_inf();
			att_step(st, s, [&](int i) {
				return hr_to_f32(value_cache[off + ATT_GROUP * i]);
			});
		}

		/* Merge the 16 groups' states. */
		if (lane == 0) {
			sm_m[g] = st.m;
			sm_l[g] = st.l;
		}
#pragma unroll
		for (int i = 0; i < PER; i++)
			sm_acc[g][lane + ATT_GROUP * i] = st.acc[i];
		__syncthreads();
		float m = att_neg_inf(), w[ATT_NGROUPS], l = 0.f;

#pragma unroll
		for (int k = 0; k < ATT_NGROUPS; k++)
			m = hr_fmax(m, sm_m[k]);
#pragma unroll
		for (int k = 0; k < ATT_NGROUPS; k++) {
			w[k] = sm_m[k] > att_neg_inf() ? hr_exp(sm_m[k] - m) : 0.f;
			l += sm_l[k] * w[k];
		}
		for (int d = tid; d < D; d += ATT_BLOCK) {
			float a = 0.f;

#pragma unroll
			for (int k = 0; k < ATT_NGROUPS; k++)
				a += sm_acc[k][d] * w[k];
			a = l > 0.f ? a / l : 0.f;
			if (splits == 1)
				out[row * D + d] = hr_from_f32<T>(a);
			else
				ws[(y * rows + row) * D + d] = a;
		}
		if (tid == 0) {
			const float lv = l > 0.f ? m + hr_log(l) : att_neg_inf();

			if (splits > 1)
				ws[splits * rows * D + y * rows + row] = lv;
			else if (lse)
				lse[row] = lv;
		}
		__syncthreads();        /* the shared state is reused by the next row */
	}
}

/*
 * Merges the splits of paged_decode (and any partial results in that
 * layout: cascade attention): element (row, d) of out from the splits'
 * normalized outputs weighted by exp(lse_s - max); lse[row] (may be NULL)
 * = log of the summed exponentials.  A row with no key anywhere: 0, -inf.
 */
template <typename T>
HR_DEVICE void attention_combine(T *out, float *lse, const float *ws, uint64_t rows,
				 uint64_t head_dim, uint64_t splits)
{
	if (head_dim == 0 || splits == 0 || !ws)
		return;
	const float *plse = ws + splits * rows * head_dim;

	HR_GRID_STRIDE_LOOP(e, rows * head_dim) {
		uint64_t d;
		const uint64_t row = hr_divmod(e, head_dim, &d);
		float m = att_neg_inf(), l = 0.f, a = 0.f;

		for (uint64_t s = 0; s < splits; s++)
			m = hr_fmax(m, plse[s * rows + row]);
		if (m > att_neg_inf()) {
			for (uint64_t s = 0; s < splits; s++) {
				const float ls = plse[s * rows + row];

				if (ls > att_neg_inf()) {
					const float w = hr_exp(ls - m);

					l += w;
					a += w * ws[(s * rows + row) * head_dim + d];
				}
			}
		}
		out[e] = hr_from_f32<T>(l > 0.f ? a / l : 0.f);
		if (d == 0 && lse)
			lse[row] = l > 0.f ? m + hr_log(l) : att_neg_inf();
	}
}

/* ------------------------------------------------------------------ */
/* Varlen prefill                                                       */
/* ------------------------------------------------------------------ */
/*
 * Block r: tile qt of ceil(max_seqlen_q / 16) of head h of sequence b
 * (r = (b * num_heads + h) * tiles + qt); group g is query row qt*16 + g.
 * K/V tiles of 16 keys are staged in shared memory (as T) by the whole
 * block, from the first key any row of the tile sees to the last.
 */
template <typename T, int D>
HR_DEVICE void flash_varlen(T *out, float *lse, const T *q, const T *k, const T *v,
			    const int32_t *cu_seqlens_q, const int32_t *cu_seqlens_k,
			    const float *alibi_slopes, uint64_t batch, uint64_t num_heads,
			    uint64_t num_kv_heads, uint64_t max_seqlen_q, uint64_t q_stride,
			    uint64_t k_stride, uint64_t v_stride, uint64_t o_stride, float scale,
			    float softcap, int causal, int window_left, int window_right)
{
	constexpr int PER = D / ATT_GROUP;
	__shared__ T ks[ATT_BN][D];
	__shared__ T vs[ATT_BN][D];
	const int tid = (int)threadIdx.x, g = tid / ATT_GROUP, lane = tid % ATT_GROUP;
	const uint64_t tiles = (max_seqlen_q + ATT_NGROUPS - 1) / ATT_NGROUPS;

	if (blockDim.x != ATT_BLOCK || num_kv_heads == 0 || num_heads % num_kv_heads || tiles == 0)
		return;
	const uint64_t group = num_heads / num_kv_heads, nblk = batch * num_heads * tiles;
	const int64_t right = causal ? 0 : window_right;

	for (uint64_t r = blockIdx.x; r < nblk; r += gridDim.x) {
		uint64_t qt, h;
		const uint64_t bh = hr_divmod(r, tiles, &qt);
		const uint64_t b = hr_divmod(bh, num_heads, &h);
		const uint64_t kvh = h / group;
		const int64_t q0 = cu_seqlens_q[b], k0 = cu_seqlens_k[b];
		int64_t lq = cu_seqlens_q[b + 1] - q0, lk = cu_seqlens_k[b + 1] - k0;

		lq = lq < 0 ? 0 : lq;
		lk = lk < 0 ? 0 : lk;
		if ((int64_t)(qt * ATT_NGROUPS) >= lq)
			continue;               /* block-uniform */
		const int64_t i = (int64_t)qt * ATT_NGROUPS + g;
		const bool active = i < lq;
		const int64_t first = (int64_t)qt * ATT_NGROUPS;
		const int64_t last = first + ATT_NGROUPS - 1 < lq - 1 ? first + ATT_NGROUPS - 1 : lq - 1;
		/* Row i sees [jlo(i), jhi(i)]; both grow with i. */
		const int64_t shift = lk - lq;
		int64_t tlo = window_left >= 0 ? first + shift - window_left : 0;
		int64_t thi = right >= 0 ? last + shift + right : lk - 1;
		int64_t jlo = window_left >= 0 ? i + shift - window_left : 0;
		int64_t jhi = right >= 0 ? i + shift + right : lk - 1;

		tlo = tlo < 0 ? 0 : tlo;
		thi = thi > lk - 1 ? lk - 1 : thi;
		jlo = jlo < 0 ? 0 : jlo;
		jhi = jhi > lk - 1 ? lk - 1 : jhi;
		const float slope = alibi_slopes ? alibi_slopes[h] : 0.f;
		float qf[PER];
		att_state<D> st;

		if (active) {
			const T *qrow = q + (uint64_t)(q0 + i) * q_stride + h * D;

#pragma unroll
			for (int c = 0; c < PER; c++)
				qf[c] = hr_to_f32(qrow[lane + ATT_GROUP * c]);
		} else {
#pragma unroll
			for (int c = 0; c < PER; c++)
				qf[c] = 0.f;
		}
		att_init(st);
		for (int64_t t0 = tlo; t0 <= thi; t0 += ATT_BN) {
			__syncthreads();        /* the previous tile is consumed */
			for (int e = tid; e < ATT_BN * D; e += ATT_BLOCK) {
				const int jj = e / D, dd = e % D;
				const int64_t j = t0 + jj;

				if (j <= thi) {
					ks[jj][dd] = k[(uint64_t)(k0 + j) * k_stride + kvh * D + dd];
					vs[jj][dd] = v[(uint64_t)(k0 + j) * v_stride + kvh * D + dd];
				}
			}
			__syncthreads();
			for (int jj = 0; jj < ATT_BN; jj++) {
				const int64_t j = t0 + jj;
				const bool valid = active && j >= jlo && j <= jhi;
				const float dot = att_dot<D>(qf, [&](int c) {
					return hr_to_f32(ks[jj][lane + ATT_GROUP * c]);
				}, valid);
				const float s = valid ? att_logit(dot, scale, softcap, slope, j - (i + shift))
						      : att_neg_inf();
				att_step(st, s, [&](int c) {
					return hr_to_f32(vs[jj][lane + ATT_GROUP * c]);
				});
			}
		}
		if (active) {
			T *orow = out + (uint64_t)(q0 + i) * o_stride + h * D;
			const float inv = st.l > 0.f ? 1.f / st.l : 0.f;

#pragma unroll
			for (int c = 0; c < PER; c++)
				orow[lane + ATT_GROUP * c] = hr_from_f32<T>(st.acc[c] * inv);
			if (lane == 0 && lse)
				lse[(uint64_t)(q0 + i) * num_heads + h] =
					st.l > 0.f ? st.m + hr_log(st.l) : att_neg_inf();
		}
		__syncthreads();        /* the tiles are reused by the next block row */
	}
}

#if HR_MMA != HR_MMA_NONE && HR_MMA != HR_MMA_SYNC
/* ------------------------------------------------------------------ */
/* Varlen prefill on the AMD matrix units (hr-matrix.h)                 */
/* ------------------------------------------------------------------ */
/*
 * MFMA and WMMA (and the host backend's emulation of them; NVIDIA has
 * flash_varlen_sync below).  f16/bf16 and head dims up to 128 (the operands
 * fit in registers; d256 keeps the portable kernel).  Same arguments, masks
 * and results as flash_varlen; the launch (one block of 128 per 16 query
 * rows) gives more blocks than needed: a block takes ATT_MBM = 16 rows a
 * wave, the extra blocks find no tile and return.  Per key tile of ATT_MBN keys, staged in
 * shared memory by the block (K as ks[key][d], V transposed as vt[d][key],
 * zeros past the range so that a zero probability never meets garbage):
 *   S = Q K^T on the matrix unit (Q's fragments stay in registers);
 *   the logits (scale, softcap, ALiBi, masks) go to the wave's sw, where
 *   each row's lanes run the online softmax; P (as T) to pw, the rescale
 *   factor to cw;
 *   O = O * corr + P V on the matrix unit, O in accumulator registers.
 * l sums the unrounded probabilities (as FlashAttention-2 does).
 */
#define ATT_MW HR_MMA_WAVE
#define ATT_NW (ATT_BLOCK / ATT_MW)             /* waves a block: 2 or 4 */
#define ATT_MBM (16 * ATT_NW)                   /* query rows a block */
/*
 * gfx11's A operand is 16 elements a lane (8 VGPRs): Q's fragments in
 * registers spilled at D >= 80 (256 VGPRs), so the WMMA paths keep Q in
 * shared memory (ATT_QSMEM) and take 16-key tiles to stay in the LDS bytes
 * the .list declares.
 */
#if HR_MMA == HR_MMA_WMMA11 || HR_MMA == HR_MMA_WMMA12
#define ATT_QSMEM 1
#define ATT_MBN 16                              /* keys a tile */
#else
#define ATT_QSMEM 0
#define ATT_MBN 32
#endif
#define ATT_MPAD 8                              /* shared row padding (elements) */

/*
 * Keys t0 .. t0 + ATT_MBN - 1 of kv head kvh (zeros past thi) handed to
 * put(key, dim, 8 elements) by the block: 16-byte loads when every row is
 * 16-byte aligned (vec), else element by element.
 */
template <typename T, int D, bool KEYS_FAST, typename F>
HR_DEVICE void att_stage(const T *src, uint64_t stride, bool vec, int64_t k0, uint64_t kvh,
			 int64_t t0, int64_t thi, int tid, const F &put)
{
	const T zero = hr_from_f32<T>(0.f);

	for (int e = tid; e < ATT_MBN * D / 8; e += ATT_BLOCK) {
		/* KEYS_FAST: neighbouring lanes take neighbouring keys, so that
		 * the transposed store vt[d][key] hits distinct banks (dims
		 * fastest put 16 lanes 8 rows apart: one bank, 16-way). */
		const int jj = KEYS_FAST ? e % ATT_MBN : e / (D / 8);
		const int dd = (KEYS_FAST ? e / ATT_MBN : e % (D / 8)) * 8;
		const int64_t j = t0 + jj;
		hr_vecn<T, 8> x;

		if (j <= thi) {
			const T *row = src + (uint64_t)(k0 + j) * stride + kvh * D + dd;

			if (vec) {
				x = *(const hr_vecn<T, 8> *)row;
			} else {
#pragma unroll
				for (int c = 0; c < 8; c++)
					x.v[c] = row[c];
			}
		} else {
#pragma unroll
			for (int c = 0; c < 8; c++)
				x.v[c] = zero;
		}
		put(jj, dd, x);
	}
}

/*
 * x as a value the compiler cannot see through, on the WMMA targets: a
 * division by it stays in the block-row loop, in scalar registers, instead
 * of its reciprocal setup being hoisted into VGPRs that live through the
 * whole kernel (gfx1100 d128 bf16 spilled 4 of them with sid's clang 21).
 * Not on MFMA: there the SGPRs are the scarcer file (gfx942 spilled SGPRs).
 */
HR_DEVICE uint64_t att_opaque(uint64_t x)
{
#if defined(HR_HIP) && defined(__HIP_DEVICE_COMPILE__) && \
	(HR_MMA == HR_MMA_WMMA11 || HR_MMA == HR_MMA_WMMA12)
	asm volatile("" : "+s"(x));
#endif
	return x;
}

/*
 * The masks of one key tile (keys t0 ..) for one wave's 16 rows (wfirst ..),
 * tile-relative and in 32 bits, so that the per-element test holds no 64-bit
 * values (per-lane 64-bit bounds hoisted out of the tile loop cost dozens of
 * VGPRs on gfx11): element (row, col) is seen when row < rlim, col <= clim
 * and lo <= col - row <= hi; its key minus its diagonal is col - row - base.
 * The bounds are clamped to +-2^30, far outside col - row's range.
 */
struct att_tile_mask {
	int rlim, clim, lo, hi;
	int64_t base;
};

HR_DEVICE int att_clamp30(int64_t x)
{
	return x < -(1 << 30) ? -(1 << 30) : x > (1 << 30) ? (1 << 30) : (int)x;
}

HR_DEVICE att_tile_mask att_mask_at(int64_t wfirst, int64_t lq, int64_t t0, int64_t thi,
				    int64_t shift, int window_left, int64_t right)
{
	att_tile_mask mk;

	mk.base = wfirst + shift - t0;          /* row 0's diagonal key - t0 */
	mk.rlim = att_clamp30(lq - wfirst);
	mk.clim = att_clamp30(thi - t0);
	mk.lo = window_left >= 0 ? att_clamp30(mk.base - window_left) : -(1 << 30);
	mk.hi = right >= 0 ? att_clamp30(mk.base + right) : 1 << 30;
	return mk;
}

template <typename T, int D>
HR_DEVICE void flash_varlen_mma(T *out, float *lse, const T *q, const T *k, const T *v,
				const int32_t *cu_seqlens_q, const int32_t *cu_seqlens_k,
				const float *alibi_slopes, uint64_t batch, uint64_t num_heads,
				uint64_t num_kv_heads, uint64_t max_seqlen_q, uint64_t q_stride,
				uint64_t k_stride, uint64_t v_stride, uint64_t o_stride, float scale,
				float softcap, int causal, int window_left, int window_right)
{
	constexpr int KD = D / 16;                      /* 16-wide slices of the head */
	constexpr int KN = ATT_MBN / 16;                /* 16-key slices of a tile */
	constexpr int NP = ATT_MW / 16;                 /* lanes a softmax row */
	constexpr int CPL = ATT_MBN / NP;               /* keys a softmax lane */
	alignas(16) __shared__ T ks[ATT_MBN][D + ATT_MPAD];
	alignas(16) __shared__ T vt[D][ATT_MBN + ATT_MPAD];
#if ATT_QSMEM
	alignas(16) __shared__ T qs[ATT_MBM][D + ATT_MPAD];
#endif
	__shared__ float sw[ATT_NW][16][ATT_MBN + 1];
	alignas(16) __shared__ T pw[ATT_NW][16][ATT_MBN + ATT_MPAD];
	__shared__ float cw[ATT_NW][16];
	const int tid = (int)threadIdx.x, wv = tid / ATT_MW, t = tid % ATT_MW;
	const int srow = t % 16, part = t / 16;
	const uint64_t tiles = (max_seqlen_q + ATT_MBM - 1) / ATT_MBM;
	const T zero = hr_from_f32<T>(0.f);

	if (blockDim.x != ATT_BLOCK || num_kv_heads == 0 || num_heads % num_kv_heads || tiles == 0)
		return;
	const uint64_t group = num_heads / num_kv_heads, nblk = batch * num_heads * tiles;
	const int64_t right = causal ? 0 : window_right;
	/* Every K/V row starts 16-byte aligned (D is a multiple of 8). */
	const bool kvec = hr_aligned_to(k, 16) && k_stride % 8 == 0;
	const bool vvec = hr_aligned_to(v, 16) && v_stride % 8 == 0;

	for (uint64_t r = blockIdx.x; r < nblk; r += gridDim.x) {
		uint64_t qt, h;
		const uint64_t bh = hr_divmod(r, att_opaque(tiles), &qt);
		const uint64_t b = hr_divmod(bh, att_opaque(num_heads), &h);
		const uint64_t kvh = h / att_opaque(group);
		const int64_t q0 = cu_seqlens_q[b], k0 = cu_seqlens_k[b];
		int64_t lq = cu_seqlens_q[b + 1] - q0, lk = cu_seqlens_k[b + 1] - k0;

		lq = lq < 0 ? 0 : lq;
		lk = lk < 0 ? 0 : lk;
		if ((int64_t)(qt * ATT_MBM) >= lq)
			continue;               /* block-uniform */
		const int64_t first = (int64_t)qt * ATT_MBM;
		const int64_t last = first + ATT_MBM - 1 < lq - 1 ? first + ATT_MBM - 1 : lq - 1;
		const int64_t shift = lk - lq, wfirst = first + 16 * wv;
		int64_t tlo = window_left >= 0 ? first + shift - window_left : 0;
		int64_t thi = right >= 0 ? last + shift + right : lk - 1;

		tlo = tlo < 0 ? 0 : tlo;
		thi = thi > lk - 1 ? lk - 1 : thi;
		const float slope = alibi_slopes ? alibi_slopes[h] : 0.f;
#if ATT_QSMEM
		hr_mma_a<T> qa[1];
#else
		hr_mma_a<T> qa[KD];
#endif
		hr_mma_acc o[KD];
		float m = att_neg_inf(), l = 0.f;

#if ATT_QSMEM
		/* The wave's 16 rows of Q (zeros past lq); only this wave reads them. */
		for (int e = t; e < 16 * D; e += ATT_MW) {
			const int i = e / D, c = e % D;
			const int64_t qi = wfirst + i;

			qs[16 * wv + i][c] = qi < lq ? q[(uint64_t)(q0 + qi) * q_stride + h * D + c] : zero;
		}
		(void)qa;
#endif
#pragma unroll
		for (int kk = 0; kk < KD; kk++) {
#if !ATT_QSMEM
			hr_mma_load_a(qa[kk], [&](int i, int c) {
				const int64_t qi = wfirst + i;

				return qi < lq ? q[(uint64_t)(q0 + qi) * q_stride + h * D + kk * 16 + c]
					       : zero;
			});
#endif
			hr_mma_zero(o[kk]);
		}
		for (int64_t t0 = tlo; t0 <= thi; t0 += ATT_MBN) {
			const att_tile_mask mk = att_mask_at(wfirst, lq, t0, thi, shift, window_left,
							     right);

			__syncthreads();        /* the previous tile is consumed */
			att_stage<T, D, false>(k, k_stride, kvec, k0, kvh, t0, thi, tid,
					[&](int jj, int dd, const hr_vecn<T, 8> &x) {
				*(hr_vecn<T, 8> *)&ks[jj][dd] = x;
			});
			att_stage<T, D, true>(v, v_stride, vvec, k0, kvh, t0, thi, tid,
					[&](int jj, int dd, const hr_vecn<T, 8> &x) {
#pragma unroll
				for (int c = 0; c < 8; c++)
					vt[dd + c][jj] = x.v[c];
			});
			__syncthreads();

			/* S = Q K^T; logits and masks into sw. */
#pragma unroll
			for (int n = 0; n < KN; n++) {
				hr_mma_acc s;

				hr_mma_zero(s);
				/* Rolled on WMMA: unrolled, the hoisted Q and K fragments
				 * (8 VGPRs each on gfx11) raise the VGPR count. */
#if ATT_QSMEM
#pragma unroll 1
#else
#pragma unroll
#endif
				for (int kk = 0; kk < KD; kk++) {
					hr_mma_b<T> kb;

					hr_mma_load_bt_smem(kb, &ks[n * 16][kk * 16], D + ATT_MPAD);
#if ATT_QSMEM
					hr_mma_a<T> qk;

					hr_mma_load_a_smem(qk, &qs[16 * wv][kk * 16], D + ATT_MPAD);
					hr_mma_run(s, qk, kb);
#else
					hr_mma_run(s, qa[kk], kb);
#endif
				}
#pragma unroll
				for (int e = 0; e < HR_MMA_NC; e++) {
					const int row = hr_mma_acc_row(e), col = n * 16 + hr_mma_acc_col(e);
					const int dc = col - row;
					const bool valid = row < mk.rlim && col <= mk.clim &&
							   dc >= mk.lo && dc <= mk.hi;

					sw[wv][row][col] = valid ? att_logit(s.v[e], scale, softcap, slope,
									     dc - mk.base)
								 : att_neg_inf();
				}
			}
			hr_wave_barrier();

			/* Online softmax: lane t has row t % 16, keys part * CPL + c. */
			float mx = att_neg_inf(), psum = 0.f;

#pragma unroll
			for (int c = 0; c < CPL; c++) {
				const float x = sw[wv][srow][part * CPL + c];

				mx = x > mx ? x : mx;   /* NaN (masked alike) never wins */
			}
#pragma unroll
			for (int x = 16; x < ATT_MW; x <<= 1)
				mx = hr_fmax(mx, hr_shfl_xor(mx, x, ATT_MW));
			const float mn = hr_fmax(m, mx);
			const float corr = mn > att_neg_inf() ? hr_exp(m - mn) : 1.f;

#pragma unroll
			for (int c = 0; c < CPL; c++) {
				const float x = sw[wv][srow][part * CPL + c];
				const float p = x > att_neg_inf() ? hr_exp(x - mn) : 0.f;

				pw[wv][srow][part * CPL + c] = hr_from_f32<T>(p);
				psum += p;
			}
#pragma unroll
			for (int x = 16; x < ATT_MW; x <<= 1)
				psum += hr_shfl_xor(psum, x, ATT_MW);
			l = l * corr + psum;
			m = mn;
			if (part == 0)
				cw[wv][srow] = corr;
			hr_wave_barrier();

			/* O = O * corr + P V. */
#pragma unroll
			for (int e = 0; e < HR_MMA_NC; e++) {
				const float c = cw[wv][hr_mma_acc_row(e)];

#pragma unroll
				for (int dn = 0; dn < KD; dn++)
					o[dn].v[e] *= c;
			}
#pragma unroll
			for (int kc = 0; kc < KN; kc++) {
				hr_mma_a<T> pa;

				hr_mma_load_a_smem(pa, &pw[wv][0][kc * 16], ATT_MBN + ATT_MPAD);
#pragma unroll
				for (int dn = 0; dn < KD; dn++) {
					hr_mma_b<T> vb;

					hr_mma_load_bt_smem(vb, &vt[dn * 16][kc * 16], ATT_MBN + ATT_MPAD);
					hr_mma_run(o[dn], pa, vb);
				}
			}
		}

		/* out = O / l (0 for a row without keys), lse = m + log l. */
		hr_wave_barrier();      /* every lane has read cw */
		if (part == 0)
			cw[wv][srow] = l > 0.f ? 1.f / l : 0.f;
		hr_wave_barrier();
#pragma unroll
		for (int e = 0; e < HR_MMA_NC; e++) {
			const int row = hr_mma_acc_row(e);
			const int64_t i = wfirst + row;

			if (i < lq) {
				T *orow = out + (uint64_t)(q0 + i) * o_stride + h * D;
				const float inv = cw[wv][row];

#pragma unroll
				for (int dn = 0; dn < KD; dn++)
					orow[dn * 16 + hr_mma_acc_col(e)] = hr_from_f32<T>(o[dn].v[e] * inv);
			}
		}
		if (part == 0 && wfirst + srow < lq && lse)
			lse[(uint64_t)(q0 + wfirst + srow) * num_heads + h] =
				l > 0.f ? m + hr_log(l) : att_neg_inf();
		__syncthreads();        /* the tiles are reused by the next block row */
	}
}
#endif /* HR_MMA != HR_MMA_NONE && HR_MMA != HR_MMA_SYNC */

#if HR_MMA == HR_MMA_SYNC
/* ------------------------------------------------------------------ */
/* Varlen prefill on NVIDIA sm_80+ (mma.sync, cp.async, ldmatrix)       */
/* ------------------------------------------------------------------ */
/*
 * The FlashAttention-2 schedule (same arguments, masks and results as
 * flash_varlen): a block of 4 warps takes ATT_SBM = 64 query rows (16 a
 * warp, Q's fragments in registers), key tiles of ATT_SBN = 64 keys, K and V
 * tiles [key][d] in shared memory filled by cp.async (zeros past the range)
 * so that the loads overlap the products: V(t) is in flight during S = Q
 * K(t)^T and the softmax, K(t + 1) during O += P V(t).  S stays in
 * accumulator registers, which are P's A operand as they are (m16n8k16's
 * accumulator layout is its A layout: lane t has rows t / 4 and t / 4 + 8,
 * a row's other lanes are t ^ 1 and t ^ 2); V is read with ldmatrix.trans.
 * Logits are kept in base 2 (scale * log2 e folded into one multiply, exp2);
 * the masks are evaluated only on the tiles that cut a warp's rows (window
 * edges, the end of the range) or when softcap / ALiBi are on.  Blocks take
 * their row tiles last first (block r: tile tiles - 1 - r / (batch * heads)),
 * so that the longest causal rows start first; the launch's extra blocks
 * (one a 16 rows) return at once.
 */
#define ATT_SBM 64                              /* query rows a block */
#define ATT_SBN 64                              /* keys a tile */
#define ATT_SPAD 8                              /* shared row padding (elements) */

/* Keys t0 .. t0 + ATT_SBN - 1 of kv head kvh into dst (zeros past thi). */
template <typename T, int D>
HR_DEVICE void att_sync_stage(T (*dst)[D + ATT_SPAD], const T *src, uint64_t stride, bool vec,
			      int64_t k0, uint64_t kvh, int64_t t0, int64_t thi, int tid)
{
	const T zero = hr_from_f32<T>(0.f);

#pragma unroll
	for (int e = tid; e < ATT_SBN * D / 8; e += ATT_BLOCK) {
		const int jj = e / (D / 8), dd = e % (D / 8) * 8;
		const int64_t j = t0 + jj;
		const bool in = j <= thi;
		const T *row = src + (uint64_t)(k0 + (in ? j : t0)) * stride + kvh * D + dd;

		if (vec) {
			hr_cp_async16(&dst[jj][dd], row, in);
		} else {
			hr_vecn<T, 8> x;

#pragma unroll
			for (int c = 0; c < 8; c++)
				x.v[c] = in ? row[c] : zero;
			*(hr_vecn<T, 8> *)&dst[jj][dd] = x;
		}
	}
	hr_cp_async_commit();
}

template <typename T, int D>
HR_DEVICE void flash_varlen_sync(T *out, float *lse, const T *q, const T *k, const T *v,
				 const int32_t *cu_seqlens_q, const int32_t *cu_seqlens_k,
				 const float *alibi_slopes, uint64_t batch, uint64_t num_heads,
				 uint64_t num_kv_heads, uint64_t max_seqlen_q, uint64_t q_stride,
				 uint64_t k_stride, uint64_t v_stride, uint64_t o_stride, float scale,
				 float softcap, int causal, int window_left, int window_right)
{
	constexpr int KD = D / 16;                      /* 16-wide slices of the head */
	constexpr int KN = ATT_SBN / 16;                /* 16-key slices of a tile */
	constexpr float LOG2E = 1.44269504088896341f, LN2 = 0.693147180559945309f;
	alignas(16) __shared__ T ks[ATT_SBN][D + ATT_SPAD];
	alignas(16) __shared__ T vs[ATT_SBN][D + ATT_SPAD];
	const int tid = (int)threadIdx.x, wv = tid / 32, t = tid % 32;
	const uint64_t tiles = (max_seqlen_q + ATT_SBM - 1) / ATT_SBM;
	const T zero = hr_from_f32<T>(0.f);

	if (blockDim.x != ATT_BLOCK || num_kv_heads == 0 || num_heads % num_kv_heads || tiles == 0)
		return;
	const uint64_t group = num_heads / num_kv_heads, rows = batch * num_heads;
	const uint64_t nblk = rows * tiles;
	const int64_t right = causal ? 0 : window_right;
	/* cp.async needs every K/V row 16-byte aligned (D is a multiple of 8). */
	const bool kvec = hr_aligned_to(k, 16) && k_stride % 8 == 0;
	const bool vvec = hr_aligned_to(v, 16) && v_stride % 8 == 0;
	const float sc = scale * LOG2E;

	for (uint64_t r = blockIdx.x; r < nblk; r += gridDim.x) {
		uint64_t h;
		const uint64_t qt = tiles - 1 - r / rows;
		const uint64_t b = hr_divmod(r % rows, num_heads, &h);
		const uint64_t kvh = h / group;
		const int64_t q0 = cu_seqlens_q[b], k0 = cu_seqlens_k[b];
		int64_t lq = cu_seqlens_q[b + 1] - q0, lk = cu_seqlens_k[b + 1] - k0;

		lq = lq < 0 ? 0 : lq;
		lk = lk < 0 ? 0 : lk;
		if ((int64_t)(qt * ATT_SBM) >= lq)
			continue;               /* block-uniform */
		const int64_t first = (int64_t)qt * ATT_SBM;
		const int64_t last = first + ATT_SBM - 1 < lq - 1 ? first + ATT_SBM - 1 : lq - 1;
		const int64_t shift = lk - lq, wfirst = first + 16 * wv;
		int64_t tlo = window_left >= 0 ? first + shift - window_left : 0;
		int64_t thi = right >= 0 ? last + shift + right : lk - 1;

		tlo = tlo < 0 ? 0 : tlo;
		thi = thi > lk - 1 ? lk - 1 : thi;
		const float slope = alibi_slopes ? alibi_slopes[h] : 0.f;
		const bool plain = !(softcap > 0.f) && slope == 0.f;
		hr_mma_a<T> qa[KD];
		hr_mma_acc o[KD];
		/* Row state of rows t / 4 and t / 4 + 8 (base 2; l: this lane's part). */
		float mr[2] = { att_neg_inf(), att_neg_inf() }, lr[2] = { 0.f, 0.f };

		if (tlo <= thi)
			att_sync_stage<T, D>(ks, k, k_stride, kvec, k0, kvh, tlo, thi, tid);
#pragma unroll
		for (int kk = 0; kk < KD; kk++) {
			hr_mma_load_a(qa[kk], [&](int i, int c) {
				const int64_t qi = wfirst + i;

				return qi < lq ? q[(uint64_t)(q0 + qi) * q_stride + h * D + kk * 16 + c]
					       : zero;
			});
			hr_mma_zero(o[kk]);
		}
		for (int64_t t0 = tlo; t0 <= thi; t0 += ATT_SBN) {
			hr_cp_async_wait<0>();
			__syncthreads();        /* K(t0) is in; V(t0 - 1) is consumed */
			att_sync_stage<T, D>(vs, v, v_stride, vvec, k0, kvh, t0, thi, tid);

			hr_mma_acc s[KN];
			float mx[2] = { att_neg_inf(), att_neg_inf() }, mu[2], corr[2];

#pragma unroll
			for (int n = 0; n < KN; n++) {
				hr_mma_zero(s[n]);
#pragma unroll
				for (int kk = 0; kk < KD; kk++) {
					hr_mma_b<T> kb;

					hr_mma_load_bt_smem(kb, &ks[n * 16][kk * 16], D + ATT_SPAD);
					hr_mma_run(s[n], qa[kk], kb);
				}
			}
			/* Does any mask cut this warp's rows in this tile? (warp-uniform) */
			const int64_t tend = t0 + ATT_SBN - 1;
			const bool cut = !plain || tend > thi ||
				(right >= 0 && tend > wfirst + shift + right) ||
				(window_left >= 0 && t0 < wfirst + 15 + shift - window_left);

			if (cut) {
#pragma unroll
				for (int n = 0; n < KN; n++) {
#pragma unroll
					for (int e = 0; e < HR_MMA_NC; e++) {
						const int row = hr_mma_acc_row(e);
						const int64_t i = wfirst + row, diag = i + shift;
						const int64_t j = t0 + n * 16 + hr_mma_acc_col(e);
						const bool valid = i < lq && j <= thi &&
							(window_left < 0 || j >= diag - window_left) &&
							(right < 0 || j <= diag + right);

						s[n].v[e] = valid ? LOG2E * att_logit(s[n].v[e], scale, softcap,
										      slope, j - diag)
								  : att_neg_inf();
					}
				}
			} else {
#pragma unroll
				for (int n = 0; n < KN; n++) {
#pragma unroll
					for (int e = 0; e < HR_MMA_NC; e++)
						s[n].v[e] *= sc;
				}
			}
#pragma unroll
			for (int n = 0; n < KN; n++) {
#pragma unroll
				for (int e = 0; e < HR_MMA_NC; e++)
					mx[e % 4 / 2] = hr_fmax(mx[e % 4 / 2], s[n].v[e]);
			}
#pragma unroll
			for (int hf = 0; hf < 2; hf++) {
				mx[hf] = hr_fmax(mx[hf], hr_shfl_xor(mx[hf], 1, 32));
				mx[hf] = hr_fmax(mx[hf], hr_shfl_xor(mx[hf], 2, 32));
				const float mn = hr_fmax(mr[hf], mx[hf]);

				/* A row with no key yet: exp2(-inf - 0) = 0 below. */
				mu[hf] = mn > att_neg_inf() ? mn : 0.f;
				corr[hf] = exp2f(mr[hf] - mu[hf]);
				lr[hf] *= corr[hf];
				mr[hf] = mn;
			}
#pragma unroll
			for (int dn = 0; dn < KD; dn++) {
#pragma unroll
				for (int e = 0; e < HR_MMA_NC; e++)
					o[dn].v[e] *= corr[e % 4 / 2];
			}

			hr_cp_async_wait<0>();
			__syncthreads();        /* V(t0) is in; K(t0) is consumed */
			if (t0 + ATT_SBN <= thi)
				att_sync_stage<T, D>(ks, k, k_stride, kvec, k0, kvh, t0 + ATT_SBN, thi,
						     tid);
#pragma unroll
			for (int kc = 0; kc < KN; kc++) {
				hr_mma_a<T> pa;

#pragma unroll
				for (int e = 0; e < HR_MMA_NC; e++) {
					const float x = s[kc].v[e];
					/* masked (-inf) and NaN logits weigh 0 */
					const float p = x > att_neg_inf() ? exp2f(x - mu[e % 4 / 2]) : 0.f;

					pa.v[e] = hr_from_f32<T>(p).bits;
					lr[e % 4 / 2] += p;
				}
#pragma unroll
				for (int dn = 0; dn < KD; dn++) {
					hr_mma_b<T> vb;

					hr_mma_load_b_smem(vb, &vs[kc * 16][dn * 16], D + ATT_SPAD);
					hr_mma_run(o[dn], pa, vb);
				}
			}
		}

		/* out = O / l (0 for a row without keys), lse = m + log l. */
#pragma unroll
		for (int hf = 0; hf < 2; hf++) {
			lr[hf] += hr_shfl_xor(lr[hf], 1, 32);
			lr[hf] += hr_shfl_xor(lr[hf], 2, 32);
		}
#pragma unroll
		for (int e = 0; e < HR_MMA_NC; e++) {
			const int64_t i = wfirst + hr_mma_acc_row(e);

			if (i < lq) {
				T *orow = out + (uint64_t)(q0 + i) * o_stride + h * D;
				const float inv = lr[e % 4 / 2] > 0.f ? 1.f / lr[e % 4 / 2] : 0.f;

#pragma unroll
				for (int dn = 0; dn < KD; dn++)
					orow[dn * 16 + hr_mma_acc_col(e)] = hr_from_f32<T>(o[dn].v[e] * inv);
			}
		}
#pragma unroll
		for (int hf = 0; hf < 2; hf++) {
			const int64_t i = wfirst + t / 4 + 8 * hf;

			if (t % 4 == 0 && i < lq && lse)
				lse[(uint64_t)(q0 + i) * num_heads + h] =
					lr[hf] > 0.f ? mr[hf] * LN2 + hr_log(lr[hf]) : att_neg_inf();
		}
		__syncthreads();        /* the tiles are reused by the next block row */
	}
}
#endif /* HR_MMA == HR_MMA_SYNC */

/* The matrix path where the target has one, for f16/bf16 and D <= 128. */

template <typename T, int D>
HR_DEVICE void flash_varlen_any(T *out, float *lse, const T *q, const T *k, const T *v,
				const int32_t *cu_seqlens_q, const int32_t *cu_seqlens_k,
				const float *alibi_slopes, uint64_t batch, uint64_t num_heads,
				uint64_t num_kv_heads, uint64_t max_seqlen_q, uint64_t q_stride,
				uint64_t k_stride, uint64_t v_stride, uint64_t o_stride, float scale,
				float softcap, int causal, int window_left, int window_right)
{
#if HR_MMA == HR_MMA_SYNC
	if constexpr (att_is_half<T>::value && D <= 128) {
		flash_varlen_sync<T, D>(out, lse, q, k, v, cu_seqlens_q, cu_seqlens_k, alibi_slopes,
					batch, num_heads, num_kv_heads, max_seqlen_q, q_stride,
					k_stride, v_stride, o_stride, scale, softcap, causal,
					window_left, window_right);
	} else
#elif HR_MMA != HR_MMA_NONE
	if constexpr (att_is_half<T>::value && D <= 128) {
		flash_varlen_mma<T, D>(out, lse, q, k, v, cu_seqlens_q, cu_seqlens_k, alibi_slopes,
				       batch, num_heads, num_kv_heads, max_seqlen_q, q_stride,
				       k_stride, v_stride, o_stride, scale, softcap, causal,
				       window_left, window_right);
	} else
#endif
	{
		flash_varlen<T, D>(out, lse, q, k, v, cu_seqlens_q, cu_seqlens_k, alibi_slopes,
				   batch, num_heads, num_kv_heads, max_seqlen_q, q_stride, k_stride,
				   v_stride, o_stride, scale, softcap, causal, window_left,
				   window_right);
	}
}

/* ------------------------------------------------------------------ */
/* Entry points                                                         */
/* ------------------------------------------------------------------ */
#define ATT_HEAD(T, SUF, D) \
	HR_KERNEL void __launch_bounds__(ATT_BLOCK) paged_attention_d##D##_##SUF( \
		T *out, float *lse, float *ws, const T *q, const T *key_cache, \
		const T *value_cache, const int32_t *block_tables, const int32_t *seq_lens, \
		const float *alibi_slopes, size_t num_seqs, size_t num_heads, \
		size_t num_kv_heads, size_t block_size, size_t max_blocks_per_seq, \
		size_t num_blocks, size_t q_stride, float scale, float softcap, int window_left) \
	{ \
		paged_decode<T, D>(out, lse, ws, q, key_cache, value_cache, block_tables, \
				   seq_lens, alibi_slopes, num_seqs, num_heads, num_kv_heads, \
				   block_size, max_blocks_per_seq, num_blocks, q_stride, scale, \
				   softcap, window_left); \
	} \
	HR_KERNEL void __launch_bounds__(ATT_BLOCK) flash_attn_varlen_d##D##_##SUF( \
		T *out, float *lse, const T *q, const T *k, const T *v, \
		const int32_t *cu_seqlens_q, const int32_t *cu_seqlens_k, \
		const float *alibi_slopes, size_t batch, size_t num_heads, size_t num_kv_heads, \
		size_t max_seqlen_q, size_t q_stride, size_t k_stride, size_t v_stride, \
		size_t o_stride, float scale, float softcap, int causal, int window_left, \
		int window_right) \
	{ \
		flash_varlen_any<T, D>(out, lse, q, k, v, cu_seqlens_q, cu_seqlens_k, alibi_slopes, \
				   batch, num_heads, num_kv_heads, max_seqlen_q, q_stride, \
				   k_stride, v_stride, o_stride, scale, softcap, causal, \
				   window_left, window_right); \
	}

#define ATT_DTYPE(T, SUF) \
	HR_KERNEL void reshape_and_cache_flash_##SUF( \
		const T *key, const T *value, T *key_cache, T *value_cache, \
		const int64_t *slot_mapping, size_t num_tokens, size_t num_kv_heads, \
		size_t head_dim, size_t block_size, size_t num_blocks, size_t key_stride, \
		size_t value_stride) \
	{ \
		reshape_and_cache<T>(key, value, key_cache, value_cache, slot_mapping, num_tokens, \
				     num_kv_heads, head_dim, block_size, num_blocks, key_stride, \
				     value_stride); \
	} \
	HR_KERNEL void paged_attention_combine_##SUF(T *out, float *lse, const float *ws, \
						     size_t rows, size_t head_dim, size_t splits) \
	{ \
		attention_combine<T>(out, lse, ws, rows, head_dim, splits); \
	} \
	ATT_HEAD(T, SUF, 64) \
	ATT_HEAD(T, SUF, 80) \
	ATT_HEAD(T, SUF, 96) \
	ATT_HEAD(T, SUF, 128) \
	ATT_HEAD(T, SUF, 256)

ATT_DTYPE(float, f32)
ATT_DTYPE(hr_f16, f16)
ATT_DTYPE(hr_bf16, bf16)
