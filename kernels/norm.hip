// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * norm family: row-wise softmax, RMSNorm, LayerNorm and the fused residual
 * add + RMSNorm of transformer layers, candle's names and argument order
 * (int ncols: a row's column count; offsets are 64-bit):
 *
 *   softmax_T(const T *src, T *dst, int ncols)
 *   rmsnorm_T(const T *x, T *dst, const T *alpha, int ncols, int block_size, float eps)
 *   layernorm_T(const T *x, T *dst, const T *alpha, const T *beta,
 *               int ncols, int block_size, float eps)
 *   add_rmsnorm_T(const T *x, const T *residual, T *dst, T *residual_out,
 *                 const T *alpha, int ncols, int block_size, float eps)
 *
 * Contiguous rows; block b normalizes row b (grid = rows), the whole block
 * on one row (a block reduction, not one wave: 152k-column rows read at
 * full speed).  block_size is candle's and must equal blockDim.x; the
 * kernels use blockDim.x.  alpha (weight) and beta (bias) may be NULL
 * (1 and 0).  f16/bf16 accumulate in float, f64 in double.
 *
 *   softmax:   y = exp(x - max) / sum(exp(x - max)), max and sum in one read
 *              (online rescaling); a NaN in the row makes the row NaN, a
 *              row of -inf is NaN (torch); -inf entries give 0.
 *   rmsnorm:   y = x / sqrt(mean(x^2) + eps) * alpha
 *   layernorm: y = (x - mean) / sqrt(var + eps) * alpha + beta, var biased
 *              and computed from (x - mean)^2 (two reads: no cancellation
 *              on rows far from zero)
 *   add_rmsnorm: h = x + residual, rounded to T and stored in residual_out
 *              (which may be x or residual); y = rmsnorm(h) * alpha - what
 *              the unfused add then rmsnorm would give.
 */
#include "hr-kernel.h"
#include "hr-rows.h"

template <typename T>
HR_DEVICE typename hr_compute<T>::type weight_or(const T *w, uint64_t j, float dflt)
{
	typedef typename hr_compute<T>::type C;
	return w ? hr_to_compute(w[j]) : (C)dflt;
}

template <typename T>
HR_DEVICE void softmax_row(const T *src, T *dst, int ncols)
{
	typedef typename hr_compute<T>::type C;
	const uint64_t n = ncols > 0 ? (uint64_t)ncols : 0, off = (uint64_t)blockIdx.x * n;
	hr_maxsum<C> a = { (C)-INFINITY, (C)0 };

	src += off;
	dst += off;
	for (uint64_t j = threadIdx.x; j < n; j += blockDim.x)
		a = hr_maxsum_add(a, hr_to_compute(src[j]));
	a = hr_block_reduce(a, hr_op_maxsum());
	for (uint64_t j = threadIdx.x; j < n; j += blockDim.x)
		dst[j] = hr_from_compute<T>(hr_exp(hr_to_compute(src[j]) - a.m) / a.s);
}

/* y = x * scale * alpha over one row (x read from xs, the stored values). */
template <typename T>
HR_DEVICE void scale_row(const T *xs, T *dst, const T *alpha, uint64_t n,
			 typename hr_compute<T>::type scale)
{
	for (uint64_t j = threadIdx.x; j < n; j += blockDim.x)
		dst[j] = hr_from_compute<T>(hr_to_compute(xs[j]) * scale * weight_or(alpha, j, 1.0f));
}

template <typename T>
HR_DEVICE void rmsnorm_row(const T *x, T *dst, const T *alpha, int ncols, float eps)
{
	typedef typename hr_compute<T>::type C;
	const uint64_t n = ncols > 0 ? (uint64_t)ncols : 0, off = (uint64_t)blockIdx.x * n;
	C ss = 0;

	if (n == 0)
		return;
	x += off;
	dst += off;
	for (uint64_t j = threadIdx.x; j < n; j += blockDim.x) {
		C v = hr_to_compute(x[j]);
		ss += v * v;
	}
	ss = hr_block_reduce(ss, hr_op_sum());
	scale_row(x, dst, alpha, n, (C)1 / hr_sqrt(ss / (C)n + (C)eps));
}

template <typename T>
HR_DEVICE void add_rmsnorm_row(const T *x, const T *residual, T *dst, T *residual_out,
			       const T *alpha, int ncols, float eps)
{
	typedef typename hr_compute<T>::type C;
	const uint64_t n = ncols > 0 ? (uint64_t)ncols : 0, off = (uint64_t)blockIdx.x * n;
	C ss = 0;

	if (n == 0)
		return;
	x += off;
	residual += off;
	residual_out += off;
	dst += off;
	/* Thread t writes and later reads back the same j: no barrier needed
	 * between the passes, and in-place use (residual_out == x) is safe. */
	for (uint64_t j = threadIdx.x; j < n; j += blockDim.x) {
		T h = hr_from_compute<T>(hr_to_compute(x[j]) + hr_to_compute(residual[j]));
		C v = hr_to_compute(h);

		residual_out[j] = h;
		ss += v * v;
	}
	ss = hr_block_reduce(ss, hr_op_sum());
	scale_row((const T *)residual_out, dst, alpha, n, (C)1 / hr_sqrt(ss / (C)n + (C)eps));
}

template <typename T>
HR_DEVICE void layernorm_row(const T *x, T *dst, const T *alpha, const T *beta, int ncols,
			     float eps)
{
	typedef typename hr_compute<T>::type C;
	const uint64_t n = ncols > 0 ? (uint64_t)ncols : 0, off = (uint64_t)blockIdx.x * n;
	C sum = 0, var = 0, mean, rstd;

	if (n == 0)
		return;
	x += off;
	dst += off;
	for (uint64_t j = threadIdx.x; j < n; j += blockDim.x)
		sum += hr_to_compute(x[j]);
	mean = hr_block_reduce(sum, hr_op_sum()) / (C)n;
	for (uint64_t j = threadIdx.x; j < n; j += blockDim.x) {
		C d = hr_to_compute(x[j]) - mean;
		var += d * d;
	}
	var = hr_block_reduce(var, hr_op_sum()) / (C)n;
	rstd = (C)1 / hr_sqrt(var + (C)eps);
	for (uint64_t j = threadIdx.x; j < n; j += blockDim.x) {
		C y = (hr_to_compute(x[j]) - mean) * rstd * weight_or(alpha, j, 1.0f);
		dst[j] = hr_from_compute<T>(y + weight_or(beta, j, 0.0f));
	}
}

#define NORMS(T, SUF) \
	HR_KERNEL void softmax_##SUF(const T *src, T *dst, int ncols) \
	{ \
		softmax_row<T>(src, dst, ncols); \
	} \
	HR_KERNEL void rmsnorm_##SUF(const T *x, T *dst, const T *alpha, int ncols, \
				     int block_size, float eps) \
	{ \
		(void)block_size; \
		rmsnorm_row<T>(x, dst, alpha, ncols, eps); \
	} \
	HR_KERNEL void layernorm_##SUF(const T *x, T *dst, const T *alpha, const T *beta, \
				       int ncols, int block_size, float eps) \
	{ \
		(void)block_size; \
		layernorm_row<T>(x, dst, alpha, beta, ncols, eps); \
	} \
	HR_KERNEL void add_rmsnorm_##SUF(const T *x, const T *residual, T *dst, \
					 T *residual_out, const T *alpha, int ncols, \
					 int block_size, float eps) \
	{ \
		(void)block_size; \
		add_rmsnorm_row<T>(x, residual, dst, residual_out, alpha, ncols, eps); \
	}

NORMS(float, f32)
NORMS(double, f64)
NORMS(hr_f16, f16)
NORMS(hr_bf16, bf16)
