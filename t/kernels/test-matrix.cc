/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The host emulation of the matrix builtins (kernels/hr-matrix.h) against a
 * scalar matrix product, with this file's own table of the register
 * layouts (CDNA3 ISA 7.1 / the AMD matrix instruction calculator for
 * v_mfma_f32_16x16x16{f16,bf16}; RDNA3 ISA 7.9 for v_wmma_f32_16x16x16_*
 * on gfx11, RDNA4 ISA 7.12 for gfx12): every lane's registers are filled
 * from A, B and C by the table, the emulation computes each lane's
 * accumulators, and the table says which element of C each must equal.
 * Inputs are small integers, so every product and sum is exact and the
 * comparison is exact: a lane or element off by one fails.  Also checks
 * the kernel-side maps of the path this program is compiled for
 * (HR_HOST_MMA) against the same table, and that gfx11 operands that are
 * not repeated in lanes 16-31 poison the result.
 */
#include <stdio.h>
#include <stdlib.h>

#include "hr-kernel.h"

static int failures, checks;

static void check(bool ok, const char *what, int kind, bool bf16, int lane, int e)
{
	checks++;
	if (ok)
		return;
	if (failures++ < 20)
		printf("# FAIL %s: kind %d %s lane %d element %d\n", what, kind, bf16 ? "bf16" : "f16",
		       lane, e);
}

/* The table: what element e of lane t holds, per the ISA documents. */
struct pos {
	int r, c;
};

static int lanes_of(int kind) { return kind == HR_HOST_MFMA16 ? 64 : 32; }
static int nab_of(int kind) { return kind == HR_HOST_MFMA16 ? 4 : kind == HR_HOST_WMMA11 ? 16 : 8; }
static int nc_of(int kind) { return kind == HR_HOST_MFMA16 ? 4 : 8; }

/* A[i][k] as (r = i, c = k); B[k][n] as (r = n, c = k): same table on AMD. */
static pos table_ab(int kind, int t, int e)
{
	switch (kind) {
	case HR_HOST_MFMA16:
		return { t % 16, 4 * (t / 16) + e };    /* lanes 16g..16g+15: k 4g..4g+3 */
	case HR_HOST_WMMA11:
		return { t % 16, e };                   /* all k; upper half repeats */
	default:
		return { t % 16, 8 * (t / 16) + e };    /* k 0-7 low lanes, 8-15 high */
	}
}

/* C[row][col] of accumulator element e of lane t. */
static pos table_c(int kind, int t, int e)
{
	switch (kind) {
	case HR_HOST_MFMA16:
		return { 4 * (t / 16) + e, t % 16 };
	case HR_HOST_WMMA11:
		return { 2 * e + t / 16, t % 16 };      /* even rows low lanes, odd high */
	default:
		return { 8 * (t / 16) + e, t % 16 };
	}
}

static uint16_t bits_of(float f, bool bf16)
{
	return bf16 ? hr_f32_to_bf16(f).bits : hr_f32_to_f16(f).bits;
}

static void run(int kind, bool bf16, unsigned seed, bool break_copy)
{
	const int lanes = lanes_of(kind), n = nab_of(kind), nc = nc_of(kind);
	float A[16][16], B[16][16], C[16][16];
	uint16_t ra[64 * 16], rb[64 * 16];

	srand(seed);
	for (int i = 0; i < 16; i++)
		for (int j = 0; j < 16; j++) {
			A[i][j] = (float)(rand() % 9 - 4);
			B[i][j] = (float)(rand() % 9 - 4);
			C[i][j] = (float)(rand() % 201 - 100);
		}
	for (int t = 0; t < lanes; t++)
		for (int e = 0; e < n; e++) {
			const pos p = table_ab(kind, t, e);

			ra[t * n + e] = bits_of(A[p.r][p.c], bf16);
			rb[t * n + e] = bits_of(B[p.c][p.r], bf16);
		}
	if (break_copy)
		ra[20 * n + 3] ^= 0x4000u;      /* lane 20 no longer repeats lane 4 */
	for (int t = 0; t < lanes; t++) {
		float c[8];

		for (int e = 0; e < nc; e++) {
			const pos p = table_c(kind, t, e);

			c[e] = C[p.r][p.c];
		}
		hr_host_mma_compute(kind, bf16, ra, rb, t, c);
		for (int e = 0; e < nc; e++) {
			const pos p = table_c(kind, t, e);
			float want = C[p.r][p.c];

			for (int k = 0; k < 16; k++)
				want += A[p.r][k] * B[k][p.c];
			if (break_copy)
				check(c[e] != c[e], "non-repeated gfx11 operand gives NaN", kind, bf16, t, e);
			else
				check(c[e] == want, "accumulator = C + A B", kind, bf16, t, e);
		}
	}
}

/* The kernel-side maps (hr_mma_a_row & co.) of the compiled-for path. */
static void kernel_maps(void)
{
	const int kind = HR_MMA;

	for (int t = 0; t < HR_MMA_WAVE; t++) {
		for (int e = 0; e < HR_MMA_NA; e++) {
			const pos p = table_ab(kind, t, e);

			check(hr_mma_a_row(t, e) == p.r && hr_mma_a_k(t, e) == p.c, "A map", kind,
			      false, t, e);
			check(hr_mma_b_col(t, e) == p.r && hr_mma_b_k(t, e) == p.c, "B map", kind,
			      false, t, e);
		}
		for (int e = 0; e < HR_MMA_NC; e++) {
			const pos p = table_c(kind, t, e);

			check(hr_mma_c_row(t, e) == p.r && hr_mma_c_col(t, e) == p.c, "C map", kind,
			      false, t, e);
		}
	}
}

static int tap_n;

/* One TAP line for the checks since the last one. */
static void tap(const char *what, int failed_before)
{
	printf("%s %d - %s\n", failures == failed_before ? "ok" : "not ok", ++tap_n, what);
}

int main(void)
{
	static const int kinds[] = { HR_HOST_MFMA16, HR_HOST_WMMA11, HR_HOST_WMMA12 };
	static const char *const names[] = { "", "mfma_f32_16x16x16", "wmma_f32_16x16x16_w32 (gfx11)",
					     "wmma_f32_16x16x16_w32_gfx12" };
	char what[128];

	printf("1..8\n");
	for (int kind : kinds)
		for (int bf = 0; bf < 2; bf++) {
			const int before = failures;

			for (unsigned seed = 1; seed <= 3; seed++)
				run(kind, bf != 0, seed * 7919u + (unsigned)kind, false);
			snprintf(what, sizeof(what), "emulated %s %s = C + A B, lane-exact", names[kind],
				 bf ? "bf16" : "f16");
			tap(what, before);
		}
	int before = failures;

	run(HR_HOST_WMMA11, false, 5, true);
	run(HR_HOST_WMMA11, true, 6, true);
	tap("gfx11 operands not repeated in lanes 16-31 give NaN", before);
	before = failures;
	kernel_maps();
	snprintf(what, sizeof(what), "kernel-side register maps of path %d (wave %d) match the ISA table",
		 HR_MMA, HR_HOST_WAVE);
	tap(what, before);
	printf("# %d checks, %d failed\n", checks, failures);
	return 0;
}
