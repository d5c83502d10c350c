/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cast - dtype conversion, the full matrix over f32 f64 f16 bf16 u8 u32 i64
 * (49 kernels; cast_T_T is a strided copy).
 *
 *   cast_<S>_<D>(size_t numel, size_t num_dims, hr_layout info,
 *                const S *inp, D *out)
 * info: v[0..8) dims, v[8..16) input strides (elements, 0 = broadcast);
 * num_dims == 0 means a contiguous input.  The output is contiguous.
 *
 * Semantics the CPU reference must share (they are Rust's `as`):
 *  - float -> integer truncates toward zero and saturates to the
 *    destination's range; NaN -> 0.  f16/bf16 sources go through float.
 *  - integer -> integer keeps the low bits (two's complement wrap), e.g.
 *    i64 -1 -> u32 4294967295, u32 300 -> u8 44.
 *  - integer -> float and f64 -> f32 round to nearest even.
 *  - -> f16 / bf16: through float, then round to nearest even (so f64 and
 *    i64 sources are rounded twice); f16 <-> bf16 through float.  NaN stays
 *    NaN, values past the f16 range become +-inf.
 */
#include "hr-kernel.h"

/* ------------------------------------------------------------------ */
/* Conversions                                                          */
/* ------------------------------------------------------------------ */
/* Integer destinations: limits as floating-point values, exact in float. */
template <typename D> struct int_range;
template <> struct int_range<uint8_t> {
	static constexpr double lo = 0.0, hi_excl = 256.0;
	static constexpr uint8_t min = 0, max = 255;
};
template <> struct int_range<uint32_t> {
	static constexpr double lo = 0.0, hi_excl = 4294967296.0;
	static constexpr uint32_t min = 0, max = 4294967295u;
};
template <> struct int_range<int64_t> {
	static constexpr double lo = -9223372036854775808.0;
	static constexpr double hi_excl = 9223372036854775808.0;
	static constexpr int64_t min = INT64_MIN, max = INT64_MAX;
};

/*
 * Saturating float -> integer: C leaves out-of-range conversions undefined
 * (and the hardware disagrees between vendors), so clamp first.  F is float
 * or double; every limit above is exact in both.
 */
template <typename D, typename F>
HR_DEVICE D sat_int(F x)
{
	typedef int_range<D> R;
	if (x != x)
		return 0;
	if (x <= (F)R::lo)
		return R::min;
	if (x >= (F)R::hi_excl)
		return R::max;
	return (D)x;
}

/* The general case: the header's conversions (integers wrap, floats round). */
template <typename S, typename D>
struct conv {
	static __device__ __forceinline__ D f(S s) { return hr_cast<D>(s); }
};

/* Floating source, integer destination: saturate. */
#define HR_SAT(S, D) \
	template <> struct conv<S, D> { \
		static __device__ __forceinline__ D f(S s) \
		{ \
			return sat_int<D>(hr_to_compute(s)); \
		} \
	};
#define HR_SAT_ALL(S) HR_SAT(S, uint8_t) HR_SAT(S, uint32_t) HR_SAT(S, int64_t)
HR_SAT_ALL(float)
HR_SAT_ALL(double)
HR_SAT_ALL(hr_f16)
HR_SAT_ALL(hr_bf16)

/* conv<S, D>::f as a function object, for hr_map_strided(). */
template <typename S, typename D>
struct conv_fn {
	HR_INLINE D operator()(S s) const { return conv<S, D>::f(s); }
};

/* ------------------------------------------------------------------ */
/* Contiguous fast path: 16-byte vector loads and stores                */
/* ------------------------------------------------------------------ */
/* Vectors: hr_vecn and hr_aligned_to (hr-kernel.h). */
/*
 * Elements per vector: 16 bytes of the wider of S and D.  Pointers not
 * aligned to the vector (odd element offsets) take the scalar loop.
 */
template <typename S, typename D>
HR_DEVICE void cast_contiguous(uint64_t numel, const S *inp, D *out)
{
	constexpr int N = HR_VEC_BYTES / (sizeof(S) > sizeof(D) ? sizeof(S) : sizeof(D));
	uint64_t done = 0;

	if (hr_aligned_to(inp, sizeof(S) * N) && hr_aligned_to(out, sizeof(D) * N)) {
		const hr_vecn<S, N> *in = (const hr_vecn<S, N> *)inp;
		hr_vecn<D, N> *o = (hr_vecn<D, N> *)out;
		HR_GRID_STRIDE_LOOP(k, numel / N) {
			hr_vecn<S, N> a = in[k];
			hr_vecn<D, N> c;
#pragma unroll
			for (int j = 0; j < N; j++)
				c.v[j] = conv<S, D>::f(a.v[j]);
			o[k] = c;
		}
		done = numel / N * N;
	}
	for (uint64_t i = done + hr_global_id(); i < numel; i += hr_global_size())
		out[i] = conv<S, D>::f(inp[i]);
}

/* ------------------------------------------------------------------ */
/* The map                                                              */
/* ------------------------------------------------------------------ */
template <typename S, typename D>
HR_DEVICE void cast_map(uint64_t numel, uint64_t num_dims, const hr_layout &info,
			const S *inp, D *out)
{
	if (!hr_dims_ok(num_dims))
		return;
	const uint64_t *dims = HR_DIMS(info);
	const uint64_t *strides = HR_STRIDES(info, 0);

	/* Uniform across the grid: every thread takes the same branch. */
	if (num_dims == 0 || hr_is_contiguous(num_dims, dims, strides)) {
		cast_contiguous<S, D>(numel, inp, out);
	} else {
		hr_map_strided(numel, num_dims, dims, strides, inp, out, conv_fn<S, D>());
	}
}

/* ------------------------------------------------------------------ */
/* Entry points                                                         */
/* ------------------------------------------------------------------ */
#define HR_CAST(SN, S, DN, D) \
	HR_KERNEL void cast_##SN##_##DN(size_t numel, size_t num_dims, \
					HR_LAYOUT_PARAM(info), const S *inp, D *out) \
	{ \
		cast_map<S, D>(numel, num_dims, info, inp, out); \
	}

#define HR_CAST_FROM(SN, S) \
	HR_CAST(SN, S, f32, float) \
	HR_CAST(SN, S, f64, double) \
	HR_CAST(SN, S, f16, hr_f16) \
	HR_CAST(SN, S, bf16, hr_bf16) \
	HR_CAST(SN, S, u8, uint8_t) \
	HR_CAST(SN, S, u32, uint32_t) \
	HR_CAST(SN, S, i64, int64_t)

HR_CAST_FROM(f32, float)
HR_CAST_FROM(f64, double)
HR_CAST_FROM(f16, hr_f16)
HR_CAST_FROM(bf16, hr_bf16)
HR_CAST_FROM(u8, uint8_t)
HR_CAST_FROM(u32, uint32_t)
HR_CAST_FROM(i64, int64_t)
