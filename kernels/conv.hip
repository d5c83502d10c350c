/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * conv - convolutions, their im2col/col2im helpers, pooling and upsampling
 * over NCL / NCHW tensors, candle's names and argument order (conv.cu), for
 * T in f32 f64 f16 bf16.  f16/bf16 load into float, accumulate in float and
 * round once on store; f64 accumulates in double.
 *
 * info is candle's info array, by value (struct hr_layout, v[] holds the
 * values candle copies to the device): the source dims then its strides
 * (elements), and for the convolutions the kernel's dims then strides:
 *   1-D: v[0..3) src (b, c_in, l_in), v[3..6) its strides,
 *        v[6..9) kernel dims, v[9..12) its strides;
 *   2-D: v[0..4) src (b, c_in, h, w), v[4..8) its strides,
 *        v[8..12) kernel dims, v[12..16) its strides.
 * Element offsets of the buffers are applied by the caller.  Outputs are
 * contiguous.
 *
 *   conv1d_T(src_numel, l_out, stride, padding, dilation, info, src, kernel, dst)
 *       kernel (c_out, c_in, l_k); dst (b, c_out, l_out)
 *   conv2d_T(src_numel, w_out, h_out, stride, padding, dilation, info, src, kernel, dst)
 *       kernel (c_out, c_in, h_k, w_k); dst (b, c_out, h_out, w_out)
 *   conv_transpose1d_T(src_numel, l_out, stride, padding, out_padding, dilation,
 *                      info, src, kernel, dst)
 *       kernel (c_in, c_out, l_k); out[x] gathers src[i] * k[j] over
 *       x = i * stride + j * dilation - padding; out_padding only lengthens
 *       l_out (the caller's), as in candle
 *   conv_transpose2d_T(src_numel, w_out, h_out, stride, padding, out_padding,
 *                      dilation, info, src, kernel, dst)
 *   im2col1d_T(dst_numel, l_out, l_k, stride, padding, dilation, info, src, dst)
 *       dst (b, l_out, c_in, l_k), dst_numel = b * l_out * c_in (candle's:
 *       rows of l_k); zero where the window is in the padding
 *   col2im1d_T(dst_el, l_out, l_in, c_out, k_size, stride, src, dst)
 *       src contiguous (b, l_in, c_out, k_size), dst (b, c_out, l_out):
 *       dst[l] = sum of src[i, k] over i * stride + k = l
 *   im2col_T(dst_numel, h_out, w_out, h_k, w_k, stride, padding, dilation,
 *            info, src, dst)
 *       dst (b, h_out, w_out, c_in, h_k, w_k)
 *   avg_pool2d_T / max_pool2d_T(src_numel, w_k, h_k, w_stride, h_stride, info, src, dst)
 *   upsample_nearest2d_T(w_out, h_out, w_scale, h_scale, info, src, dst)
 *       In these three candle's "w" is the axis of dims[2] and "h" that of
 *       dims[3] (its callers pass them so): out (b, c, o2, o3) with
 *       o2 = (dims[2] - w_k) / w_stride + 1 for the pools, and
 *       src index floor(o * scale) clamped for nearest.
 *   upsample_bilinear2d_T(w_out, h_out, align_corners, has_scale_h,
 *                         scale_h_factor, has_scale_w, scale_w_factor, info, src, dst)
 *       here h is dims[2], w dims[3] (PyTorch's rule; the scale factors,
 *       when given, replace in/out sizes when align_corners is false).
 *
 * Where we differ from candle (its bugs):
 *  - conv1d applies the dilation to the kernel offset only (candle
 *    multiplies stride * l too);
 *  - indices are 64-bit everywhere (candle's transposed convs and col2im1d
 *    use int);
 *  - max_pool2d propagates NaN for every dtype (candle: fmaxf drops it for
 *    f32/f64, keeps it for f16/bf16);
 *  - avg_pool2d divides in the accumulation type (candle: a float
 *    reciprocal, for f64 too);
 *  - upsample_bilinear2d clamps the source position to the image (candle
 *    reads past it when a scale factor is smaller than the size ratio);
 *  - col2im1d accumulates in a register (float for 16-bit types), not in
 *    dst;
 *  - degenerate arguments (a zero stride where it divides, a window
 *    larger than the input, an empty input) write nothing instead of
 *    dividing by zero or reading out of bounds.
 *
 * Every kernel is a grid-stride loop over its outputs: any 1-D grid is
 * correct.  No shared memory, but conv2d_f16/bf16: in 256-thread blocks on
 * a target with matrix units they run an implicit GEMM over tiles of dst
 * (conv2d_mma below; 20480 static shared bytes).
 */
#include "hr-kernel.h"

/* The accumulation type: float for the 16-bit floats, else T. */
#define ACC(T) typename hr_compute<T>::type

template <typename T>
HR_DEVICE ACC(T) ld(const T *p, uint64_t i)
{
	return hr_to_compute(p[i]);
}

/* ------------------------------------------------------------------ */
/* Convolutions                                                         */
/* ------------------------------------------------------------------ */
template <typename T>
HR_DEVICE void conv1d(uint64_t l_out, uint64_t stride, uint64_t padding, uint64_t dilation,
		      const hr_layout &info, const T *src, const T *kernel, T *dst)
{
	typedef ACC(T) A;
	const uint64_t *v = info.v;
	const uint64_t c_in = v[1], l_in = v[2], s0 = v[3], s1 = v[4], s2 = v[5];
	const uint64_t c_out = v[6], l_k = v[8], k0 = v[9], k1 = v[10], k2 = v[11];

	HR_GRID_STRIDE_LOOP(i, v[0] * c_out * l_out) {
		uint64_t x, c;
		const uint64_t b = hr_divmod(hr_divmod(i, l_out, &x), c_out, &c);
		A d = 0;

		for (uint64_t j = 0; j < l_k; j++) {
			const uint64_t p = x * stride + j * dilation;   /* in the padded input */

			if (p < padding || p - padding >= l_in)
				continue;
			const T *sp = src + b * s0 + (p - padding) * s2;
			const T *kp = kernel + c * k0 + j * k2;
			for (uint64_t ci = 0; ci < c_in; ci++)
				d = hr_fma(ld(sp, ci * s1), ld(kp, ci * k1), d);
		}
		dst[i] = hr_from_compute<T>(d);
	}
}

template <typename T>
HR_DEVICE void conv2d(uint64_t w_out, uint64_t h_out, uint64_t stride, uint64_t padding,
		      uint64_t dilation, const hr_layout &info, const T *src, const T *kernel,
		      T *dst)
{
	typedef ACC(T) A;
	const uint64_t *v = info.v;
	const uint64_t c_in = v[1], h_in = v[2], w_in = v[3];
	const uint64_t s0 = v[4], s1 = v[5], s2 = v[6], s3 = v[7];
	const uint64_t c_out = v[8], h_k = v[10], w_k = v[11];
	const uint64_t k0 = v[12], k1 = v[13], k2 = v[14], k3 = v[15];

	HR_GRID_STRIDE_LOOP(i, v[0] * c_out * h_out * w_out) {
		uint64_t x, y, c;
		const uint64_t b = hr_divmod(hr_divmod(hr_divmod(i, w_out, &x), h_out, &y), c_out, &c);
		A d = 0;

		for (uint64_t ky = 0; ky < h_k; ky++) {
			const uint64_t py = y * stride + ky * dilation;

			if (py < padding || py - padding >= h_in)
				continue;
			for (uint64_t kx = 0; kx < w_k; kx++) {
				const uint64_t px = x * stride + kx * dilation;

				if (px < padding || px - padding >= w_in)
					continue;
				const T *sp = src + b * s0 + (py - padding) * s2 + (px - padding) * s3;
				const T *kp = kernel + c * k0 + ky * k2 + kx * k3;
				for (uint64_t ci = 0; ci < c_in; ci++)
					d = hr_fma(ld(sp, ci * s1), ld(kp, ci * k1), d);
			}
		}
		dst[i] = hr_from_compute<T>(d);
	}
}

/* ------------------------------------------------------------------ */
/* conv2d on the matrix units (f16/bf16): implicit GEMM                 */
/* ------------------------------------------------------------------ */
/*
 * dst = A B with M = b * h_out * w_out output pixels, N = c_out, K = c_in *
 * h_k * w_k (the weight's own (ci, ky, kx) order): A[m][k] is the input
 * under tap k of pixel m (0 in the padding), gathered from the NCHW source
 * through its strides; B[k][n] the weight of output channel n.  A block of
 * CONV_BLOCK threads takes 64 x 64 tiles of dst (grid-stride over tiles,
 * M fastest); 32-wide K slices go through registers (the next slice's
 * loads are in flight while the matrix units work on this one) into shared
 * memory, then through kernels/hr-matrix.h's fragments (MFMA, WMMA or
 * mma.sync; the host emulates the AMD ones lane for lane).  Each wave owns
 * 32 x (16 or 32) of the tile.  The tile is staged in shared memory so the
 * stores run along w.  Masking: pixels past M, channels past N and taps
 * past K load 0 and are not stored; taps in the padding load 0 (a weight of
 * inf there gives NaN, as an explicit zero padding would; the direct path
 * skips the term).
 *
 * The thread with index t loads pixel t % 64 of A at taps 8 (t / 64) .. + 8
 * of the slice; the slice's taps (input offset, dy, dx, weight offset) are
 * decoded once a block into a double-buffered table in shared memory (the
 * next slice's while this one is stored), read by a wave at one address.
 * Weights: see bpk below.  Offsets are 32-bit: conv_mma_fits sends larger
 * tensors, other block sizes and empty shapes to the direct path, so every
 * launch geometry stays correct.  Measured on the H100 (doc/BENCHMARKS.md):
 * 0.68x cuDNN at 8 x 64 x 56^2, 64 x 64 x 3^2; each thread decoding its own
 * taps 0.59x; weights gathered one channel a lane 0.28x.
 */
#if HR_MMA != HR_MMA_NONE
#define CONV_BLOCK 256
#define CONV_BM 64
#define CONV_BN 64
#define CONV_BK 32
#define CONV_LD (CONV_BK + 8)           /* 80-byte rows: 16-byte aligned, no bank conflicts */
#define CONV_LDC (CONV_BM + 8)
#define CONV_NW (CONV_BLOCK / HR_MMA_WAVE)
#define CONV_WN (2 * CONV_BN / CONV_NW) /* 2 waves along M (32 rows each) */
#define CONV_FN (CONV_WN / 16)
#define CONV_KT (CONV_BM * CONV_BK / CONV_BLOCK)  /* taps a thread loads a slice: 8 */

template <typename T> struct conv_is_half { static const bool value = false; };
template <> struct conv_is_half<hr_f16> { static const bool value = true; };
template <> struct conv_is_half<hr_bf16> { static const bool value = true; };

/* x <= lim for each term's largest index, and the sum too (all < 2^31). */
HR_DEVICE bool conv_mma_span(const uint64_t *dims, const uint64_t *st, int n, uint64_t lim)
{
	uint64_t s = 0;

	for (int i = 0; i < n; i++) {
		if (dims[i] == 0 || dims[i] > lim || st[i] > lim)
			return false;
		s += (dims[i] - 1) * st[i];
	}
	return s <= lim;
}

HR_DEVICE bool conv_mma_fits(uint64_t w_out, uint64_t h_out, uint64_t stride, uint64_t padding,
			     uint64_t dilation, const hr_layout &info)
{
	const uint64_t *v = info.v, lim = 0x7fffffffu;
	const uint64_t kd[4] = { v[8], v[1], v[10], v[11] };    /* c_out, c_in, h_k, w_k */

	if (blockDim.x != CONV_BLOCK || blockDim.y != 1 || blockDim.z != 1)
		return false;
	if (w_out == 0 || h_out == 0 || w_out > lim || h_out > lim || stride > lim ||
	    padding > lim || dilation > lim)
		return false;
	if (!conv_mma_span(v, v + 4, 4, lim) || !conv_mma_span(kd, v + 12, 4, lim))
		return false;
	if (kd[1] * kd[2] > lim || kd[1] * kd[2] * kd[3] > lim ||
	    v[0] * v[8] > lim / (h_out * w_out) ||
	    (h_out - 1) * stride + (kd[2] - 1) * dilation > lim ||
	    (w_out - 1) * stride + (kd[3] - 1) * dilation > lim)
		return false;
	return true;
}

template <typename T>
HR_DEVICE void conv2d_mma(uint32_t w_out, uint32_t h_out, uint32_t stride, uint32_t padding,
			  uint32_t dilation, const hr_layout &info, const T *src, const T *kernel,
			  T *dst)
{
	const uint64_t *v = info.v;
	const uint32_t nb = (uint32_t)v[0], c_in = (uint32_t)v[1], h_in = (uint32_t)v[2];
	const uint32_t w_in = (uint32_t)v[3], s0 = (uint32_t)v[4], s1 = (uint32_t)v[5];
	const uint32_t s2 = (uint32_t)v[6], s3 = (uint32_t)v[7], c_out = (uint32_t)v[8];
	const uint32_t h_k = (uint32_t)v[10], w_k = (uint32_t)v[11], k0 = (uint32_t)v[12];
	const uint32_t k1 = (uint32_t)v[13], k2 = (uint32_t)v[14], k3 = (uint32_t)v[15];
	const uint32_t hw = h_out * w_out, m_all = nb * hw, khw = h_k * w_k, kk = c_in * khw;
	const uint32_t tm = (m_all + CONV_BM - 1) / CONV_BM, tn = (c_out + CONV_BN - 1) / CONV_BN;
	const uint32_t nkt = (kk + CONV_BK - 1) / CONV_BK;
	const int tid = (int)threadIdx.x, row = tid % CONV_BM, kg = tid / CONV_BM;
	const int wave = tid / HR_MMA_WAVE, wm0 = 32 * (wave % 2), wn0 = CONV_WN * (wave / 2);
	/*
	 * Weights with K contiguous (a contiguous (c_out, c_in, kh, kw) tensor,
	 * rows of k0 elements): thread t loads 8 consecutive k of channel t / 4
	 * (4 threads a 64-byte run, one 16-byte load where aligned) instead of
	 * one channel a lane (32 cache lines a load).
	 */
	const bool bpk = k3 == 1 && k2 == w_k && k1 == khw;
	const bool bvec = bpk && k0 % CONV_KT == 0 && hr_aligned_to(kernel, 16);
	const int brow = bpk ? tid / 4 : row, bcol = bpk ? tid % 4 * CONV_KT : kg * CONV_KT;

	alignas(16) __shared__ T as[CONV_BM][CONV_LD];
	alignas(16) __shared__ T bs[CONV_BN][CONV_LD];
	alignas(16) __shared__ T cs[CONV_BN][CONV_LDC];
	/* Slice kt's taps in taps[kt % 2]: input offset, dy, dx, weight offset. */
	alignas(16) __shared__ uint32_t taps[2][CONV_BK][4];

	auto fill = [&](uint32_t kt) {
		const uint32_t k = kt * CONV_BK + (uint32_t)tid;

		if (tid < CONV_BK && k < kk) {
			const uint32_t ic = k / khw, r = k % khw, ky = r / w_k, kx = r % w_k;
			const uint32_t dy = ky * dilation, dx = kx * dilation;
			uint32_t *e = taps[kt % 2][tid];

			e[0] = ic * s1 + dy * s2 + dx * s3;
			e[1] = dy;
			e[2] = dx;
			e[3] = ic * k1 + ky * k2 + kx * k3;
		}
	};

	for (uint64_t tile = blockIdx.x; tile < (uint64_t)tm * tn; tile += gridDim.x) {
		const uint32_t m = (uint32_t)(tile % tm) * CONV_BM + (uint32_t)row;
		const uint32_t n0 = (uint32_t)(tile / tm) * CONV_BN;
		const bool mok = m < m_all;
		const uint32_t b = mok ? m / hw : 0, pix = mok ? m % hw : 0;
		const uint32_t oy = pix / w_out * stride, ox = pix % w_out * stride;
		/* The pixel's offset at tap (0, 0, 0), modulo 2^32 (it may lie in the padding). */
		const uint32_t abase = b * s0 + (oy - padding) * s2 + (ox - padding) * s3;
		const uint32_t nw = n0 + (uint32_t)brow, bbase = nw * k0;
		const bool nok = nw < c_out;
		hr_vecn<uint16_t, CONV_KT> ra, rb;
		hr_mma_acc acc[2][CONV_FN];

		/* Slice kt's taps of this thread into ra (input) and rb (weights). */
		auto gather = [&](uint32_t kt) {
			const uint32_t kf = kt * CONV_BK + (uint32_t)kg * CONV_KT;
			const uint32_t (*tp)[4] = &taps[kt % 2][kg * CONV_KT];

			if (bpk) {
				const uint32_t kb = kt * CONV_BK + (uint32_t)bcol;

				if (bvec && nok && kb + CONV_KT <= kk) {
					rb = *(const hr_vecn<uint16_t, CONV_KT> *)(const void *)
						(kernel + bbase + kb);
				} else {
#pragma unroll
					for (int j = 0; j < CONV_KT; j++)
						rb.v[j] = nok && kb + (uint32_t)j < kk ?
							  kernel[bbase + kb + (uint32_t)j].bits : 0;
				}
			}

#pragma unroll
			for (int j = 0; j < CONV_KT; j++) {
				const bool kok = kf + (uint32_t)j < kk;
				const hr_vecn<uint32_t, 4> e = *(const hr_vecn<uint32_t, 4> *)(const void *)tp[j];
				const bool in = mok && kok && oy + e.v[1] - padding < h_in &&
						ox + e.v[2] - padding < w_in;

				ra.v[j] = in ? src[abase + e.v[0]].bits : 0;
				if (!bpk)
					rb.v[j] = nok && kok ? kernel[bbase + e.v[3]].bits : 0;
			}
		};

#pragma unroll
		for (int i = 0; i < 2; i++)
#pragma unroll
			for (int j = 0; j < CONV_FN; j++)
				hr_mma_zero(acc[i][j]);
		fill(0);
		__syncthreads();        /* taps[0] is in (and read by no one) */
		gather(0);
		for (uint32_t kt = 0; kt < nkt; kt++) {
			__syncthreads();        /* the previous slice is consumed */
			*(hr_vecn<uint16_t, CONV_KT> *)(void *)&as[row][kg * CONV_KT] = ra;
			*(hr_vecn<uint16_t, CONV_KT> *)(void *)&bs[brow][bcol] = rb;
			if (kt + 1 < nkt)
				fill(kt + 1);   /* taps[(kt + 1) % 2] was last read before the barrier above */
			__syncthreads();
			if (kt + 1 < nkt)
				gather(kt + 1);
#pragma unroll
			for (int ks = 0; ks < CONV_BK; ks += 16) {
				hr_mma_a<T> fa[2];
				hr_mma_b<T> fb[CONV_FN];

#pragma unroll
				for (int i = 0; i < 2; i++)
					hr_mma_load_a_smem(fa[i], &as[wm0 + 16 * i][ks], CONV_LD);
#pragma unroll
				for (int j = 0; j < CONV_FN; j++)
					hr_mma_load_bt_smem(fb[j], &bs[wn0 + 16 * j][ks], CONV_LD);
#pragma unroll
				for (int i = 0; i < 2; i++)
#pragma unroll
					for (int j = 0; j < CONV_FN; j++)
						hr_mma_run(acc[i][j], fa[i], fb[j]);
			}
		}
		/* cs was last read before this tile's first barrier. */
#pragma unroll
		for (int i = 0; i < 2; i++)
#pragma unroll
			for (int j = 0; j < CONV_FN; j++)
#pragma unroll
				for (int e = 0; e < HR_MMA_NC; e++)
					cs[wn0 + 16 * j + hr_mma_acc_col(e)][wm0 + 16 * i + hr_mma_acc_row(e)] =
						hr_from_f32<T>(acc[i][j].v[e]);
		__syncthreads();
		if (mok) {
			T *dp = dst + ((uint64_t)b * c_out + n0) * hw + pix;

			for (int c = kg; c < CONV_BN && n0 + (uint32_t)c < c_out;
			     c += CONV_BLOCK / CONV_BM)
				dp[(uint64_t)c * hw] = cs[c][row];
		}
	}
}
#endif /* HR_MMA != HR_MMA_NONE */

/* conv2d's entry: the matrix units where the target, dtype and launch allow. */
template <typename T>
HR_DEVICE void conv2d_any(uint64_t w_out, uint64_t h_out, uint64_t stride, uint64_t padding,
			  uint64_t dilation, const hr_layout &info, const T *src, const T *kernel,
			  T *dst)
{
#if HR_MMA != HR_MMA_NONE
	if constexpr (conv_is_half<T>::value) {
		if (conv_mma_fits(w_out, h_out, stride, padding, dilation, info)) {
			conv2d_mma<T>((uint32_t)w_out, (uint32_t)h_out, (uint32_t)stride,
				      (uint32_t)padding, (uint32_t)dilation, info, src, kernel, dst);
			return;
		}
	}
#endif
	conv2d<T>(w_out, h_out, stride, padding, dilation, info, src, kernel, dst);
}

/*
 * Input position feeding output position o through kernel tap j of a
 * transposed convolution: o = in * stride + j * dilation - padding.
 */
HR_DEVICE bool tr_source(uint64_t o, uint64_t j, uint64_t stride, uint64_t padding,
			 uint64_t dilation, uint64_t len, uint64_t *in)
{
	const uint64_t jd = j * dilation, t = o + padding;
	uint64_t r, q;

	if (t < jd)
		return false;
	q = hr_divmod(t - jd, stride, &r);
	if (r != 0 || q >= len)
		return false;
	*in = q;
	return true;
}

template <typename T>
HR_DEVICE void conv_transpose1d(uint64_t l_out, uint64_t stride, uint64_t padding,
				uint64_t dilation, const hr_layout &info, const T *src,
				const T *kernel, T *dst)
{
	typedef ACC(T) A;
	const uint64_t *v = info.v;
	const uint64_t c_in = v[1], l_in = v[2], s0 = v[3], s1 = v[4], s2 = v[5];
	const uint64_t c_out = v[7], l_k = v[8], k0 = v[9], k1 = v[10], k2 = v[11];

	if (stride == 0)
		return;
	HR_GRID_STRIDE_LOOP(i, v[0] * c_out * l_out) {
		uint64_t x, c, ix;
		const uint64_t b = hr_divmod(hr_divmod(i, l_out, &x), c_out, &c);
		A d = 0;

		for (uint64_t j = 0; j < l_k; j++) {
			if (!tr_source(x, j, stride, padding, dilation, l_in, &ix))
				continue;
			const T *sp = src + b * s0 + ix * s2;
			const T *kp = kernel + c * k1 + j * k2;
			for (uint64_t ci = 0; ci < c_in; ci++)
				d = hr_fma(ld(sp, ci * s1), ld(kp, ci * k0), d);
		}
		dst[i] = hr_from_compute<T>(d);
	}
}

template <typename T>
HR_DEVICE void conv_transpose2d(uint64_t w_out, uint64_t h_out, uint64_t stride,
				uint64_t padding, uint64_t dilation, const hr_layout &info,
				const T *src, const T *kernel, T *dst)
{
	typedef ACC(T) A;
	const uint64_t *v = info.v;
	const uint64_t c_in = v[1], h_in = v[2], w_in = v[3];
	const uint64_t s0 = v[4], s1 = v[5], s2 = v[6], s3 = v[7];
	const uint64_t c_out = v[9], h_k = v[10], w_k = v[11];
	const uint64_t k0 = v[12], k1 = v[13], k2 = v[14], k3 = v[15];

	if (stride == 0)
		return;
	HR_GRID_STRIDE_LOOP(i, v[0] * c_out * h_out * w_out) {
		uint64_t x, y, c, iy, ix;
		const uint64_t b = hr_divmod(hr_divmod(hr_divmod(i, w_out, &x), h_out, &y), c_out, &c);
		A d = 0;

		for (uint64_t ky = 0; ky < h_k; ky++) {
			if (!tr_source(y, ky, stride, padding, dilation, h_in, &iy))
				continue;
			for (uint64_t kx = 0; kx < w_k; kx++) {
				if (!tr_source(x, kx, stride, padding, dilation, w_in, &ix))
					continue;
				const T *sp = src + b * s0 + iy * s2 + ix * s3;
				const T *kp = kernel + c * k1 + ky * k2 + kx * k3;
				for (uint64_t ci = 0; ci < c_in; ci++)
					d = hr_fma(ld(sp, ci * s1), ld(kp, ci * k0), d);
			}
		}
		dst[i] = hr_from_compute<T>(d);
	}
}

/* ------------------------------------------------------------------ */
/* im2col / col2im                                                      */
/* ------------------------------------------------------------------ */
/* One output element per loop step (candle: one thread per row of l_k):
 * neighbouring threads write neighbouring elements. */
template <typename T>
HR_DEVICE void im2col1d(uint64_t numel, uint64_t l_out, uint64_t l_k, uint64_t stride,
			uint64_t padding, uint64_t dilation, const hr_layout &info,
			const T *src, T *dst)
{
	const uint64_t *v = info.v;
	const uint64_t c_in = v[1], l_in = v[2], s0 = v[3], s1 = v[4], s2 = v[5];

	if (l_out == 0 || c_in == 0)
		return;
	HR_GRID_STRIDE_LOOP(i, numel * l_k) {
		uint64_t j, c, x;
		const uint64_t b = hr_divmod(hr_divmod(hr_divmod(i, l_k, &j), c_in, &c), l_out, &x);
		const uint64_t p = x * stride + j * dilation;

		if (p < padding || p - padding >= l_in)
			dst[i] = hr_from_compute<T>(0);
		else
			dst[i] = src[b * s0 + c * s1 + (p - padding) * s2];
	}
}

template <typename T>
HR_DEVICE void col2im1d(uint64_t dst_el, uint64_t l_out, uint64_t l_in, uint64_t c_out,
			uint64_t k_size, uint64_t stride, const T *src, T *dst)
{
	typedef ACC(T) A;

	if (stride == 0 || l_out == 0 || c_out == 0)
		return;
	HR_GRID_STRIDE_LOOP(i, dst_el) {
		uint64_t x, c, k;
		const uint64_t b = hr_divmod(hr_divmod(i, l_out, &x), c_out, &c);
		/* Input positions q with q * stride <= x < q * stride + k_size,
		 * from the last one down. */
		uint64_t q = hr_divmod(x, stride, &k);
		A d = 0;

		for (;;) {
			if (k >= k_size)
				break;
			if (q < l_in)
				d += ld(src, ((b * l_in + q) * c_out + c) * k_size + k);
			if (q == 0)
				break;
			q--;
			k += stride;
		}
		dst[i] = hr_from_compute<T>(d);
	}
}

template <typename T>
HR_DEVICE void im2col(uint64_t numel, uint64_t h_out, uint64_t w_out, uint64_t h_k,
		      uint64_t w_k, uint64_t stride, uint64_t padding, uint64_t dilation,
		      const hr_layout &info, const T *src, T *dst)
{
	const uint64_t *v = info.v;
	const uint64_t c_in = v[1], h_in = v[2], w_in = v[3];
	const uint64_t s0 = v[4], s1 = v[5], s2 = v[6], s3 = v[7];

	if (h_out == 0 || w_out == 0 || h_k == 0 || w_k == 0 || c_in == 0)
		return;
	HR_GRID_STRIDE_LOOP(i, numel) {
		uint64_t kx, ky, c, x, y;
		uint64_t r = hr_divmod(hr_divmod(i, w_k, &kx), h_k, &ky);

		r = hr_divmod(hr_divmod(r, c_in, &c), w_out, &x);
		const uint64_t b = hr_divmod(r, h_out, &y);
		const uint64_t py = y * stride + ky * dilation, px = x * stride + kx * dilation;

		if (py < padding || py - padding >= h_in || px < padding || px - padding >= w_in)
			dst[i] = hr_from_compute<T>(0);
		else
			dst[i] = src[b * s0 + c * s1 + (py - padding) * s2 + (px - padding) * s3];
	}
}

/* ------------------------------------------------------------------ */
/* Pooling                                                              */
/* ------------------------------------------------------------------ */
/* Windows lie inside the input (no padding): k <= dims, stride >= 1. */
/*
 * dst[i] = f(b, c, o2, o3) over the n = b x c x o2n x o3n outputs (pools
 * and upsampling).  When o3n is a multiple of 4, a thread takes 4 adjacent
 * outputs of one row: one index decomposition (three divisions) and one
 * 4-element store for 4 outputs instead of one each (the launch: vec=4).
 */
template <typename T, typename F>
HR_DEVICE void conv_map_rows(uint64_t n, uint64_t c, uint64_t o2n, uint64_t o3n, T *dst,
			     const F &f)
{
	if (o3n % 4 == 0) {
		const bool vec = hr_aligned_to(dst, 4 * sizeof(T));

		HR_GRID_STRIDE_LOOP(v, n / 4) {
			uint64_t o3, o2, ci;
			const uint64_t b = hr_divmod(hr_divmod(hr_divmod(v * 4, o3n, &o3), o2n, &o2),
						     c, &ci);
			hr_vecn<T, 4> q;

#pragma unroll
			for (int k = 0; k < 4; k++)
				q.v[k] = f(b, ci, o2, o3 + (uint64_t)k);
			if (vec) {
				((hr_vecn<T, 4> *)dst)[v] = q;
			} else {
#pragma unroll
				for (int k = 0; k < 4; k++)
					dst[v * 4 + (uint64_t)k] = q.v[k];
			}
		}
		return;
	}
	HR_GRID_STRIDE_LOOP(i, n) {
		uint64_t o3, o2, ci;
		const uint64_t b = hr_divmod(hr_divmod(hr_divmod(i, o3n, &o3), o2n, &o2), c, &ci);

		dst[i] = f(b, ci, o2, o3);
	}
}

template <bool MAX, typename T>
HR_DEVICE void pool2d(uint64_t k2, uint64_t k3, uint64_t st2, uint64_t st3,
		      const hr_layout &info, const T *src, T *dst)
{
	typedef ACC(T) A;
	const uint64_t *v = info.v;
	const uint64_t c = v[1], n2 = v[2], n3 = v[3], s0 = v[4], s1 = v[5], s2 = v[6], s3 = v[7];

	if (k2 == 0 || k3 == 0 || st2 == 0 || st3 == 0 || k2 > n2 || k3 > n3)
		return;
	const uint64_t o2n = (n2 - k2) / st2 + 1, o3n = (n3 - k3) / st3 + 1;

	conv_map_rows(v[0] * c * o2n * o3n, c, o2n, o3n, dst,
		      [&](uint64_t b, uint64_t ci, uint64_t o2, uint64_t o3) {
		const T *sp = src + b * s0 + ci * s1 + o2 * st2 * s2 + o3 * st3 * s3;
		A d = MAX ? ld(sp, 0) : (A)0;

		for (uint64_t a = 0; a < k2; a++)
			for (uint64_t e = 0; e < k3; e++) {
				const A x = ld(sp, a * s2 + e * s3);
				d = MAX ? hr_max(d, x) : d + x;
			}
		return hr_from_compute<T>(MAX ? d : d / (A)(k2 * k3));
	});
}

/* ------------------------------------------------------------------ */
/* Upsampling                                                           */
/* ------------------------------------------------------------------ */
/* floor(o * scale) clamped to [0, n - 1]; NaN and negative give 0. */
HR_DEVICE uint64_t nearest_index(uint64_t o, double scale, uint64_t n)
{
	const double f = (double)o * scale;

	if (!(f >= 0.0))
		return 0;
	if (f >= (double)(n - 1))
		return n - 1;
	return (uint64_t)f;
}

template <typename T>
HR_DEVICE void upsample_nearest2d(uint64_t o2n, uint64_t o3n, double scale2, double scale3,
				  const hr_layout &info, const T *src, T *dst)
{
	const uint64_t *v = info.v;
	const uint64_t c = v[1], n2 = v[2], n3 = v[3], s0 = v[4], s1 = v[5], s2 = v[6], s3 = v[7];

	if (n2 == 0 || n3 == 0)
		return;
	conv_map_rows(v[0] * c * o2n * o3n, c, o2n, o3n, dst,
		      [&](uint64_t b, uint64_t ci, uint64_t o2, uint64_t o3) {
		return src[b * s0 + ci * s1 + nearest_index(o2, scale2, n2) * s2 +
			   nearest_index(o3, scale3, n3) * s3];
	});
}

/*
 * Source coordinate of output o (PyTorch's area_pixel_compute_source_index),
 * in double as candle, clamped to [0, n - 1]; *lo = floor, *w = the weight
 * of the next sample.
 */
HR_DEVICE void bilinear_source(uint64_t o, double scale, bool align_corners, uint64_t n,
			       uint64_t *lo, double *w)
{
	double f = align_corners ? scale * (double)o : scale * ((double)o + 0.5) - 0.5;

	if (!(f >= 0.0))
		f = 0.0;
	if (f > (double)(n - 1))
		f = (double)(n - 1);
	*lo = (uint64_t)f;
	*w = f - (double)*lo;
}

HR_DEVICE double bilinear_scale(uint64_t in, uint64_t out, bool align_corners, bool has_scale,
				double factor)
{
	if (align_corners)
		return out > 1 ? (double)(in - 1) / (double)(out - 1) : 0.0;
	return has_scale ? 1.0 / factor : (double)in / (double)out;
}

template <typename T>
HR_DEVICE void upsample_bilinear2d(uint64_t w_out, uint64_t h_out, bool align_corners,
				   bool has_scale_h, double scale_h_factor, bool has_scale_w,
				   double scale_w_factor, const hr_layout &info, const T *src,
				   T *dst)
{
	typedef ACC(T) A;
	const uint64_t *v = info.v;
	const uint64_t c = v[1], h_in = v[2], w_in = v[3];
	const uint64_t s0 = v[4], s1 = v[5], s2 = v[6], s3 = v[7];

	if (h_in == 0 || w_in == 0)
		return;
	const double sh = bilinear_scale(h_in, h_out, align_corners, has_scale_h, scale_h_factor);
	const double sw = bilinear_scale(w_in, w_out, align_corners, has_scale_w, scale_w_factor);

	conv_map_rows(v[0] * c * h_out * w_out, c, h_out, w_out, dst,
		      [&](uint64_t b, uint64_t ci, uint64_t y, uint64_t x) {
		uint64_t y0, x0;
		double wy, wx;

		bilinear_source(y, sh, align_corners, h_in, &y0, &wy);
		bilinear_source(x, sw, align_corners, w_in, &x0, &wx);
		const uint64_t y1 = y0 + 1 < h_in ? y0 + 1 : y0, x1 = x0 + 1 < w_in ? x0 + 1 : x0;
		const T *sp = src + b * s0 + ci * s1;
		const A ay = (A)wy, ax = (A)wx;
		const A top = ld(sp, y0 * s2 + x0 * s3) * ((A)1 - ax) + ld(sp, y0 * s2 + x1 * s3) * ax;
		const A bot = ld(sp, y1 * s2 + x0 * s3) * ((A)1 - ax) + ld(sp, y1 * s2 + x1 * s3) * ax;

		return hr_from_compute<T>(top * ((A)1 - ay) + bot * ay);
	});
}

/* ------------------------------------------------------------------ */
/* Entry points                                                         */
/* ------------------------------------------------------------------ */
/* LB: conv2d's launch bounds (f16/bf16: 1024, so that the implicit GEMM's
 * registers never refuse a block the direct path takes). */
#define HR_CONV_OPS(S, T, LB) \
	HR_KERNEL void conv1d_##S(size_t src_numel, size_t l_out, size_t stride, \
				  size_t padding, size_t dilation, HR_LAYOUT_PARAM(info), \
				  const T *src, const T *kernel, T *dst) \
	{ \
		(void)src_numel; \
		conv1d<T>(l_out, stride, padding, dilation, info, src, kernel, dst); \
	} \
	HR_KERNEL void LB conv2d_##S(size_t src_numel, size_t w_out, size_t h_out, \
				     size_t stride, size_t padding, size_t dilation, \
				     HR_LAYOUT_PARAM(info), const T *src, const T *kernel, \
				     T *dst) \
	{ \
		(void)src_numel; \
		conv2d_any<T>(w_out, h_out, stride, padding, dilation, info, src, kernel, dst); \
	} \
	HR_KERNEL void conv_transpose1d_##S(size_t src_numel, size_t l_out, size_t stride, \
					    size_t padding, size_t out_padding, size_t dilation, \
					    HR_LAYOUT_PARAM(info), const T *src, \
					    const T *kernel, T *dst) \
	{ \
		(void)src_numel; \
		(void)out_padding; \
		conv_transpose1d<T>(l_out, stride, padding, dilation, info, src, kernel, dst); \
	} \
	HR_KERNEL void conv_transpose2d_##S(size_t src_numel, size_t w_out, size_t h_out, \
					    size_t stride, size_t padding, size_t out_padding, \
					    size_t dilation, HR_LAYOUT_PARAM(info), \
					    const T *src, const T *kernel, T *dst) \
	{ \
		(void)src_numel; \
		(void)out_padding; \
		conv_transpose2d<T>(w_out, h_out, stride, padding, dilation, info, src, kernel, \
				    dst); \
	} \
	HR_KERNEL void im2col1d_##S(size_t dst_numel, size_t l_out, size_t l_k, size_t stride, \
				    size_t padding, size_t dilation, HR_LAYOUT_PARAM(info), \
				    const T *src, T *dst) \
	{ \
		im2col1d<T>(dst_numel, l_out, l_k, stride, padding, dilation, info, src, dst); \
	} \
	HR_KERNEL void col2im1d_##S(size_t dst_el, size_t l_out, size_t l_in, size_t c_out, \
				    size_t k_size, size_t stride, const T *src, T *dst) \
	{ \
		col2im1d<T>(dst_el, l_out, l_in, c_out, k_size, stride, src, dst); \
	} \
	HR_KERNEL void im2col_##S(size_t dst_numel, size_t h_out, size_t w_out, size_t h_k, \
				  size_t w_k, size_t stride, size_t padding, size_t dilation, \
				  HR_LAYOUT_PARAM(info), const T *src, T *dst) \
	{ \
		im2col<T>(dst_numel, h_out, w_out, h_k, w_k, stride, padding, dilation, info, \
			  src, dst); \
	} \
	HR_KERNEL void avg_pool2d_##S(size_t src_numel, size_t w_k, size_t h_k, \
				      size_t w_stride, size_t h_stride, \
				      HR_LAYOUT_PARAM(info), const T *src, T *dst) \
	{ \
		(void)src_numel; \
		pool2d<false, T>(w_k, h_k, w_stride, h_stride, info, src, dst); \
	} \
	HR_KERNEL void max_pool2d_##S(size_t src_numel, size_t w_k, size_t h_k, \
				      size_t w_stride, size_t h_stride, \
				      HR_LAYOUT_PARAM(info), const T *src, T *dst) \
	{ \
		(void)src_numel; \
		pool2d<true, T>(w_k, h_k, w_stride, h_stride, info, src, dst); \
	} \
	HR_KERNEL void upsample_nearest2d_##S(size_t w_out, size_t h_out, double w_scale, \
					      double h_scale, HR_LAYOUT_PARAM(info), \
					      const T *src, T *dst) \
	{ \
		upsample_nearest2d<T>(w_out, h_out, w_scale, h_scale, info, src, dst); \
	} \
	HR_KERNEL void upsample_bilinear2d_##S(size_t w_out, size_t h_out, bool align_corners, \
					       bool has_scale_h, double scale_h_factor, \
					       bool has_scale_w, double scale_w_factor, \
					       HR_LAYOUT_PARAM(info), const T *src, T *dst) \
	{ \
		upsample_bilinear2d<T>(w_out, h_out, align_corners, has_scale_h, \
				       scale_h_factor, has_scale_w, scale_w_factor, info, \
				       src, dst); \
	}

HR_CONV_OPS(f32, float, )
HR_CONV_OPS(f64, double, )
HR_CONV_OPS(f16, hr_f16, __launch_bounds__(1024))
HR_CONV_OPS(bf16, hr_bf16, __launch_bounds__(1024))
