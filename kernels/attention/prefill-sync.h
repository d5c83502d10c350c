// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * kernels/attention/prefill-sync.h - the varlen prefill on NVIDIA sm_80+ (mma.sync, cp.async,
 * ldmatrix): the FlashAttention-2 schedule.
 * Inlined into the attention family by kernels/attention.hip (in the order
 * it includes them), which holds the entry points.
 */

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
			att_load_q<T, D>(qa[kk], kk, q, q0, wfirst, lq, q_stride, h);
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

				att_store_o<T, D>(orow, o, e, inv);
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
