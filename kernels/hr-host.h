/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hr-host.h - the GPU execution model for kernels compiled by the system C++
 * compiler (the host backend: lib/backend/host/exec.c).  hr-kernel.h includes it
 * when HR_HOST is defined; HR_HOST_WAVE (64 or 32) picks the wave size, so
 * both the AMD (wave 64) and the NVIDIA (wave 32) paths of a kernel run.
 *
 * Every simulated thread is a fiber of the runtime; its indices come from a
 * thread_local pointer set by the entry point and re-set after every call
 * into the runtime that may switch fibers (fibers never migrate between OS
 * threads, so the pointer saved in a local is still ours).  __shared__
 * variables are thread_local: one OS thread runs one block at a time, so the
 * fibers of a block share them and concurrent blocks do not.
 *
 * Self-contained (hr-embed inlines it and hr-host-abi.h into each plugin's
 * source): only system headers.
 */
#ifndef HR_HOST_H
#define HR_HOST_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <utility>

#include "hr-host-abi.h"

#if !defined(HR_HOST_WAVE) || (HR_HOST_WAVE != 64 && HR_HOST_WAVE != 32)
#error "hr-host.h: define HR_HOST_WAVE as 64 or 32"
#endif
/* The library passes the ABI it speaks; a stale pairing fails to compile. */
#if defined(HR_HOST_ABI_VERSION) && HR_HOST_ABI_VERSION != HR_HOST_ABI
#error "hr-host.h: HR_HOST_ABI_VERSION does not match hr-host-abi.h"
#endif

#define HR_HOST_EXPORT extern "C" __attribute__((visibility("default")))
#define HR_HOST_ALWAYS inline __attribute__((always_inline))

/* CUDA/HIP qualifiers mean nothing on the host. */
#define __device__
#define __host__
#define __global__
#define __forceinline__ HR_HOST_ALWAYS
#define __launch_bounds__(...)
#define __shared__ static thread_local

static thread_local hr_host_thread *hr_host_cur;
static const hr_host_rt *hr_host_rt_table;

HR_HOST_EXPORT int hr_host_init(const hr_host_rt *rt)
{
	if (!rt || rt->abi != HR_HOST_ABI || rt->size < sizeof(hr_host_rt))
		return -1;
	hr_host_rt_table = rt;
	return HR_HOST_WAVE;
}

#define threadIdx (hr_host_cur->thread_idx)
#define blockIdx (hr_host_cur->block_idx)
#define blockDim (hr_host_cur->block_dim)
#define gridDim (hr_host_cur->grid_dim)
#define warpSize HR_HOST_WAVE

/* Dynamic shared memory (the launch's shared_mem_bytes), per block. */
#define HR_HOST_DYNAMIC_SHARED(type, name) type *name = (type *)hr_host_cur->shared_dynamic

static HR_HOST_ALWAYS void __syncthreads(void)
{
	hr_host_thread *me = hr_host_cur;

	hr_host_rt_table->barrier(me);
	hr_host_cur = me;     /* other fibers of this OS thread ran meanwhile */
}

static HR_HOST_ALWAYS void __threadfence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static HR_HOST_ALWAYS void __threadfence_block(void) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }

static HR_HOST_ALWAYS unsigned __lane_id(void) { return hr_host_cur->lane; }

/*
 * Every lane of the wave publishes v and waits for the others; returns the
 * wave's values.  Double-buffered by parity, so one rendezvous suffices: a
 * lane cannot store into a buffer again before every lane has passed the
 * next rendezvous, i.e. has read this one.
 */
static HR_HOST_ALWAYS const uint64_t *hr_host_wave_exchange(uint64_t v)
{
	hr_host_thread *me = hr_host_cur;
	uint64_t *vals = me->wave_vals + (size_t)me->parity * me->wave_size;

	vals[me->lane] = v;
	me->parity ^= 1u;
	if (me->wave_lanes > 1) {
		hr_host_rt_table->wave_sync(me);
		hr_host_cur = me;
	}
	return vals;
}

template <typename T>
static HR_HOST_ALWAYS uint64_t hr_host_bits(T v)
{
	static_assert(sizeof(T) <= sizeof(uint64_t), "wave operations on values up to 8 bytes");
	uint64_t u = 0;

	memcpy(&u, &v, sizeof(T));
	return u;
}

template <typename T>
static HR_HOST_ALWAYS T hr_host_from_bits(uint64_t u)
{
	T v;

	memcpy(&v, &u, sizeof(T));
	return v;
}

/* v from lane src of this wave; a lane that does not exist gives our own v. */
template <typename T>
static HR_HOST_ALWAYS T hr_host_shfl_from(T v, const uint64_t *vals, int src)
{
	if (src < 0 || (unsigned)src >= hr_host_cur->wave_lanes)
		return v;
	return hr_host_from_bits<T>(vals[src]);
}

/* HIP's definitions (hip/amd_detail/amd_warp_functions.h), lane for lane. */
template <typename T>
static HR_HOST_ALWAYS T __shfl(T v, int src_lane, int width = HR_HOST_WAVE)
{
	const uint64_t *vals = hr_host_wave_exchange(hr_host_bits(v));
	int self = (int)hr_host_cur->lane;

	return hr_host_shfl_from(v, vals, (src_lane & (width - 1)) + (self & ~(width - 1)));
}

template <typename T>
static HR_HOST_ALWAYS T __shfl_xor(T v, int lane_mask, int width = HR_HOST_WAVE)
{
	const uint64_t *vals = hr_host_wave_exchange(hr_host_bits(v));
	int self = (int)hr_host_cur->lane, index = self ^ lane_mask;

	index = index >= ((self + width) & ~(width - 1)) ? self : index;
	return hr_host_shfl_from(v, vals, index);
}

template <typename T>
static HR_HOST_ALWAYS T __shfl_down(T v, unsigned delta, int width = HR_HOST_WAVE)
{
	const uint64_t *vals = hr_host_wave_exchange(hr_host_bits(v));
	int self = (int)hr_host_cur->lane, index = self + (int)delta;

	index = (int)((self & (width - 1)) + (int)delta) >= width ? self : index;
	return hr_host_shfl_from(v, vals, index);
}

template <typename T>
static HR_HOST_ALWAYS T __shfl_up(T v, unsigned delta, int width = HR_HOST_WAVE)
{
	const uint64_t *vals = hr_host_wave_exchange(hr_host_bits(v));
	int self = (int)hr_host_cur->lane, index = self - (int)delta;

	index = index < (self & ~(width - 1)) ? self : index;
	return hr_host_shfl_from(v, vals, index);
}

/* The CUDA spellings: every lane takes part (the mask is not simulated). */
template <typename T>
static HR_HOST_ALWAYS T __shfl_sync(unsigned, T v, int s, int w = HR_HOST_WAVE) { return __shfl(v, s, w); }
template <typename T>
static HR_HOST_ALWAYS T __shfl_xor_sync(unsigned, T v, int m, int w = HR_HOST_WAVE) { return __shfl_xor(v, m, w); }
template <typename T>
static HR_HOST_ALWAYS T __shfl_down_sync(unsigned, T v, unsigned d, int w = HR_HOST_WAVE) { return __shfl_down(v, d, w); }
template <typename T>
static HR_HOST_ALWAYS T __shfl_up_sync(unsigned, T v, unsigned d, int w = HR_HOST_WAVE) { return __shfl_up(v, d, w); }

/* Bit i set when lane i's predicate holds (HIP: 64-bit on every wave size). */
static HR_HOST_ALWAYS uint64_t __ballot(int pred)
{
	const uint64_t *vals = hr_host_wave_exchange(pred != 0);
	uint64_t m = 0;

	for (unsigned i = 0; i < hr_host_cur->wave_lanes; i++)
		m |= vals[i] << i;
	return m;
}

static HR_HOST_ALWAYS int __any(int pred) { return __ballot(pred) != 0; }
static HR_HOST_ALWAYS int __all(int pred)
{
	unsigned n = hr_host_cur->wave_lanes;

	return __ballot(pred) == (n == 64 ? ~0ull : ((1ull << n) - 1));
}
static HR_HOST_ALWAYS unsigned __ballot_sync(unsigned, int pred) { return (unsigned)__ballot(pred); }
static HR_HOST_ALWAYS int __any_sync(unsigned, int pred) { return __any(pred); }
static HR_HOST_ALWAYS int __all_sync(unsigned, int pred) { return __all(pred); }

/* CUDA: a wave-level barrier (the mask is not simulated: every lane). */
static HR_HOST_ALWAYS void __syncwarp(unsigned = 0xffffffffu) { (void)hr_host_wave_exchange(0); }

/* Bit and load intrinsics. */
template <typename T>
static HR_HOST_ALWAYS T __ldg(const T *p) { return *p; }
static HR_HOST_ALWAYS int __popc(unsigned x) { return __builtin_popcount(x); }
static HR_HOST_ALWAYS int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static HR_HOST_ALWAYS int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
static HR_HOST_ALWAYS int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
static HR_HOST_ALWAYS int __ffs(int x) { return __builtin_ffs(x); }
static HR_HOST_ALWAYS int __ffsll(long long x) { return __builtin_ffsll(x); }
static HR_HOST_ALWAYS unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }

/* Atomics: blocks run concurrently on the worker threads. */
template <typename T>
static HR_HOST_ALWAYS T atomicAdd(T *p, T v)
{
	if constexpr (sizeof(T) == 4 || sizeof(T) == 8) {
		if constexpr (T(0.5) != T(0)) {   /* floating point: CAS loop */
			T old = *p, want;

			do
				want = old + v;
			while (!__atomic_compare_exchange(p, &old, &want, true, __ATOMIC_RELAXED,
							  __ATOMIC_RELAXED));
			return old;
		} else {
			return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
		}
	}
}

/* Stores v while it beats the value there (v_first: v < old beats). */
template <bool v_first, typename T>
static HR_HOST_ALWAYS T hr_host_atomic_extreme(T *p, T v)
{
	T old = *p;

	while ((v_first ? v < old : old < v) &&
	       !__atomic_compare_exchange(p, &old, &v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	return old;
}

template <typename T>
static HR_HOST_ALWAYS T atomicMax(T *p, T v) { return hr_host_atomic_extreme<false>(p, v); }
template <typename T>
static HR_HOST_ALWAYS T atomicMin(T *p, T v) { return hr_host_atomic_extreme<true>(p, v); }

template <typename T>
static HR_HOST_ALWAYS T atomicExch(T *p, T v)
{
	T old;

	__atomic_exchange(p, &v, &old, __ATOMIC_RELAXED);
	return old;
}

template <typename T>
static HR_HOST_ALWAYS T atomicCAS(T *p, T compare, T v)
{
	__atomic_compare_exchange(p, &compare, &v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	return compare;
}

/* Device math the C library lacks. */
static HR_HOST_ALWAYS float normcdff(float x) { return 0.5f * erfcf(-x * 0.70710678118654752f); }
static HR_HOST_ALWAYS double normcdf(double x) { return 0.5 * erfc(-x * 0.70710678118654752440); }
static HR_HOST_ALWAYS float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static HR_HOST_ALWAYS double rsqrt(double x) { return 1.0 / sqrt(x); }

/* IEEE binary16 <-> binary32, round-to-nearest-even, NaN stays NaN. */
static HR_HOST_ALWAYS float hr_host_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, u;
	float f;

	if (exp == 0x1f) {
		u = sign | 0x7f800000u | man << 13;
	} else if (exp != 0) {
		u = sign | (exp + 112u) << 23 | man << 13;
	} else if (man == 0) {
		u = sign;
	} else {
		/* subnormal: value = man * 2^-24, exact in float */
		f = (float)man * 5.9604644775390625e-08f;
		memcpy(&u, &f, 4);
		u |= sign;
	}
	memcpy(&f, &u, 4);
	return f;
}

static HR_HOST_ALWAYS uint16_t hr_host_f32_to_f16(float f)
{
	uint32_t u, sign, exp, man;

	memcpy(&u, &f, 4);
	sign = (u >> 16) & 0x8000u;
	u &= 0x7fffffffu;
	if (u > 0x7f800000u)                      /* NaN: quiet, keep top payload bits */
		return (uint16_t)(sign | 0x7e00u | ((u >> 13) & 0x3ffu));
	if (u >= 0x477ff000u)                     /* rounds to >= 65520: inf */
		return (uint16_t)(sign | 0x7c00u);
	if (u >= 0x38800000u) {                   /* normal half */
		exp = (u >> 23) - 112u;
		man = u & 0x7fffffu;
		uint32_t h = exp << 10 | man >> 13, rest = man & 0x1fffu;

		if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
			h++;                      /* may carry into the exponent: correct */
		return (uint16_t)(sign | h);
	}
	if (u < 0x33000000u)                      /* below half the smallest subnormal */
		return (uint16_t)sign;
	/* subnormal half: man24 >> shift with round-to-nearest-even */
	exp = u >> 23;
	man = (u & 0x7fffffu) | 0x800000u;
	{
		uint32_t shift = 126u - exp, h = man >> shift, rest = man & ((1u << shift) - 1u),
			 half = 1u << (shift - 1u);

		if (rest > half || (rest == half && (h & 1u)))
			h++;
		return (uint16_t)(sign | h);
	}
}

/* Kernel entry points: the library appends one HR_HOST_ENTRY(name) per kernel. */
template <typename... A, size_t... I>
static HR_HOST_ALWAYS void hr_host_call(void (*f)(A...), void **args, std::index_sequence<I...>)
{
	(void)args;
	f(*static_cast<A *>(args[I])...);
}

template <typename... A>
static HR_HOST_ALWAYS void hr_host_invoke(void (*f)(A...), void **args)
{
	hr_host_call(f, args, std::index_sequence_for<A...>{});
}

#define HR_HOST_ENTRY(name) \
	HR_HOST_EXPORT void hr_host_entry_##name(void **args, hr_host_thread *t) \
	{ \
		hr_host_cur = t; \
		hr_host_invoke(name, args); \
	}

#endif /* HR_HOST_H */
