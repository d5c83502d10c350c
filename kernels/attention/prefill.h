// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * kernels/attention/prefill.h - the portable varlen prefill (any type, any head dim).
 * Inlined into the attention family by kernels/attention.hip (in the order
 * it includes them), which holds the entry points.
 */

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
