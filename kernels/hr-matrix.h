/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hr-matrix.h - one 16x16x16 matrix product per wave (f16/bf16 in, f32
 * accumulate) on each vendor's matrix unit, chosen at compile time per
 * target; hr-kernel.h includes it.  HR_MMA names the path:
 *
 *   HR_MMA_MFMA    CDNA gfx90a, gfx940/941/942, gfx950 (wave 64):
 *                  __builtin_amdgcn_mfma_f32_16x16x16f16 / _16x16x16bf16_1k
 *                  (gfx908 lacks the bf16_1k form: it takes the portable path)
 *   HR_MMA_WMMA11  RDNA3 gfx11 (wave 32): __builtin_amdgcn_wmma_f32_16x16x16_{f16,bf16}_w32
 *   HR_MMA_WMMA12  RDNA4 gfx12 (wave 32): ..._w32_gfx12 (the operand layout changed)
 *   HR_MMA_SYNC    NVIDIA sm_80+: two mma.sync.m16n8k16 (inline PTX)
 *   HR_MMA_NONE    elsewhere: callers keep their portable code
 *
 * The host backend runs the AMD paths: host-w64 emulates the MFMA builtins,
 * host-w32 the gfx11 WMMA ones (-DHR_HOST_MMA=HR_MMA_WMMA12 selects gfx12's),
 * lane for lane: each lane publishes its operand registers through the
 * wave exchange and computes its own accumulator registers from the
 * gathered wave, with the register layouts of the ISA documents (CDNA3 ISA
 * 7.1, RDNA3 ISA 7.9, RDNA4 ISA 7.12; the AMD matrix instruction
 * calculator).  t/kernels/test-matrix.cc checks each emulated builtin against a
 * scalar product with its own table of those layouts.
 *
 * The interface (T = hr_f16 or hr_bf16), per wave, all lanes together:
 *   hr_mma_a<T> a; hr_mma_load_a(a, get)   A[i][k] = get(i, k), i, k < 16
 *   hr_mma_b<T> b; hr_mma_load_bt(b, get)  B[k][n] = get(n, k) (B^T row-major)
 *   hr_mma_load_a_smem(a, base, ld), hr_mma_load_bt_smem(b, base, ld): the
 *                  same from shared memory, wide loads (ldmatrix on NVIDIA)
 *   hr_mma_acc c;  hr_mma_run(c, a, b)     C += A B
 *   c.v[e] is C[hr_mma_acc_row(e)][hr_mma_acc_col(e)] for this lane.
 *   hr_mma_load_b_smem(b, base, ld): B[k][n] = base[k * ld + n] (B
 *                  row-major; ldmatrix.trans on NVIDIA, element loads elsewhere)
 * NVIDIA only (HR_MMA_SYNC): hr_cp_async16 / _commit / _wait<N>, sm_80's
 *   asynchronous global -> shared copies.
 */
#ifndef HR_MATRIX_H
#define HR_MATRIX_H

#define HR_MMA_NONE 0
#define HR_MMA_MFMA 1
#define HR_MMA_WMMA11 2
#define HR_MMA_WMMA12 3
#define HR_MMA_SYNC 4

#ifndef __has_builtin
#define __has_builtin(x) 0
#endif

#if defined(HR_HOST)
#ifndef HR_HOST_MMA
#define HR_HOST_MMA (HR_HOST_WAVE == 64 ? HR_MMA_MFMA : HR_MMA_WMMA11)
#endif
#define HR_MMA HR_HOST_MMA
#elif defined(HR_HIP) && defined(__HIP_DEVICE_COMPILE__)
#if (defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || \
     defined(__gfx942__) || defined(__gfx950__)) && \
	__has_builtin(__builtin_amdgcn_mfma_f32_16x16x16bf16_1k)
#define HR_MMA HR_MMA_MFMA
#elif (defined(__gfx1100__) || defined(__gfx1101__) || defined(__gfx1102__) || \
       defined(__gfx1103__) || defined(__gfx1150__) || defined(__gfx1151__) || \
       defined(__gfx1152__)) && __AMDGCN_WAVEFRONT_SIZE == 32 && \
	__has_builtin(__builtin_amdgcn_wmma_f32_16x16x16_f16_w32)
#define HR_MMA HR_MMA_WMMA11
#elif (defined(__gfx1200__) || defined(__gfx1201__)) && __AMDGCN_WAVEFRONT_SIZE == 32 && \
	__has_builtin(__builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12)
#define HR_MMA HR_MMA_WMMA12
#endif
#elif defined(HR_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define HR_MMA HR_MMA_SYNC
#endif
#ifndef HR_MMA
#define HR_MMA HR_MMA_NONE
#endif

/*
 * The register layouts: element e of lane t holds A[i][k] / B[k][n] /
 * C[row][col].  MFMA 16x16x16 (wave 64, 4 elements): A i = t%16,
 * k = 4(t/16)+e; B n = t%16, same k; C row = 4(t/16)+e, col = t%16.
 * WMMA gfx11 (wave 32): A i = t%16, k = e (16 elements; lanes 16-31 must
 * repeat lanes 0-15); B likewise; C row = 2e + t/16, col = t%16 (8).
 * WMMA gfx12 (wave 32, 8 elements): A i = t%16, k = 8(t/16)+e; B alike;
 * C row = 8(t/16)+e, col = t%16.  mma.sync m16n8k16 (g = t/4, c = t%4),
 * two of them for n 0-7 and 8-15: A i = g + 8((e/2)%2), k = 2c + e%2 +
 * 8(e/4); B (half h = e/4, f = e%4) k = 2c + f%2 + 8(f/2), n = 8h + g;
 * C (h = e/4, f = e%4) row = g + 8(f/2), col = 8h + 2c + f%2.
 */
#if HR_MMA == HR_MMA_MFMA
#define HR_MMA_WAVE 64
#define HR_MMA_NA 4
#define HR_MMA_NB 4
#define HR_MMA_NC 4
#elif HR_MMA == HR_MMA_WMMA11
#define HR_MMA_WAVE 32
#define HR_MMA_NA 16
#define HR_MMA_NB 16
#define HR_MMA_NC 8
#elif HR_MMA == HR_MMA_WMMA12 || HR_MMA == HR_MMA_SYNC
#define HR_MMA_WAVE 32
#define HR_MMA_NA 8
#define HR_MMA_NB 8
#define HR_MMA_NC 8
#endif

/* Row/column of operand element e in lane t (layouts above). */
HR_DEVICE int hr_mma_a_row(int t, int e)
{
#if HR_MMA == HR_MMA_SYNC
	return t / 4 + 8 * ((e / 2) % 2);
#else
	(void)e;
	return t % 16;
#endif
}

HR_DEVICE int hr_mma_a_k(int t, int e)
{
#if HR_MMA == HR_MMA_MFMA
	return 4 * (t / 16) + e;
#elif HR_MMA == HR_MMA_WMMA11
	(void)t;
	return e;
#elif HR_MMA == HR_MMA_WMMA12
	return 8 * (t / 16) + e;
#else
	return 2 * (t % 4) + e % 2 + 8 * (e / 4);
#endif
}

HR_DEVICE int hr_mma_b_col(int t, int e)
{
#if HR_MMA == HR_MMA_SYNC
	return 8 * (e / 4) + t / 4;
#else
	(void)e;
	return t % 16;
#endif
}

HR_DEVICE int hr_mma_b_k(int t, int e)
{
#if HR_MMA == HR_MMA_SYNC
	return 2 * (t % 4) + e % 2 + 8 * ((e % 4) / 2);
#else
	return hr_mma_a_k(t, e);
#endif
}

HR_DEVICE int hr_mma_c_row(int t, int e)
{
#if HR_MMA == HR_MMA_MFMA
	return 4 * (t / 16) + e;
#elif HR_MMA == HR_MMA_WMMA11
	return 2 * e + t / 16;
#elif HR_MMA == HR_MMA_WMMA12
	return 8 * (t / 16) + e;
#else
	return t / 4 + 8 * ((e % 4) / 2);
#endif
}

HR_DEVICE int hr_mma_c_col(int t, int e)
{
#if HR_MMA == HR_MMA_SYNC
	return 8 * (e / 4) + 2 * (t % 4) + e % 2;
#else
	(void)e;
	return t % 16;
#endif
}

#if defined(HR_HOST)
/*
 * The emulation's half: where A[i][k] / B[k][n] live (lane, element) on
 * the hardware, the inverse of the maps above written from the ISA
 * tables, and the product of one lane's accumulator registers from the
 * gathered operand registers of the whole wave (regs[lane * n + e]).
 * Pure functions, so t/kernels/test-matrix.cc calls them without a wave.
 */
enum hr_host_mma_kind { HR_HOST_MFMA16 = 1, HR_HOST_WMMA11 = 2, HR_HOST_WMMA12 = 3 };

static HR_HOST_ALWAYS int hr_host_mma_nab(int kind)
{
	return kind == HR_HOST_MFMA16 ? 4 : kind == HR_HOST_WMMA11 ? 16 : 8;
}

/* Lane and element of A[i][k] (of B[k][n] with i = n). */
static HR_HOST_ALWAYS void hr_host_mma_where(int kind, int i, int k, int *lane, int *e)
{
	switch (kind) {
	case HR_HOST_MFMA16:    /* CDNA: 4 k a lane, 4 lane groups of 16 */
		*lane = i + 16 * (k / 4);
		*e = k % 4;
		break;
	case HR_HOST_WMMA11:    /* RDNA3: all 16 k in lanes 0-15 (16-31 repeat them) */
		*lane = i;
		*e = k;
		break;
	default:                /* RDNA4: k 0-7 in lanes 0-15, 8-15 in 16-31 */
		*lane = i + 16 * (k / 8);
		*e = k % 8;
		break;
	}
}

/* Row and column of accumulator element e of lane t. */
static HR_HOST_ALWAYS void hr_host_mma_cpos(int kind, int t, int e, int *row, int *col)
{
	*col = t % 16;
	*row = kind == HR_HOST_MFMA16 ? 4 * (t / 16) + e :
	       kind == HR_HOST_WMMA11 ? 2 * e + t / 16 : 8 * (t / 16) + e;
}

static HR_HOST_ALWAYS float hr_host_mma_value(uint16_t bits, bool bf16)
{
	return bf16 ? hr_bits_f32((uint32_t)bits << 16) : hr_host_f16_to_f32(bits);
}

/*
 * c[e] += sum_k A[row][k] B[k][col] for lane t's accumulator elements.
 * gfx11 reads the operands of lanes 0-15 only; when lanes 16-31 do not
 * repeat them the program is wrong (the ISA requires the copy), and the
 * result is NaN so that a test catches it.
 */
static HR_HOST_ALWAYS void hr_host_mma_compute(int kind, bool bf16, const uint16_t *ra,
					       const uint16_t *rb, int t, float *c)
{
	const int n = hr_host_mma_nab(kind), nc = kind == HR_HOST_MFMA16 ? 4 : 8;
	bool bad = false;

	if (kind == HR_HOST_WMMA11)
		bad = memcmp(ra, ra + 16 * n, sizeof(uint16_t) * 16 * n) != 0 ||
		      memcmp(rb, rb + 16 * n, sizeof(uint16_t) * 16 * n) != 0;
	for (int e = 0; e < nc; e++) {
		int row, col;
		float s = c[e];

		hr_host_mma_cpos(kind, t, e, &row, &col);
		for (int k = 0; k < 16; k++) {
			int la, ea, lb, eb;

			hr_host_mma_where(kind, row, k, &la, &ea);
			hr_host_mma_where(kind, col, k, &lb, &eb);
			s = fmaf(hr_host_mma_value(ra[la * n + ea], bf16),
				 hr_host_mma_value(rb[lb * n + eb], bf16), s);
		}
		c[e] = bad ? hr_bits_f32(0x7fc00000u) : s;
	}
}

/* The wave's operand registers, n 16-bit elements a lane, into regs. */
static HR_HOST_ALWAYS void hr_host_mma_gather(const uint16_t *mine, int n, uint16_t *regs)
{
	const int lanes = HR_HOST_WAVE;

	for (int p = 0; p < n; p += 4) {
		uint64_t v = 0;

		memcpy(&v, mine + p, sizeof(v));
		const uint64_t *vals = hr_host_wave_exchange(v);

		for (int l = 0; l < lanes; l++)
			memcpy(regs + l * n + p, &vals[l], sizeof(uint64_t));
	}
}

/* One builtin, executed by every lane of the wave (as on the hardware). */
static HR_HOST_ALWAYS void hr_host_mma(int kind, bool bf16, const uint16_t *a, const uint16_t *b,
				       float *c)
{
	const int n = hr_host_mma_nab(kind);
	uint16_t ra[HR_HOST_WAVE * 16], rb[HR_HOST_WAVE * 16];

	hr_host_mma_gather(a, n, ra);
	hr_host_mma_gather(b, n, rb);
	hr_host_mma_compute(kind, bf16, ra, rb, (int)hr_host_cur->lane, c);
}
#endif /* HR_HOST */

#if HR_MMA != HR_MMA_NONE
template <typename T>
struct alignas(16) hr_mma_a {
	uint16_t v[HR_MMA_NA];
};

template <typename T>
struct alignas(16) hr_mma_b {
	uint16_t v[HR_MMA_NB];
};

struct hr_mma_acc {
	float v[HR_MMA_NC];
};

HR_DEVICE void hr_mma_zero(hr_mma_acc &c)
{
#pragma unroll
	for (int e = 0; e < HR_MMA_NC; e++)
		c.v[e] = 0.f;
}

/* This lane's index within its wave (threads of a block: waves in order). */
HR_DEVICE int hr_mma_lane(void)
{
	return (int)threadIdx.x % HR_MMA_WAVE;
}

template <typename T, typename F>
HR_DEVICE void hr_mma_load_a(hr_mma_a<T> &a, const F &get)
{
	const int t = hr_mma_lane();

#pragma unroll
	for (int e = 0; e < HR_MMA_NA; e++)
		a.v[e] = get(hr_mma_a_row(t, e), hr_mma_a_k(t, e)).bits;
}

template <typename T, typename F>
HR_DEVICE void hr_mma_load_bt(hr_mma_b<T> &b, const F &get)
{
	const int t = hr_mma_lane();

#pragma unroll
	for (int e = 0; e < HR_MMA_NB; e++)
		b.v[e] = get(hr_mma_b_col(t, e), hr_mma_b_k(t, e)).bits;
}

/*
 * The same from shared memory: A[i][k] = base[i * ld + k], B[k][n] =
 * base[n * ld + k]; base and ld * 2 bytes multiples of 16.  AMD paths (and
 * the host) hold contiguous k in a lane: 16-byte loads; NVIDIA: ldmatrix
 * (each lane names one 8-element row of the four 8x8 matrices).
 */
template <typename T, int N>
HR_DEVICE void hr_mma_load_row(uint16_t *dst, const T *src)
{
#pragma unroll
	for (int p = 0; p < N; p += 8) {
		const hr_vecn<uint16_t, (N < 8 ? N : 8)> x =
			*(const hr_vecn<uint16_t, (N < 8 ? N : 8)> *)(const void *)(src + p);

#pragma unroll
		for (int c = 0; c < (N < 8 ? N : 8); c++)
			dst[p + c] = x.v[c];
	}
}

#if HR_MMA == HR_MMA_SYNC
HR_DEVICE void hr_mma_ldmatrix4(uint16_t *dst, const void *row)
{
	const unsigned addr = (unsigned)__cvta_generic_to_shared(row);
	uint32_t r[4];

	asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
		     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
	memcpy(dst, r, sizeof(r));
}
#endif

#if HR_MMA == HR_MMA_SYNC
/*
 * B[k][n] = base[k * ld + n] (B row-major, e.g. V[key][d] as P V's B) by
 * ldmatrix.trans: matrix t / 8 is rows (keys) 8 (m % 2) .., columns 8 (m / 2)
 * .., transposed on the way, which is b0, b1 of n 0-7 then of n 8-15.
 */
template <typename T>
HR_DEVICE void hr_mma_load_b_smem(hr_mma_b<T> &b, const T *base, int ld)
{
	const int t = hr_mma_lane(), m = t / 8;
	const unsigned addr = (unsigned)__cvta_generic_to_shared(base + (t % 8 + 8 * (m % 2)) * ld +
								 8 * (m / 2));
	uint32_t r[4];

	asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
		     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
	memcpy(b.v, r, sizeof(r));
}

/*
 * Asynchronous 16-byte copies global -> shared (sm_80 cp.async, bypassing
 * L1): valid false writes 16 zero bytes and reads nothing.  commit closes a
 * group of copies; wait<N> returns when at most N groups are in flight (the
 * caller's barrier then makes the data visible to the block).
 */
HR_DEVICE void hr_cp_async16(void *dst, const void *src, bool valid)
{
	const unsigned addr = (unsigned)__cvta_generic_to_shared(dst);

	asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;"
		     :: "r"(addr), "l"(src), "r"(valid ? 16 : 0) : "memory");
}

HR_DEVICE void hr_cp_async_commit(void)
{
	asm volatile("cp.async.commit_group;" ::: "memory");
}

template <int N>
HR_DEVICE void hr_cp_async_wait(void)
{
	asm volatile("cp.async.wait_group %0;" :: "n"(N) : "memory");
}
#endif

#if HR_MMA != HR_MMA_SYNC
/* B[k][n] = base[k * ld + n] (B row-major) element by element: the lane's
 * k run down a column here (ldmatrix.trans does it on NVIDIA). */
template <typename T>
HR_DEVICE void hr_mma_load_b_smem(hr_mma_b<T> &b, const T *base, int ld)
{
	hr_mma_load_bt(b, [&](int n, int k) { return base[k * ld + n]; });
}
#endif

template <typename T>
HR_DEVICE void hr_mma_load_a_smem(hr_mma_a<T> &a, const T *base, int ld)
{
	const int t = hr_mma_lane();
#if HR_MMA == HR_MMA_SYNC
	/* matrix t / 8: rows 8 (m % 2) .., k 8 (m / 2) .. (a0..a3) */
	const int m = t / 8;

	hr_mma_ldmatrix4(a.v, base + (t % 8 + 8 * (m % 2)) * ld + 8 * (m / 2));
#else
	hr_mma_load_row<T, HR_MMA_NA>(a.v, base + hr_mma_a_row(t, 0) * ld + hr_mma_a_k(t, 0));
#endif
}

template <typename T>
HR_DEVICE void hr_mma_load_bt_smem(hr_mma_b<T> &b, const T *base, int ld)
{
	const int t = hr_mma_lane();
#if HR_MMA == HR_MMA_SYNC
	/* matrix t / 8: n 8 (m / 2) .., k 8 (m % 2) .. (b0, b1 of n 0-7, then 8-15) */
	const int m = t / 8;

	hr_mma_ldmatrix4(b.v, base + (t % 8 + 8 * (m / 2)) * ld + 8 * (m % 2));
#else
	hr_mma_load_row<T, HR_MMA_NB>(b.v, base + hr_mma_b_col(t, 0) * ld + hr_mma_b_k(t, 0));
#endif
}

HR_DEVICE int hr_mma_acc_row(int e) { return hr_mma_c_row(hr_mma_lane(), e); }
HR_DEVICE int hr_mma_acc_col(int e) { return hr_mma_c_col(hr_mma_lane(), e); }

template <typename T> struct hr_mma_is_bf16 { static const bool value = false; };
template <> struct hr_mma_is_bf16<hr_bf16> { static const bool value = true; };

#if defined(HR_HIP)
typedef float hr_mma_f32x4 __attribute__((ext_vector_type(4)));
typedef float hr_mma_f32x8 __attribute__((ext_vector_type(8)));
typedef _Float16 hr_mma_f16xa __attribute__((ext_vector_type(HR_MMA_NA)));
typedef short hr_mma_i16xa __attribute__((ext_vector_type(HR_MMA_NA)));
#endif

template <typename T>
HR_DEVICE void hr_mma_run(hr_mma_acc &c, const hr_mma_a<T> &a, const hr_mma_b<T> &b)
{
	const bool bf16 = hr_mma_is_bf16<T>::value;
#if defined(HR_HOST)
	hr_host_mma(HR_MMA, bf16, a.v, b.v, c.v);
#elif HR_MMA == HR_MMA_SYNC
	uint32_t ar[4], br[4];

	memcpy(ar, a.v, sizeof(ar));
	memcpy(br, b.v, sizeof(br));

#pragma unroll
	for (int h = 0; h < 2; h++) {
		float *d = c.v + 4 * h;

		if (bf16)
			asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
				     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
				     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
				     : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]),
				       "r"(br[2 * h]), "r"(br[2 * h + 1]));
		else
			asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
				     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
				     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
				     : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]),
				       "r"(br[2 * h]), "r"(br[2 * h + 1]));
	}
#else
	hr_mma_f16xa fa, fb;
	hr_mma_i16xa sa, sb;

	__builtin_memcpy(&fa, a.v, sizeof(fa));
	__builtin_memcpy(&fb, b.v, sizeof(fb));
	__builtin_memcpy(&sa, a.v, sizeof(sa));
	__builtin_memcpy(&sb, b.v, sizeof(sb));
#if HR_MMA == HR_MMA_MFMA
	hr_mma_f32x4 acc;

	__builtin_memcpy(&acc, c.v, sizeof(acc));
	acc = bf16 ? __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(sa, sb, acc, 0, 0, 0)
		   : __builtin_amdgcn_mfma_f32_16x16x16f16(fa, fb, acc, 0, 0, 0);
#else
	hr_mma_f32x8 acc;

	__builtin_memcpy(&acc, c.v, sizeof(acc));
#if HR_MMA == HR_MMA_WMMA11
	acc = bf16 ? __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32(sa, sb, acc)
		   : __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(fa, fb, acc);
#else
	acc = bf16 ? __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32_gfx12(sa, sb, acc)
		   : __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(fa, fb, acc);
#endif
#endif
	__builtin_memcpy(c.v, &acc, sizeof(acc));
#endif
}

/*
 * The wave's lanes have passed this point and see each other's shared
 * memory writes (lanes exchange data through shared memory between matrix
 * products).
 */
HR_DEVICE void hr_wave_barrier(void)
{
#if defined(HR_HOST) || defined(HR_CUDA)
	__syncwarp();
#else
	__builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
	__builtin_amdgcn_wave_barrier();
	__builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
#endif
}
#endif /* HR_MMA != HR_MMA_NONE */

#endif /* HR_MATRIX_H */
