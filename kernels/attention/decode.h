// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * kernels/attention/decode.h - the paged decode: its shared memory, the portable path
 * and the choice of design per (T, D), and the split-K combine.
 * Inlined into the attention family by kernels/attention.hip (in the order
 * it includes them), which holds the entry points.
 */

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
			const int gh = group % 4 == 0 ? 4 : group % 2 == 0 ? 2 : 1;
			uint64_t h0;

			/* One block a row (the library's grid): a block whose
			 * head is not its set's first has nothing to do and
			 * leaves before the set-up (3 blocks of 4 with 4 heads
			 * a KV head). */
			if (gridDim.x >= rows && blockIdx.x < rows &&
			    (hr_divmod(blockIdx.x, num_heads, &h0), h0 % (uint64_t)gh) != 0)
				return;
			paged_decode_mma<T, D>(out, lse, ws, q, key_cache, value_cache, block_tables,
					       seq_lens, alibi_slopes, num_seqs, num_heads,
					       num_kv_heads, block_size, max_blocks_per_seq, num_blocks,
					       q_stride, scale, softcap, window_left, gh,
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
