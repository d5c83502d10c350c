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
 *
 * The designs live in kernels/attention/, one file each, inlined below in
 * this order: the shared state and steps, the cache write, the decode (fast
 * path, matrix units, portable + combine), the prefill (portable, what the
 * matrix-unit designs share, AMD matrix units, NVIDIA mma.sync); this file picks a prefill design and declares the
 * entry points.
 */
#include "hr-kernel.h"

#include "attention/state.h"
#include "attention/cache-write.h"
#include "attention/decode-fast.h"
#include "attention/decode-mma.h"
#include "attention/decode.h"
#include "attention/prefill.h"
#include "attention/prefill-common.h"
#include "attention/prefill-mma.h"
#include "attention/prefill-sync.h"

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
