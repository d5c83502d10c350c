// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * kernels/attention/prefill-common.h - what the two matrix-unit prefill
 * designs (prefill-mma.h on MFMA/WMMA, prefill-sync.h on mma.sync) share:
 * the load of Q's fragments and the store of a row of O.
 * Inlined into the attention family by kernels/attention.hip (in the order
 * it includes them), which holds the entry points.
 */
#if HR_MMA != HR_MMA_NONE
/*
 * The tile's rows and key range (q0, lq, first, last, tlo, thi) stay
 * written out in each design: as a shared helper filling a struct they cost
 * the MFMA kernels 4 VGPRs at every head dim (gfx90a, hipcc 5.2.3), so the
 * copy is kept on purpose.
 */

/* Slice kk of Q's rows wfirst .. wfirst + 15 of head h (zeros past lq). */
template <typename T, int D>
HR_DEVICE void att_load_q(hr_mma_a<T> &qa, int kk, const T *q, int64_t q0, int64_t wfirst,
			  int64_t lq, uint64_t q_stride, uint64_t h)
{
	const T zero = hr_from_f32<T>(0.f);

	hr_mma_load_a(qa, [&](int i, int c) {
		const int64_t qi = wfirst + i;

		return qi < lq ? q[(uint64_t)(q0 + qi) * q_stride + h * D + kk * 16 + c] : zero;
	});
}

/* Element e of every accumulator slice of O, times inv, to row orow of out. */
template <typename T, int D>
HR_DEVICE void att_store_o(T *orow, const hr_mma_acc *o, int e, float inv)
{
#pragma unroll
	for (int dn = 0; dn < D / 16; dn++)
		orow[dn * 16 + hr_mma_acc_col(e)] = hr_from_f32<T>(o[dn].v[e] * inv);
}
#endif /* HR_MMA != HR_MMA_NONE */
