// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * kernels/attention/decode-mma.h - the paged decode on the matrix units (MFMA, WMMA,
 * mma.sync; f16/bf16, D 64 or 128, 4 query heads a KV head).
 * Inlined into the attention family by kernels/attention.hip (in the order
 * it includes them), which holds the entry points.
 */

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
