/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * attention-decode: one decode step of a GQA model through the public API
 * (<hanzo-rocm.h> only) - 32 query heads, 8 KV heads, head dim 128, f16,
 * a paged KV cache of 4096 token slots (256 blocks of 16) shared by two
 * sequences in shuffled blocks - checked against a float64 reference
 * (plain q.K^T, softmax, times V).
 *
 *   1. reshape_and_cache_flash_f16 writes every token's K and V into its
 *      slot (one launch for all 4096 here; a real step appends one token
 *      per sequence the same way);
 *   2. paged_attention_d128_f16 attends each sequence's new query over its
 *      keys; hanzo_rocm_kernel_geometry says whether the library splits
 *      the keys (few rows, long sequences: flash-decoding), and then
 *      paged_attention_combine_f16 merges the splits from a workspace of
 *      splits * rows * (128 + 1) floats;
 *   3. the same decode through hanzo_rocm_op_run, which does step 2's
 *      choosing itself (the output must be the same bytes).
 *
 * Build and run as examples/vector-add.c (its header); on the host backend:
 *   HANZO_ROCM_HOST=host-w64 _build/main/hanzo-rocm --run examples/attention-decode
 */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hanzo-rocm.h>

#define NQ 32
#define NKV 8
#define HD 128
#define BS 16
#define NBLOCKS 256
#define NSEQ 2

/* The few memory calls the application makes itself. */
struct gpu_mem {
	int (*alloc)(struct gpu_mem *m, uint64_t *p, size_t n);
	int (*htod)(struct gpu_mem *m, uint64_t d, const void *s, size_t n);
	int (*dtoh)(struct gpu_mem *m, void *d, uint64_t s, size_t n);
	int (*release)(struct gpu_mem *m, uint64_t p);
	void *dl;
	void *f[6];
	int ordinal;
};

/* ---- NVIDIA: the CUDA driver, in the device's primary context ---- */
static int cu_alloc(struct gpu_mem *m, uint64_t *p, size_t n) { return ((int (*)(uint64_t *, size_t))m->f[0])(p, n); }
static int cu_htod(struct gpu_mem *m, uint64_t d, const void *s, size_t n) { return ((int (*)(uint64_t, const void *, size_t))m->f[1])(d, s, n); }
static int cu_dtoh(struct gpu_mem *m, void *d, uint64_t s, size_t n) { return ((int (*)(void *, uint64_t, size_t))m->f[2])(d, s, n); }
static int cu_free(struct gpu_mem *m, uint64_t p) { return ((int (*)(uint64_t))m->f[3])(p); }

static int cuda_init(struct gpu_mem *m)
{
	static const char *const names[] = { "cuMemAlloc_v2", "cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2",
	                                     "cuMemFree_v2", "cuDevicePrimaryCtxRetain", "cuCtxSetCurrent" };
	void *pctx;

	m->dl = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!m->dl)
		return -1;
	for (int i = 0; i < 6; i++)
		if (!(m->f[i] = dlsym(m->dl, names[i])))
			return -1;
	/* cuInit was called by hanzo-rocm; memory lives in the primary context. */
	if (((int (*)(void **, int))m->f[4])(&pctx, m->ordinal) != 0 ||
	    ((int (*)(void *))m->f[5])(pctx) != 0)
		return -1;
	m->alloc = cu_alloc; m->htod = cu_htod; m->dtoh = cu_dtoh; m->release = cu_free;
	return 0;
}

/* ---- AMD: the HIP runtime ---- */
static int hip_alloc(struct gpu_mem *m, uint64_t *p, size_t n)
{
	void *q = NULL;
	int r = ((int (*)(void **, size_t))m->f[0])(&q, n);

	*p = (uint64_t)(uintptr_t)q;
	return r;
}
static int hip_htod(struct gpu_mem *m, uint64_t d, const void *s, size_t n) { return ((int (*)(void *, const void *, size_t, int))m->f[1])((void *)(uintptr_t)d, s, n, 1); }
static int hip_dtoh(struct gpu_mem *m, void *d, uint64_t s, size_t n) { return ((int (*)(void *, const void *, size_t, int))m->f[1])(d, (void *)(uintptr_t)s, n, 2); }
static int hip_free(struct gpu_mem *m, uint64_t p) { return ((int (*)(void *))m->f[2])((void *)(uintptr_t)p); }

static int hip_init(struct gpu_mem *m)
{
	static const char *const names[] = { "hipMalloc", "hipMemcpy", "hipFree", "hipSetDevice" };

	m->dl = dlopen("libamdhip64.so.6", RTLD_NOW | RTLD_LOCAL);
	if (!m->dl)
		m->dl = dlopen("libamdhip64.so.5", RTLD_NOW | RTLD_LOCAL);
	if (!m->dl)
		return -1;
	for (int i = 0; i < 4; i++)
		if (!(m->f[i] = dlsym(m->dl, names[i])))
			return -1;
	if (((int (*)(int))m->f[3])(m->ordinal) != 0)
		return -1;
	m->alloc = hip_alloc; m->htod = hip_htod; m->dtoh = hip_dtoh; m->release = hip_free;
	return 0;
}

/* ---- the host backend (HANZO_ROCM_HOST=host-w64): device memory is host memory ---- */
static int host_alloc(struct gpu_mem *m, uint64_t *p, size_t n)
{
	(void)m;
	*p = (uint64_t)(uintptr_t)malloc(n ? n : 1);
	return *p ? 0 : -1;
}
static int host_htod(struct gpu_mem *m, uint64_t d, const void *s, size_t n) { (void)m; memcpy((void *)(uintptr_t)d, s, n); return 0; }
static int host_dtoh(struct gpu_mem *m, void *d, uint64_t s, size_t n) { (void)m; memcpy(d, (const void *)(uintptr_t)s, n); return 0; }
static int host_free(struct gpu_mem *m, uint64_t p) { (void)m; free((void *)(uintptr_t)p); return 0; }

/* IEEE half, round to nearest even (the kernels' storage type). */
static uint16_t f32_to_f16(float f)
{
	uint32_t x, sign, e, m, h, rem, half;
	int ex;

	memcpy(&x, &f, 4);
	sign = (x >> 16) & 0x8000u;
	e = (x >> 23) & 0xffu;
	m = x & 0x7fffffu;
	if (e == 0xff)
		return (uint16_t)(sign | 0x7c00u | (m ? 0x200u : 0));
	ex = (int)e - 127 + 15;
	if (ex >= 31)
		return (uint16_t)(sign | 0x7c00u);
	if (ex <= 0) {                  /* subnormal half */
		if (ex < -10)
			return (uint16_t)sign;
		m |= 0x800000u;
		unsigned shift = (unsigned)(14 - ex);
		h = m >> shift;
		rem = m & ((1u << shift) - 1);
		half = 1u << (shift - 1);
		if (rem > half || (rem == half && (h & 1)))
			h++;
		return (uint16_t)(sign | h);
	}
	h = ((uint32_t)ex << 10) | (m >> 13);
	rem = m & 0x1fffu;
	if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
		h++;                    /* may carry into the exponent: still right */
	return (uint16_t)(sign | h);
}

static float f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, x;
	float f;

	if (e == 0)
		return (sign ? -1.0f : 1.0f) * ldexpf((float)m, -24);
	x = e == 31 ? sign | 0x7f800000u | (m << 13) : sign | ((e + 112) << 23) | (m << 13);
	memcpy(&f, &x, 4);
	return f;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

/* A random f16 in (-1, 1), and its value. */
static uint16_t rand_f16(float *v)
{
	uint16_t h;

	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	h = f32_to_f16((float)((double)((rng * 2685821657736338717ull) >> 11) / 9007199254740992.0 * 2 - 1));
	*v = f16_to_f32(h);
	return h;
}

int main(void)
{
	static const int32_t lens[NSEQ] = { 3008, 1088 };      /* all 4096 slots */
	const size_t ntok = (size_t)lens[0] + (size_t)lens[1], per_tok = NKV * HD;
	const size_t cache_elems = (size_t)NBLOCKS * BS * per_tok, rows = NSEQ * NQ;
	const size_t maxb = NBLOCKS;    /* block table width: any sequence may use every block */
	struct hanzo_rocm *ctx;
	struct hanzo_rocm_kernel *write, *decode, *combine;
	struct hanzo_rocm_geometry geo;
	struct gpu_mem mem = { 0 };
	uint16_t *kh = malloc(ntok * per_tok * 2), *vh = malloc(ntok * per_tok * 2);
	uint16_t *qh = malloc(rows * HD * 2), *oh = malloc(rows * HD * 2);
	float *kf = malloc(ntok * per_tok * 4), *vf = malloc(ntok * per_tok * 4);
	float *qf = malloc(rows * HD * 4), *lse = malloc(rows * 4);
	int64_t *slots = malloc(ntok * 8);
	int32_t *table = malloc(NSEQ * maxb * 4), perm[NBLOCKS];
	uint64_t dk = 0, dv = 0, dkc = 0, dvc = 0, dsl = 0, dq = 0, dbt = 0, dlen = 0, dout = 0;
	uint64_t dlse = 0, dws = 0, null = 0;
	double maxerr = 0, maxlse = 0;
	const char *target;
	int r;

	if (!kh || !vh || !qh || !oh || !kf || !vf || !qf || !lse || !slots || !table) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	r = hanzo_rocm_new(&ctx);
	if (r < 0) {
		fprintf(stderr, "hanzo_rocm_new: %s\n", hanzo_rocm_strerror(r));
		return 1;
	}
	if (hanzo_rocm_device_count(ctx) <= 0) {
		printf("no GPU: nothing to run\n");
		hanzo_rocm_unref(ctx);
		return 0;
	}
	hanzo_rocm_device_target(ctx, 0, &target);
	printf("device 0: %s\n", target);
	if ((r = hanzo_rocm_kernel_get(ctx, 0, "attention", "reshape_and_cache_flash_f16", &write)) < 0 ||
	    (r = hanzo_rocm_kernel_get(ctx, 0, "attention", "paged_attention_d128_f16", &decode)) < 0 ||
	    (r = hanzo_rocm_kernel_get(ctx, 0, "attention", "paged_attention_combine_f16", &combine)) < 0) {
		fprintf(stderr, "attention family: %s\n", hanzo_rocm_strerror(r));
		return 1;
	}
	mem.ordinal = 0;
	if (hanzo_rocm_device_platform(ctx, 0) == HANZO_ROCM_PLATFORM_NVIDIA) {
		r = cuda_init(&mem);
	} else if (hanzo_rocm_device_platform(ctx, 0) == HANZO_ROCM_PLATFORM_HOST) {
		mem.alloc = host_alloc; mem.htod = host_htod; mem.dtoh = host_dtoh; mem.release = host_free;
		r = 0;
	} else {
		r = hip_init(&mem);
	}
	if (r < 0) {
		fprintf(stderr, "cannot set up device memory\n");
		return 1;
	}

	/* The cache's blocks, shuffled; sequence s takes the next ones. */
	for (int b = 0; b < NBLOCKS; b++)
		perm[b] = b;
	for (int b = NBLOCKS - 1; b > 0; b--) {
		int j = (int)((rng = rng * 6364136223846793005ull + 1442695040888963407ull) >> 33) % (b + 1);
		int32_t t = perm[b];

		perm[b] = perm[j];
		perm[j] = t;
	}
	for (size_t s = 0, used = 0, t = 0; s < NSEQ; s++) {
		const size_t nb = ((size_t)lens[s] + BS - 1) / BS;

		for (size_t b = 0; b < maxb; b++)
			table[s * maxb + b] = b < nb ? perm[used + b] : -1;
		for (int32_t j = 0; j < lens[s]; j++, t++)
			slots[t] = (int64_t)table[s * maxb + (size_t)j / BS] * BS + j % BS;
		used += nb;
	}
	for (size_t i = 0; i < ntok * per_tok; i++) {
		kh[i] = rand_f16(&kf[i]);
		vh[i] = rand_f16(&vf[i]);
	}
	for (size_t i = 0; i < rows * HD; i++)
		qh[i] = rand_f16(&qf[i]);
	if (mem.alloc(&mem, &dk, ntok * per_tok * 2) || mem.alloc(&mem, &dv, ntok * per_tok * 2) ||
	    mem.alloc(&mem, &dkc, cache_elems * 2) || mem.alloc(&mem, &dvc, cache_elems * 2) ||
	    mem.alloc(&mem, &dsl, ntok * 8) || mem.alloc(&mem, &dq, rows * HD * 2) ||
	    mem.alloc(&mem, &dbt, NSEQ * maxb * 4) || mem.alloc(&mem, &dlen, sizeof(lens)) ||
	    mem.alloc(&mem, &dout, rows * HD * 2) || mem.alloc(&mem, &dlse, rows * 4) ||
	    mem.htod(&mem, dk, kh, ntok * per_tok * 2) || mem.htod(&mem, dv, vh, ntok * per_tok * 2) ||
	    mem.htod(&mem, dsl, slots, ntok * 8) || mem.htod(&mem, dq, qh, rows * HD * 2) ||
	    mem.htod(&mem, dbt, table, NSEQ * maxb * 4) || mem.htod(&mem, dlen, lens, sizeof(lens))) {
		fprintf(stderr, "device memory failed\n");
		return 1;
	}

	/* 1. The cache write: work = tokens x (kv heads * head dim). */
	size_t nt = ntok, nkv = NKV, hd = HD, bs = BS, nblocks = NBLOCKS, stride = per_tok;
	void *wargs[] = { &dk, &dv, &dkc, &dvc, &dsl, &nt, &nkv, &hd, &bs, &nblocks, &stride, &stride };
	r = hanzo_rocm_kernel_launch_work(write, ntok, per_tok, NULL, wargs);
	if (r < 0) {
		fprintf(stderr, "reshape_and_cache_flash_f16: %s\n", hanzo_rocm_strerror(r));
		return 1;
	}

	/* 2. Decode: work = (sequences * heads) x longest sequence. */
	size_t nseq = NSEQ, nq = NQ, mb = maxb, qstride = NQ * HD, nrows = rows, splits;
	float scale = 1.0f / sqrtf((float)HD), softcap = 0;
	int window = -1;
	r = hanzo_rocm_kernel_geometry(decode, rows, (uint64_t)lens[0], &geo);
	if (r < 0) {
		fprintf(stderr, "geometry: %s\n", hanzo_rocm_strerror(r));
		return 1;
	}
	splits = geo.splits;
	printf("decode: grid %u x %u, block %u: %s\n", geo.grid[0], geo.grid[1], geo.block[0],
	       splits > 1 ? "split-K + combine" : "one pass");
	if (splits > 1 && mem.alloc(&mem, &dws, splits * rows * (HD + 1) * 4)) {
		fprintf(stderr, "workspace: device memory failed\n");
		return 1;
	}
	void *dargs[] = { &dout, &dlse, &dws, &dq, &dkc, &dvc, &dbt, &dlen, &null, &nseq, &nq, &nkv,
	                  &bs, &mb, &nblocks, &qstride, &scale, &softcap, &window };
	r = hanzo_rocm_kernel_launch_work(decode, rows, (uint64_t)lens[0], NULL, dargs);
	if (r == 0 && splits > 1) {
		void *cargs[] = { &dout, &dlse, &dws, &nrows, &hd, &splits };

		r = hanzo_rocm_kernel_launch_work(combine, rows, HD, NULL, cargs);
	}
	if (r < 0) {
		fprintf(stderr, "decode: %s\n", hanzo_rocm_strerror(r));
		return 1;
	}
	if (mem.dtoh(&mem, oh, dout, rows * HD * 2) || mem.dtoh(&mem, lse, dlse, rows * 4)) {
		fprintf(stderr, "copy back failed\n");
		return 1;
	}

	/* The reference: softmax(scale q.K^T) V per sequence and query head. */
	double *s = malloc(sizeof(double) * (size_t)lens[0]);

	for (size_t seq = 0, first = 0; seq < NSEQ && s; first += (size_t)lens[seq], seq++) {
		for (size_t h = 0; h < NQ; h++) {
			const float *q = qf + (seq * NQ + h) * HD;
			const size_t kvh = h / (NQ / NKV);
			double m = -INFINITY, l = 0, o[HD] = { 0 };

			for (int32_t j = 0; j < lens[seq]; j++) {
				const float *k = kf + (first + (size_t)j) * per_tok + kvh * HD;
				double dot = 0;

				for (size_t e = 0; e < HD; e++)
					dot += (double)q[e] * k[e];
				s[j] = dot * scale;
				m = fmax(m, s[j]);
			}
			for (int32_t j = 0; j < lens[seq]; j++) {
				const float *v = vf + (first + (size_t)j) * per_tok + kvh * HD;
				const double p = exp(s[j] - m);

				l += p;
				for (size_t e = 0; e < HD; e++)
					o[e] += p * v[e];
			}
			for (size_t e = 0; e < HD; e++) {
				double err = fabs(f16_to_f32(oh[(seq * NQ + h) * HD + e]) - o[e] / l);

				if (!(err <= maxerr))
					maxerr = err;
			}
			double lerr = fabs(lse[seq * NQ + h] - (m + log(l)));

			if (!(lerr <= maxlse))
				maxlse = lerr;
		}
	}
	/* 3. The same decode as one operation call: the library picks the
	 *    splits, states the workspace and runs the combine; the arguments
	 *    it cannot derive go by name (checked against the signature). */
	uint16_t *oh2 = malloc(rows * HD * 2);
	uint64_t dout2 = 0, dws2 = 0;
	size_t opws = 0;
	int same = 0;
	struct hanzo_rocm_op_arg named[] = {
		{ "out", &dout2, sizeof(dout2) }, { "lse", &dlse, sizeof(dlse) },
		{ "q", &dq, sizeof(dq) }, { "key_cache", &dkc, sizeof(dkc) },
		{ "value_cache", &dvc, sizeof(dvc) }, { "block_tables", &dbt, sizeof(dbt) },
		{ "seq_lens", &dlen, sizeof(dlen) }, { "alibi_slopes", &null, sizeof(null) },
		{ "num_seqs", &nseq, sizeof(nseq) }, { "num_heads", &nq, sizeof(nq) },
		{ "num_kv_heads", &nkv, sizeof(nkv) }, { "block_size", &bs, sizeof(bs) },
		{ "max_blocks_per_seq", &mb, sizeof(mb) }, { "num_blocks", &nblocks, sizeof(nblocks) },
		{ "q_stride", &qstride, sizeof(qstride) }, { "scale", &scale, sizeof(scale) },
		{ "softcap", &softcap, sizeof(softcap) }, { "window_left", &window, sizeof(window) },
		{ "head_dim", &hd, sizeof(hd) },
	};
	r = hanzo_rocm_op_workspace(decode, rows, (uint64_t)lens[0], &opws);
	if (r == 0 && oh2 && mem.alloc(&mem, &dout2, rows * HD * 2) == 0 &&
	    (opws == 0 || mem.alloc(&mem, &dws2, opws) == 0)) {
		struct hanzo_rocm_op_args oa = { .size = sizeof(oa),
		                                 .workspace = (void *)(uintptr_t)dws2,
		                                 .workspace_size = opws, .named = named,
		                                 .n_named = sizeof(named) / sizeof(named[0]) };

		r = hanzo_rocm_op_run(decode, rows, (uint64_t)lens[0], &oa);
		same = r == 0 && mem.dtoh(&mem, oh2, dout2, rows * HD * 2) == 0 &&
		       memcmp(oh, oh2, rows * HD * 2) == 0;
	}
	printf("operation call: workspace %zu bytes, %s\n", opws,
	       same ? "the same output: OK" : "WRONG");
	if (dout2)
		mem.release(&mem, dout2);
	if (dws2)
		mem.release(&mem, dws2);
	free(oh2);

	const int good = s && maxerr <= 1e-3 && maxlse <= 1e-4 && same;

	printf("decode step: %d sequences, %d query heads / %d kv heads, head %d, %zu cached "
	       "tokens: max error %.3g (lse %.3g): %s\n", NSEQ, NQ, NKV, HD, ntok, maxerr, maxlse,
	       good ? "OK" : "WRONG");
	free(s);
	mem.release(&mem, dk); mem.release(&mem, dv); mem.release(&mem, dkc); mem.release(&mem, dvc);
	mem.release(&mem, dsl); mem.release(&mem, dq); mem.release(&mem, dbt); mem.release(&mem, dlen);
	mem.release(&mem, dout); mem.release(&mem, dlse);
	if (dws)
		mem.release(&mem, dws);
	free(kh); free(vh); free(qh); free(oh); free(kf); free(vf); free(qf); free(lse);
	free(slots); free(table);
	hanzo_rocm_unref(ctx);
	return good ? 0 : 1;
}
