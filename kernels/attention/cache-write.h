// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * kernels/attention/cache-write.h - the KV-cache write (reshape_and_cache_flash_T).
 * Inlined into the attention family by kernels/attention.hip (in the order
 * it includes them), which holds the entry points.
 */

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
