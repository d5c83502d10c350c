/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A client written from the installed files only: <hanzo-rocm.h>,
 * libhanzo-rocm(3), hanzo-rocm-kernels(7) and `hanzo-rocm kernels --json`.
 * Nothing here includes or reads the source tree (t/contract/installed.sh
 * builds it against a DESTDIR install alone).
 *
 * For every installed family: one kernel the operation call takes (the
 * catalogue's op), run once with every argument the catalogue says must be
 * named (it must succeed), then with one defect each - a required pointer
 * NULL, a scalar named with another type of the same size, a required
 * argument left out, a workspace one byte short - each refused with the
 * documented errno and nothing written (every buffer poisoned, compared
 * after).  Then the paged decode, the varlen prefill, the sort and the q8_0
 * mat-vec through hanzo_rocm_op_run against references computed here.
 * Runs on the host device (device memory is host memory there).
 * Output: TAP lines; the exit status is 1 when any failed.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <hanzo-rocm.h>

static int tap_n, tap_failed;

static void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

#define BUF_BYTES (64u * 1024u)
#define MAX_ARGS 40
#define POISON 0xa5

/* One kernel's arguments as the catalogue gives them, with their values. */
struct karg {
	struct hanzo_rocm_arg_desc d;
	int pointer;            /* a pointer type */
	unsigned char *buf;     /* its buffer (pointers) */
	union {
		void *p;
		uint64_t u64;
		int64_t i64;
		int32_t i32;
		uint32_t u32;
		float f;
		double f64;
		uint8_t u8;
		uint16_t u16;
		struct hanzo_rocm_layout layout;
	} v;
	char wrong_name[128];   /* "TYPE NAME" with a type of the same size */
	union {
		float f;
		int32_t i32;
		double f64;
		int64_t i64;
	} wrong;
	size_t wrong_bytes;
};

struct kernel_case {
	const char *family;
	const char *name;
	size_t n;
	struct karg a[MAX_ARGS];
	unsigned char *src, *dst;
	void *ws;               /* 1 x 32's workspace */
	size_t ws_size;
};

static int is_pointer(const char *type)
{
	return strchr(type, '*') != NULL;
}

/* A scalar's value for the baseline run, and a same-size value of another type. */
static int scalar_init(struct karg *k)
{
	const char *t = k->d.type, *n = k->d.name;

	if (!strcmp(t, "float")) {
		k->v.f = 1.0f;
		snprintf(k->wrong_name, sizeof k->wrong_name, "int %s", n);
		k->wrong.i32 = 1;
		k->wrong_bytes = 4;
	} else if (!strcmp(t, "double")) {
		k->v.f64 = 1.0;
		snprintf(k->wrong_name, sizeof k->wrong_name, "long %s", n);
		k->wrong.i64 = 1;
		k->wrong_bytes = 8;
	} else if (!strcmp(t, "int") || !strcmp(t, "uint32_t")) {
		k->v.i32 = 1;
		snprintf(k->wrong_name, sizeof k->wrong_name, "float %s", n);
		k->wrong.f = 1.0f;
		k->wrong_bytes = 4;
	} else if (!strcmp(t, "size_t") || !strcmp(t, "int64_t")) {
		k->v.u64 = 1;
		snprintf(k->wrong_name, sizeof k->wrong_name, "double %s", n);
		k->wrong.f64 = 1.0;
		k->wrong_bytes = 8;
	} else if (!strcmp(t, "uint8_t") || !strcmp(t, "bool")) {
		k->v.u8 = 1;
	} else if (!strcmp(t, "hr_f16") || !strcmp(t, "hr_bf16")) {
		k->v.u16 = 0x3c00;
	} else if (!strcmp(t, "hr_layout")) {
		memset(&k->v.layout, 0, sizeof k->v.layout);
	} else {
		return -1;
	}
	return 0;
}

static void poison(struct kernel_case *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->a[i].buf)
			memset(c->a[i].buf, POISON, BUF_BYTES);
	memset(c->src, POISON, BUF_BYTES);
	memset(c->dst, POISON, BUF_BYTES);
}

static int untouched(const struct kernel_case *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->a[i].buf)
			for (size_t j = 0; j < BUF_BYTES; j++)
				if (c->a[i].buf[j] != POISON)
					return 0;
	for (size_t j = 0; j < BUF_BYTES; j++)
		if (c->src[j] != POISON || c->dst[j] != POISON)
			return 0;
	return 1;
}

enum defect { NONE, NULL_PTR, WRONG_TYPE, MISSING, SHORT_WS };

/*
 * Named values: every argument the catalogue binds to nothing (bind NULL)
 * and that is not a pointer allowed to be NULL; skip: the index left out,
 * nul: the pointer given as NULL, wrong: the scalar named with a wrong type.
 */
static size_t named(struct kernel_case *c, struct hanzo_rocm_op_arg *out,
                    size_t skip, size_t nul, size_t wrong)
{
	static void *const null_ptr = NULL;
	size_t m = 0;

	for (size_t i = 0; i < c->n; i++) {
		struct karg *k = &c->a[i];

		if (i == skip)
			continue;
		if (i == wrong) {
			out[m++] = (struct hanzo_rocm_op_arg){ k->wrong_name, &k->wrong, k->wrong_bytes };
			continue;
		}
		if (i == nul) {
			out[m++] = (struct hanzo_rocm_op_arg){ k->d.name, &null_ptr, sizeof null_ptr };
			continue;
		}
		if (k->d.bind || (k->pointer && k->d.may_be_null))
			continue;
		out[m++] = (struct hanzo_rocm_op_arg){ k->d.name, &k->v, k->d.bytes };
	}
	return m;
}

static int run_case(struct hanzo_rocm_kernel *kern, struct kernel_case *c,
                    uint64_t rows, uint64_t cols, size_t skip, size_t nul,
                    size_t wrong, void *ws, size_t ws_size)
{
	if (!ws) {      /* the workspace hanzo_rocm_op_workspace says */
		ws = c->ws;
		ws_size = c->ws_size;
	}
	struct hanzo_rocm_op_arg nv[MAX_ARGS];
	struct hanzo_rocm_op_args args = {
		.size = sizeof args, .src = c->src, .dst = c->dst,
		.alpha = c->src, .beta = c->src, .residual = c->src,
		.residual_out = c->dst, .eps = 1e-5f,
		.workspace = ws, .workspace_size = ws_size,
	};

	args.named = nv;
	args.n_named = named(c, nv, skip, nul, wrong);
	return hanzo_rocm_op_run(kern, rows, cols, &args);
}

/* Every family: one op kernel, its baseline run and its four defects. */
static void family_defects(struct hanzo_rocm *ctx, const struct hanzo_rocm_catalogue *cat,
                           const char *family, const char *pick)
{
	size_t count = hanzo_rocm_catalogue_count(cat), idx = (size_t)-1;
	struct kernel_case *c = calloc(1, sizeof *c);
	struct hanzo_rocm_kernel *kern;
	size_t none = (size_t)-1, p_null = none, p_wrong = none, p_missing = none;
	int r;

	if (!c)
		abort();
	/* The kernel: `pick`, else the family's first op kernel with "f32" in its name. */
	for (size_t i = 0; i < count && idx == (size_t)-1; i++) {
		struct hanzo_rocm_kernel_desc d = { .size = sizeof d };

		if (hanzo_rocm_catalogue_kernel(cat, i, &d) < 0 || strcmp(d.family, family))
			continue;
		if (!d.op || strcmp(d.op, d.name))
			continue;
		if (pick ? !strcmp(d.name, pick) : strstr(d.name, "f32") != NULL) {
			idx = i;
			c->family = d.family;
			c->name = d.name;
			c->n = d.n_args;
		}
	}
	ok(idx != (size_t)-1 && c->n <= MAX_ARGS, "%s: the catalogue has an op kernel (%s)",
	   family, c->name ? c->name : "none");
	if (idx == (size_t)-1 || c->n > MAX_ARGS)
		goto out;
	c->src = malloc(BUF_BYTES);
	c->dst = malloc(BUF_BYTES);
	for (size_t j = 0; j < c->n; j++) {
		struct karg *k = &c->a[j];

		k->d.size = sizeof k->d;
		r = hanzo_rocm_catalogue_arg(cat, idx, j, &k->d);
		if (r < 0) {
			ok(0, "%s: argument %zu: %s", c->name, j, hanzo_rocm_strerror(r));
			goto out;
		}
		k->pointer = is_pointer(k->d.type);
		if (k->pointer) {
			k->buf = calloc(1, BUF_BYTES);
			k->v.p = k->buf;
		} else if (scalar_init(k) < 0) {
			ok(0, "%s: argument %s: type %s not in the header's list", c->name,
			   k->d.name, k->d.type);
			goto out;
		}
		if (k->d.bind)
			continue;
		if (k->pointer && !k->d.may_be_null && p_null == none)
			p_null = j;
		if (!k->pointer && k->wrong_bytes && p_wrong == none)
			p_wrong = j;
		if (!(k->pointer && k->d.may_be_null) && p_missing == none)
			p_missing = j;
	}
	/* Named values override derived ones: a derived scalar takes the wrong type too. */
	for (size_t j = 0; j < c->n && p_wrong == none; j++)
		if (!c->a[j].pointer && c->a[j].wrong_bytes && c->a[j].d.bind &&
		    strcmp(c->a[j].d.bind, "ws") && strcmp(c->a[j].d.bind, "splits"))
			p_wrong = j;

	r = hanzo_rocm_kernel_get(ctx, 0, family, c->name, &kern);
	ok(r == 0, "%s: kernel_get %s: %s", family, c->name, r ? hanzo_rocm_strerror(r) : "ok");
	if (r)
		goto out;
	r = hanzo_rocm_op_workspace(kern, 1, 32, &c->ws_size);
	ok(r == 0, "%s: op_workspace 1 x 32: %zu bytes", c->name, c->ws_size);
	if (c->ws_size)
		c->ws = calloc(1, c->ws_size);
	memset(c->src, 0, BUF_BYTES);
	memset(c->dst, 0, BUF_BYTES);
	r = run_case(kern, c, 1, 32, none, none, none, NULL, 0);
	ok(r == 0, "%s: %s 1 x 32 with every required argument named: %d", family, c->name, r);

	/* (a) a required pointer NULL: named, or the derived .src */
	poison(c);
	if (p_null != none) {
		r = run_case(kern, c, 1, 32, none, p_null, none, NULL, 0);
		ok(r == -EINVAL && untouched(c), "%s: %s NULL: %d (want %d), nothing written",
		   c->name, c->a[p_null].d.name, r, -EINVAL);
	} else {
		struct hanzo_rocm_op_args args = { .size = sizeof args, .src = NULL, .dst = c->dst,
		                                   .workspace = c->ws, .workspace_size = c->ws_size };

		r = hanzo_rocm_op_run(kern, 1, 32, &args);
		ok(r == -EINVAL && untouched(c), "%s: .src NULL: %d (want %d), nothing written",
		   c->name, r, -EINVAL);
	}
	/* (b) a scalar named with another type of its size */
	poison(c);
	if (p_wrong != none) {
		r = run_case(kern, c, 1, 32, none, none, p_wrong, NULL, 0);
		ok(r == -EINVAL && untouched(c), "%s: \"%s\" for %s %s: %d (want %d), nothing written",
		   c->name, c->a[p_wrong].wrong_name, c->a[p_wrong].d.type, c->a[p_wrong].d.name,
		   r, -EINVAL);
	} else {
		ok(1, "# SKIP %s: no scalar argument", c->name);
	}
	/* (c) a required argument missing */
	poison(c);
	if (p_missing != none) {
		r = run_case(kern, c, 1, 32, p_missing, none, none, NULL, 0);
		ok(r == -EINVAL && untouched(c), "%s: without %s: %d (want %d), nothing written",
		   c->name, c->a[p_missing].d.name, r, -EINVAL);
	} else {
		struct hanzo_rocm_op_args args = { .size = sizeof args, .src = c->src,
		                                   .workspace = c->ws, .workspace_size = c->ws_size };

		r = hanzo_rocm_op_run(kern, 1, 32, &args);
		ok(r == -EINVAL && untouched(c), "%s: every argument derived; without .dst: %d (want %d), nothing written",
		   c->name, r, -EINVAL);
	}
	/* (d) a workspace one byte short, for a work that needs one */
	{
		static const uint64_t works[][2] = {
			{ 1, 32 }, { 1, 4096 }, { 1, 1 << 16 }, { 2, 1 << 14 }, { 1, 1 << 20 },
		};
		size_t w, ws = 0;

		for (w = 0; w < sizeof works / sizeof works[0]; w++)
			if (hanzo_rocm_op_workspace(kern, works[w][0], works[w][1], &ws) == 0 && ws)
				break;
		if (ws) {
			unsigned char *buf = malloc(ws);

			memset(buf, POISON, ws);
			poison(c);
			r = run_case(kern, c, works[w][0], works[w][1], none, none, none, buf, ws - 1);
			ok(r == -ENOSPC && untouched(c) && buf[0] == POISON && buf[ws - 2] == POISON,
			   "%s: %llu x %llu with a workspace of %zu - 1 bytes: %d (want %d), nothing written",
			   c->name, (unsigned long long)works[w][0], (unsigned long long)works[w][1],
			   ws, r, -ENOSPC);
			free(buf);
		} else {
			ok(1, "# SKIP %s: takes no workspace", c->name);
		}
	}
out:
	for (size_t j = 0; j < c->n && j < MAX_ARGS; j++)
		free(c->a[j].buf);
	free(c->src);
	free(c->dst);
	free(c->ws);
	free(c);
}

/* ---------------------------------------------------------------- */

static uint32_t rng = 12345;
static float frand(void)
{
	rng = rng * 1664525u + 1013904223u;
	return (float)((rng >> 8) & 0xffff) / 32768.0f - 1.0f;
}

static double max_abs_diff(const float *a, const double *b, size_t n)
{
	double m = 0;

	for (size_t i = 0; i < n; i++) {
		double d = fabs((double)a[i] - b[i]);
		if (!(d <= m))
			m = d;
	}
	return m;
}

#define D 64

/* Softmax-weighted sum of n keys for one query, into o (double). */
static void attend(const float *q, const float *const *k, const float *const *v, size_t n,
                   float scale, double *o)
{
	double mx = -INFINITY, sum = 0, *s = malloc(n * sizeof *s);

	for (size_t j = 0; j < n; j++) {
		double dot = 0;
		for (size_t d = 0; d < D; d++)
			dot += (double)q[d] * k[j][d];
		s[j] = dot * scale;
		if (s[j] > mx)
			mx = s[j];
	}
	for (size_t d = 0; d < D; d++)
		o[d] = 0;
	for (size_t j = 0; j < n; j++) {
		double e = exp(s[j] - mx);
		sum += e;
		for (size_t d = 0; d < D; d++)
			o[d] += e * v[j][d];
	}
	for (size_t d = 0; d < D; d++)
		o[d] /= sum;
	free(s);
}

static void paged_decode(struct hanzo_rocm *ctx)
{
	enum { SEQS = 2, HEADS = 2, KVH = 1, BS = 4, MAXB = 3, NB = 6 };
	static const int32_t tables[SEQS][MAXB] = { { 1, 3, 0 }, { 5, 2, 4 } };
	static const int32_t lens[SEQS] = { 5, 10 };
	float *q = malloc(sizeof(float) * SEQS * HEADS * D);
	float *kc = malloc(sizeof(float) * NB * BS * KVH * D);
	float *vc = malloc(sizeof(float) * NB * BS * KVH * D);
	float *out = malloc(sizeof(float) * SEQS * HEADS * D);
	double ref[SEQS * HEADS * D];
	size_t num_seqs = SEQS, num_heads = HEADS, num_kv_heads = KVH, block_size = BS;
	size_t max_blocks = MAXB, num_blocks = NB, q_stride = HEADS * D;
	float scale = 0.125f, softcap = 0.0f;
	int window_left = -1;
	const float *qp = q, *kp = kc, *vp = vc;
	const int32_t *tp = &tables[0][0], *lp = lens;
	const void *null_ptr = NULL;
	struct hanzo_rocm_kernel *kern;
	struct hanzo_rocm_op_arg nv[] = {
		HANZO_ROCM_OP_ARG("out", out), HANZO_ROCM_OP_ARG("q", qp),
		HANZO_ROCM_OP_ARG("key_cache", kp), HANZO_ROCM_OP_ARG("value_cache", vp),
		HANZO_ROCM_OP_ARG("block_tables", tp), HANZO_ROCM_OP_ARG("seq_lens", lp),
		HANZO_ROCM_OP_ARG("num_seqs", num_seqs), HANZO_ROCM_OP_ARG("num_heads", num_heads),
		HANZO_ROCM_OP_ARG("num_kv_heads", num_kv_heads),
		HANZO_ROCM_OP_ARG("block_size", block_size),
		HANZO_ROCM_OP_ARG("max_blocks_per_seq", max_blocks),
		HANZO_ROCM_OP_ARG("num_blocks", num_blocks), HANZO_ROCM_OP_ARG("q_stride", q_stride),
		HANZO_ROCM_OP_ARG("scale", scale), HANZO_ROCM_OP_ARG("softcap", softcap),
		HANZO_ROCM_OP_ARG("window_left", window_left),
	};
	enum { N_NV = sizeof nv / sizeof nv[0], N_PTR = 6, I_BLOCK_SIZE = 9 };
	struct hanzo_rocm_op_arg bad[N_NV];
	struct hanzo_rocm_op_args args = { .size = sizeof args, .named = nv, .n_named = N_NV };
	size_t ws = 1;
	int r;

	for (size_t i = 0; i < SEQS * HEADS * D; i++)
		q[i] = frand();
	for (size_t i = 0; i < NB * BS * KVH * D; i++) {
		kc[i] = frand();
		vc[i] = frand();
	}
	r = hanzo_rocm_kernel_get(ctx, 0, "attention", "paged_attention_d64_f32", &kern);
	ok(r == 0, "decode: kernel_get paged_attention_d64_f32: %d", r);
	if (r)
		goto out;
	r = hanzo_rocm_op_workspace(kern, SEQS * HEADS, 10, &ws);
	ok(r == 0, "decode: op_workspace %d x 10: %zu bytes", SEQS * HEADS, ws);
	void *wsb = ws ? malloc(ws) : NULL;
	args.workspace = wsb;
	args.workspace_size = ws;
	/* Each required pointer NULL, block_size missing: refused, out untouched. */
	for (size_t p = 0; p < N_PTR; p++) {
		memcpy(bad, nv, sizeof nv);
		bad[p].value = &null_ptr;
		args.named = bad;
		memset(out, POISON, sizeof(float) * SEQS * HEADS * D);
		r = hanzo_rocm_op_run(kern, SEQS * HEADS, 10, &args);
		ok(r == -EINVAL && ((unsigned char *)out)[0] == POISON,
		   "decode: %s NULL: %d (want %d)", nv[p].name, r, -EINVAL);
	}
	memcpy(bad, nv, sizeof nv);
	bad[I_BLOCK_SIZE] = nv[N_NV - 1];
	args.named = bad;
	args.n_named = N_NV - 1;
	r = hanzo_rocm_op_run(kern, SEQS * HEADS, 10, &args);
	ok(r == -EINVAL && ((unsigned char *)out)[0] == POISON,
	   "decode: without block_size: %d (want %d)", r, -EINVAL);
	args.named = nv;
	args.n_named = N_NV;
	r = hanzo_rocm_op_run(kern, SEQS * HEADS, 10, &args);
	ok(r == 0, "decode: op_run 2 sequences x 2 heads (GQA 2:1), pages of 4, contexts 5 and 10: %d", r);
	/* Reference: sequence s, head h reads kv head h / (HEADS / KVH). */
	for (size_t s = 0; s < SEQS; s++)
		for (size_t h = 0; h < HEADS; h++) {
			const float *kr[16], *vr[16];
			size_t kvh = h / (HEADS / KVH);

			for (int t = 0; t < lens[s]; t++) {
				size_t blk = (size_t)tables[s][t / BS], off = (size_t)t % BS;
				kr[t] = kc + ((blk * BS + off) * KVH + kvh) * D;
				vr[t] = vc + ((blk * BS + off) * KVH + kvh) * D;
			}
			attend(q + s * q_stride + h * D, kr, vr, (size_t)lens[s], scale,
			       ref + (s * HEADS + h) * D);
		}
	double e = max_abs_diff(out, ref, SEQS * HEADS * D);
	ok(r == 0 && e < 1e-4, "decode: matches the reference (max error %.2g)", e);
	free(wsb);
out:
	free(q);
	free(kc);
	free(vc);
	free(out);
}

/*
 * The decode's split form: one sequence, a long context - the call splits
 * the keys and runs the combine pass on the workspace op_workspace sizes
 * (deriving the combine's head_dim itself).
 */
static void paged_decode_split(struct hanzo_rocm *ctx)
{
	enum { HEADS = 2, KVH = 1, BS = 16, LEN = 3000, MAXB = (LEN + BS - 1) / BS, NB = MAXB };
	int32_t *table = malloc(sizeof(int32_t) * MAXB), len = LEN;
	float *q = malloc(sizeof(float) * HEADS * D), *out = malloc(sizeof(float) * HEADS * D);
	float *kc = malloc(sizeof(float) * NB * BS * KVH * D), *vc = malloc(sizeof(float) * NB * BS * KVH * D);
	const float **kr = malloc(sizeof(*kr) * LEN), **vr = malloc(sizeof(*vr) * LEN);
	double ref[HEADS * D];
	size_t num_seqs = 1, num_heads = HEADS, num_kv_heads = KVH, block_size = BS;
	size_t max_blocks = MAXB, num_blocks = NB, q_stride = HEADS * D;
	float scale = 0.125f, softcap = 0.0f;
	int window_left = -1;
	const float *qp = q, *kp = kc, *vp = vc;
	const int32_t *tp = table, *lp = &len;
	struct hanzo_rocm_kernel *kern;
	struct hanzo_rocm_geometry_ex gx = { .size = sizeof gx };
	struct hanzo_rocm_op_arg nv[] = {
		HANZO_ROCM_OP_ARG("out", out), HANZO_ROCM_OP_ARG("q", qp),
		HANZO_ROCM_OP_ARG("key_cache", kp), HANZO_ROCM_OP_ARG("value_cache", vp),
		HANZO_ROCM_OP_ARG("block_tables", tp), HANZO_ROCM_OP_ARG("seq_lens", lp),
		HANZO_ROCM_OP_ARG("num_seqs", num_seqs), HANZO_ROCM_OP_ARG("num_heads", num_heads),
		HANZO_ROCM_OP_ARG("num_kv_heads", num_kv_heads),
		HANZO_ROCM_OP_ARG("block_size", block_size),
		HANZO_ROCM_OP_ARG("max_blocks_per_seq", max_blocks),
		HANZO_ROCM_OP_ARG("num_blocks", num_blocks), HANZO_ROCM_OP_ARG("q_stride", q_stride),
		HANZO_ROCM_OP_ARG("scale", scale), HANZO_ROCM_OP_ARG("softcap", softcap),
		HANZO_ROCM_OP_ARG("window_left", window_left),
	};
	struct hanzo_rocm_op_args args = {
		.size = sizeof args, .named = nv, .n_named = sizeof nv / sizeof nv[0],
	};
	size_t ws = 0;
	int r;

	for (size_t i = 0; i < MAXB; i++)
		table[i] = (int32_t)(MAXB - 1 - i);     /* pages in reverse */
	for (size_t i = 0; i < HEADS * D; i++)
		q[i] = frand();
	for (size_t i = 0; i < (size_t)NB * BS * KVH * D; i++) {
		kc[i] = frand();
		vc[i] = frand();
	}
	r = hanzo_rocm_kernel_get(ctx, 0, "attention", "paged_attention_d64_f32", &kern);
	if (r == 0)
		r = hanzo_rocm_kernel_geometry_ex(kern, HEADS, LEN, &gx);
	if (r == 0)
		r = hanzo_rocm_op_workspace(kern, HEADS, LEN, &ws);
	ok(r == 0 && ws == gx.op_workspace && ws > 0,
	   "decode split: 1 x %d heads, context %d: form %s, %u passes, workspace %zu bytes",
	   HEADS, LEN, r ? "?" : gx.op_form, r ? 0 : gx.op_passes, ws);
	if (r || !ws)
		goto out;
	unsigned char *wsb = malloc(ws);
	args.workspace = wsb;
	args.workspace_size = ws - 1;
	memset(out, POISON, sizeof(float) * HEADS * D);
	r = hanzo_rocm_op_run(kern, HEADS, LEN, &args);
	ok(r == -ENOSPC && ((unsigned char *)out)[0] == POISON,
	   "decode split: workspace 1 byte short: %d (want %d)", r, -ENOSPC);
	args.workspace_size = ws;
	r = hanzo_rocm_op_run(kern, HEADS, LEN, &args);
	ok(r == 0, "decode split: op_run: %d", r);
	for (size_t h = 0; h < HEADS; h++) {
		for (size_t t = 0; t < LEN; t++) {
			size_t blk = (size_t)table[t / BS], off = t % BS, kvh = h / (HEADS / KVH);
			kr[t] = kc + ((blk * BS + off) * KVH + kvh) * D;
			vr[t] = vc + ((blk * BS + off) * KVH + kvh) * D;
		}
		attend(q + h * D, kr, vr, LEN, scale, ref + h * D);
	}
	double e = max_abs_diff(out, ref, HEADS * D);
	ok(r == 0 && e < 1e-4, "decode split: matches the reference (max error %.2g)", e);
	free(wsb);
out:
	free(table);
	free(q);
	free(out);
	free(kc);
	free(vc);
	free(kr);
	free(vr);
}

static void varlen_prefill(struct hanzo_rocm *ctx)
{
	enum { B = 2, HEADS = 2, KVH = 1, TQ = 5, TK = 9 };
	static const int32_t cu_q[B + 1] = { 0, 3, 5 }, cu_k[B + 1] = { 0, 5, 9 };
	float *q = malloc(sizeof(float) * TQ * HEADS * D), *k = malloc(sizeof(float) * TK * KVH * D);
	float *v = malloc(sizeof(float) * TK * KVH * D), *out = malloc(sizeof(float) * TQ * HEADS * D);
	double ref[TQ * HEADS * D];
	size_t batch = B, num_heads = HEADS, num_kv_heads = KVH, max_q = 3;
	size_t q_stride = HEADS * D, k_stride = KVH * D, v_stride = KVH * D, o_stride = HEADS * D;
	float scale = 0.125f, softcap = 0.0f;
	int causal = 1, wl = -1, wr = -1;
	const float *qp = q, *kp = k, *vp = v;
	const int32_t *cqp = cu_q, *ckp = cu_k;
	const void *null_ptr = NULL;
	struct hanzo_rocm_kernel *kern;
	struct hanzo_rocm_op_arg nv[] = {
		HANZO_ROCM_OP_ARG("out", out), HANZO_ROCM_OP_ARG("q", qp),
		HANZO_ROCM_OP_ARG("k", kp), HANZO_ROCM_OP_ARG("v", vp),
		HANZO_ROCM_OP_ARG("cu_seqlens_q", cqp), HANZO_ROCM_OP_ARG("cu_seqlens_k", ckp),
		HANZO_ROCM_OP_ARG("batch", batch), HANZO_ROCM_OP_ARG("num_heads", num_heads),
		HANZO_ROCM_OP_ARG("num_kv_heads", num_kv_heads),
		HANZO_ROCM_OP_ARG("max_seqlen_q", max_q),
		HANZO_ROCM_OP_ARG("q_stride", q_stride), HANZO_ROCM_OP_ARG("k_stride", k_stride),
		HANZO_ROCM_OP_ARG("v_stride", v_stride), HANZO_ROCM_OP_ARG("o_stride", o_stride),
		HANZO_ROCM_OP_ARG("scale", scale), HANZO_ROCM_OP_ARG("softcap", softcap),
		HANZO_ROCM_OP_ARG("causal", causal), HANZO_ROCM_OP_ARG("window_left", wl),
		HANZO_ROCM_OP_ARG("window_right", wr),
	};
	enum { N_NV = sizeof nv / sizeof nv[0], N_PTR = 6 };
	struct hanzo_rocm_op_arg bad[N_NV];
	struct hanzo_rocm_op_args args = { .size = sizeof args, .named = nv, .n_named = N_NV };
	/* rows = batch x num_heads x ceil(max_seqlen_q / 16), cols = max_seqlen_k */
	const uint64_t rows = B * HEADS * 1, cols = 5;
	int r;

	for (size_t i = 0; i < TQ * HEADS * D; i++)
		q[i] = frand();
	for (size_t i = 0; i < TK * KVH * D; i++) {
		k[i] = frand();
		v[i] = frand();
	}
	r = hanzo_rocm_kernel_get(ctx, 0, "attention", "flash_attn_varlen_d64_f32", &kern);
	ok(r == 0, "prefill: kernel_get flash_attn_varlen_d64_f32: %d", r);
	if (r)
		goto out;
	for (size_t p = 0; p < N_PTR; p++) {
		memcpy(bad, nv, sizeof nv);
		bad[p].value = &null_ptr;
		args.named = bad;
		memset(out, POISON, sizeof(float) * TQ * HEADS * D);
		r = hanzo_rocm_op_run(kern, rows, cols, &args);
		ok(r == -EINVAL && ((unsigned char *)out)[0] == POISON,
		   "prefill: %s NULL: %d (want %d)", nv[p].name, r, -EINVAL);
	}
	args.named = nv;
	r = hanzo_rocm_op_run(kern, rows, cols, &args);
	ok(r == 0, "prefill: op_run 2 sequences (q 3/2, k 5/4), 2 heads (GQA 2:1), causal: %d", r);
	for (size_t s = 0; s < B; s++) {
		size_t lq = (size_t)(cu_q[s + 1] - cu_q[s]), lk = (size_t)(cu_k[s + 1] - cu_k[s]);

		for (size_t i = 0; i < lq; i++)
			for (size_t h = 0; h < HEADS; h++) {
				const float *kr[16], *vr[16];
				size_t n = i + lk - lq + 1;     /* bottom-right: keys <= i + lk - lq */

				for (size_t j = 0; j < n; j++) {
					kr[j] = k + ((size_t)cu_k[s] + j) * k_stride + (h / (HEADS / KVH)) * D;
					vr[j] = v + ((size_t)cu_k[s] + j) * v_stride + (h / (HEADS / KVH)) * D;
				}
				attend(q + ((size_t)cu_q[s] + i) * q_stride + h * D, kr, vr, n, scale,
				       ref + (((size_t)cu_q[s] + i) * HEADS + h) * D);
			}
	}
	double e = max_abs_diff(out, ref, TQ * HEADS * D);
	ok(r == 0 && e < 1e-4, "prefill: matches the reference (max error %.2g)", e);
out:
	free(q);
	free(k);
	free(v);
	free(out);
}

static void sort_rows(struct hanzo_rocm *ctx)
{
	enum { ROWS = 3, COLS = 37 };
	float x[ROWS * COLS];
	uint32_t idx[ROWS * COLS];
	struct hanzo_rocm_kernel *kern;
	struct hanzo_rocm_op_args args = { .size = sizeof args, .src = x, .dst = idx };
	int r, good = 1;

	for (size_t i = 0; i < ROWS * COLS; i++)
		x[i] = (float)((i * 7919u) % 101u) - 50.0f + (float)i * 1e-3f;
	r = hanzo_rocm_kernel_get(ctx, 0, "sort", "asort_asc_f32", &kern);
	ok(r == 0, "sort: kernel_get asort_asc_f32: %d", r);
	if (r)
		return;
	r = hanzo_rocm_op_run(kern, ROWS, COLS, &args);
	for (size_t row = 0; row < ROWS; row++) {
		unsigned char seen[COLS] = { 0 };

		for (size_t j = 0; j < COLS; j++) {
			uint32_t c = idx[row * COLS + j];
			if (c >= COLS || seen[c]++)
				good = 0;
			else if (j && c < COLS && idx[row * COLS + j - 1] < COLS &&
			         x[row * COLS + idx[row * COLS + j - 1]] > x[row * COLS + c])
				good = 0;
		}
	}
	ok(r == 0 && good, "sort: op_run %d x %d (ncols_pad derived): a permutation in ascending order: %d",
	   ROWS, COLS, r);
}

/* f16 bits of a power of two 2^e, -14 <= e <= 15 */
static uint16_t f16_pow2(int e)
{
	return (uint16_t)((e + 15) << 10);
}

static void q8_0_matvec(struct hanzo_rocm *ctx)
{
	/* ggml's block_q8_0: an f16 scale d, then 32 int8 quants; x = d * q. */
	enum { NROWS = 5, NCOLS = 64, QK = 32, BLK = 2 + QK, BATCH = 2 };
	unsigned char vx[NROWS * (NCOLS / QK) * BLK];
	float y[BATCH * NCOLS], dst[BATCH * NROWS];
	double ref[BATCH * NROWS], mag = 0;
	int nrows = NROWS;
	const void *vxp = vx;
	struct hanzo_rocm_kernel *kern;
	struct hanzo_rocm_op_arg nv[] = { HANZO_ROCM_OP_ARG("vx", vxp), HANZO_ROCM_OP_ARG("nrows", nrows) };
	struct hanzo_rocm_op_args args = {
		.size = sizeof args, .src = y, .dst = dst, .named = nv, .n_named = 2, .batch = BATCH,
	};
	size_t ws = 0;
	int r;

	for (size_t b = 0; b < NROWS * (NCOLS / QK); b++) {
		unsigned char *blk = vx + b * BLK;
		uint16_t d = f16_pow2(-6 - (int)(b % 3));

		memcpy(blk, &d, 2);     /* little-endian, as ggml writes it */
		for (size_t i = 0; i < QK; i++)
			blk[2 + i] = (unsigned char)(int8_t)((int)((b * 31 + i * 17) % 255) - 127);
	}
	for (size_t i = 0; i < BATCH * NCOLS; i++)
		y[i] = frand();
	for (size_t c = 0; c < BATCH; c++)
		for (size_t row = 0; row < NROWS; row++) {
			double s = 0;
			for (size_t j = 0; j < NCOLS; j++) {
				size_t b = row * (NCOLS / QK) + j / QK;
				double w = ldexp((double)(int8_t)vx[b * BLK + 2 + j % QK], -6 - (int)(b % 3));
				s += w * y[c * NCOLS + j];
				mag += fabs(w * y[c * NCOLS + j]);
			}
			ref[c * NROWS + row] = s;
		}
	r = hanzo_rocm_kernel_get(ctx, 0, "quantized", "dequantize_mul_mat_vec_q8_0", &kern);
	ok(r == 0, "q8_0: kernel_get dequantize_mul_mat_vec_q8_0: %d", r);
	if (r)
		return;
	r = hanzo_rocm_op_workspace(kern, NROWS, NCOLS, &ws);
	ok(r == 0 && ws >= 8u * NCOLS / 32u * 36u, "q8_0: op_workspace %d x %d: %zu bytes (documented 8 x ncols / 32 x 36 = %u)",
	   NROWS, NCOLS, ws, 8u * NCOLS / 32u * 36u);
	unsigned char *wsb = malloc(ws ? ws : 1);
	args.workspace = wsb;
	args.workspace_size = ws - 1;
	memset(dst, POISON, sizeof dst);
	r = hanzo_rocm_op_run(kern, NROWS, NCOLS, &args);
	ok(r == -ENOSPC && ((unsigned char *)dst)[0] == POISON, "q8_0: workspace 1 byte short: %d (want %d)",
	   r, -ENOSPC);
	args.workspace_size = ws;
	/* nrows is bound to rows: a named one must agree, in the kernel's own
	 * form (one column of y, few weights) and in the q8_1 form alike. */
	nrows = NROWS + 1;
	for (size_t b = 1; b <= BATCH; b++) {
		args.batch = b;
		r = hanzo_rocm_op_run(kern, NROWS, NCOLS, &args);
		ok(r == -EINVAL && ((unsigned char *)dst)[0] == POISON,
		   "q8_0: %zu column(s): a named nrows other than the work's rows: %d (want %d)",
		   b, r, -EINVAL);
	}
	nrows = NROWS;
	args.batch = BATCH;
	r = hanzo_rocm_op_run(kern, NROWS, NCOLS, &args);
	ok(r == 0, "q8_0: op_run %d x %d, 2 columns of y: %d", NROWS, NCOLS, r);
	/* y is quantized to q8_1 (8 bits a value): an error of the order of 1/127 of the terms */
	double e = max_abs_diff(dst, ref, BATCH * NROWS);
	ok(r == 0 && e < 0.02 * mag / (BATCH * NROWS) + 1e-3, "q8_0: matches the reference (max error %.3g, mean |terms| %.3g)",
	   e, mag / (BATCH * NROWS));
	free(wsb);
}

int main(void)
{
	struct hanzo_rocm *ctx;
	struct hanzo_rocm_catalogue *cat;
	int r = hanzo_rocm_new(&ctx);
	char fams[64][64];
	size_t nf = 0;

	ok(r == 0, "hanzo_rocm_new: %s", r ? hanzo_rocm_strerror(r) : "ok");
	if (r)
		return 1;
	r = hanzo_rocm_device_platform(ctx, 0);
	ok(r == HANZO_ROCM_PLATFORM_HOST, "device 0 is the host device: %d", r);
	r = hanzo_rocm_catalogue_new(ctx, NULL, &cat);
	ok(r == 0, "catalogue_new: %d", r);
	if (r)
		return 1;
	for (size_t i = 0; i < hanzo_rocm_catalogue_count(cat); i++) {
		struct hanzo_rocm_kernel_desc d = { .size = sizeof d };
		size_t f;

		if (hanzo_rocm_catalogue_kernel(cat, i, &d) < 0)
			continue;
		for (f = 0; f < nf && strcmp(fams[f], d.family); f++)
			;
		if (f == nf && nf < 64)
			snprintf(fams[nf++], sizeof fams[0], "%s", d.family);
	}
	ok(nf > 0, "the catalogue lists %zu families", nf);
	for (size_t f = 0; f < nf; f++) {
		const char *pick = NULL;

		if (!strcmp(fams[f], "attention"))
			pick = "paged_attention_d64_f32";
		else if (!strcmp(fams[f], "quantized"))
			pick = "dequantize_mul_mat_vec_q8_0";
		family_defects(ctx, cat, fams[f], pick);
	}
	paged_decode(ctx);
	paged_decode_split(ctx);
	varlen_prefill(ctx);
	sort_rows(ctx);
	q8_0_matvec(ctx);
	hanzo_rocm_catalogue_unref(cat);
	hanzo_rocm_unref(ctx);
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
