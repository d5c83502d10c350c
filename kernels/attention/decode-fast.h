// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * kernels/attention/decode-fast.h - the paged decode's fast path (2-byte K/V, D 64/128/256,
 * wave 64): 16-byte loads, two steps in flight, the head group in one block.
 * Inlined into the attention family by kernels/attention.hip (in the order
 * it includes them), which holds the entry points.
 */

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
