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
	float wt[ATT_DM_NW][4], lv[4];          /* each wave's weight in a head's output, the head's LSE */
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
	const int tid = (int)threadIdx.x, wv = hr_wave_uniform(tid / W), t = tid % W;
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

		/* the heads' queries, 8 elements a thread at a time */
		const T *qrow = q + seq * q_stride + h0 * D;
		const bool qvec = hr_aligned_to(qrow, 16) && q_stride % 8 == 0;

		for (int e = tid; e < 16 * CH; e += ATT_BLOCK) {
			const int i = e / CH, c8 = (e % CH) * 8;
			hr_vecn<T, 8> v;

			if (i < gh && qvec) {
				v = *(const hr_vecn<T, 8> *)(qrow + i * D + c8);
			} else {
#pragma unroll
				for (int c = 0; c < 8; c++)
					v.v[c] = i < gh ? qrow[i * D + c8 + c] : zero;
			}
			*(hr_vecn<T, 8> *)&sm.qs[i][c8] = v;
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
		/* A wave's next tile is STRIDE keys on: its position by
		 * additions, not a division. */
		const uint32_t step_pg = (uint32_t)STRIDE / bs, step_r = (uint32_t)STRIDE % bs;
		auto tile_next = [&](att_tpos p) {
			p.pg0 += step_pg;
			p.r0 += step_r;
			if (p.r0 >= bs) {
				p.r0 -= bs;
				p.pg0++;
			}
			return p;
		};
		/* Chunk i of lane t (16 keys x CH 16-byte chunks a tile, lane t
		 * takes t + W i): key kb + KS i, dims 8 pc ..; a masked key reads
		 * block 0 and is zeroed (no branch around a load). */
		constexpr int KS = W / CH;
		const int kb = t / CH, pc = t % CH;
		const uint64_t page_el = (uint64_t)bs * num_kv_heads * D, row_el = num_kv_heads * D;
		const uint64_t lane_el = kvh * D + (uint64_t)pc * 8;
		/* Pages of >= 16 keys (the common case; a page's bytes counted
		 * in 32 bits): a tile's keys lie in its first page and the next,
		 * whose table entries are read once a tile (wave-uniform).
		 * ok0/ok1: the entry is a valid block (words, not bools: a struct
		 * with bools was kept in scratch memory on gfx11); off0/off1: the
		 * block's first element (block 0 if not valid). */
		struct att_tblk {
			uint64_t off0, off1;
			uint32_t ok0, ok1;
		};
		const bool wide = bs >= 16 && page_el * sizeof(T) <= UINT32_MAX;
		const uint32_t row32 = (uint32_t)row_el;        /* used when wide */
		const uint32_t nb = num_blocks < 0x80000000u ? (uint32_t)num_blocks : 0x80000000u;
		auto tile_blocks = [&](int64_t tt, const att_tpos &p) {
			att_tblk k;

			k.ok0 = k.ok1 = 0;
			k.off0 = k.off1 = 0;    /* wave-uniform: the lane's part is added per chunk */
			if (wide && tt < end) { /* the first page is in the table */
				const uint32_t b0 = (uint32_t)bt[p.pg0];
				/* the next page's first key tt + bs - r0, if in range */
				const bool two = p.r0 + 16 > bs && tt + (int64_t)(bs - p.r0) < end;
				const uint32_t b1 = two ? (uint32_t)bt[p.pg0 + 1] : 0xffffffffu;

				k.ok0 = b0 < nb;        /* a negative entry is >= 2^31 */
				k.ok1 = b1 < nb;
				k.off0 += (uint64_t)(k.ok0 ? b0 : 0u) * page_el;
				k.off1 += (uint64_t)(k.ok1 ? b1 : 0u) * page_el;
			}
			return k;
		};
		/* f(i, K, V, ok) for the lane's chunks i of the tile at tt: the
		 * chunk's key and value elements and whether the key is in range
		 * in a valid block (else K and V point into block 0). */
		auto chunks = [&](int64_t tt, const att_tpos &p, const att_tblk &k, const auto &f) {
			if (wide) {
				const int64_t left = end - tt;
				const uint32_t rem = left < 16 ? (uint32_t)left : 16u;
#if HR_MMA == HR_MMA_SYNC
				const uint32_t split = bs - p.r0;       /* keys c < split: first page */
				const uint32_t rowb = row32 * (uint32_t)sizeof(T);      /* < a page's bytes */
				/* key c at a0 + (c - kb) rowb in the first page, a1 + .. in
				 * the next (addresses as integers: a1 may precede its page) */
				const uint64_t kbase = (uint64_t)(uintptr_t)key_cache;
				const uint64_t a0 = kbase + (k.off0 + lane_el) * sizeof(T) +
						    (uint64_t)(p.r0 + (uint32_t)kb) * rowb;
				const uint64_t a1 = kbase + (k.off1 + lane_el) * sizeof(T) +
						    (uint64_t)((int64_t)p.r0 + kb - (int64_t)bs) * rowb;
				const uint64_t dv = (uint64_t)(uintptr_t)value_cache - kbase;

#pragma unroll
				for (int i = 0; i < CPL; i++) {
					const uint32_t c = (uint32_t)(kb + KS * i);
					const bool sec = c >= split;
					const uint64_t ka = (sec ? a1 : a0) + (uint64_t)((uint32_t)(KS * i) * rowb);

					f(i, (const T *)(uintptr_t)ka, (const T *)(uintptr_t)(ka + dv),
					  c < rem && (sec ? k.ok1 : k.ok0) != 0);
				}
#else
				/* AMD: fewer values live across the unrolled loop (the
				 * next tile's K and V are in registers meanwhile) */
#pragma unroll
				for (int i = 0; i < CPL; i++) {
					const uint32_t c = (uint32_t)(kb + KS * i), r = p.r0 + c;
					const bool sec = r >= bs;
					const uint64_t off = (sec ? k.off1 : k.off0) + lane_el +
							     (uint64_t)((sec ? r - bs : r) * row32);

					f(i, key_cache + off, value_cache + off,
					  c < rem && (sec ? k.ok1 : k.ok0) != 0);
				}
#endif
				return;
			}
#pragma unroll
			for (int i = 0; i < CPL; i++) {
				const int c = kb + KS * i;
				const bool in = tt + c < end;
				uint32_t r;
				const uint32_t pg = key_at(p, c, &r);
				const int64_t b = bt[in ? pg : 0u];
				const bool okb = in && b >= 0 && (uint64_t)b < num_blocks;
				const uint64_t off = (uint64_t)(okb ? b : 0) * page_el + (uint64_t)r * row_el + lane_el;

				f(i, key_cache + off, value_cache + off, okb);
			}
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
		auto softmax = [&](int64_t t0, const att_tpos &p, const att_tblk &k) {
			float sc[KPL], mx = m;

#pragma unroll
			for (int u = 0; u < KPL; u++) {
				const int64_t j = t0 + c0 + u;
				bool ok = j < end;

				if (wide) {
					ok = ok && (p.r0 + (uint32_t)(c0 + u) < bs ? k.ok0 : k.ok1) != 0;
				} else if (ok) {
					uint32_t r;
					const int64_t b = bt[key_at(p, c0 + u, &r)];

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
			/* O needs rescaling only when some head's maximum moved
			 * (O * 1 is O: skipping it changes no bit) */
			return hr_ballot(corr != 1.f) != 0;
		};
		/* O = O corr + P V; vfrag(kk): V's fragment of dims 16 kk .. */
		auto pv = [&](bool rescale, const auto &vfrag) {
			hr_mma_a<T> pa;

			hr_mma_load_a_smem(pa, &mw.ps[0][0], 16 + ATT_DM_PAD);
			if (rescale) {  /* wave-uniform */
				float cr[HR_MMA_NC];

#pragma unroll
				for (int e = 0; e < HR_MMA_NC; e++)
					cr[e] = mw.corr[hr_mma_acc_row(e)];
#pragma unroll
				for (int kk = 0; kk < KD; kk++) {
#pragma unroll
					for (int e = 0; e < HR_MMA_NC; e++)
						o[kk].v[e] *= cr[e];
				}
			}
#pragma unroll
			for (int kk = 0; kk < KD; kk++)
				hr_mma_run(o[kk], pa, vfrag(kk));
		};
		int64_t t0 = begin + 16 * (int64_t)wv;

#if HR_MMA == HR_MMA_SYNC
		/* The next tile's K and V are copied by cp.async once this tile's
		 * S is taken and V's fragments are in registers, during the
		 * softmax and P V.  (Two groups, K's after S and V's after P V
		 * with V read from shared memory, measured slower: 2001 / 1780
		 * against 2084 / 1848 GB/s, doc/BENCHMARKS.md.) */
		auto copy = [&](int64_t tt, const att_tpos &p, const att_tblk &k) {
			chunks(tt, p, k, [&](int i, const T *kp, const T *vp, bool okb) {
				hr_cp_async16(&mw.ks[kb + KS * i][pc * 8], kp, okb);
				hr_cp_async16(&mw.vs[kb + KS * i][pc * 8], vp, okb);
			});
			hr_cp_async_commit();
		};
		att_tpos tp = tile_at(t0 < end ? t0 : 0);
		att_tblk kc = tile_blocks(t0, tp);

		if (t0 < end)
			copy(t0, tp, kc);
		for (; t0 < end; t0 += STRIDE) {        /* wave-uniform bounds */
			hr_cp_async_wait<0>();
			hr_wave_barrier();
			qk();
			hr_mma_b<T> vb[KD];

#pragma unroll
			for (int kk = 0; kk < KD; kk++)
				hr_mma_load_b_smem(vb[kk], &mw.vs[0][kk * 16], LD);
			hr_wave_barrier();              /* ks and vs read, ss written */
			const att_tpos tn = tile_next(tp);
			att_tblk kn = kc;

			if (t0 + STRIDE < end) {
				kn = tile_blocks(t0 + STRIDE, tn);
				copy(t0 + STRIDE, tn, kn);
			}
			const bool rescale = softmax(t0, tp, kc);

			hr_wave_barrier();              /* ps, corr written */
			pv(rescale, [&](int kk) -> const hr_mma_b<T> & { return vb[kk]; });
			hr_wave_barrier();              /* ps and corr read */
			tp = tn;
			kc = kn;
		}
#else
		/* The next tile's K and V are loaded into registers before this
		 * tile's math and stored after it. */
		typedef hr_vecn<T, 8> V8;
		V8 kx[CPL], vx[CPL];
		auto fetch = [&](int64_t tt, const att_tpos &p, const att_tblk &k) {
			chunks(tt, p, k, [&](int i, const T *kp, const T *vp, bool okb) {
				const V8 k8 = *(const V8 *)kp;
				const V8 v8 = *(const V8 *)vp;

#pragma unroll
				for (int c = 0; c < 8; c++) {
					kx[i].v[c] = okb ? k8.v[c] : zero;
					vx[i].v[c] = okb ? v8.v[c] : zero;
				}
			});
		};
		att_tpos tp = tile_at(t0 < end ? t0 : 0);
		att_tblk kc = tile_blocks(t0, tp);

		if (t0 < end)
			fetch(t0, tp, kc);
		for (; t0 < end; t0 += STRIDE) {        /* wave-uniform bounds */
#pragma unroll
			for (int i = 0; i < CPL; i++) {
				*(V8 *)&mw.ks[kb + KS * i][pc * 8] = kx[i];
				*(V8 *)&mw.vs[kb + KS * i][pc * 8] = vx[i];
			}
			hr_wave_barrier();
			const att_tpos tn = tile_next(tp);
			att_tblk kn = kc;

			if (t0 + STRIDE < end) {
				kn = tile_blocks(t0 + STRIDE, tn);
				fetch(t0 + STRIDE, tn, kn);
			}
			qk();
			hr_wave_barrier();
			const bool rescale = softmax(t0, tp, kc);

			hr_wave_barrier();
			pv(rescale, [&](int kk) {
				hr_mma_b<T> vb;

				hr_mma_load_b_smem(vb, &mw.vs[0][kk * 16], LD);
				return vb;
			});
			hr_wave_barrier();              /* every buffer read */
			tp = tn;
			kc = kn;
		}
#endif
		for (int o2 = SEG / 2; o2 > 0; o2 >>= 1)
			l += hr_shfl_xor(l, o2, SEG);
		__syncthreads();        /* every wave's tiles done: the buffers become the merge area */
		if (t % SEG == 0) {
			sm.u.mg.m[wv][hh] = m;
			sm.u.mg.l[wv][hh] = l;
		}
		__syncthreads();
		/* Each head's merge, once (threads 0-3; the others compute too,
		 * no branch before the barrier): wave w's weight exp(m_w - m) / l
		 * (0 for a wave that saw no key), the head's LSE m + log l. */
		{
			const int g = tid % 4;
			float mm = att_neg_inf(), ll = 0.f, wt[NW];

#pragma unroll
			for (int w = 0; w < NW; w++)
				mm = hr_fmax(mm, sm.u.mg.m[w][g]);
#pragma unroll
			for (int w = 0; w < NW; w++) {
				wt[w] = sm.u.mg.m[w][g] > att_neg_inf() ? hr_exp(sm.u.mg.m[w][g] - mm) : 0.f;
				ll += sm.u.mg.l[w][g] * wt[w];
			}
			const float inv = ll > 0.f ? 1.f / ll : 0.f;

			if (tid < 4) {
#pragma unroll
				for (int w = 0; w < NW; w++)
					sm.u.mg.wt[w][g] = wt[w] * inv;
				sm.u.mg.lv[g] = ll > 0.f ? mm + hr_log(ll) : att_neg_inf();
			}
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
			float a = 0.f;

#pragma unroll
			for (int w = 0; w < NW; w++)
				a += sm.u.mg.acc[w][g][d] * sm.u.mg.wt[w][g];
			if (splits == 1)
				out[orow * D + (uint64_t)d] = hr_from_f32<T>(a);
			else
				ws[(y * rows + orow) * D + (uint64_t)d] = a;
			if (d == 0) {
				const float lv = sm.u.mg.lv[g];

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
