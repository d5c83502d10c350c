/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hr-kernel.h - the one portability header of the hanzo-rocm kernels.
 *
 * Every kernels/F.hip includes this header and nothing else of ours, and
 * compiles unchanged with
 *   hipcc -std=c++17 --cuda-device-only --offload-arch=gfxNNN -x hip   (AMD)
 *   nvcc  -cubin -arch=sm_NN -x cu                                       (NVIDIA)
 *   c++ -std=c++17 -shared -fPIC -DHR_HOST -DHR_HOST_WAVE=64|32 -x c++ (host)
 * HIP's own NVIDIA headers do not build with CUDA 13, so on nvcc we use
 * plain CUDA spellings and never include the hip headers; f16/bf16 are our own
 * 16-bit storage types, so no cuda_fp16.h / hip_fp16.h either.
 *
 * The plugin build inlines this file into each family's source (so the
 * cache key covers it): keep it self-contained, only <stdint.h>/<stddef.h>
 * and the HIP runtime header as system includes (hr-host.h, inlined too,
 * adds the C and C++ library headers the host build needs).
 * Dynamic shared memory: HR_DYNAMIC_SHARED(type, name) in the kernel body.
 *
 * Conventions (see doc/KERNELS.md):
 *  - entry points: extern "C" __global__ void <op>_<dtype>(...)
 *  - 64-bit indices and grid-stride loops: any launch geometry is correct;
 *  - layouts travel by value in struct hr_layout (no device copy of shapes);
 *    declare the parameter with HR_LAYOUT_PARAM(info) so nvcc does not copy
 *    it to local memory when the kernel indexes it;
 *  - f16/bf16 load and store through hr_to_compute()/hr_from_compute<T>()
 *    and compute in float;
 *  - wave size is 64 on GCN/CDNA, 32 on RDNA and NVIDIA: never assume it,
 *    pass shuffle widths explicitly (hr_shfl_xor(v, mask, width)).
 */
#ifndef HR_KERNEL_H
#define HR_KERNEL_H

#if defined(HR_HOST)
/* The host backend: the system C++ compiler, see hr-host.h. */
#include "hr-host.h"
#elif defined(__HIP__) || defined(__HIPCC__)
#define HR_HIP 1
#include <hip/hip_runtime.h>
#elif defined(__CUDACC__)
#define HR_CUDA 1
#else
#error "hr-kernel.h: compile with hipcc (-x hip), nvcc (-x cu) or -DHR_HOST (host backend)"
#endif

#include <stddef.h>
#include <stdint.h>

#include "hr-target-facts.h"

/* ------------------------------------------------------------------ */
/* Function qualifiers                                                  */
/* ------------------------------------------------------------------ */
#define HR_DEVICE static __device__ __forceinline__
#define HR_INLINE __device__ __forceinline__      /* members, specializations */
#define HR_KERNEL extern "C" __global__

#if defined(HR_CUDA) && (!defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 700)
/* Lets the kernel take the address of a by-value parameter (index it at
 * run time) without a per-thread copy to local memory (sm_70+, CUDA 11.7+). */
#define HR_GRID_CONSTANT __grid_constant__
#else
#define HR_GRID_CONSTANT
#endif

/* ------------------------------------------------------------------ */
/* Layouts                                                              */
/* ------------------------------------------------------------------ */
#define HR_MAX_DIMS 8

#ifdef HR_HOST
#define HR_DYNAMIC_SHARED(type, name) HR_HOST_DYNAMIC_SHARED(type, name)
#else
#define HR_DYNAMIC_SHARED(type, name) extern __shared__ type name[]
#endif

/*
 * v[0..8) dims, v[8..16) strides of operand 0, v[16..24) of operand 1,
 * v[24..32) of operand 2; strides in elements, 0 = broadcast.  A kernel's
 * num_dims == 0 means every operand is contiguous.
 */
struct hr_layout {
	uint64_t v[4 * HR_MAX_DIMS];
};

#define HR_LAYOUT_PARAM(name) const HR_GRID_CONSTANT hr_layout name
/*
 * A layout holds HR_MAX_DIMS dims: a kernel given more writes nothing
 * rather than read past it (the caller's error, but never a stray access).
 */
#define hr_dims_ok(num_dims) ((uint64_t)(num_dims) <= HR_MAX_DIMS)
#define HR_DIMS(info) ((info).v)
#define HR_STRIDES(info, operand) ((info).v + HR_MAX_DIMS * (1 + (operand)))

/* ------------------------------------------------------------------ */
/* Thread indexing                                                      */
/* ------------------------------------------------------------------ */
HR_DEVICE uint64_t hr_global_id(void)
{
	return (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
}

HR_DEVICE uint64_t hr_global_size(void)
{
	return (uint64_t)gridDim.x * blockDim.x;
}

/* for (uint64_t i = ...; i < n; i += grid size): correct for any grid. */
#define HR_GRID_STRIDE_LOOP(i, n) \
	for (uint64_t i = hr_global_id(); i < (uint64_t)(n); i += hr_global_size())

/*
 * 64-bit division is a long software sequence on both vendors; nearly all
 * shapes fit in 32 bits, so take the cheap path when they do.
 */
HR_DEVICE uint64_t hr_divmod(uint64_t n, uint64_t d, uint64_t *rem)
{
	if (((n | d) >> 32) == 0) {
		uint32_t q = (uint32_t)n / (uint32_t)d;
		*rem = (uint32_t)n - q * (uint32_t)d;
		return q;
	}
	uint64_t q = n / d;
	*rem = n - q * d;
	return q;
}

/*
 * Element offset of linear (row-major) index i (< numel) in a strided
 * operand.  What is left of i for the outermost dim is already its index:
 * no division there (a 2-D view needs one, not two).
 */
HR_DEVICE uint64_t hr_strided_offset(uint64_t i, uint64_t num_dims,
				     const uint64_t *dims, const uint64_t *strides)
{
	uint64_t off = 0;

	if (num_dims == 0)
		return i;
	/* Not unrolled: an unrolled copy of this loop per call site raised the
	 * register count (sm_90: 32 -> 40), hence lowered the occupancy of
	 * the whole kernel, contiguous path included. */
#pragma unroll 1
	for (uint64_t d = num_dims - 1; d > 0; d--) {
		uint64_t r;
		i = hr_divmod(i, dims[d], &r);
		off += r * strides[d];
	}
	return off + i * strides[0];
}

/*
 * The offsets of linear index i (< the element count) in K operands of the
 * same dims, one decomposition for all; num_dims >= 1.  The dims loop is not
 * unrolled, for the reason given at hr_strided_offset.
 */
template <int K>
HR_DEVICE void hr_strided_offsets(uint64_t i, uint64_t num_dims, const uint64_t *dims,
				  const uint64_t *const (&strides)[K], uint64_t (&off)[K])
{
#pragma unroll
	for (int k = 0; k < K; k++)
		off[k] = 0;
#pragma unroll 1
	for (uint64_t d = num_dims - 1; d > 0; d--) {
		uint64_t r;
		i = hr_divmod(i, dims[d], &r);
#pragma unroll
		for (int k = 0; k < K; k++)
			off[k] += r * strides[k][d];
	}
#pragma unroll
	for (int k = 0; k < K; k++)
		off[k] += i * strides[k][0];
}

/* True when strides describe a dense row-major layout (size-1 dims ignored). */
HR_DEVICE bool hr_is_contiguous(uint64_t num_dims, const uint64_t *dims,
				const uint64_t *strides)
{
	uint64_t acc = 1;
	for (uint64_t d = num_dims; d-- > 0;) {
		if (dims[d] != 1 && strides[d] != acc)
			return false;
		acc *= dims[d];
	}
	return true;
}

/* ------------------------------------------------------------------ */
/* Contiguous element-wise loops with 16-byte accesses                  */
/* ------------------------------------------------------------------ */
/*
 * Memory-bound kernels need 16-byte loads/stores to reach full bandwidth
 * (scalar 2-byte accesses reach about a third of it).  When every pointer
 * is 16-byte aligned, each thread handles whole 16-byte packs; the tail and
 * misaligned buffers (views at odd element offsets) take the scalar loop.
 */
#define HR_VEC_BYTES 16

/* N elements of T moved as one 16-byte (or smaller) memory operation. */
template <typename T, int N>
struct alignas(sizeof(T) * N) hr_vecn {
	T v[N];
};

HR_DEVICE bool hr_aligned_to(const void *p, uint64_t to)
{
	return ((uintptr_t)p & (to - 1)) == 0;
}

/* out[i] = f(in[i]) for i < n, contiguous; in == out is allowed. */
template <typename T, typename F>
HR_DEVICE void hr_map_contiguous(uint64_t n, const T *in, T *out, const F &f)
{
	constexpr int N = HR_VEC_BYTES / sizeof(T);
	const uint64_t gid = hr_global_id(), gsize = hr_global_size();
	uint64_t done = 0;

	/* 8-byte elements already load efficiently one by one, and packing
	 * two heavy f64 ops (normcdf) per thread spills SGPRs on CDNA. */
	if (sizeof(T) <= 4 && hr_aligned_to(in, HR_VEC_BYTES) && hr_aligned_to(out, HR_VEC_BYTES)) {
		const uint64_t nv = n / N;
		const hr_vecn<T, N> *vin = (const hr_vecn<T, N> *)in;
		hr_vecn<T, N> *vout = (hr_vecn<T, N> *)out;

		for (uint64_t v = gid; v < nv; v += gsize) {
			hr_vecn<T, N> p = vin[v];

#pragma unroll
			for (int k = 0; k < N; k++)
				p.v[k] = f(p.v[k]);
			vout[v] = p;
		}
		done = nv * N;
	}
	for (uint64_t i = done + gid; i < n; i += gsize)
		out[i] = f(in[i]);
}

/*
 * Sliced views (x[:, :m] of a wider matrix): when an operand's innermost
 * stride is 1, the innermost dim a multiple of N and every other stride a
 * multiple of N, each run of N logical elements starting at a multiple of N
 * is N adjacent, N-aligned elements: one offset computation and one 16-byte
 * access per N elements instead of one division and one scalar access each.
 * Broadcast outer dims (stride 0) qualify too.
 */
HR_DEVICE bool hr_rows_vectorizable(uint64_t num_dims, const uint64_t *dims,
				    const uint64_t *strides, uint64_t N)
{
	if (num_dims == 0 || strides[num_dims - 1] != 1 || dims[num_dims - 1] % N)
		return false;
#pragma unroll 1
	for (uint64_t d = 0; d + 1 < num_dims; d++)
		if (dims[d] != 1 && strides[d] % N)
			return false;
	return true;
}

/*
 * out[i] = f(in[offset(i)]) for a strided input (num_dims >= 1) and a
 * contiguous output; the vector path when the layout allows it (see
 * hr_rows_vectorizable; 8-byte types keep the scalar loop, as in
 * hr_map_contiguous).  The branch is uniform across the grid.
 */
template <typename S, typename D, typename F>
HR_DEVICE void hr_map_strided(uint64_t n, uint64_t num_dims, const uint64_t *dims,
			      const uint64_t *strides, const S *in, D *out,
			      const F &f)
{
	constexpr int N = HR_VEC_BYTES / (sizeof(S) > sizeof(D) ? sizeof(S) : sizeof(D));

	if (sizeof(S) <= 4 && sizeof(D) <= 4 &&
	    hr_aligned_to(in, sizeof(S) * N) && hr_aligned_to(out, sizeof(D) * N) &&
	    hr_rows_vectorizable(num_dims, dims, strides, N)) {
		const hr_vecn<S, N> *vin;
		hr_vecn<D, N> *vout = (hr_vecn<D, N> *)out;

		/* n is a multiple of the innermost dim, hence of N: no tail. */
		HR_GRID_STRIDE_LOOP(v, n / N) {
			uint64_t k = hr_strided_offset(v * N, num_dims, dims, strides);
			hr_vecn<S, N> a;
			hr_vecn<D, N> c;

			vin = (const hr_vecn<S, N> *)(in + k);
			a = *vin;
#pragma unroll
			for (int j = 0; j < N; j++)
				c.v[j] = f(a.v[j]);
			vout[v] = c;
		}
		return;
	}
	HR_GRID_STRIDE_LOOP(i, n)
		out[i] = f(in[hr_strided_offset(i, num_dims, dims, strides)]);
}

/* buf[i] = value for i < n, contiguous. */
template <typename T>
HR_DEVICE void hr_fill_contiguous(uint64_t n, T *buf, T value)
{
	constexpr int N = HR_VEC_BYTES / sizeof(T);
	const uint64_t gid = hr_global_id(), gsize = hr_global_size();
	uint64_t done = 0;

	if (hr_aligned_to(buf, HR_VEC_BYTES)) {
		const uint64_t nv = n / N;
		hr_vecn<T, N> *vbuf = (hr_vecn<T, N> *)buf;
		hr_vecn<T, N> p;

#pragma unroll
		for (int k = 0; k < N; k++)
			p.v[k] = value;
		for (uint64_t v = gid; v < nv; v += gsize)
			vbuf[v] = p;
		done = nv * N;
	}
	for (uint64_t i = done + gid; i < n; i += gsize)
		buf[i] = value;
}

/* ------------------------------------------------------------------ */
/* Waves and shuffles                                                   */
/* ------------------------------------------------------------------ */
#define HR_WARP_SIZE_MAX 64

/* The wave size of the running device: 64 (GCN/CDNA) or 32 (RDNA, NVIDIA). */
HR_DEVICE int hr_wave_size(void)
{
#if defined(HR_HIP) || defined(HR_HOST)
	return warpSize;
#else
	return 32;
#endif
}

HR_DEVICE int hr_lane_id(void)
{
#if defined(HR_HIP) || defined(HR_HOST)
	return (int)__lane_id();
#else
	unsigned int lane;

	asm("mov.u32 %0, %%laneid;" : "=r"(lane));
	return (int)lane;
#endif
}

/* v, known to be the same in every lane of the wave, marked so for the
 * compiler: AMD keeps it (and what is computed from it) in scalar
 * registers (readfirstlane); elsewhere v itself. */
HR_DEVICE int hr_wave_uniform(int v)
{
#if defined(HR_HIP) && defined(__HIP_DEVICE_COMPILE__)
	return __builtin_amdgcn_readfirstlane(v);
#else
	return v;
#endif
}

/* HIP's shuffle __OP(v, ...), CUDA's __OP_sync(all lanes, v, ...). */
#if defined(HR_HIP) || defined(HR_HOST)
#define HR_SHFL_CALL(op, ...) __##op(__VA_ARGS__)
#else
#define HR_SHFL_CALL(op, ...) __##op##_sync(0xffffffffu, __VA_ARGS__)
#endif

/* One bit a lane of the wave, lane i at bit i: HIP's __ballot (64 bits on a
 * 64-lane wave), CUDA's __ballot_sync over all 32 lanes (the upper half 0). */
HR_DEVICE uint64_t hr_ballot(bool p)
{
#if defined(HR_HIP) || defined(HR_HOST)
	return (uint64_t)__ballot(p);
#else
	return (uint64_t)__ballot_sync(0xffffffffu, p);
#endif
}

/* width must be a power of two <= the wave size; pass it explicitly. */
template <typename T>
HR_DEVICE T hr_shfl_xor(T v, int lane_mask, int width) { return HR_SHFL_CALL(shfl_xor, v, lane_mask, width); }
template <typename T>
HR_DEVICE T hr_shfl_down(T v, unsigned int delta, int width) { return HR_SHFL_CALL(shfl_down, v, delta, width); }
template <typename T>
HR_DEVICE T hr_shfl(T v, int src_lane, int width) { return HR_SHFL_CALL(shfl, v, src_lane, width); }

/* Butterfly sums/maxima across `width` lanes; every lane gets the result. */
template <typename T>
HR_DEVICE T hr_wave_sum(T v, int width)
{
	for (int m = width >> 1; m > 0; m >>= 1)
		v += hr_shfl_xor(v, m, width);
	return v;
}

/* Inclusive prefix sum across `width` lanes (lane i gets lanes 0..i's sum,
 * lanes counted within each group of `width`): log2(width) shuffles. */
template <typename T>
HR_DEVICE T hr_wave_prefix_sum(T v, int width)
{
	const int lane = (int)threadIdx.x & (width - 1);

	for (int off = 1; off < width; off <<= 1) {
		const T y = hr_shfl(v, lane >= off ? lane - off : lane, width);

		if (lane >= off)
			v += y;
	}
	return v;
}

template <typename T>
HR_DEVICE T hr_wave_max(T v, int width)
{
	for (int m = width >> 1; m > 0; m >>= 1) {
		T o = hr_shfl_xor(v, m, width);
		v = o > v ? o : v;
	}
	return v;
}

template <typename T>
HR_DEVICE T hr_wave_min(T v, int width)
{
	for (int m = width >> 1; m > 0; m >>= 1) {
		T o = hr_shfl_xor(v, m, width);
		v = o < v ? o : v;
	}
	return v;
}

/* ------------------------------------------------------------------ */
/* Bit casts                                                            */
/* ------------------------------------------------------------------ */
HR_DEVICE uint32_t hr_f32_bits(float f)
{
	union { float f; uint32_t u; } c;
	c.f = f;
	return c.u;
}

HR_DEVICE float hr_bits_f32(uint32_t u)
{
	union { float f; uint32_t u; } c;
	c.u = u;
	return c.f;
}

/* ------------------------------------------------------------------ */
/* 16-bit float storage types                                           */
/* ------------------------------------------------------------------ */
/* Plain 2-byte structs: same size/alignment as __half/__hip_bfloat16, so
 * buffers and kernel arguments are bit-compatible with both runtimes. */
struct hr_f16 {
	uint16_t bits;
};

struct hr_bf16 {
	uint16_t bits;
};

/* IEEE half <-> float in hardware, round-to-nearest-even. */
HR_DEVICE float hr_f16_to_f32(hr_f16 h)
{
#if defined(HR_HOST)
	return hr_host_f16_to_f32(h.bits);
#elif defined(HR_HIP)
	union { uint16_t u; _Float16 h; } c;
	c.u = h.bits;
	return (float)c.h;
#else
	float f;
	asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.bits));
	return f;
#endif
}

HR_DEVICE hr_f16 hr_f32_to_f16(float f)
{
	hr_f16 r;
#if defined(HR_HOST)
	r.bits = hr_host_f32_to_f16(f);
#elif defined(HR_HIP)
	union { uint16_t u; _Float16 h; } c;
	c.h = (_Float16)f;
	r.bits = c.u;
#else
	asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r.bits) : "f"(f));
#endif
	return r;
}

HR_DEVICE float hr_bf16_to_f32(hr_bf16 b)
{
	return hr_bits_f32((uint32_t)b.bits << 16);
}

/* Round-to-nearest-even; NaN stays a (quiet) NaN instead of rounding to inf. */
HR_DEVICE hr_bf16 hr_f32_to_bf16(float f)
{
	hr_bf16 r;
#if defined(HR_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	/* sm_80+ converts in one instruction, same rounding and NaN rule. */
	asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r.bits) : "f"(f));
	return r;
#else
	uint32_t u = hr_f32_bits(f);
	if ((u & 0x7fffffffu) > 0x7f800000u) {
		r.bits = (uint16_t)((u >> 16) | 0x0040u);
		return r;
	}
	u += 0x7fffu + ((u >> 16) & 1u);
	r.bits = (uint16_t)(u >> 16);
	return r;
#endif
}

/* ------------------------------------------------------------------ */
/* Compute types and conversions                                        */
/* ------------------------------------------------------------------ */
/* The type arithmetic happens in: float for the 16-bit floats, else T. */
template <typename T> struct hr_compute { typedef T type; };
template <> struct hr_compute<hr_f16> { typedef float type; };
template <> struct hr_compute<hr_bf16> { typedef float type; };

HR_DEVICE float hr_to_compute(hr_f16 v) { return hr_f16_to_f32(v); }
HR_DEVICE float hr_to_compute(hr_bf16 v) { return hr_bf16_to_f32(v); }
HR_DEVICE float hr_to_compute(float v) { return v; }
HR_DEVICE double hr_to_compute(double v) { return v; }
HR_DEVICE uint8_t hr_to_compute(uint8_t v) { return v; }
HR_DEVICE uint32_t hr_to_compute(uint32_t v) { return v; }
HR_DEVICE int64_t hr_to_compute(int64_t v) { return v; }

template <typename T>
HR_DEVICE T hr_from_compute(typename hr_compute<T>::type v) { return v; }
template <>
__device__ __forceinline__ hr_f16 hr_from_compute<hr_f16>(float v) { return hr_f32_to_f16(v); }
template <>
__device__ __forceinline__ hr_bf16 hr_from_compute<hr_bf16>(float v) { return hr_f32_to_bf16(v); }

/* Any-to-float and float-to-any, the building blocks of casts. */
template <typename T>
HR_DEVICE float hr_to_f32(T v) { return (float)hr_to_compute(v); }
template <typename T>
HR_DEVICE T hr_from_f32(float v) { return (T)v; }
template <>
__device__ __forceinline__ hr_f16 hr_from_f32<hr_f16>(float v) { return hr_f32_to_f16(v); }
template <>
__device__ __forceinline__ hr_bf16 hr_from_f32<hr_bf16>(float v) { return hr_f32_to_bf16(v); }

/*
 * hr_cast<D>(s): C++ conversion semantics between the seven dtypes;
 * 16-bit floats go through float (f16 <-> bf16 too), double -> f16/bf16
 * rounds through float.  Float -> integer is the hardware conversion
 * (truncation; out-of-range values are unspecified, as in C).
 */
template <typename D> struct hr_convert_to {
	template <typename S> static __device__ __forceinline__ D from(S s)
	{
		return (D)hr_to_compute(s);
	}
};
template <> struct hr_convert_to<hr_f16> {
	template <typename S> static __device__ __forceinline__ hr_f16 from(S s)
	{
		return hr_f32_to_f16((float)hr_to_compute(s));
	}
	static __device__ __forceinline__ hr_f16 from(hr_f16 s) { return s; }
};
template <> struct hr_convert_to<hr_bf16> {
	template <typename S> static __device__ __forceinline__ hr_bf16 from(S s)
	{
		return hr_f32_to_bf16((float)hr_to_compute(s));
	}
	static __device__ __forceinline__ hr_bf16 from(hr_bf16 s) { return s; }
};

template <typename D, typename S>
HR_DEVICE D hr_cast(S s) { return hr_convert_to<D>::from(s); }

/* ------------------------------------------------------------------ */
/* Math: overloads for float and double (call with the compute type)    */
/* ------------------------------------------------------------------ */
#define HR_MATH1(name, ffn, dfn) \
	HR_DEVICE float name(float x) { return ffn(x); } \
	HR_DEVICE double name(double x) { return dfn(x); }

HR_MATH1(hr_exp, expf, exp)
HR_MATH1(hr_expm1, expm1f, expm1)
HR_MATH1(hr_log, logf, log)
HR_MATH1(hr_log1p, log1pf, log1p)
HR_MATH1(hr_sin, sinf, sin)
HR_MATH1(hr_cos, cosf, cos)
HR_MATH1(hr_tanh, tanhf, tanh)
HR_MATH1(hr_erf, erff, erf)
HR_MATH1(hr_normcdf, normcdff, normcdf)
HR_MATH1(hr_ceil, ceilf, ceil)
HR_MATH1(hr_floor, floorf, floor)
HR_MATH1(hr_round, roundf, round)     /* half away from zero, as C round() */
HR_MATH1(hr_fabs, fabsf, fabs)
HR_MATH1(hr_sqrt, sqrtf, sqrt)
HR_MATH1(hr_rsqrt, rsqrtf, rsqrt)
#undef HR_MATH1

HR_DEVICE float hr_pow(float x, float y) { return powf(x, y); }
HR_DEVICE double hr_pow(double x, double y) { return pow(x, y); }
HR_DEVICE float hr_fma(float a, float b, float c) { return fmaf(a, b, c); }
HR_DEVICE double hr_fma(double a, double b, double c) { return fma(a, b, c); }
HR_DEVICE float hr_fmax(float a, float b) { return fmaxf(a, b); }
HR_DEVICE double hr_fmax(double a, double b) { return fmax(a, b); }
HR_DEVICE float hr_fmin(float a, float b) { return fminf(a, b); }
HR_DEVICE double hr_fmin(double a, double b) { return fmin(a, b); }

/* Generic max/min that propagate NaN from either side (as torch does). */
template <typename T>
HR_DEVICE T hr_max(T a, T b) { return (a != a) ? a : (a > b ? a : b) ; }
template <typename T>
HR_DEVICE T hr_min(T a, T b) { return (a != a) ? a : (a < b ? a : b); }

/* ------------------------------------------------------------------ */
/* Packed 8-bit dot product: c + sum(a[i] * b[i]) over 4 signed bytes.  */
/* ------------------------------------------------------------------ */
HR_DEVICE int hr_dp4a(int a, int b, int c)
{
#if defined(HR_CUDA)
	return __dp4a(a, b, c);
#elif HR_HAS_SDOT4 /* hr-target-facts.h, from lib/shared/targets.def */
	return __builtin_amdgcn_sdot4(a, b, c, false);
#else
	const int8_t *pa = (const int8_t *)&a;
	const int8_t *pb = (const int8_t *)&b;
	return c + pa[0] * pb[0] + pa[1] * pb[1] + pa[2] * pb[2] + pa[3] * pb[3];
#endif
}

/* Matrix units (MFMA, WMMA, mma.sync) and their host emulation. */
#include "hr-matrix.h"

#endif /* HR_KERNEL_H */
