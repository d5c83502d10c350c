// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * kernels/attention/prefill-mma.h - the varlen prefill on the AMD matrix units (MFMA, WMMA)
 * and the host backend's emulation of them.
 * Inlined into the attention family by kernels/attention.hip (in the order
 * it includes them), which holds the entry points.
 */

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
#if ATT_QSMEM
	const T zero = hr_from_f32<T>(0.f);
#endif

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
			att_load_q<T, D>(qa[kk], kk, q, q0, wfirst, lq, q_stride, h);
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

				att_store_o<T, D>(orow, o, e, inv);
			}
		}
		if (part == 0 && wfirst + srow < lq && lse)
			lse[(uint64_t)(q0 + wfirst + srow) * num_heads + h] =
				l > 0.f ? m + hr_log(l) : att_neg_inf();
		__syncthreads();        /* the tiles are reused by the next block row */
	}
}
#endif /* HR_MMA != HR_MMA_NONE && HR_MMA != HR_MMA_SYNC */
