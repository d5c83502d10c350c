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
 * full speed).  Aligned rows of up to 16 elements per thread stay in
 * registers between the statistics and the write (see norm_cached).
 * block_size is candle's and must equal blockDim.x; the kernels use
 * blockDim.x.  alpha (weight) and beta (bias) may be NULL
 * (1 and 0).  f16/bf16 accumulate in float, f64 in double.
 *
 *   softmax:   y = exp(x - max) / sum(exp(x - max)), max and sum in one read
 *              (online rescaling; a row held in registers: the max, then
 *              exp once per element); a NaN in the row makes the row NaN, a
 *              row of -inf is NaN (torch); -inf entries give 0.
 *   rmsnorm:   y = x / sqrt(mean(x^2) + eps) * alpha
 *   layernorm: y = (x - mean) / sqrt(var + eps) * alpha + beta, var biased
 *              and computed from (x - mean)^2 (two reads: no cancellation
 *              on rows far from zero)
 *   add_rmsnorm: h = x + residual, rounded to T and stored in residual_out
 *              (which may be x or residual); y = rmsnorm(h) * alpha - what
 *              the unfused add then rmsnorm would give.
 *
 * When rows are few and long (32 rows x 151936 logits) one block per row
 * leaves most of the GPU idle, so each op also has a two-pass form over
 * (row, chunk) blocks, the same split as reduce's fast_OP_split_T:
 *
 *   softmax_split_T(const T *src, void *ws, int ncols)
 *   rmsnorm_split_T(const T *x, void *ws, int ncols)
 *   layernorm_split_T(const T *x, void *ws, int ncols)
 *   add_rmsnorm_split_T(const T *x, const T *residual, T *residual_out,
 *                       void *ws, int ncols)
 *       grid (rows, splits): block (r, y) reduces chunk y of row r into
 *       ws[r * splits + y] - softmax (max, sum of exp(x - max)), rmsnorm a
 *       sum of squares, layernorm the chunk's mean and M2 (two reads of the
 *       chunk), add_rmsnorm the sum of squares of h, which it also stores.
 *   softmax_apply_T(const T *src, T *dst, int ncols, const void *ws, int splits)
 *   rmsnorm_apply_T(const T *x, T *dst, const T *alpha, int ncols, float eps,
 *                   const void *ws, int splits)
 *   layernorm_apply_T(const T *x, T *dst, const T *alpha, const T *beta,
 *                     int ncols, float eps, const void *ws, int splits)
 *   add_rmsnorm_apply_T(const T *residual_out, T *dst, const T *alpha,
 *                       int ncols, float eps, const void *ws, int splits)
 *       grid (rows, any): every block of row r merges the row's `splits`
 *       partials in a fixed order (the same statistics in every block, the
 *       same result every run - no atomics), then writes its chunk of the
 *       row.  splits is the split pass's grid y.
 *
 * Chunk y of splits: columns [y * c, (y + 1) * c) clipped to ncols, with
 * c = ceil(ncols / splits) - empty chunks write the identity.
 */
#include "hr-kernel.h"
#include "hr-rows.h"

template <typename T>
HR_DEVICE typename hr_compute<T>::type weight_or(const T *w, uint64_t j, float dflt)
{
	typedef typename hr_compute<T>::type C;
	return w ? hr_to_compute(w[j]) : (C)dflt;
}

/*
 * The cached vector path of the one-pass kernels.  Scalar 2-byte loads and
 * a second read of the row for the write pass left softmax/layernorm at half
 * of torch's speed (H100, 4096^2 and 8192^2).  When the element type is 2 or
 * 4 bytes, every pointer 16-byte aligned and ncols a multiple of the 16-byte
 * pack (so every row is aligned), and the row fits in NORM_CACHE elements per
 * thread, thread t loads packs t, t + B, ... once into registers (converted
 * to the compute type), reduces from there and writes from there: one read
 * of global memory, 16-byte accesses, and softmax's exp once per element.
 * Other rows (odd ncols, views at odd offsets, longer rows, f64) take the
 * scalar loops below.  The choice depends only on the arguments and
 * blockDim, so it is the same for every thread of the block (the barriers
 * of the reductions stay uniform).  16 elements: the default geometry gives
 * 8 per thread up to 8192 columns, 16 up to 16384; more registers per thread
 * would cost occupancy (1024-thread blocks get 64 registers on NVIDIA).
 */
#define NORM_CACHE 16

template <typename T>
struct norm_vec {
	static constexpr int N = HR_VEC_BYTES / sizeof(T);      /* elements per pack */
	static constexpr int K = NORM_CACHE / N;                /* packs per thread */
	typedef hr_vecn<T, N> V;
};

/* p is NULL (an absent weight) or 16-byte aligned. */
HR_DEVICE bool norm_vec_ok(const void *p)
{
	return !p || hr_aligned_to(p, HR_VEC_BYTES);
}

template <typename T>
HR_DEVICE bool norm_cached(uint64_t n, const void *a, const void *b, const void *c,
			   const void *d)
{
	const uint64_t N = norm_vec<T>::N, K = norm_vec<T>::K;

	return sizeof(T) <= 4 && n % N == 0 && n / N <= K * (uint64_t)blockDim.x &&
	       norm_vec_ok(a) && norm_vec_ok(b) && norm_vec_ok(c) && norm_vec_ok(d);
}

/* Pack i of this thread: index threadIdx.x + i * blockDim.x, valid if < nv. */
HR_DEVICE uint64_t norm_pack(int i)
{
	return threadIdx.x + (uint64_t)i * blockDim.x;
}

/* Loads this thread's packs of row src (nv packs) into c, as compute type. */
template <typename T>
HR_DEVICE void norm_load(const T *src, uint64_t nv,
			 typename hr_compute<T>::type (&c)[norm_vec<T>::K][norm_vec<T>::N])
{
	typedef norm_vec<T> NV;
	const typename NV::V *vs = (const typename NV::V *)src;

#pragma unroll
	for (int i = 0; i < NV::K; i++)
		if (norm_pack(i) < nv) {
			typename NV::V p = vs[norm_pack(i)];

#pragma unroll
			for (int k = 0; k < NV::N; k++)
				c[i][k] = hr_to_compute(p.v[k]);
		}
}

/* dst = c * scale * alpha (+ beta) for this thread's packs; c is centered by
 * the caller's sub (layernorm's mean, 0 otherwise). */
template <typename T>
HR_DEVICE void norm_store(T *dst, const T *alpha, const T *beta, uint64_t nv,
			  const typename hr_compute<T>::type (&c)[norm_vec<T>::K][norm_vec<T>::N],
			  typename hr_compute<T>::type sub, typename hr_compute<T>::type scale)
{
	typedef norm_vec<T> NV;
	typedef typename hr_compute<T>::type C;
	typename NV::V *vd = (typename NV::V *)dst;
	const typename NV::V *va = (const typename NV::V *)alpha;
	const typename NV::V *vb = (const typename NV::V *)beta;

#pragma unroll
	for (int i = 0; i < NV::K; i++)
		if (norm_pack(i) < nv) {
			const uint64_t v = norm_pack(i);
			typename NV::V a = {}, b = {}, q;

			if (alpha)
				a = va[v];
			if (beta)
				b = vb[v];
#pragma unroll
			for (int k = 0; k < NV::N; k++) {
				C y = (c[i][k] - sub) * scale * (alpha ? hr_to_compute(a.v[k]) : (C)1);

				if (beta)
					y = y + hr_to_compute(b.v[k]);
				q.v[k] = hr_from_compute<T>(y);
			}
			vd[v] = q;
		}
}

/* softmax of a cached row: the block's max first, then e = exp(x - max)
 * once per element, kept for the write.  Same results as the online form:
 * a NaN makes the row NaN, a row of -inf is NaN, -inf entries give 0.
 * A +inf makes the whole row NaN here (inf - inf in the sum); the online
 * form gives NaN there and 0 elsewhere when the row has exactly one. */
template <typename T>
HR_DEVICE void softmax_cached(const T *src, T *dst, uint64_t n)
{
	typedef norm_vec<T> NV;
	typedef typename hr_compute<T>::type C;
	const uint64_t nv = n / NV::N;
	typename NV::V *vd = (typename NV::V *)dst;
	C c[NV::K][NV::N], m = (C)-INFINITY, s = 0;

	norm_load(src, nv, c);
#pragma unroll
	for (int i = 0; i < NV::K; i++)
		if (norm_pack(i) < nv)
#pragma unroll
			for (int k = 0; k < NV::N; k++)
				m = hr_max(m, c[i][k]);
	m = hr_block_reduce(m, hr_op_max());
#pragma unroll
	for (int i = 0; i < NV::K; i++)
		if (norm_pack(i) < nv)
#pragma unroll
			for (int k = 0; k < NV::N; k++) {
				c[i][k] = hr_exp(c[i][k] - m);
				s += c[i][k];
			}
	s = hr_block_reduce(s, hr_op_sum());
#pragma unroll
	for (int i = 0; i < NV::K; i++)
		if (norm_pack(i) < nv) {
			typename NV::V q;

#pragma unroll
			for (int k = 0; k < NV::N; k++)
				q.v[k] = hr_from_compute<T>(c[i][k] / s);
			vd[norm_pack(i)] = q;
		}
}

template <typename T>
HR_DEVICE void softmax_row(const T *src, T *dst, int ncols)
{
	typedef typename hr_compute<T>::type C;
	const uint64_t n = ncols > 0 ? (uint64_t)ncols : 0, off = (uint64_t)blockIdx.x * n;
	hr_maxsum<C> a = { (C)-INFINITY, (C)0 };

	if (n > 0 && norm_cached<T>(n, src, dst, NULL, NULL)) {
		softmax_cached(src + off, dst + off, n);
		return;
	}
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
	if (norm_cached<T>(n, x, dst, alpha, NULL)) {
		typedef norm_vec<T> NV;
		const uint64_t nv = n / NV::N;
		C c[NV::K][NV::N];

		norm_load(x + off, nv, c);
#pragma unroll
		for (int i = 0; i < NV::K; i++)
			if (norm_pack(i) < nv)
#pragma unroll
				for (int k = 0; k < NV::N; k++)
					ss += c[i][k] * c[i][k];
		ss = hr_block_reduce(ss, hr_op_sum());
		norm_store(dst + off, alpha, (const T *)NULL, nv, c, (C)0,
			   (C)1 / hr_sqrt(ss / (C)n + (C)eps));
		return;
	}
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
	bool cached;

	if (n == 0)
		return;
	cached = norm_cached<T>(n, x, residual, residual_out, dst) && norm_vec_ok(alpha);
	x += off;
	residual += off;
	residual_out += off;
	dst += off;
	if (cached) {
		typedef norm_vec<T> NV;
		typedef typename NV::V V;
		const uint64_t nv = n / NV::N;
		C c[NV::K][NV::N];

		/* h stored and kept (the same pack per thread: aliasing is safe). */
#pragma unroll
		for (int i = 0; i < NV::K; i++)
			if (norm_pack(i) < nv) {
				V a = ((const V *)x)[norm_pack(i)], b = ((const V *)residual)[norm_pack(i)];

#pragma unroll
				for (int k = 0; k < NV::N; k++) {
					a.v[k] = hr_from_compute<T>(hr_to_compute(a.v[k]) +
								    hr_to_compute(b.v[k]));
					c[i][k] = hr_to_compute(a.v[k]);
					ss += c[i][k] * c[i][k];
				}
				((V *)residual_out)[norm_pack(i)] = a;
			}
		ss = hr_block_reduce(ss, hr_op_sum());
		norm_store(dst, alpha, (const T *)NULL, nv, c, (C)0,
			   (C)1 / hr_sqrt(ss / (C)n + (C)eps));
		return;
	}
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
	if (norm_cached<T>(n, x, dst, alpha, beta)) {
		typedef norm_vec<T> NV;
		const uint64_t nv = n / NV::N;
		C c[NV::K][NV::N];

		norm_load(x + off, nv, c);
#pragma unroll
		for (int i = 0; i < NV::K; i++)
			if (norm_pack(i) < nv)
#pragma unroll
				for (int k = 0; k < NV::N; k++)
					sum += c[i][k];
		mean = hr_block_reduce(sum, hr_op_sum()) / (C)n;
#pragma unroll
		for (int i = 0; i < NV::K; i++)
			if (norm_pack(i) < nv)
#pragma unroll
				for (int k = 0; k < NV::N; k++) {
					C d = c[i][k] - mean;
					var += d * d;
				}
		var = hr_block_reduce(var, hr_op_sum()) / (C)n;
		norm_store(dst + off, alpha, beta, nv, c, mean, (C)1 / hr_sqrt(var + (C)eps));
		return;
	}
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

/* ---- two-pass (split) form ---- */

/* Chunk y of `splits` chunks of a row of n columns: [*begin, *end). */
HR_DEVICE void chunk_range(uint64_t n, uint64_t splits, uint64_t y, uint64_t *begin,
			   uint64_t *end)
{
	const uint64_t c = (n + splits - 1) / splits;
	const uint64_t b = y * c < n ? y * c : n;

	*begin = b;
	*end = b + c < n ? b + c : n;
}

/* This block's chunk of its row (blockIdx.y of gridDim.y chunks). */
HR_DEVICE void my_chunk(uint64_t n, uint64_t *begin, uint64_t *end)
{
	chunk_range(n, gridDim.y, blockIdx.y, begin, end);
}

HR_DEVICE uint64_t ncols_of(int ncols)
{
	return ncols > 0 ? (uint64_t)ncols : 0;
}

/* The partial slot of this block (split pass). */
template <typename P>
HR_DEVICE P *my_part(void *ws)
{
	return (P *)ws + (uint64_t)blockIdx.x * gridDim.y + blockIdx.y;
}

/* Merge of row blockIdx.x's `splits` partials by the whole block, in a
 * fixed order: thread t folds partials t, t + B, ... then the block tree. */
template <typename P, typename Op>
HR_DEVICE P merge_parts(const void *ws, int splits, P acc, const Op &op)
{
	const uint64_t s = splits > 0 ? (uint64_t)splits : 0;
	const P *part = (const P *)ws + (uint64_t)blockIdx.x * s;

	for (uint64_t y = threadIdx.x; y < s; y += blockDim.x)
		acc = op(acc, part[y]);
	return hr_block_reduce(acc, op);
}

/*
 * The 16-byte packs of chunk [b, e) of a row at p: head [b, *vb) up to the
 * first 16-byte boundary, *nv packs from *vb, the tail after them.  The
 * split form's chunks start anywhere (c = ceil(ncols / splits)), so the
 * head and tail go one element at a time.
 */
template <typename T>
HR_DEVICE void chunk_packs(const T *p, uint64_t b, uint64_t e, uint64_t *vb, uint64_t *nv)
{
	constexpr uint64_t N = HR_VEC_BYTES / sizeof(T);
	const uint64_t mis = ((uintptr_t)(p + b) / sizeof(T)) % N;
	uint64_t head = mis ? N - mis : 0;

	if (head > e - b)
		head = e - b;
	*vb = b + head;
	*nv = (e - *vb) / N;
}

/* Packs read ahead by each thread before it computes (the split passes'
 * chunks are 8 or more elements a thread: the loads of one thread overlap). */
#define SPLIT_UNROLL 4

template <typename T>
HR_DEVICE void softmax_split(const T *src, void *ws, int ncols)
{
	typedef typename hr_compute<T>::type C;
	const uint64_t n = ncols_of(ncols);
	hr_maxsum<C> a = { (C)-INFINITY, (C)0 };
	uint64_t b, e;

	my_chunk(n, &b, &e);
	src += (uint64_t)blockIdx.x * n;
	if (sizeof(T) <= 4 && e > b && hr_aligned_to(src, sizeof(T))) {
		/* 16-byte packs, SPLIT_UNROLL of them in flight a thread: scalar
		 * loads left the split form at 0.61-0.78x torch (32 x 151936). */
		constexpr int N = HR_VEC_BYTES / sizeof(T);
		typedef hr_vecn<T, N> V;
		uint64_t vb, nv;

		chunk_packs(src, b, e, &vb, &nv);
		const V *pk = (const V *)(src + vb);

		for (uint64_t j = b + threadIdx.x; j < vb; j += blockDim.x)
			a = hr_maxsum_add(a, hr_to_compute(src[j]));
		for (uint64_t v = threadIdx.x; v < nv; v += SPLIT_UNROLL * (uint64_t)blockDim.x) {
			V q[SPLIT_UNROLL];

#pragma unroll
			for (int u = 0; u < SPLIT_UNROLL; u++)
				if (v + (uint64_t)u * blockDim.x < nv)
					q[u] = pk[v + (uint64_t)u * blockDim.x];
#pragma unroll
			for (int u = 0; u < SPLIT_UNROLL; u++)
				if (v + (uint64_t)u * blockDim.x < nv) {
#pragma unroll
					for (int k = 0; k < N; k++)
						a = hr_maxsum_add(a, hr_to_compute(q[u].v[k]));
				}
		}
		for (uint64_t j = vb + nv * N + threadIdx.x; j < e; j += blockDim.x)
			a = hr_maxsum_add(a, hr_to_compute(src[j]));
	} else {
		for (uint64_t j = b + threadIdx.x; j < e; j += blockDim.x)
			a = hr_maxsum_add(a, hr_to_compute(src[j]));
	}
	a = hr_block_reduce(a, hr_op_maxsum());
	if (threadIdx.x == 0)
		*my_part<hr_maxsum<C> >(ws) = a;
}

template <typename T>
HR_DEVICE T softmax_of(typename hr_compute<T>::type x, hr_maxsum<typename hr_compute<T>::type> a)
{
	return hr_from_compute<T>(hr_exp(x - a.m) / a.s);
}

template <typename T>
HR_DEVICE void softmax_apply(const T *src, T *dst, int ncols, const void *ws, int splits)
{
	typedef typename hr_compute<T>::type C;
	const uint64_t n = ncols_of(ncols), off = (uint64_t)blockIdx.x * n;
	hr_maxsum<C> a = { (C)-INFINITY, (C)0 };
	uint64_t b, e;

	a = merge_parts(ws, splits, a, hr_op_maxsum());
	my_chunk(n, &b, &e);
	src += off;
	dst += off;
	/* 16-byte packs when src and dst sit at the same offset from a 16-byte
	 * boundary (then one split of the chunk fits both). */
	if (sizeof(T) <= 4 && e > b && hr_aligned_to(src, sizeof(T)) &&
	    ((uintptr_t)src - (uintptr_t)dst) % HR_VEC_BYTES == 0) {
		constexpr int N = HR_VEC_BYTES / sizeof(T);
		typedef hr_vecn<T, N> V;
		uint64_t vb, nv;

		chunk_packs(src, b, e, &vb, &nv);
		const V *ps = (const V *)(src + vb);
		V *pd = (V *)(dst + vb);

		for (uint64_t j = b + threadIdx.x; j < vb; j += blockDim.x)
			dst[j] = softmax_of<T>(hr_to_compute(src[j]), a);
		for (uint64_t v = threadIdx.x; v < nv; v += SPLIT_UNROLL * (uint64_t)blockDim.x) {
			V q[SPLIT_UNROLL];

#pragma unroll
			for (int u = 0; u < SPLIT_UNROLL; u++)
				if (v + (uint64_t)u * blockDim.x < nv)
					q[u] = ps[v + (uint64_t)u * blockDim.x];
#pragma unroll
			for (int u = 0; u < SPLIT_UNROLL; u++)
				if (v + (uint64_t)u * blockDim.x < nv) {
#pragma unroll
					for (int k = 0; k < N; k++)
						q[u].v[k] = softmax_of<T>(hr_to_compute(q[u].v[k]), a);
					pd[v + (uint64_t)u * blockDim.x] = q[u];
				}
		}
		for (uint64_t j = vb + nv * N + threadIdx.x; j < e; j += blockDim.x)
			dst[j] = softmax_of<T>(hr_to_compute(src[j]), a);
		return;
	}
	for (uint64_t j = b + threadIdx.x; j < e; j += blockDim.x)
		dst[j] = softmax_of<T>(hr_to_compute(src[j]), a);
}

template <typename T>
HR_DEVICE void rmsnorm_split(const T *x, void *ws, int ncols)
{
	typedef typename hr_compute<T>::type C;
	const uint64_t n = ncols_of(ncols);
	uint64_t b, e;
	C ss = 0;

	my_chunk(n, &b, &e);
	x += (uint64_t)blockIdx.x * n;
	for (uint64_t j = b + threadIdx.x; j < e; j += blockDim.x) {
		C v = hr_to_compute(x[j]);
		ss += v * v;
	}
	ss = hr_block_reduce(ss, hr_op_sum());
	if (threadIdx.x == 0)
		*my_part<C>(ws) = ss;
}

/* h = x + residual rounded to T into residual_out, and its sum of squares
 * (thread t reads and writes the same j: residual_out may alias either). */
template <typename T>
HR_DEVICE void add_rmsnorm_split(const T *x, const T *residual, T *residual_out, void *ws,
				 int ncols)
{
	typedef typename hr_compute<T>::type C;
	const uint64_t n = ncols_of(ncols), off = (uint64_t)blockIdx.x * n;
	uint64_t b, e;
	C ss = 0;

	my_chunk(n, &b, &e);
	x += off;
	residual += off;
	residual_out += off;
	for (uint64_t j = b + threadIdx.x; j < e; j += blockDim.x) {
		T h = hr_from_compute<T>(hr_to_compute(x[j]) + hr_to_compute(residual[j]));
		C v = hr_to_compute(h);

		residual_out[j] = h;
		ss += v * v;
	}
	ss = hr_block_reduce(ss, hr_op_sum());
	if (threadIdx.x == 0)
		*my_part<C>(ws) = ss;
}

/* rmsnorm_apply_T and add_rmsnorm_apply_T (x = the stored h). */
template <typename T>
HR_DEVICE void rmsnorm_apply(const T *x, T *dst, const T *alpha, int ncols, float eps,
			     const void *ws, int splits)
{
	typedef typename hr_compute<T>::type C;
	const uint64_t n = ncols_of(ncols), off = (uint64_t)blockIdx.x * n;
	uint64_t b, e;
	C ss, scale;

	if (n == 0)
		return;
	ss = merge_parts(ws, splits, (C)0, hr_op_sum());
	scale = (C)1 / hr_sqrt(ss / (C)n + (C)eps);
	my_chunk(n, &b, &e);
	x += off;
	dst += off;
	for (uint64_t j = b + threadIdx.x; j < e; j += blockDim.x)
		dst[j] = hr_from_compute<T>(hr_to_compute(x[j]) * scale * weight_or(alpha, j, 1.0f));
}

/* Stored partial of layernorm: the chunk's mean and M2 (its count follows
 * from ncols and splits). */
template <typename C>
struct ln_part {
	C mean, m2;
};

template <typename T>
HR_DEVICE void layernorm_split(const T *x, void *ws, int ncols)
{
	typedef typename hr_compute<T>::type C;
	const uint64_t n = ncols_of(ncols);
	uint64_t b, e;
	C sum = 0, m2 = 0, mean;
	ln_part<C> p;

	my_chunk(n, &b, &e);
	x += (uint64_t)blockIdx.x * n;
	/* Two reads of the chunk, as the one-pass kernel does for the row: the
	 * deviations are taken from the chunk's own mean. */
	for (uint64_t j = b + threadIdx.x; j < e; j += blockDim.x)
		sum += hr_to_compute(x[j]);
	sum = hr_block_reduce(sum, hr_op_sum());
	mean = e > b ? sum / (C)(e - b) : (C)0;
	for (uint64_t j = b + threadIdx.x; j < e; j += blockDim.x) {
		C d = hr_to_compute(x[j]) - mean;
		m2 += d * d;
	}
	m2 = hr_block_reduce(m2, hr_op_sum());
	p.mean = mean;
	p.m2 = m2;
	if (threadIdx.x == 0)
		*my_part<ln_part<C> >(ws) = p;
}

template <typename T>
HR_DEVICE void layernorm_apply(const T *x, T *dst, const T *alpha, const T *beta, int ncols,
			       float eps, const void *ws, int splits)
{
	typedef typename hr_compute<T>::type C;
	const uint64_t n = ncols_of(ncols), off = (uint64_t)blockIdx.x * n;
	const uint64_t s = splits > 0 ? (uint64_t)splits : 0;
	const ln_part<C> *part = (const ln_part<C> *)ws + (uint64_t)blockIdx.x * s;
	hr_meanm2<C> a = { (C)0, (C)0, (C)0 };
	uint64_t b, e;
	C rstd;

	if (n == 0)
		return;
	for (uint64_t y = threadIdx.x; y < s; y += blockDim.x) {
		hr_meanm2<C> p;

		chunk_range(n, s, y, &b, &e);
		p.n = (C)(e - b);
		p.mean = part[y].mean;
		p.m2 = part[y].m2;
		a = hr_op_meanm2()(a, p);
	}
	a = hr_block_reduce(a, hr_op_meanm2());
	rstd = (C)1 / hr_sqrt(a.m2 / (C)n + (C)eps);
	my_chunk(n, &b, &e);
	x += off;
	dst += off;
	for (uint64_t j = b + threadIdx.x; j < e; j += blockDim.x) {
		C y = (hr_to_compute(x[j]) - a.mean) * rstd * weight_or(alpha, j, 1.0f);
		dst[j] = hr_from_compute<T>(y + weight_or(beta, j, 0.0f));
	}
}

#define NORMS_SPLIT(T, SUF) \
	HR_KERNEL void softmax_split_##SUF(const T *src, void *ws, int ncols) \
	{ \
		softmax_split<T>(src, ws, ncols); \
	} \
	HR_KERNEL void softmax_apply_##SUF(const T *src, T *dst, int ncols, const void *ws, \
					   int splits) \
	{ \
		softmax_apply<T>(src, dst, ncols, ws, splits); \
	} \
	HR_KERNEL void rmsnorm_split_##SUF(const T *x, void *ws, int ncols) \
	{ \
		rmsnorm_split<T>(x, ws, ncols); \
	} \
	HR_KERNEL void rmsnorm_apply_##SUF(const T *x, T *dst, const T *alpha, int ncols, \
					   float eps, const void *ws, int splits) \
	{ \
		rmsnorm_apply<T>(x, dst, alpha, ncols, eps, ws, splits); \
	} \
	HR_KERNEL void layernorm_split_##SUF(const T *x, void *ws, int ncols) \
	{ \
		layernorm_split<T>(x, ws, ncols); \
	} \
	HR_KERNEL void layernorm_apply_##SUF(const T *x, T *dst, const T *alpha, \
					     const T *beta, int ncols, float eps, \
					     const void *ws, int splits) \
	{ \
		layernorm_apply<T>(x, dst, alpha, beta, ncols, eps, ws, splits); \
	} \
	HR_KERNEL void add_rmsnorm_split_##SUF(const T *x, const T *residual, \
					       T *residual_out, void *ws, int ncols) \
	{ \
		add_rmsnorm_split<T>(x, residual, residual_out, ws, ncols); \
	} \
	HR_KERNEL void add_rmsnorm_apply_##SUF(const T *residual_out, T *dst, \
					       const T *alpha, int ncols, float eps, \
					       const void *ws, int splits) \
	{ \
		rmsnorm_apply<T>(residual_out, dst, alpha, ncols, eps, ws, splits); \
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

NORMS_SPLIT(float, f32)
NORMS_SPLIT(double, f64)
NORMS_SPLIT(hr_f16, f16)
NORMS_SPLIT(hr_bf16, bf16)
