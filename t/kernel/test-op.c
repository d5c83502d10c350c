/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The operation calls beyond the norms (t/kernel/test-launch.c has those), on the
 * host backend: attention's split-K decode through hanzo_rocm_op_run (the
 * library picks the split count, states the workspace, runs the combine)
 * against a float64 reference; its checks (workspace, rows against
 * num_seqs x num_heads, named values' sizes, head_dim) refusing before any
 * launch; hanzo_rocm_kernel_geometry_ex's workspace bytes; and the split
 * rule's floor (2 or 3 splits run the one-pass kernel); the quantized
 * mat-vec's operation (q8_1 form, batches of 8 columns); conv's info
 * built by hanzo_rocm_layout_packed; the sampling family's sample_f32 and
 * topk_f32 with their per-row parameters and values as named arguments.
 */
#include <errno.h>
#include <stdint.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "hanzo-rocm.h"
#include "../host-test.h"
#include "../tap.h"

static struct hanzo_rocm *ctx;
#define D 64
#define NH 2
#define NKV 1
#define BS 16
#define NB 256                  /* cache blocks: 4096 slots */

static uint64_t rng = 0x2545f4914f6cdd1dull;

static float rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (float)((double)((rng * 2685821657736338717ull) >> 11) / 9007199254740992.0 * 2 - 1);
}

struct att {
	float *q, *kc, *vc, *out, *lse;
	int32_t table[NB], len;
	size_t nseq, nh, nkv, bs, maxb, nblocks, qstride;
	float scale, softcap;
	int window;
	struct hanzo_rocm_op_arg named[24];
	size_t n_named;
	const float *pq, *pkc, *pvc, *palibi;
	const int32_t *ptable, *plen;
	size_t hd;
};

static void att_named(struct att *a)
{
	size_t n = 0;

#define NAMED(nm, v) a->named[n++] = (struct hanzo_rocm_op_arg){ nm, &(v), sizeof(v) }
	a->pq = a->q; a->pkc = a->kc; a->pvc = a->vc; a->ptable = a->table; a->plen = &a->len;
	a->palibi = NULL;
	NAMED("out", a->out);
	NAMED("lse", a->lse);
	NAMED("q", a->pq);
	NAMED("key_cache", a->pkc);
	NAMED("value_cache", a->pvc);
	NAMED("block_tables", a->ptable);
	NAMED("seq_lens", a->plen);
	NAMED("alibi_slopes", a->palibi);
	NAMED("num_seqs", a->nseq);
	NAMED("num_heads", a->nh);
	NAMED("num_kv_heads", a->nkv);
	NAMED("block_size", a->bs);
	NAMED("max_blocks_per_seq", a->maxb);
	NAMED("num_blocks", a->nblocks);
	NAMED("q_stride", a->qstride);
	NAMED("softcap", a->softcap);
	NAMED("window_left", a->window);
	NAMED("scale", a->scale);
#undef NAMED
	a->n_named = n;
}

/* softmax(scale q.K^T) V for each head over len keys: the largest error of out and lse. */
static void att_check(const struct att *a, double *err, double *lerr)
{
	double *s = malloc(sizeof(double) * (size_t)a->len);

	*err = *lerr = s ? 0 : INFINITY;
	for (size_t h = 0; s && h < NH; h++) {
		const float *q = a->q + h * D;
		const size_t kvh = h / (NH / NKV);
		double m = -INFINITY, l = 0, o[D] = { 0 };

		for (int32_t j = 0; j < a->len; j++) {
			const size_t slot = (size_t)a->table[j / BS] * BS + (size_t)(j % BS);
			const float *k = a->kc + (slot * NKV + kvh) * D;
			double dot = 0;

			for (size_t e = 0; e < D; e++)
				dot += (double)q[e] * k[e];
			s[j] = dot * a->scale;
			m = fmax(m, s[j]);
		}
		for (int32_t j = 0; j < a->len; j++) {
			const size_t slot = (size_t)a->table[j / BS] * BS + (size_t)(j % BS);
			const float *v = a->vc + (slot * NKV + kvh) * D;
			const double p = exp(s[j] - m);

			l += p;
			for (size_t e = 0; e < D; e++)
				o[e] += p * v[e];
		}
		for (size_t e = 0; e < D; e++) {
			double d = fabs(a->out[h * D + e] - o[e] / l);

			if (!(d <= *err))
				*err = d;
		}
		double d = fabs(a->lse[h] - (m + log(l)));

		if (!(d <= *lerr))
			*lerr = d;
	}
	free(s);
}

static void poison(struct att *a)
{
	for (size_t i = 0; i < NH * D; i++)
		a->out[i] = NAN;
	for (size_t i = 0; i < NH; i++)
		a->lse[i] = NAN;
}

static bool untouched(const struct att *a)
{
	for (size_t i = 0; i < NH * D; i++)
		if (!isnan(a->out[i]))
			return false;
	return true;
}

/*
 * Every bad argument refused before launch, with its own errno: a NULL
 * required pointer by name (each of them), a value of the wrong type
 * (int for float, float for int, signedness), a missing block_size (the
 * page size: never the launch block).
 */
static void test_attention_refusals(struct hanzo_rocm_kernel *k, struct att *a,
                                    struct hanzo_rocm_op_args *oa, unsigned dev)
{
	static const char *const required[] = { "out", "q", "key_cache", "value_cache",
	                                          "block_tables", "seq_lens" };
	const void *none = NULL;
	int32_t iscale = 1;
	float fbs = 16;
	int64_t sbs = 16;

	for (size_t r = 0; r < sizeof(required) / sizeof(required[0]); r++) {
		for (size_t i = 0; i < a->n_named; i++)
			if (strcmp(a->named[i].name, required[r]) == 0) {
				struct hanzo_rocm_op_arg save = a->named[i];

				a->named[i] = (struct hanzo_rocm_op_arg){ required[r], &none, sizeof(none) };
				is_int(hanzo_rocm_op_run(k, NH, (uint64_t)a->len, oa), -EINVAL,
				       "dev %u: a NULL %s by name: -EINVAL", dev, required[r]);
				a->named[i] = save;
			}
	}
	ok(untouched(a), "dev %u:   ... nothing launched", dev);
	for (size_t i = 0; i < a->n_named; i++) {
		struct hanzo_rocm_op_arg save = a->named[i], typed[] = {
			HANZO_ROCM_OP_ARG("scale", iscale), HANZO_ROCM_OP_ARG("block_size", sbs),
			{ "float block_size", &fbs, sizeof(fbs) }, { "uint32_t window_left", &a->window, 4 },
		};

		for (size_t t = 0; t < sizeof(typed) / sizeof(typed[0]); t++) {
			const char *nm = strrchr(typed[t].name, ' ') + 1;

			if (strcmp(save.name, nm) != 0 ||
			    (strcmp(nm, "block_size") == 0 && typed[t].bytes != sizeof(size_t)))
				continue;
			a->named[i] = typed[t];
			is_int(hanzo_rocm_op_run(k, NH, (uint64_t)a->len, oa), -EINVAL,
			       "dev %u: named '%s' for '%s': the wrong type: -EINVAL", dev,
			       typed[t].name, nm);
			a->named[i] = save;
		}
		if (strcmp(save.name, "scale") == 0) {
			struct hanzo_rocm_op_arg good = HANZO_ROCM_OP_ARG("scale", a->scale);

			ok(strcmp(good.name, "float scale") == 0, "HANZO_ROCM_OP_ARG spells the type (%s)",
			   good.name);
		}
		if (strcmp(save.name, "block_size") == 0) {
			a->named[i] = a->named[a->n_named - 1];
			oa->n_named = a->n_named - 1;
			is_int(hanzo_rocm_op_run(k, NH, (uint64_t)a->len, oa), -EINVAL,
			       "dev %u: block_size (the page size) missing: -EINVAL, not the launch's "
			       "block", dev);
			oa->n_named = a->n_named;
			a->named[i] = save;
		}
	}
	ok(untouched(a), "dev %u:   ... nothing launched", dev);
}

static void test_attention(unsigned dev)
{
	struct hanzo_rocm_kernel *k = NULL;
	struct hanzo_rocm_geometry_ex gx = { .size = sizeof(gx) };
	const size_t slots = (size_t)NB * BS * NKV * D;
	struct att a = { .nseq = 1, .nh = NH, .nkv = NKV, .bs = BS, .maxb = NB, .nblocks = NB,
	                 .qstride = NH * D, .scale = 0.125f, .window = -1, .hd = D };
	float *ws = NULL;
	size_t bytes = 0;
	double err, lerr;

	a.q = malloc(NH * D * 4);
	a.kc = malloc(slots * 4);
	a.vc = malloc(slots * 4);
	a.out = malloc(NH * D * 4);
	a.lse = malloc(NH * 4);
	if (!a.q || !a.kc || !a.vc || !a.out || !a.lse ||
	    hanzo_rocm_kernel_get(ctx, dev, "attention", "paged_attention_d64_f32", &k) < 0) {
		ok(0, "dev %u: attention loads", dev);
		goto out;
	}
	for (size_t i = 0; i < NH * D; i++)
		a.q[i] = rnd();
	for (size_t i = 0; i < slots; i++) {
		a.kc[i] = rnd();
		a.vc[i] = rnd();
	}
	for (int b = 0; b < NB; b++)
		a.table[b] = (b * 37 + 11) % NB;       /* shuffled blocks */
	att_named(&a);

	/* Few rows, a long context: split-K. */
	a.len = 3000;
	is_int(hanzo_rocm_kernel_geometry_ex(k, NH, (uint64_t)a.len, &gx), 0,
	       "dev %u: decode 2 heads x 3000 keys: geometry_ex", dev);
	ok(gx.geometry.splits > 1 && strcmp(gx.op_form, "split") == 0 && gx.op_passes == 2,
	   "dev %u:   ... split-K, two passes (%u splits, %s)", dev, gx.geometry.splits, gx.op_form);
	ok(gx.op_workspace == (size_t)NH * gx.geometry.splits * (D + 1) * 4 &&
	   gx.workspace == gx.op_workspace,
	   "dev %u:   ... workspace rows x splits x (D + 1) floats (%zu)", dev, gx.op_workspace);
	is_int(hanzo_rocm_op_workspace(k, NH, (uint64_t)a.len, &bytes), 0, "dev %u:   ... op_workspace", dev);
	ok(bytes == gx.op_workspace, "dev %u:   ... says the same (%zu)", dev, bytes);
	ws = malloc(4 * bytes);         /* room for the rows test below */
	if (!ws) {
		ok(0, "dev %u: workspace", dev);
		goto out;
	}
	struct hanzo_rocm_op_args oa = { .size = sizeof(oa), .workspace = ws,
	                                 .workspace_size = bytes - 1, .named = a.named,
	                                 .n_named = a.n_named };

	poison(&a);
	is_int(hanzo_rocm_op_run(k, NH, (uint64_t)a.len, &oa), -ENOSPC,
	       "dev %u: a workspace one byte short: -ENOSPC", dev);
	ok(untouched(&a), "dev %u:   ... nothing launched", dev);
	oa.workspace_size = 4 * bytes;
	is_int(hanzo_rocm_op_run(k, NH + 1, (uint64_t)a.len, &oa), -EINVAL,
	       "dev %u: rows not num_seqs x num_heads: -EINVAL", dev);
	ok(untouched(&a), "dev %u:   ... nothing launched", dev);
	oa.workspace_size = bytes;
	{
		double dscale = 0.125;
		struct hanzo_rocm_op_arg save = a.named[a.n_named - 1];

		a.named[a.n_named - 1] = (struct hanzo_rocm_op_arg){ "scale", &dscale, sizeof(dscale) };
		is_int(hanzo_rocm_op_run(k, NH, (uint64_t)a.len, &oa), -EINVAL,
		       "dev %u: a named value of the wrong size (double scale): -EINVAL", dev);
		a.named[a.n_named - 1] = (struct hanzo_rocm_op_arg){ "ws", &ws, sizeof(ws) };
		is_int(hanzo_rocm_op_run(k, NH, (uint64_t)a.len, &oa), -EINVAL,
		       "dev %u: a named ws (the call's own): -EINVAL", dev);
		a.named[a.n_named - 1] = save;
		oa.n_named = a.n_named - 1;
		is_int(hanzo_rocm_op_run(k, NH, (uint64_t)a.len, &oa), -EINVAL,
		       "dev %u: scale missing: -EINVAL", dev);
		oa.n_named = a.n_named;
	}
	ok(untouched(&a), "dev %u:   ... nothing launched", dev);
	test_attention_refusals(k, &a, &oa, dev);
	/* the combine's head_dim: derived from the split pass's partials */
	is_int(hanzo_rocm_op_run(k, NH, (uint64_t)a.len, &oa), 0,
	       "dev %u: split-K decode without a named head_dim runs (derived)", dev);
	att_check(&a, &err, &lerr);
	ok(err < 1e-5 && lerr < 1e-5, "dev %u:   ... matches float64 (out %.3g, lse %.3g)", dev, err, lerr);
	poison(&a);
	/* a named head_dim: checked against the partials */
	a.named[a.n_named++] = (struct hanzo_rocm_op_arg){ "head_dim", &a.hd, sizeof(a.hd) };
	oa.n_named = a.n_named;
	a.hd = D + 1;
	is_int(hanzo_rocm_op_run(k, NH, (uint64_t)a.len, &oa), -EINVAL,
	       "dev %u: head_dim 65 against partials of 64: -EINVAL", dev);
	ok(untouched(&a), "dev %u:   ... nothing launched", dev);
	a.hd = D;
	is_int(hanzo_rocm_op_run(k, NH, (uint64_t)a.len, &oa), 0, "dev %u: split-K decode runs", dev);
	att_check(&a, &err, &lerr);
	ok(err < 1e-5 && lerr < 1e-5, "dev %u:   ... matches float64 (out %.3g, lse %.3g)", dev, err, lerr);

	/* A short context: one pass, no workspace (NULL is fine). */
	a.len = 100;
	is_int(hanzo_rocm_kernel_geometry_ex(k, NH, (uint64_t)a.len, &gx), 0,
	       "dev %u: decode 2 heads x 100 keys: geometry_ex", dev);
	ok(gx.geometry.splits == 1 && strcmp(gx.op_form, "one-pass") == 0 && gx.op_passes == 1 &&
	   gx.op_workspace == 0 && gx.workspace == 0,
	   "dev %u:   ... one pass, no workspace (%s, %zu)", dev, gx.op_form, gx.op_workspace);
	oa.workspace = NULL;
	oa.workspace_size = 0;
	poison(&a);
	is_int(hanzo_rocm_op_run(k, NH, (uint64_t)a.len, &oa), 0, "dev %u: one-pass decode runs", dev);
	att_check(&a, &err, &lerr);
	ok(err < 1e-5 && lerr < 1e-5, "dev %u:   ... matches float64 (out %.3g, lse %.3g)", dev, err, lerr);
out:
	free(ws);
	free(a.q);
	free(a.kc);
	free(a.vc);
	free(a.out);
	free(a.lse);
}

/*
 * geometry_ex on the norms and reductions: a split pass asked alone states
 * its own workspace; the split rule's floor: where the split geometry gives
 * 2 or 3 splits the operation runs the one-pass kernel.
 */
static void test_geometry_ex(unsigned dev)
{
	struct hanzo_rocm_kernel *k = NULL, *ks = NULL;
	struct hanzo_rocm_geometry_ex gx = { .size = sizeof(gx) };
	struct hanzo_rocm_geometry g;
	size_t bytes = 1;
	uint64_t cols = 0;

	if (hanzo_rocm_kernel_get(ctx, dev, "reduce", "fast_sum_f32", &k) < 0 ||
	    hanzo_rocm_kernel_get(ctx, dev, "reduce", "fast_sum_split_f32", &ks) < 0) {
		ok(0, "dev %u: reduce loads", dev);
		return;
	}
	is_int(hanzo_rocm_kernel_geometry_ex(ks, 1, 1 << 16, &gx), 0,
	       "dev %u: fast_sum_split_f32 1 x 65536: geometry_ex", dev);
	ok(gx.geometry.splits > 1 && gx.workspace == (size_t)gx.geometry.splits * 4 &&
	   strcmp(gx.op_form, "single") == 0 && gx.op_workspace == gx.workspace,
	   "dev %u:   ... the pass alone: splits x 4 bytes (%zu, %s)", dev, gx.workspace, gx.op_form);
	is_int(hanzo_rocm_kernel_geometry_ex(k, 1, 1 << 16, &gx), 0,
	       "dev %u: fast_sum_f32 1 x 65536", dev);
	is_int(hanzo_rocm_kernel_geometry(ks, 1, 1 << 16, &g), 0, "dev %u:   ... its split pass's geometry", dev);
	ok(gx.workspace == 0 && strcmp(gx.op_form, "split") == 0 && gx.op_passes == 2 &&
	   gx.op_workspace == (size_t)g.splits * 4,
	   "dev %u:   ... the one-pass kernel needs none, its operation %zu (split)", dev,
	   gx.op_workspace);
	{
		struct hanzo_rocm_geometry_ex old;

		memset(&old, 0x5a, sizeof(old));
		old.size = offsetof(struct hanzo_rocm_geometry_ex, op_form);
		is_int(hanzo_rocm_kernel_geometry_ex(k, 1, 1 << 16, &old), 0, "dev %u: an older struct size", dev);
		ok(old.op_workspace == gx.op_workspace && old.op_passes == 0x5a5a5a5au,
		   "dev %u:   ... filled up to its size, nothing past it", dev);
		old.size = offsetof(struct hanzo_rocm_geometry_ex, op_workspace);
		is_int(hanzo_rocm_kernel_geometry_ex(k, 1, 1 << 16, &old), -EINVAL,
		       "dev %u: a size too small: -EINVAL", dev);
	}
	for (uint64_t c = 256; c <= (1u << 20); c += 256)
		if (hanzo_rocm_kernel_geometry(ks, 1, c, &g) == 0 && g.splits >= 2 && g.splits <= 3) {
			cols = c;
			break;
		}
	ok(cols > 0, "dev %u: a row of %llu columns gives the split pass 2 or 3 splits", dev,
	   (unsigned long long)cols);
	is_int(hanzo_rocm_op_workspace(k, 1, cols, &bytes), 0, "dev %u:   ... op_workspace", dev);
	is_int(hanzo_rocm_kernel_geometry_ex(k, 1, cols, &gx), 0, "dev %u:   ... geometry_ex", dev);
	ok(bytes == 0 && strcmp(gx.op_form, "one-pass") == 0,
	   "dev %u:   ... the operation runs one pass there, no workspace (%zu, %s)", dev, bytes,
	   gx.op_form);
	{
		float *x = malloc(cols * sizeof(float)), y = -1;
		struct hanzo_rocm_op_args oa = { .size = sizeof(oa), .src = x, .dst = &y };
		double want = 0;

		for (size_t i = 0; x && i < cols; i++) {
			x[i] = (float)(i % 5);
			want += (double)(i % 5);
		}
		is_int(x ? hanzo_rocm_op_run(k, 1, cols, &oa) : -ENOMEM, 0, "dev %u:   ... runs", dev);
		ok(fabs(y - want) <= 1e-6 * want, "dev %u:   ... sums right (%g, want %g)", dev,
		   (double)y, want);
		free(x);
	}
	{
		/* a named size the call derives must agree with rows x cols */
		float x[64] = { 0 }, y = -1;
		uint64_t numel = 64 * 2;
		struct hanzo_rocm_op_arg nn = { "src_numel", &numel, sizeof(numel) };
		struct hanzo_rocm_op_args oa = { .size = sizeof(oa), .src = x, .dst = &y,
		                                 .named = &nn, .n_named = 1 };

		is_int(hanzo_rocm_op_run(k, 1, 64, &oa), -EINVAL,
		       "dev %u: a named src_numel of 128 for 1 x 64: -EINVAL", dev);
		ok(y == -1, "dev %u:   ... nothing launched", dev);
		numel = 64;
		is_int(hanzo_rocm_op_run(k, 1, 64, &oa), 0, "dev %u:   ... 64 agrees: runs", dev);
		ok(y == 0, "dev %u:   ... sums right (%g)", dev, (double)y);
	}
	is_int(hanzo_rocm_kernel_geometry_ex(NULL, 1, 1, &gx), -EINVAL, "geometry_ex(NULL): -EINVAL");
}

/*
 * Work beyond an int argument: op_workspace, geometry_ex and op_run give
 * the same -E2BIG (cols = 2^31 for a sort's and a norm's int ncols);
 * cols = 0 is no work and no workspace (the wide form's per-column rule
 * included); the texts of generic errnos stay generic.
 */
static void test_int_range(unsigned dev)
{
	static const char *const names[][2] = {
		{ "sort", "asort_asc_f32" }, { "norm", "rmsnorm_f32" }, { "norm", "softmax_f32" },
	};
	const uint64_t big = (uint64_t)INT32_MAX + 1;
	struct hanzo_rocm_geometry_ex gx = { .size = sizeof(gx) };
	struct hanzo_rocm_kernel *k = NULL;
	size_t bytes = 1;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		float x = 0;
		struct hanzo_rocm_op_args oa = { .size = sizeof(oa), .src = &x, .dst = &x,
		                                 .workspace = &x, .workspace_size = SIZE_MAX };

		if (hanzo_rocm_kernel_get(ctx, dev, names[i][0], names[i][1], &k) < 0) {
			ok(0, "dev %u: %s loads", dev, names[i][1]);
			continue;
		}
		is_int(hanzo_rocm_op_workspace(k, 1, big, &bytes), -E2BIG,
		       "dev %u: %s 1 x 2^31: op_workspace -E2BIG", dev, names[i][1]);
		is_int(hanzo_rocm_kernel_geometry_ex(k, 1, big, &gx), -E2BIG,
		       "dev %u:   ... geometry_ex -E2BIG", dev);
		is_int(hanzo_rocm_op_run(k, 1, big, &oa), -E2BIG, "dev %u:   ... op_run -E2BIG", dev);
	}
	if (hanzo_rocm_kernel_get(ctx, dev, "sort", "asort_asc_wide_f32", &k) == 0) {
		is_int(hanzo_rocm_kernel_geometry_ex(k, 4, 0, &gx), 0,
		       "dev %u: asort_asc_wide_f32 4 x 0: geometry_ex", dev);
		ok(gx.workspace == 0 && gx.op_workspace == 0, "dev %u:   ... no workspace (%zu, %zu)",
		   dev, gx.workspace, gx.op_workspace);
	}
	ok(!strstr(hanzo_rocm_strerror(-ENOTSUP), "compiler") &&
	   !strstr(hanzo_rocm_strerror(-E2BIG), "launch of this kernel"),
	   "generic errnos get generic texts (%s; %s)", hanzo_rocm_strerror(-ENOTSUP),
	   hanzo_rocm_strerror(-E2BIG));
}

/*
 * The quantized mat-vec operation: q8_0 weights (37 rows x 256), 11 columns
 * of y (the q8_1 form: a launch of 8 then of 3), against float64 of the
 * dequantized weights; the q8_1 activations' rounding bounds the error (1%
 * of sum |w||y|; a column left out or misplaced is off by the whole).  One
 * column of y against so few weights takes the f32 form (one launch, the
 * faster there): within 1e-5, where the q8_1 form's rounding is ~1e-3.
 */
static void test_quantized(unsigned dev)
{
	enum { R = 37, C = 256, B = 11, BLK = 34 };
	struct hanzo_rocm_kernel *k = NULL;
	struct hanzo_rocm_geometry_ex gx = { .size = sizeof(gx) };
	uint8_t *w = malloc(R * C / 32 * BLK);
	float *y = malloc(B * C * 4), *dst = malloc(B * R * 4);
	unsigned char *ws = NULL;
	size_t bytes = 0;
	double worst = 0;
	bool all = true;

	if (!w || !y || !dst ||
	    hanzo_rocm_kernel_get(ctx, dev, "quantized", "dequantize_mul_mat_vec_q8_0", &k) < 0) {
		ok(0, "dev %u: quantized loads", dev);
		goto out;
	}
	for (size_t b = 0; b < R * C / 32; b++) {
		w[b * BLK] = 0x00;              /* d = 2^-6 as IEEE half 0x2400 */
		w[b * BLK + 1] = 0x24;
		for (int i = 0; i < 32; i++)
			w[b * BLK + 2 + i] = (uint8_t)(int8_t)(rnd() * 127);
	}
	for (size_t i = 0; i < B * C; i++)
		y[i] = rnd();
	is_int(hanzo_rocm_kernel_geometry_ex(k, R, C, &gx), 0, "dev %u: q8_0 mat-vec 37 x 256: geometry_ex", dev);
	ok(strcmp(gx.op_form, "f32") == 0 && gx.op_passes == 1 && gx.op_workspace == 8 * C / 32 * 36,
	   "dev %u:   ... the f32 form, one launch; workspace 8 columns of q8_1 blocks (%s, %u, %zu)",
	   dev, gx.op_form, gx.op_passes, gx.op_workspace);
	is_int(hanzo_rocm_kernel_geometry_ex(k, 14336, 4096, &gx), 0, "dev %u: 14336 x 4096: geometry_ex", dev);
	ok(strcmp(gx.op_form, "q8_1") == 0 && gx.op_passes == 2,
	   "dev %u:   ... the q8_1 form, two launches (%s, %u)", dev, gx.op_form, gx.op_passes);
	is_int(hanzo_rocm_op_workspace(k, R, C, &bytes), 0, "dev %u:   ... op_workspace", dev);
	ws = malloc(bytes ? bytes : 1);
	const void *vx = w;
	struct hanzo_rocm_op_arg named = { "vx", &vx, sizeof(vx) };
	struct hanzo_rocm_op_args oa = { .size = sizeof(oa), .src = y, .dst = dst, .workspace = ws,
	                                 .workspace_size = bytes - 1, .named = &named,
	                                 .n_named = 1, .batch = B };

	for (size_t i = 0; i < B * R; i++)
		dst[i] = NAN;
	is_int(hanzo_rocm_op_run(k, R, C, &oa), -ENOSPC, "dev %u: a workspace one byte short: -ENOSPC", dev);
	oa.workspace_size = bytes;
	is_int(hanzo_rocm_op_run(k, R, C - 16, &oa), -EINVAL, "dev %u: cols not a multiple of 32: -EINVAL", dev);
	oa.n_named = 0;
	is_int(hanzo_rocm_op_run(k, R, C, &oa), -EINVAL, "dev %u: no vx: -EINVAL", dev);
	oa.n_named = 1;
	all = isnan(dst[0]) && isnan(dst[B * R - 1]);
	ok(all, "dev %u:   ... nothing launched", dev);
	is_int(hanzo_rocm_op_run(k, R, C, &oa), 0, "dev %u: 11 columns of y run", dev);
	all = true;
	for (size_t j = 0; j < B; j++)
		for (size_t r = 0; r < R; r++) {
			double ref = 0, mag = 0;

			for (size_t c = 0; c < C; c++) {
				const uint8_t *blk = w + (r * C / 32 + c / 32) * BLK;
				double wv = (double)(int8_t)blk[2 + c % 32] / 64.0;

				ref += wv * y[j * C + c];
				mag += fabs(wv * y[j * C + c]);
			}
			double e = fabs(dst[j * R + r] - ref) / mag;

			if (!(e <= 1e-2))
				all = false;
			if (e > worst)
				worst = e;
		}
	ok(all, "dev %u:   ... every column matches float64 (worst %.3g of sum |w||y|)", dev, worst);
	oa.batch = 1;
	oa.src = y + 3 * C;
	for (size_t r = 0; r < R; r++)
		dst[r] = NAN;
	is_int(hanzo_rocm_op_run(k, R, C, &oa), 0, "dev %u: one column of y runs", dev);
	all = true;
	worst = 0;
	for (size_t r = 0; r < R; r++) {
		double ref = 0, mag = 0;

		for (size_t c = 0; c < C; c++) {
			double wv = (double)(int8_t)w[(r * C / 32 + c / 32) * BLK + 2 + c % 32] / 64.0;

			ref += wv * y[3 * C + c];
			mag += fabs(wv * y[3 * C + c]);
		}
		double e = fabs(dst[r] - ref) / mag;

		if (!(e <= 1e-5))
			all = false;
		if (e > worst)
			worst = e;
	}
	ok(all, "dev %u:   ... the f32 form: within 1e-5 of float64 (worst %.3g)", dev, worst);
out:
	free(w);
	free(y);
	free(dst);
	free(ws);
}

/*
 * The planar layout through the public API: q4_1 weights (37 rows x 512,
 * random quants, finite scales) packed by pack_q4_1p, then
 * dequantize_mul_mat_vec_q4_1p's operation against dequantize_mul_mat_vec_q4_1's
 * on the ggml blocks: the same arithmetic in the same order, so the same
 * floats, bit for bit, for 11 columns (q8_1p against q8_1) and for one (the
 * f32 form); unpack_q4_1p gives the ggml bytes back.
 */
static void test_quantized_planar(unsigned dev)
{
	enum { R = 37, C = 512, B = 11, BLK = 20, NBLK = R * C / 32 };
	struct hanzo_rocm_kernel *kg = NULL, *kp = NULL, *pack = NULL, *unpack = NULL;
	struct hanzo_rocm_geometry_ex gx = { .size = sizeof(gx) };
	uint8_t *w = malloc(NBLK * BLK), *wp = malloc(NBLK * BLK), *back = malloc(NBLK * BLK);
	float *y = malloc(B * C * 4), *dg = malloc(B * R * 4), *dp = malloc(B * R * 4);
	unsigned char *ws = NULL;
	size_t bytes = 0;
	int k = R * C;

	if (!w || !wp || !back || !y || !dg || !dp ||
	    hanzo_rocm_kernel_get(ctx, dev, "quantized", "dequantize_mul_mat_vec_q4_1", &kg) < 0 ||
	    hanzo_rocm_kernel_get(ctx, dev, "quantized", "dequantize_mul_mat_vec_q4_1p", &kp) < 0 ||
	    hanzo_rocm_kernel_get(ctx, dev, "quantized", "pack_q4_1p", &pack) < 0 ||
	    hanzo_rocm_kernel_get(ctx, dev, "quantized", "unpack_q4_1p", &unpack) < 0) {
		ok(0, "dev %u: the planar kernels load", dev);
		goto out;
	}
	for (size_t b = 0; b < NBLK; b++) {
		w[b * BLK] = (uint8_t)((int)(rnd() * 255 + 256) & 255);  /* d: 0x24xx, about 2^-6 */
		w[b * BLK + 1] = 0x24;
		w[b * BLK + 2] = (uint8_t)((int)(rnd() * 255 + 256) & 255);  /* m: 0xa0xx, about -2^-7 */
		w[b * BLK + 3] = 0xa0;
		for (int i = 4; i < BLK; i++)
			w[b * BLK + i] = (uint8_t)((int)(rnd() * 255 + 256) & 255);
	}
	for (size_t i = 0; i < B * C; i++)
		y[i] = rnd();
	void *pa[3] = { &w, &wp, &k };

	is_int(hanzo_rocm_kernel_launch_work(pack, NBLK, 1, NULL, pa), 0, "dev %u: pack_q4_1p runs", dev);
	ok(memcmp(w, wp, NBLK * BLK) != 0 && wp[0] == w[4] && wp[16 * 8] == w[0],
	   "dev %u:   ... planar: a group's quants first, then its scales", dev);
	is_int(hanzo_rocm_kernel_geometry_ex(kp, 14336, 4096, &gx), 0, "dev %u: q4_1p 14336 x 4096: geometry_ex", dev);
	ok(strcmp(gx.op_form, "q8_1p") == 0 && gx.op_passes == 2,
	   "dev %u:   ... the q8_1p form, two launches (%s, %u)", dev, gx.op_form, gx.op_passes);
	is_int(hanzo_rocm_op_workspace(kp, R, C, &bytes), 0, "dev %u:   ... op_workspace", dev);
	ws = malloc(bytes ? bytes : 1);
	const void *vg = w, *vp = wp;
	struct hanzo_rocm_op_arg ng = { "vx", &vg, sizeof(vg) }, np = { "vx", &vp, sizeof(vp) };
	struct hanzo_rocm_op_args oa = { .size = sizeof(oa), .src = y, .dst = dg, .workspace = ws,
	                                 .workspace_size = bytes, .named = &ng, .n_named = 1,
	                                 .batch = B };

	is_int(hanzo_rocm_op_run(kp, R, C - 256 + 32, &oa), -EINVAL,
	       "dev %u: planar cols not a multiple of 256: -EINVAL", dev);
	for (int pass = 0; pass < 2; pass++) {
		const size_t n = pass ? R : B * R;

		oa.batch = pass ? 1 : B;
		for (size_t i = 0; i < n; i++)
			dg[i] = dp[i] = NAN;
		oa.named = &ng;
		oa.dst = dg;
		is_int(hanzo_rocm_op_run(kg, R, C, &oa), 0, "dev %u: q4_1, %zu column(s)", dev, n / R);
		oa.named = &np;
		oa.dst = dp;
		is_int(hanzo_rocm_op_run(kp, R, C, &oa), 0, "dev %u: q4_1p, the same", dev);
		ok(memcmp(dg, dp, n * 4) == 0 && !isnan(dp[0]) && !isnan(dp[n - 1]),
		   "dev %u:   ... the same floats, bit for bit (%s form)", dev, pass ? "f32" : "q8_1p");
	}
	void *ua[3] = { &wp, &back, &k };

	memset(back, 0, NBLK * BLK);
	is_int(hanzo_rocm_kernel_launch_work(unpack, NBLK, 1, NULL, ua), 0, "dev %u: unpack_q4_1p runs", dev);
	ok(memcmp(w, back, NBLK * BLK) == 0, "dev %u:   ... the ggml bytes back, byte for byte", dev);
out:
	free(w);
	free(wp);
	free(back);
	free(y);
	free(dg);
	free(dp);
	free(ws);
}

/*
 * conv2d's info built with hanzo_rocm_layout_packed (the source transposed
 * in memory: strides given; the kernel weights contiguous: NULL), against
 * float64; and the packed array is candle's: dims, strides, dims, strides.
 */
static void test_conv_info(unsigned dev)
{
	enum { CB = 2, CI = 2, H = 5, W = 6, CO = 3, KH = 3, KW = 2, PAD = 1 };
	enum { HO = H + 2 * PAD - KH + 1, WO = W + 2 * PAD - KW + 1 };
	static const size_t sd[4] = { CB, CI, H, W }, kd[4] = { CO, CI, KH, KW };
	static const size_t ss[4] = { CI * H * W, H * W, 1, H };   /* (b, c, w, h) in memory */
	const size_t *dims[2] = { sd, kd }, *strides[2] = { ss, NULL };
	struct hanzo_rocm_kernel *k = NULL;
	struct hanzo_rocm_layout info;
	float src[CB * CI * H * W], ker[CO * CI * KH * KW], dst[CB * CO * HO * WO];
	size_t numel = sizeof(src) / 4, wo = WO, ho = HO, one = 1, pad = PAD;
	double worst = 0;

	is_int(hanzo_rocm_layout_packed(&info, 4, 2, dims, strides), 0, "layout_packed: conv2d's info");
	ok(info.v[0] == CB && info.v[3] == W && info.v[4] == CI * H * W && info.v[7] == H &&
	   info.v[8] == CO && info.v[11] == KW && info.v[12] == CI * KH * KW && info.v[15] == 1 &&
	   info.v[16] == 0, "  ... candle's array: src dims, its strides, kernel dims, its strides");
	is_int(hanzo_rocm_layout_packed(&info, 4, 5, dims, strides), -EINVAL, "  ... 40 values: -EINVAL");
	is_int(hanzo_rocm_layout_packed(&info, 0, 1, dims, NULL), -EINVAL, "  ... 0 dims: -EINVAL");
	hanzo_rocm_layout_packed(&info, 4, 2, dims, strides);
	if (hanzo_rocm_kernel_get(ctx, dev, "conv", "conv2d_f32", &k) < 0) {
		ok(0, "dev %u: conv loads", dev);
		return;
	}
	for (size_t i = 0; i < numel; i++)
		src[i] = rnd();
	for (size_t i = 0; i < sizeof(ker) / 4; i++)
		ker[i] = rnd();
	for (size_t i = 0; i < sizeof(dst) / 4; i++)
		dst[i] = NAN;
	float *ps = src, *pk = ker, *pd = dst;
	void *args[] = { &numel, &wo, &ho, &one, &pad, &one, &info, &ps, &pk, &pd };

	is_int(hanzo_rocm_kernel_launch_work(k, sizeof(dst) / 4, 1, NULL, args), 0,
	       "dev %u: conv2d_f32 over a transposed source, info from layout_packed", dev);
	for (int b = 0; b < CB; b++)
		for (int co = 0; co < CO; co++)
			for (int y = 0; y < HO; y++)
				for (int x = 0; x < WO; x++) {
					double ref = 0;

					for (int ci = 0; ci < CI; ci++)
						for (int ky = 0; ky < KH; ky++)
							for (int kx = 0; kx < KW; kx++) {
								int iy = y + ky - PAD, ix = x + kx - PAD;

								if (iy < 0 || iy >= H || ix < 0 || ix >= W)
									continue;
								ref += (double)src[b * ss[0] + ci * ss[1] + (size_t)iy * ss[2] + (size_t)ix * ss[3]] *
								       ker[((co * CI + ci) * KH + ky) * KW + kx];
							}
					double e = fabs(dst[((b * CO + co) * HO + y) * WO + x] - ref);

					if (!(e <= worst))
						worst = e;
				}
	ok(worst < 1e-5, "dev %u:   ... matches float64 (%.3g)", dev, worst);
}

/*
 * sampling through hanzo_rocm_op_run: x, dst and ncols are bound by the
 * family's #@bind line; the filters are named, and one left out is NULL
 * (its #@null line); topk's k has no default.  Greedy rows (temperature 0) give the argmax;
 * topk_f32's values and k named too.
 */
static void test_sampling(unsigned dev)
{
	enum { R = 3, C = 1000, K = 5 };
	struct hanzo_rocm_kernel *ks = NULL, *kt = NULL;
	float *x = malloc(R * C * 4), temp[R] = { 0, 0, 0 }, vals[R * K];
	uint32_t tok[R], idx[R * K];
	const float *no_f = NULL, *tp = temp;
	const int32_t *no_i = NULL;
	const uint64_t *no_u = NULL;
	float *vp = vals;
	int k = K;
	bool all = true;

	if (!x || hanzo_rocm_kernel_get(ctx, dev, "sampling", "sample_f32", &ks) < 0 ||
	    hanzo_rocm_kernel_get(ctx, dev, "sampling", "topk_f32", &kt) < 0) {
		ok(0, "dev %u: sampling loads", dev);
		free(x);
		return;
	}
	for (size_t i = 0; i < R * C; i++)
		x[i] = rnd() * 4;
	const struct hanzo_rocm_op_arg named[] = {
		{ "temperature", &tp, sizeof(tp) }, { "top_k", &no_i, sizeof(no_i) },
		{ "top_p", &no_f, sizeof(no_f) }, { "min_p", &no_f, sizeof(no_f) },
		{ "seed", &no_u, sizeof(no_u) }, { "offset", &no_u, sizeof(no_u) },
	}, tnamed[] = { { "values", &vp, sizeof(vp) }, { "k", &k, sizeof(k) } };
	struct hanzo_rocm_op_args oa = { .size = sizeof(oa), .src = x, .dst = tok, .named = named,
	                                 .n_named = 5 };

	memset(tok, 0xff, sizeof(tok));
	is_int(hanzo_rocm_op_run(ks, R, C, &oa), 0,
	       "dev %u: sample_f32 without offset runs (#@null: passed as NULL)", dev);
	ok(tok[0] < C, "dev %u:   ... and drew a token", dev);
	oa.n_named = 6;
	memset(tok, 0xff, sizeof(tok));
	is_int(hanzo_rocm_op_run(ks, R, C, &oa), 0, "dev %u: sample_f32, greedy rows, runs", dev);
	for (size_t r = 0; r < R; r++) {
		uint32_t best = 0;

		for (uint32_t c = 1; c < C; c++)
			if (x[r * C + c] > x[r * C + best])
				best = c;
		if (tok[r] != best)
			all = false;
	}
	ok(all, "dev %u:   ... each row's token is its argmax", dev);
	oa.named = tnamed;
	oa.n_named = 1;
	oa.dst = idx;
	is_int(hanzo_rocm_op_run(kt, R, C, &oa), -EINVAL, "dev %u: topk_f32 without k: -EINVAL", dev);
	oa.n_named = 2;
	is_int(hanzo_rocm_op_run(kt, R, C, &oa), 0, "dev %u: topk_f32, k = 5, runs", dev);
	all = true;
	for (size_t r = 0; r < R; r++)
		for (size_t i = 0; i < K; i++) {
			size_t above = 0;

			/* the i-th largest: exactly i elements above it (distinct values) */
			for (size_t c = 0; c < C; c++)
				above += x[r * C + c] > x[r * C + idx[r * K + i]];
			if (above != i || vals[r * K + i] != x[r * C + idx[r * K + i]])
				all = false;
		}
	ok(all, "dev %u:   ... the 5 largest of each row, largest first, with their values", dev);
	free(x);
}

/*
 * A family the library has never seen (t/fixtures/opfam: argument names
 * n_things, gain, offsets), through the op call: what it derives comes
 * from the family's #@bind line, NULL offsets from its #@null line, gain
 * by name with its type checked; a NULL src or a missing gain refused.
 */
static void test_new_family(const char *top, const char *conf)
{
	enum { R = 3, C = 100 };
	char path[600];
	struct hanzo_rocm_options o = { .size = sizeof(o), .log_fn = log_capture,
	                                .log_priority = LOG_ERR, .host = "host-w64 host-w32",
	                                .config = conf, .plugin_path = path };
	struct hanzo_rocm *c2 = NULL;
	struct hanzo_rocm_kernel *k = NULL;
	float src[R * C], dst[R * C], off[C], gain = 3;
	int32_t igain = 3;
	bool right = true;

	snprintf(path, sizeof(path), "%s/t/fixtures/opfam/.libs", top);
	if (hanzo_rocm_new_with_options(&o, &c2) < 0 ||
	    hanzo_rocm_kernel_get(c2, 1, "opfam", "scale_rows_f32", &k) < 0) {
		ok(0, "the fixture family opfam loads from %s", path);
		hanzo_rocm_unref(c2);
		return;
	}
	for (size_t i = 0; i < R * C; i++) {
		src[i] = (float)i;
		dst[i] = NAN;
	}
	for (size_t i = 0; i < C; i++)
		off[i] = (float)i / 4;
	const float *poff = NULL;
	struct hanzo_rocm_op_arg named[] = { HANZO_ROCM_OP_ARG("gain", gain),
	                                     HANZO_ROCM_OP_ARG("offsets", poff) };
	struct hanzo_rocm_op_args oa = { .size = sizeof(oa), .src = src, .dst = dst,
	                                 .named = named, .n_named = 1 };

	is_int(hanzo_rocm_op_run(k, R, C, &oa), 0, "opfam scale_rows_f32 3 x 100 through op_run");
	for (size_t i = 0; i < R * C; i++)
		right = right && dst[i] == 3.0f * (float)i;
	ok(right, "  ... n_things bound from cols, gain by name, offsets NULL (#@null)");
	poff = off;
	oa.n_named = 2;
	is_int(hanzo_rocm_op_run(k, R, C, &oa), 0, "  ... offsets by name");
	right = true;
	for (size_t i = 0; i < R * C; i++)
		right = right && dst[i] == 3.0f * (float)i + off[i % C];
	ok(right, "  ... adds them");
	for (size_t i = 0; i < R * C; i++)
		dst[i] = NAN;
	oa.n_named = 0;
	is_int(hanzo_rocm_op_run(k, R, C, &oa), -EINVAL, "  ... gain missing: -EINVAL");
	named[0] = (struct hanzo_rocm_op_arg)HANZO_ROCM_OP_ARG("gain", igain);
	oa.n_named = 1;
	is_int(hanzo_rocm_op_run(k, R, C, &oa), -EINVAL, "  ... an int gain: -EINVAL");
	/*
	 * A bare name (no "TYPE ") is checked by size only, as the header and
	 * libhanzo-rocm(3) say: another type of the same size is taken as the
	 * argument's bits, one of another size is refused.
	 */
	{
		int64_t wide = 3;
		float bits;

		memcpy(&bits, &igain, sizeof(bits));
		named[0] = (struct hanzo_rocm_op_arg){ "gain", &wide, sizeof(wide) };
		is_int(hanzo_rocm_op_run(k, R, C, &oa), -EINVAL,
		       "  ... a bare-named 8-byte gain for a float: -EINVAL (size)");
		named[0] = (struct hanzo_rocm_op_arg){ "gain", &igain, sizeof(igain) };
		is_int(hanzo_rocm_op_run(k, R, C, &oa), 0,
		       "  ... a bare-named int32 gain: taken by size, as documented");
		right = true;
		for (size_t i = 0; i < R * C; i++)
			right = right && dst[i] == bits * (float)i;
		ok(right, "  ... as the float with its bits (%g), unconverted", (double)bits);
		for (size_t i = 0; i < R * C; i++)
			dst[i] = NAN;
	}
	named[0] = (struct hanzo_rocm_op_arg)HANZO_ROCM_OP_ARG("gain", gain);
	oa.src = NULL;
	is_int(hanzo_rocm_op_run(k, R, C, &oa), -EINVAL, "  ... a NULL src: -EINVAL");
	ok(isnan(dst[0]) && isnan(dst[R * C - 1]), "  ... nothing launched");
	/* #@passes in a family the library has never seen: 3 launches in order */
	oa = (struct hanzo_rocm_op_args){ .size = sizeof(oa), .dst = dst };
	if (hanzo_rocm_kernel_get(c2, 1, "opfam", "count_rows_f32", &k) == 0) {
		struct hanzo_rocm_geometry_ex gx = { .size = sizeof(gx) };

		is_int(hanzo_rocm_kernel_geometry_ex(k, R, C, &gx), 0, "opfam count_rows_f32: geometry_ex");
		is_int((int)gx.op_passes, 3, "  ... 3 launches (#@passes)");
		is_int(hanzo_rocm_op_run(k, R, C, &oa), 0, "  ... op_run");
		right = true;
		for (size_t i = 0; i < R * C; i++)
			right = right && dst[i] == 123.0f;
		ok(right, "  ... pass 0, 1, 2 in order (%g)", (double)dst[0]);
	} else {
		ok(0, "opfam count_rows_f32 loads");
	}
	if (hanzo_rocm_kernel_get(c2, 1, "opfam", "bad_passes_f32", &k) == 0) {
		for (size_t i = 0; i < R * C; i++)
			dst[i] = NAN;
		logbuf[0] = '\0';
		is_int(hanzo_rocm_op_run(k, R, C, &oa), -EBADMSG,
		       "opfam bad_passes_f32: a #@passes argument that is a pointer: -EBADMSG");
		ok(strstr(logbuf, "#@passes argument 'pass' is not an int bound to zero") != NULL,
		   "  ... naming it");
		ok(isnan(dst[0]), "  ... nothing launched");
	} else {
		ok(0, "opfam bad_passes_f32 loads");
	}
	hanzo_rocm_unref(c2);
}

int main(void)
{
	struct host_test h;
	int r = host_test_open(&h, "test-op", getenv("top_builddir"));

	if (r == -1) {
		skip(1, "top_builddir not set (run through make check)");
		return done_testing();
	}
	ctx = h.ctx;
	if (r == 0) {
		test_geometry_ex(0);
		test_geometry_ex(1);
		test_attention(0);
		test_int_range(0);
		test_int_range(1);
		test_quantized(0);
		test_quantized(1);
		test_quantized_planar(0);
		test_quantized_planar(1);
		test_conv_info(0);
		test_sampling(0);
		test_sampling(1);
		test_new_family(getenv("top_builddir"), h.conf);
	} else {
		skip(1, "no context with two host devices");
	}
	host_test_close(&h);
	return done_testing();
}
