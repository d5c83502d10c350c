// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * kernels/attention/state.h - the per-query state and the steps every design shares:
 * the block geometry, the logit (scale, softcap, ALiBi), the online-softmax
 * state and its update, the grouped dot product, the 2-byte type test.
 * Inlined into the attention family by kernels/attention.hip (in the order
 * it includes them), which holds the entry points.
 */

#define ATT_GROUP 8                              /* lanes per key / query row */
#define ATT_BLOCK 128                            /* threads per block */
#define ATT_NGROUPS (ATT_BLOCK / ATT_GROUP)      /* 16 */
#define ATT_BN 16                                /* keys per shared tile (prefill) */

HR_DEVICE float att_neg_inf(void)
{
	return hr_bits_f32(0xff800000u);
}

/* The logit of key j for a query whose diagonal key is `diag`. */
HR_DEVICE float att_logit(float dot, float scale, float softcap, float slope, int64_t rel)
{
	float s = dot * scale;

	if (softcap > 0.f)
		s = softcap * hr_tanh(s / softcap);
	if (slope != 0.f)
		s -= slope * (float)(rel < 0 ? -rel : rel);
	return s;
}

/* One query row's online-softmax state; lane l holds dims l + 8 i. */
template <int D>
struct att_state {
	float m, l;
	float acc[D / ATT_GROUP];
};

template <int D>
HR_DEVICE void att_init(att_state<D> &st)
{
	st.m = att_neg_inf();
	st.l = 0.f;
#pragma unroll
	for (int i = 0; i < D / ATT_GROUP; i++)
		st.acc[i] = 0.f;
}

/* Adds key with logit s (-inf: masked) and value vload(i) (dim lane + 8 i). */
template <int D, typename F>
HR_DEVICE void att_step(att_state<D> &st, float s, const F &vload)
{
	if (!(s > att_neg_inf()))
		return;         /* masked (or NaN from a NaN input: skipped alike) */
	const float mn = hr_fmax(st.m, s);
	const float corr = hr_exp(st.m - mn);  /* exp(-inf) = 0 on the first key */
	const float p = hr_exp(s - mn);

	st.l = st.l * corr + p;
#pragma unroll
	for (int i = 0; i < D / ATT_GROUP; i++)
		st.acc[i] = st.acc[i] * corr + p * vload(i);
	st.m = mn;
}

/* q . k over the group's 8 lanes; every lane gets the sum. */
template <int D, typename F>
HR_DEVICE float att_dot(const float *qf, const F &kload, bool valid)
{
	float dot = 0.f;

	if (valid) {
#pragma unroll
		for (int i = 0; i < D / ATT_GROUP; i++)
			dot += qf[i] * kload(i);
	}
	return hr_wave_sum(dot, ATT_GROUP);
}

/* 2-byte storage types: the matrix paths' inputs. */
template <typename T>
struct att_is_half { static const bool value = false; };
template <> struct att_is_half<hr_f16> { static const bool value = true; };
template <> struct att_is_half<hr_bf16> { static const bool value = true; };
