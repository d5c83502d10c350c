/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Operations (hanzo_rocm_op_workspace, hanzo_rocm_op_run,
 * hanzo_rocm_kernel_geometry_ex): a kernel run end to end.  When its
 * family's catalogue lines give it a split form (#@forms), the split
 * kernel's geometry decides: at least HR_OP_MIN_SPLITS splits (few, long
 * rows: lib/kernel/kernel.c's rows-split rule, from the device's
 * multiprocessors) runs the split pass then the second pass on a workspace
 * of rows x splits x #@ws bytes; fewer runs the one-pass kernel.  A kernel
 * that is its own split pass (attention's split-K: "#@forms K K COMBINE")
 * follows its geometry: more than one split runs the combine pass too.  The
 * arguments are bound by name from the signatures the plugin carries, with
 * their types checked, and every pass is bound before the first launch:
 * nothing runs unless everything can.  What the binding needs of a kernel
 * (its forms, its workspace rule, what each argument takes) is worked out
 * on its first operation call and kept on its plan: a later call is the
 * geometry's integer arithmetic, one loop over the arguments and the
 * launches.  A kernel whose family declares a pre-pass for it (#@pre:
 * lib/shared/catalogue-meta.h) runs as that pre-pass then its main pass,
 * batch after batch of .batch columns on one workspace, or alone where the
 * line's direct= bound allows.  A kernel with a #@passes line runs as that
 * many launches of one geometry, its numbering argument 0, 1, ... (the
 * multi-block argsort's count and move launches of each radix digit).
 * Nothing here names a family or a kernel.
 * Layer: kernel (lib/layers).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "catalogue.h"
#include "shared/catalogue-meta.h"
#include "kernel.h"
#include "context.h"
#include "runtime/runtime.h"

/*
 * The split form only from this many splits: below it the one-pass kernel
 * was as fast or faster on an H100 (2026-11-24, bench/op-forms: fast_sum
 * at 256 x 4096 with 2 splits 0.011 ms one-pass vs 0.019 split, softmax at
 * 64 x 32000 with 3 splits 0.028 vs 0.035; at 9 and 17 splits the split
 * form won by 1.5-7x) - the second pass and the re-read of the partials
 * cost more than the two or three times the parallelism gains.
 */
#define HR_OP_MIN_SPLITS 4

union val {
	void *p;
	int32_t i32;
	uint64_t u64;
	float f;
	struct hanzo_rocm_layout layout;
};

struct bound {
	size_t n;
	union val v[HR_CAT_MAX_ARGS];
	void *argv[HR_CAT_MAX_ARGS];
	uint64_t work_cols;     /* a #@check cols= argument's value; 0: none */
};

/* What one call binds from: the caller's args and the plan's numbers. */
struct bind_in {
	const struct hanzo_rocm_op_args *a;
	uint64_t rows, cols, block, splits;
	unsigned partial;       /* a second pass: the split pass's bytes per partial */
	bool ws_needed;
};

/* An argument's code: its enum hr_cat_source (| C_WIDE: an 8-byte integer). */
#define C_WIDE 0x80u

/*
 * A pass's arguments as bind_pass needs them, read once from its signature
 * and its family's #@bind lines (pass_find): an operation call binds named
 * values by these names, not by reading the signature again.  ok false: the
 * pass takes the slow path (bind_slow), more than PASS_ARGS arguments or
 * names longer than names[] holds.
 */
#define PASS_ARGS 16
struct pass {
	bool ok;
	uint8_t n_args;
	int8_t rows_a, rows_b, cols_arg;            /* #@check; -1: none */
	uint32_t nullable, pointer, integer;        /* bit i: #@null, a pointer, is_int_arg */
	uint8_t code[PASS_ARGS];                    /* 0: the caller names it */
	uint8_t bytes[PASS_ARGS];
	uint8_t at[PASS_ARGS];                      /* argument i's name: names + at[i] */
	char names[80];
};

/*
 * A kernel's forms and argument codes, from its family's catalogue lines
 * (#@forms, #@wide, #@ws, #@bind, #@null, #@check, #@pre); cached on its plan.
 */
struct forms {
	struct hanzo_rocm_kernel *split, *second;   /* split form; NULL: none */
	struct hanzo_rocm_kernel *wide;             /* wide form; NULL: none */
	unsigned ws, ws_col;                        /* bytes per partial / per column */
	unsigned own_partial, own_col;              /* the kernel's own #@ws rule */
	bool second_per_item, pad, own_pad, self_split;
	bool codes_ok;                              /* every argument has a code, no #@check */
	uint8_t n_args;
	int8_t rows_a, rows_b, cols_arg;            /* #@check; -1: none */
	uint8_t passes;                             /* #@passes: launches (0: one) */
	uint8_t pass_arg;                           /* #@passes: the argument numbering them */
	uint32_t nullable;                          /* #@null: bit i */
	uint8_t code[HR_CAT_MAX_ARGS];              /* 0: the caller names it */
	struct hr_cat_pre pr;                       /* #@pre's keys; pr.batch 0: no pre-pass */
	char pre[48];                               /* #@pre: the pre-pass kernel */
	char main[64];                              /* #@pre: the main pass, its columns appended */
	struct pass pp, pm, pk;                     /* #@pre: the pre-pass's, every main pass's, k's */
};
_Static_assert(sizeof(struct forms) <= HR_OP_CACHE_BYTES, "struct forms outgrew the plan's room");

struct plan {
	struct hanzo_rocm_kernel *split, *second;   /* NULL: one pass */
	struct hanzo_rocm_kernel *run;              /* the one pass: the kernel or its wide form */
	struct hanzo_rocm_geometry g;               /* of split, else of run */
	uint64_t splits;
	size_t ws;
	bool second_per_item;
	unsigned ws_partial;                        /* split: bytes per partial */
	bool pre;                                   /* the pre-pass, then the main pass */
	unsigned passes;                            /* run's #@passes launches (0: one) */
	const char *form;
};

static bool is(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

static bool is_int_arg(const struct hr_cat_arg *arg)
{
	return !arg->pointer && (arg->bytes == 4 || arg->bytes == 8) && !strstr(arg->type, "float") &&
	       !strstr(arg->type, "double");
}

static bool src_is_ptr(unsigned s)
{
	return s == HR_SRC_SRC || s == HR_SRC_DST || s == HR_SRC_ALPHA || s == HR_SRC_BETA ||
	       s == HR_SRC_RESIDUAL || s == HR_SRC_RESIDUAL_OUT || s == HR_SRC_WS;
}

/* A size the call derives from its work: a named value must agree with it. */
static bool src_is_derived(unsigned s)
{
	return s == HR_SRC_COLS || s == HR_SRC_ROWS || s == HR_SRC_NUMEL || s == HR_SRC_COLS_POW2 ||
	       s == HR_SRC_ZERO || s == HR_SRC_PARTIAL_FLOATS_M1;
}

/* The code of argument arg bound to source s (#@bind); 0 with why when the types do not fit. */
static unsigned classify(const struct hr_cat_arg *arg, unsigned s, const char **why)
{
	*why = "no #@bind line gives it a value";
	if (s == HR_SRC_NONE)
		return 0;
	if (src_is_ptr(s)) {
		*why = "bound to a pointer, not a pointer";
		return arg->pointer ? s : 0;
	}
	if (s == HR_SRC_EPS) {
		*why = "bound to eps, not float";
		return !arg->pointer && is(arg->type, "float") ? s : 0;
	}
	if (s == HR_SRC_ZERO) {
		*why = "bound to zero, a pointer";
		return !arg->pointer && arg->bytes ? s : 0;
	}
	*why = "bound to an integer, not an integer";
	return is_int_arg(arg) ? s | (arg->bytes == 8 ? C_WIDE : 0) : 0;
}

static int set_int(const struct hanzo_rocm_kernel *k, unsigned wide, union val *v, uint64_t x)
{
	if (wide) {
		v->u64 = x;
		return 0;
	}
	if (x > INT32_MAX) {
		hr_err(k->ctx, "kernel %s: %llu does not fit its int argument\n", k->name,
		       (unsigned long long)x);
		return -E2BIG;
	}
	v->i32 = (int32_t)x;
	return 0;
}

static uint64_t pow2_of(uint64_t cols)
{
	uint64_t pad = 1;

	while (pad < cols && pad <= INT32_MAX)
		pad <<= 1;
	return pad;
}

/* The value of a coded argument (NULL pointers are checked by the caller). */
static int value(const struct hanzo_rocm_kernel *k, unsigned code, const struct bind_in *in,
                 union val *v)
{
	const struct hanzo_rocm_op_args *a = in->a;
	unsigned wide = code & C_WIDE;

	switch ((enum hr_cat_source)(code & ~C_WIDE)) {
	case HR_SRC_SRC: v->p = (void *)(uintptr_t)a->src; return 0;
	case HR_SRC_DST: v->p = a->dst; return 0;
	case HR_SRC_ALPHA: v->p = (void *)(uintptr_t)a->alpha; return 0;
	case HR_SRC_BETA: v->p = (void *)(uintptr_t)a->beta; return 0;
	case HR_SRC_RESIDUAL: v->p = (void *)(uintptr_t)a->residual; return 0;
	case HR_SRC_RESIDUAL_OUT: v->p = a->residual_out; return 0;
	case HR_SRC_WS: v->p = a->workspace; return 0;
	case HR_SRC_EPS:
		v->f = a->eps;
		return 0;
	case HR_SRC_COLS_POW2: return set_int(k, wide, v, pow2_of(in->cols));
	case HR_SRC_COLS: return set_int(k, wide, v, in->cols);
	case HR_SRC_NUMEL: return set_int(k, wide, v, in->rows * in->cols);
	case HR_SRC_ROWS: return set_int(k, wide, v, in->rows);
	case HR_SRC_ZERO: return 0;     /* zeroed: 0, a contiguous layout */
	case HR_SRC_BLOCK: return set_int(k, wide, v, in->block);
	case HR_SRC_SPLITS: return set_int(k, wide, v, in->splits);
	case HR_SRC_PARTIAL_FLOATS_M1:
		if (in->partial < 8) {
			hr_err(k->ctx, "kernel %s: partial_floats-1 bound outside a second pass\n",
			       k->name);
			return -EINVAL;
		}
		return set_int(k, wide, v, in->partial / 4 - 1);
	case HR_SRC_NONE:
	case HR_SRC_COUNT:
		break;
	}
	return -EINVAL;
}

/* A type in canonical form: no const, one blank-free spelling per width and signedness. */
static void canon(const char *type, char *out, size_t size)
{
	static const struct {
		const char *from, *to;
	} alias[] = {
		{ "int", "i32" }, { "int32_t", "i32" }, { "signed", "i32" }, { "signed int", "i32" },
		{ "unsigned", "u32" }, { "unsigned int", "u32" }, { "uint32_t", "u32" },
		{ "long", "i64" }, { "long int", "i64" }, { "long long", "i64" }, { "int64_t", "i64" },
		{ "unsigned long", "u64" }, { "unsigned long long", "u64" }, { "size_t", "u64" },
		{ "uint64_t", "u64" }, { "float", "f32" }, { "double", "f64" },
	};
	char base[96] = "";
	size_t stars = 0, n = 0;
	const char *p = type;

	while (*p) {
		size_t len;

		if (*p == ' ' || *p == '\t') {
			p++;
			continue;
		}
		if (*p == '*') {
			stars++;
			p++;
			continue;
		}
		len = strcspn(p, " \t*");
		if (!(len == 5 && strncmp(p, "const", 5) == 0) && n + len + 2 < sizeof(base)) {
			if (n)
				base[n++] = ' ';
			memcpy(base + n, p, len);
			n += len;
			base[n] = '\0';
		}
		p += len;
	}
	for (size_t i = 0; i < sizeof(alias) / sizeof(alias[0]); i++)
		if (is(base, alias[i].from)) {
			snprintf(base, sizeof(base), "%s", alias[i].to);
			break;
		}
	snprintf(out, size, "%s%.*s", base, (int)(stars < 4 ? stars : 4), "****");
}

/* Whether a caller's type (from a "TYPE NAME" name) is the argument's. */
static bool type_fits(const char *given, const struct hr_cat_arg *arg)
{
	char g[100], t[100];

	canon(given, g, sizeof(g));
	canon(arg->type, t, sizeof(t));
	if (arg->pointer && is(g, "void*"))
		return true;
	return is(g, t);
}

/* The named value for name: ".name" is "NAME" or "TYPE NAME"; *type the TYPE (NULL: none). */
static const struct hanzo_rocm_op_arg *named_find(const struct hanzo_rocm_op_args *a,
                                                  const char *name, char *type, size_t size)
{
	for (size_t i = 0; i < a->n_named; i++) {
		const char *nm = a->named[i].name, *end, *start;

		if (!nm)
			continue;
		end = nm + strlen(nm);
		while (end > nm && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		start = end;
		while (start > nm && (isalnum((unsigned char)start[-1]) || start[-1] == '_'))
			start--;
		if ((size_t)(end - start) != strlen(name) || strncmp(start, name, strlen(name)) != 0)
			continue;
		if (type) {
			size_t n = (size_t)(start - nm) < size ? (size_t)(start - nm) : size - 1;

			memcpy(type, nm, n);
			type[n] = '\0';
		}
		return &a->named[i];
	}
	return NULL;
}

/* An integer argument's value as bound (0 when it is not an integer). */
static uint64_t int_of(const struct hr_cat_arg *arg, const union val *v)
{
	if (!is_int_arg(arg))
		return 0;
	return arg->bytes == 8 ? v->u64 : (uint64_t)(v->i32 < 0 ? 0 : v->i32);
}

static bool blank(const char *s)
{
	return !s[strspn(s, " \t")];
}

/* One named value for argument arg (its code c): checked and copied into *val. */
static int bind_named(struct hanzo_rocm_kernel *k, const struct forms *f, size_t i,
                      const struct hr_cat_arg *arg, const struct hanzo_rocm_op_arg *na,
                      const char *type, const struct bind_in *in, union val *val)
{
	unsigned c = f->code[i], s = c & ~C_WIDE;
	int r;

	if (s == HR_SRC_WS || s == HR_SRC_SPLITS) {
		hr_err(k->ctx, "kernel %s: %s is the operation's own, not a named value\n", k->name,
		       arg->name);
		return -EINVAL;
	}
	if (!na->value || arg->bytes == 0 || na->bytes != arg->bytes || arg->bytes > sizeof(*val)) {
		hr_err(k->ctx, "kernel %s: named value %s is %zu bytes, its argument '%s %s' %zu\n",
		       k->name, arg->name, na->value ? na->bytes : 0, arg->type, arg->name,
		       arg->bytes);
		return -EINVAL;
	}
	if (!blank(type) && !type_fits(type, arg)) {
		hr_err(k->ctx, "kernel %s: named value '%s' is not of its argument's type '%s %s'\n",
		       k->name, na->name, arg->type, arg->name);
		return -EINVAL;
	}
	memcpy(val, na->value, na->bytes);
	if (arg->pointer && !val->p && !(f->nullable & (1u << i))) {
		hr_err(k->ctx, "kernel %s: named pointer %s is NULL (it may not be: no #@null line "
		       "allows it)\n", k->name, arg->name);
		return -EINVAL;
	}
	if (src_is_derived(s)) {
		union val mine;

		memset(&mine, 0, sizeof(mine));
		r = value(k, c, in, &mine);
		if (r < 0)
			return r;
		if (memcmp(&mine, val, arg->bytes) != 0) {
			hr_err(k->ctx, "kernel %s: named %s disagrees with the value the call derives "
			       "(%s, for %llu x %llu)\n", k->name, arg->name, hr_cat_source_name(s),
			       (unsigned long long)in->rows, (unsigned long long)in->cols);
			return -EINVAL;
		}
	}
	return 0;
}

/* The value of argument i from its code; a NULL pointer only where #@null allows it. */
static int bind_coded(struct hanzo_rocm_kernel *k, const struct forms *f, size_t i,
                      const char *name, const struct bind_in *in, union val *val)
{
	unsigned s = f->code[i] & ~C_WIDE;
	int r = value(k, f->code[i], in, val);

	if (r < 0 || !src_is_ptr(s) || val->p || (f->nullable & (1u << i)))
		return r;
	if (s == HR_SRC_WS && !in->ws_needed)
		return 0;
	hr_err(k->ctx, "kernel %s: argument %s (.%s) is NULL (it may not be)\n", k->name,
	       name ? name : "?", hr_cat_source_name(s));
	return -EINVAL;
}

/*
 * The slow path: the signature read again, named values first (the caller's
 * .named), then the bound values; every refusal logged by name.
 */
static int bind_slow(struct hanzo_rocm_kernel *k, const struct forms *f,
                     const struct bind_in *in, struct bound *b)
{
	const struct hanzo_rocm_op_args *a = in->a;
	struct hr_cat_arg args[HR_CAT_MAX_ARGS];
	const char *sig = NULL;
	char type[100];
	int r;

	r = hr_cat_signature(k->ctx, k->family, k->name, &sig);
	if (r < 0)
		return r;
	if (hr_cat_args(sig, args, HR_CAT_MAX_ARGS, &b->n) < 0 || b->n != f->n_args) {
		hr_err(k->ctx, "kernel %s: cannot read its argument list \"%s\"\n", k->name, sig);
		return -EBADMSG;
	}
	for (size_t i = 0; i < b->n; i++) {
		const struct hr_cat_arg *arg = &args[i];
		const struct hanzo_rocm_op_arg *na = named_find(a, arg->name, type, sizeof(type));
		const char *why;

		b->argv[i] = &b->v[i];
		if (na) {
			r = bind_named(k, f, i, arg, na, type, in, &b->v[i]);
		} else if (f->code[i]) {
			r = bind_coded(k, f, i, arg->name, in, &b->v[i]);
		} else if (arg->pointer && (f->nullable & (1u << i))) {
			b->v[i].p = NULL;       /* a #@null pointer not given: NULL */
		} else {
			classify(arg, HR_SRC_NONE, &why);
			hr_err(k->ctx, "kernel %s: argument '%s %s' has no value: pass it in .named "
			       "(the call derives only what its family's #@bind lines give)\n",
			       k->name, arg->type, arg->name);
			r = -EINVAL;
		}
		if (r < 0)
			return r;
	}
	if (f->rows_a >= 0 && f->rows_b >= 0) {
		uint64_t x = int_of(&args[f->rows_a], &b->v[f->rows_a]);
		uint64_t y = int_of(&args[f->rows_b], &b->v[f->rows_b]);

		if (!x || !y || x > UINT64_MAX / y || x * y != in->rows) {
			hr_err(k->ctx, "kernel %s: rows %llu is not %s %llu x %s %llu\n", k->name,
			       (unsigned long long)in->rows, args[f->rows_a].name,
			       (unsigned long long)x, args[f->rows_b].name, (unsigned long long)y);
			return -EINVAL;
		}
	}
	if (f->cols_arg >= 0)
		b->work_cols = int_of(&args[f->cols_arg], &b->v[f->cols_arg]);
	return 0;
}

/* The argument array of kernel k (its codes f, from forms_get). */
static int bind(struct hanzo_rocm_kernel *k, const struct forms *f, const struct bind_in *in,
                struct bound *b)
{
	memset(b->v, 0, sizeof(b->v));
	b->work_cols = 0;
	if (!f->codes_ok || in->a->n_named)
		return bind_slow(k, f, in, b);
	b->n = f->n_args;
	for (size_t i = 0; i < b->n; i++) {
		int r = bind_coded(k, f, i, NULL, in, &b->v[i]);

		if (r < 0)
			return r;
		b->argv[i] = &b->v[i];
	}
	return 0;
}

static int codes_find(struct hanzo_rocm_kernel *k, struct forms *f)
{
	struct hr_cat_arg args[HR_CAT_MAX_ARGS];
	struct hr_cat_binding bd;
	const char *sig = NULL, *why;
	size_t n = 0;
	int r;

	f->codes_ok = false;
	f->rows_a = f->rows_b = f->cols_arg = -1;
	r = hr_cat_signature(k->ctx, k->family, k->name, &sig);
	if (r < 0)
		return r;
	if (hr_cat_args(sig, args, HR_CAT_MAX_ARGS, &n) < 0) {
		hr_err(k->ctx, "kernel %s: cannot read its argument list \"%s\"\n", k->name, sig);
		return -EBADMSG;
	}
	r = hr_cat_binding(k->ctx, k->family, k->name, args, n, &bd);
	if (r < 0)
		return r;
	f->n_args = (uint8_t)n;
	f->nullable = bd.nullable;
	f->rows_a = bd.rows_a;
	f->rows_b = bd.rows_b;
	f->cols_arg = bd.cols_arg;
	f->codes_ok = f->rows_a < 0 && f->cols_arg < 0;
	for (size_t i = 0; i < n; i++) {
		f->code[i] = (uint8_t)classify(&args[i], bd.source[i], &why);
		if (!f->code[i])
			f->codes_ok = false;
	}
	return 0;
}

/*
 * The arguments of kernel name of k's family as a pass binds them (*ps);
 * ps->ok false where they do not fit struct pass or cannot be read (the
 * call then takes the slow path, which reads and reports them).
 */
static void pass_find(struct hanzo_rocm_kernel *k, const char *name, struct pass *ps)
{
	struct hr_cat_arg args[HR_CAT_MAX_ARGS];
	struct hr_cat_binding bd;
	const char *sig = NULL, *why;
	size_t n = 0, used = 0;

	memset(ps, 0, sizeof(*ps));
	if (hr_cat_signature(k->ctx, k->family, name, &sig) < 0 ||
	    hr_cat_args(sig, args, HR_CAT_MAX_ARGS, &n) < 0 || n > PASS_ARGS ||
	    hr_cat_binding(k->ctx, k->family, name, args, n, &bd) < 0)
		return;
	ps->n_args = (uint8_t)n;
	ps->nullable = bd.nullable;
	ps->rows_a = bd.rows_a;
	ps->rows_b = bd.rows_b;
	ps->cols_arg = bd.cols_arg;
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(args[i].name) + 1;

		if (used + len > sizeof(ps->names) || args[i].bytes > sizeof(union val))
			return;
		memcpy(ps->names + used, args[i].name, len);
		ps->at[i] = (uint8_t)used;
		used += len;
		ps->code[i] = (uint8_t)classify(&args[i], bd.source[i], &why);
		ps->bytes[i] = (uint8_t)args[i].bytes;
		ps->pointer |= args[i].pointer ? 1u << i : 0;
		ps->integer |= is_int_arg(&args[i]) ? 1u << i : 0;
	}
	ps->ok = true;
}

/* Whether two passes bind alike (their every field, the names up to the last's NUL). */
static bool pass_same(const struct pass *a, const struct pass *b)
{
	size_t n = a->n_args;

	return a->ok == b->ok && n == b->n_args && a->rows_a == b->rows_a &&
	       a->rows_b == b->rows_b && a->cols_arg == b->cols_arg && a->nullable == b->nullable &&
	       a->pointer == b->pointer && a->integer == b->integer &&
	       memcmp(a->code, b->code, n) == 0 && memcmp(a->bytes, b->bytes, n) == 0 &&
	       memcmp(a->at, b->at, n) == 0 &&
	       (n == 0 || memcmp(a->names, b->names, sizeof(a->names)) == 0);
}

/* The value bound to argument i of ps as an integer (int_of's). */
static uint64_t pass_int(const struct pass *ps, size_t i, const union val *v)
{
	if (!(ps->integer & (1u << i)))
		return 0;
	return ps->bytes[i] == 8 ? v->u64 : (uint64_t)(v->i32 < 0 ? 0 : v->i32);
}

/*
 * The fast path of a pass's binding (ps from pass_find): named values by
 * the names kept on the plan, no signature read.  1: a value it does not
 * take as it is (a typed name, a wrong size, a NULL, a disagreement, a
 * failed #@check) - the caller binds with the slow path, which reports it.
 */
static int bind_pass(struct hanzo_rocm_kernel *k, const struct pass *ps, const struct bind_in *in,
                     struct bound *b)
{
	const struct hanzo_rocm_op_args *a = in->a;
	char type[100];

	memset(b->v, 0, sizeof(b->v));
	b->work_cols = 0;
	b->n = ps->n_args;
	for (size_t i = 0; i < b->n; i++) {
		const struct hanzo_rocm_op_arg *na = a->n_named ?
			named_find(a, ps->names + ps->at[i], type, sizeof(type)) : NULL;
		unsigned c = ps->code[i], s = c & ~C_WIDE;
		union val *v = &b->v[i];

		b->argv[i] = v;
		if (na) {
			if (!blank(type) || s == HR_SRC_WS || s == HR_SRC_SPLITS || !na->value ||
			    !ps->bytes[i] || na->bytes != ps->bytes[i])
				return 1;
			memcpy(v, na->value, na->bytes);
			if ((ps->pointer & (1u << i)) && !v->p && !(ps->nullable & (1u << i)))
				return 1;
			if (src_is_derived(s)) {
				union val mine;

				memset(&mine, 0, sizeof(mine));
				if (value(k, c, in, &mine) < 0 || memcmp(&mine, v, na->bytes) != 0)
					return 1;
			}
		} else if (c) {
			if (value(k, c, in, v) < 0)
				return 1;
			if (src_is_ptr(s) && !v->p && !(ps->nullable & (1u << i)) &&
			    !(s == HR_SRC_WS && !in->ws_needed))
				return 1;
		} else if (!(ps->pointer & (1u << i)) || !(ps->nullable & (1u << i))) {
			return 1;
		}
	}
	if (ps->rows_a >= 0 && ps->rows_b >= 0) {
		uint64_t x = pass_int(ps, (size_t)ps->rows_a, &b->v[ps->rows_a]);
		uint64_t y = pass_int(ps, (size_t)ps->rows_b, &b->v[ps->rows_b]);

		if (!x || !y || x > UINT64_MAX / y || x * y != in->rows)
			return 1;
	}
	if (ps->cols_arg >= 0)
		b->work_cols = pass_int(ps, (size_t)ps->cols_arg, &b->v[ps->cols_arg]);
	return 0;
}

/* k's #@passes line: its count and the int argument that numbers them. */
static int passes_find(struct hanzo_rocm_kernel *k, struct forms *f)
{
	struct hr_cat_arg args[HR_CAT_MAX_ARGS];
	char arg[HR_CAT_MAX_NAME];
	const char *sig = NULL;
	unsigned n = 0;
	size_t na = 0;
	int r = hr_cat_passes(k->ctx, k->family, k->name, arg, &n);

	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	r = hr_cat_signature(k->ctx, k->family, k->name, &sig);
	if (r < 0)
		return r;
	if (hr_cat_args(sig, args, HR_CAT_MAX_ARGS, &na) < 0)
		return -EBADMSG;
	for (size_t i = 0; i < na; i++)
		if (is(args[i].name, arg) && is_int_arg(&args[i]) && args[i].bytes == 4 &&
		    f->code[i] == HR_SRC_ZERO) {
			f->passes = (uint8_t)n;
			f->pass_arg = (uint8_t)i;
			return 0;
		}
	hr_err(k->ctx, "kernel %s: its #@passes argument '%s' is not an int bound to zero\n",
	       k->name, arg);
	return -EBADMSG;
}

static int forms_find(struct hanzo_rocm_kernel *k, struct forms *f)
{
	char split[HR_CAT_MAX_NAME], second[HR_CAT_MAX_NAME];
	int r;

	memset(f, 0, sizeof(*f));
	r = codes_find(k, f);
	if (r == 0)
		r = passes_find(k, f);
	if (r < 0)
		return r;
	r = hr_cat_ws(k->ctx, k->family, k->name, &f->own_partial, &f->own_col, &f->own_pad);
	if (r < 0 && r != -ENOENT)
		return r;
	r = hr_cat_pre(k->ctx, k->family, k->name, split, second, &f->pr);
	if (r == 0 && (strlen(split) >= sizeof(f->pre) || strlen(second) + 3 > sizeof(f->main))) {
		hr_err(k->ctx, "kernel %s: its #@pre kernels' names are too long (%s, %s)\n", k->name,
		       split, second);
		return -ENAMETOOLONG;
	}
	if (r == 0) {
		struct pass m;
		char name[HR_CAT_MAX_NAME];

		memcpy(f->pre, split, strlen(split) + 1);
		memcpy(f->main, second, strlen(second) + 1);
		pass_find(k, k->name, &f->pk);
		pass_find(k, f->pre, &f->pp);
		/* Every main pass's arguments, kept where they are the same. */
		for (unsigned b = 1; f->pp.ok && b <= f->pr.batch; b++) {
			snprintf(name, sizeof(name), "%s%u", f->main, b);
			pass_find(k, name, b == 1 ? &f->pm : &m);
			if (!f->pm.ok || (b > 1 && !pass_same(&m, &f->pm))) {
				f->pm.ok = false;
				break;
			}
		}
		return 0;
	}
	if (r != -ENOENT)
		return r;
	r = hr_cat_forms(k->ctx, k->family, k->name, split, second, &f->ws, &f->second_per_item);
	if (r == 0) {
		f->self_split = is(split, k->name);
		r = hanzo_rocm_kernel_get(k->ctx, k->device, k->family, split, &f->split);
		if (r == 0)
			r = hanzo_rocm_kernel_get(k->ctx, k->device, k->family, second, &f->second);
		return r;
	}
	if (r != -ENOENT)
		return r;
	r = hr_cat_wide(k->ctx, k->family, k->name, split, &f->ws_col, &f->pad);
	if (r == 0)
		return hanzo_rocm_kernel_get(k->ctx, k->device, k->family, split, &f->wide);
	return r == -ENOENT ? 0 : r;
}
/*
 * The forms, worked out on the first call for a handle and kept on its plan
 * (an operation call after the first reads them back: no catalogue walk).
 * *home (when not NULL): the plan's copy, which lives as long as the handle
 * (NULL: not kept, out of memory or another thread filling it).
 */
static int forms_get(struct hanzo_rocm_kernel *k, struct forms *f, const struct forms **home)
{
	struct hr_op_cache *c = hr_kernel_op_cache(k);
	int state = 0, r;

	if (home)
		*home = NULL;
	if (c && atomic_load_explicit(&c->state, memory_order_acquire) == 2) {
		memcpy(f, c->data, sizeof(*f));
		if (home)
			*home = (const struct forms *)(const void *)c->data;
		return 0;
	}
	r = forms_find(k, f);
	if (r < 0 || !c)
		return r;
	if (atomic_compare_exchange_strong_explicit(&c->state, &state, 1, memory_order_acq_rel,
	                                            memory_order_acquire)) {
		memcpy(c->data, f, sizeof(*f));
		atomic_store_explicit(&c->state, 2, memory_order_release);
		if (home)
			*home = (const struct forms *)(const void *)c->data;
	}
	return 0;
}

/* rows x cols (padded to a power of two when pad) x per bytes. */
static int ws_cols(uint64_t rows, uint64_t cols, unsigned per, bool pad, size_t *ws)
{
	uint64_t pcols = cols;

	if (pad) {
		if (cols > (1ull << 62))
			return -E2BIG;
		for (pcols = 1; pcols < cols; pcols <<= 1)
			;
	}
	if (pcols == 0 || rows == 0) {
		*ws = 0;
		return 0;
	}
	if (pcols > SIZE_MAX / per || rows > SIZE_MAX / (pcols * per))
		return -EOVERFLOW;
	*ws = (size_t)(rows * pcols * per);
	return 0;
}

static int ws_partials(uint64_t rows, uint64_t splits, unsigned per, size_t *ws)
{
	if (rows == 0 || splits == 0) {
		*ws = 0;
		return 0;
	}
	if (rows > SIZE_MAX / splits / per)
		return -EOVERFLOW;
	*ws = (size_t)(rows * splits * per);
	return 0;
}

/* What hanzo_rocm_op_run runs for rows x cols (f: k's forms). */
static int plan_make(struct hanzo_rocm_kernel *k, const struct forms *f, uint64_t rows,
                     uint64_t cols, struct plan *p)
{
	int r;

	memset(p, 0, sizeof(*p));
	p->run = k;
	p->form = f->split ? "one-pass" : f->wide ? "shared" : "single";
	if (rows == 0 || cols == 0)
		return 0;
	if (rows > UINT64_MAX / cols)
		return -EOVERFLOW;
	if (f->split) {
		r = hanzo_rocm_kernel_geometry(f->split, rows, cols, &p->g);
		if (r < 0)
			return r;
		if (p->g.splits > 1 && (f->self_split || p->g.splits >= HR_OP_MIN_SPLITS)) {
			p->split = f->split;
			p->second = f->second;
			p->second_per_item = f->second_per_item;
			p->splits = p->g.splits;
			p->ws_partial = f->ws;
			p->form = "split";
			return ws_partials(rows, p->g.splits, f->ws, &p->ws);
		}
		if (f->self_split)
			return 0;       /* one split: the kernel writes out itself, no workspace */
		return hanzo_rocm_kernel_geometry(k, rows, cols, &p->g);
	}
	r = hanzo_rocm_kernel_geometry(k, rows, cols, &p->g);
	if (f->wide && r == -E2BIG) {
		struct forms fw;

		/* the wide form when the kernel's own launch cannot take the work */
		p->run = f->wide;
		p->form = "wide";
		r = forms_get(f->wide, &fw, NULL);
		if (r < 0)
			return r;
		p->passes = fw.passes;
		r = hanzo_rocm_kernel_geometry(f->wide, rows, cols, &p->g);
		return r < 0 ? r : ws_cols(rows, cols, f->ws_col, f->pad, &p->ws);
	}
	if (r < 0)
		return r;
	p->passes = f->passes;
	p->splits = p->g.splits;
	/* a pass launched alone (a split pass, a wide form): its own rule */
	if (f->own_partial)
		return ws_partials(rows, p->g.splits, f->own_partial, &p->ws);
	if (f->own_col)
		return ws_cols(rows, cols, f->own_col, f->own_pad, &p->ws);
	return 0;
}

/*
 * Whether the sizes the call derives from rows x cols fit k's integer
 * arguments: op_workspace and geometry_ex refuse what op_run would
 * (-E2BIG, naming the argument).
 */
static int fits_int(struct hanzo_rocm_kernel *k, uint64_t rows, uint64_t cols)
{
	struct hr_cat_arg args[HR_CAT_MAX_ARGS];
	const char *sig = NULL;
	struct forms f;
	size_t n = 0;
	int r = forms_get(k, &f, NULL);

	if (r < 0)
		return r;
	for (size_t i = 0; i < f.n_args; i++) {
		unsigned s = f.code[i] & ~C_WIDE;
		uint64_t x = s == HR_SRC_COLS ? cols : s == HR_SRC_ROWS ? rows :
		             s == HR_SRC_COLS_POW2 ? pow2_of(cols) :
		             s == HR_SRC_NUMEL ? (rows > UINT64_MAX / cols ? UINT64_MAX : rows * cols) : 0;

		if ((f.code[i] & C_WIDE) || x <= INT32_MAX)
			continue;
		if (hr_cat_signature(k->ctx, k->family, k->name, &sig) == 0 &&
		    hr_cat_args(sig, args, HR_CAT_MAX_ARGS, &n) == 0 && i < n)
			hr_err(k->ctx, "kernel %s: %llu x %llu: its argument '%s %s' (%s) cannot hold "
			       "%llu\n", k->name, (unsigned long long)rows, (unsigned long long)cols,
			       args[i].type, args[i].name, hr_cat_source_name(s),
			       (unsigned long long)x);
		return -E2BIG;
	}
	return 0;
}

/* One column of y and at most direct= weights: the kernel alone (#@pre). */
static bool pre_direct(const struct hr_cat_pre *pr, uint64_t rows, uint64_t cols,
                       uint64_t batch)
{
	return pr->direct && batch <= 1 && rows <= pr->direct &&
	       cols <= pr->direct / (rows ? rows : 1);
}

/*
 * The plan of a kernel with a pre-pass (f->pr): its form for one column of
 * y (the names from the plan's copy of its #@pre line, home), the workspace
 * of batch columns' pre-pass output, reused batch after batch.
 */
static int pre_plan(struct hanzo_rocm_kernel *k, const struct forms *f, const struct forms *home,
                    uint64_t rows, uint64_t cols, struct plan *p)
{
	const struct hr_cat_pre *pr = &f->pr;
	bool direct = pre_direct(pr, rows, cols, 1);

	p->pre = !direct;
	p->form = direct ? (home ? home->pr.direct_form : "direct") : (home ? home->pr.form : "pre-pass");
	if (rows == 0 || cols == 0)
		return 0;
	if (cols % pr->align) {
		hr_err(k->ctx, "kernel %s: %llu x %llu: cols must be a multiple of %u\n", k->name,
		       (unsigned long long)rows, (unsigned long long)cols, pr->align);
		return -EINVAL;
	}
	p->splits = 1;
	return ws_partials(cols / pr->ws_cols, pr->batch, pr->ws_bytes, &p->ws);
}

/* The plan of any operation: a pre-pass's or the forms'. */
static int op_plan(struct hanzo_rocm_kernel *k, struct forms *f, uint64_t rows, uint64_t cols,
                   struct plan *p)
{
	const struct forms *home = NULL;
	int r;

	memset(p, 0, sizeof(*p));
	p->form = "single";
	p->run = k;
	r = forms_get(k, f, &home);
	if (r == 0 && f->pr.batch) {
		r = pre_plan(k, f, home, rows, cols, p);
		return r == 0 && rows && cols ? fits_int(k, rows, cols) : r;
	}
	if (r == 0)
		r = plan_make(k, f, rows, cols, p);
	if (r == 0 && rows && cols) {
		struct hanzo_rocm_kernel *const pass[] = { p->split ? p->split : p->run, p->second };

		for (size_t i = 0; r == 0 && i < 2; i++)
			if (pass[i])
				r = fits_int(pass[i], rows, cols);
	}
	return r;
}

/*
 * Run a kernel with a pre-pass (f->pr): alone where pre_direct allows, else
 * for each batch of up to pr.batch columns of .src the pre-pass on b x cols
 * then the main pass for b columns on rows x cols, argument pr.arg of both
 * the workspace; .src and .dst advance a batch's columns.  Every kernel is
 * fetched and the first batch bound before anything is launched.
 */
static int pre_run(struct hanzo_rocm_kernel *k, const struct forms *f, uint64_t rows,
                   uint64_t cols, const struct hanzo_rocm_op_args *a)
{
	const struct hr_cat_pre *pr = &f->pr;
	struct hanzo_rocm_kernel *pre = NULL, *main[65] = { NULL };   /* main[B]: B columns */
	struct hanzo_rocm_op_arg named[HR_CAT_MAX_ARGS + 1];
	struct hanzo_rocm_op_args ca = *a;
	uint64_t batch = a->batch ? a->batch : 1;
	struct bind_in in = { .a = a, .rows = rows, .cols = cols };
	struct bound b1, b2;
	struct forms fp, fm;
	char name[HR_CAT_MAX_NAME];
	void *ws = a->workspace;
	int r;

	if ((a->workspace_size && !a->workspace) || a->n_named > HR_CAT_MAX_ARGS)
		return -EINVAL;
	/* The caller's named values against the kernel it named, whichever form
	 * runs: the passes below take other arguments (a named nrows of the
	 * mat-vec was ignored there, however wrong).  The names kept on the
	 * plan (f->pk), else the slow path. */
	r = f->pk.ok ? bind_pass(k, &f->pk, &in, &b1) : 1;
	if (r > 0)
		r = bind(k, f, &in, &b1);
	if (r < 0)
		return r;
	if (pre_direct(pr, rows, cols, batch))
		return hanzo_rocm_kernel_launch_work(k, rows, cols, a->stream, b1.argv);
	r = hanzo_rocm_kernel_get(k->ctx, k->device, k->family, f->pre, &pre);
	for (uint64_t b = 1; r == 0 && b <= batch && b <= pr->batch; b++)
		if (b == (batch < pr->batch ? batch : pr->batch) || b == batch % pr->batch) {
			snprintf(name, sizeof(name), "%s%u", f->main, (unsigned)b);
			r = hanzo_rocm_kernel_get(k->ctx, k->device, k->family, name, &main[b]);
		}
	if (r < 0)
		return r;
	if (batch > UINT64_MAX / cols / pr->elem || batch > UINT64_MAX / rows / pr->elem)
		return -EOVERFLOW;
	named[0] = (struct hanzo_rocm_op_arg){ pr->arg, &ws, sizeof(ws) };
	if (a->n_named)
		memcpy(named + 1, a->named, a->n_named * sizeof(*named));
	ca.named = named;
	ca.n_named = a->n_named + 1;
	in.a = &ca;
	in.ws_needed = true;
	for (uint64_t j = 0; j < batch; j += pr->batch) {
		const unsigned b = (unsigned)(batch - j < pr->batch ? batch - j : pr->batch);
		struct bind_in ip = in;

		if (!main[b])
			return -EINVAL;         /* fetched above: not reached */
		ca.src = (const char *)a->src + j * cols * pr->elem;
		ca.dst = (char *)a->dst + j * rows * pr->elem;
		ip.rows = b;
		/* The names kept on the plan (f->pp, f->pm), else the slow path. */
		r = f->pp.ok && f->pm.ok ? bind_pass(pre, &f->pp, &ip, &b1) : 1;
		if (r == 0)
			r = bind_pass(main[b], &f->pm, &in, &b2);
		if (r > 0 && ((r = forms_get(pre, &fp, NULL)) < 0 || (r = forms_get(main[b], &fm, NULL)) < 0 ||
		              (r = bind(pre, &fp, &ip, &b1)) < 0 || (r = bind(main[b], &fm, &in, &b2)) < 0))
			return r;
		if (r < 0 ||
		    (r = hanzo_rocm_kernel_launch_work(pre, b, cols, a->stream, b1.argv)) < 0 ||
		    (r = hanzo_rocm_kernel_launch_work(main[b], rows, cols, a->stream, b2.argv)) < 0)
			return r;
	}
	return 0;
}

HR_EXPORT int hanzo_rocm_op_workspace(struct hanzo_rocm_kernel *kernel, uint64_t rows,
                                      uint64_t cols, size_t *bytes)
{
	struct forms f;
	struct plan p;
	int r;

	if (!kernel || !bytes)
		return -EINVAL;
	*bytes = 0;
	r = op_plan(kernel, &f, rows, cols, &p);
	if (r == 0)
		*bytes = p.ws;
	return r;
}

HR_EXPORT int hanzo_rocm_kernel_geometry_ex(struct hanzo_rocm_kernel *kernel, uint64_t rows,
                                            uint64_t cols, struct hanzo_rocm_geometry_ex *geometry)
{
	struct hanzo_rocm_geometry_ex x = { 0 };
	struct forms f;
	struct plan p;
	int own, r = 0;

	if (!kernel || !geometry || geometry->size < offsetof(struct hanzo_rocm_geometry_ex, op_form))
		return -EINVAL;
	own = hanzo_rocm_kernel_geometry(kernel, rows, cols, &x.geometry);
	if (own < 0 && own != -E2BIG)
		return own;
	r = op_plan(kernel, &f, rows, cols, &p);
	if (r < 0)
		return r;
	if (own == -E2BIG) {
		/* Too long for the kernel's own launch, not for the operation: the
		 * answer is op_run's (the same question, the same answer), and the
		 * geometry and workspace are those of the launch it makes. */
		if (p.run == kernel && !p.split)
			return own;
		x.geometry = p.g;
		x.workspace = p.ws;
	} else if (f.own_partial && !(f.self_split && x.geometry.splits <= 1)) {
		r = ws_partials(rows, x.geometry.splits ? x.geometry.splits : 1, f.own_partial,
		                &x.workspace);
	} else if (f.own_col) {
		r = ws_cols(rows, cols, f.own_col, f.own_pad, &x.workspace);
	}
	if (r < 0)
		return r;
	if (rows == 0 || cols == 0)
		x.workspace = 0;
	x.size = geometry->size < sizeof(x) ? geometry->size : sizeof(x);
	x.op_workspace = p.ws;
	x.op_form = p.form;
	x.op_passes = rows == 0 || cols == 0 ? 0 : p.split || p.pre ? 2 : p.passes ? p.passes : 1;
	memcpy(geometry, &x, x.size);
	return 0;
}

HR_EXPORT int hanzo_rocm_op_run(struct hanzo_rocm_kernel *kernel, uint64_t rows, uint64_t cols,
                                const struct hanzo_rocm_op_args *args)
{
	struct hanzo_rocm_op_args a = { 0 };
	struct bind_in in;
	struct bound b1, b2;
	struct forms f, fs, f2;
	struct plan p;
	int r;

	if (!kernel || !args || args->size < offsetof(struct hanzo_rocm_op_args, stream))
		return -EINVAL;
	memcpy(&a, args, args->size < sizeof(a) ? args->size : sizeof(a));
	if (a.n_named && !a.named)
		return -EINVAL;
	r = op_plan(kernel, &f, rows, cols, &p);
	if (r < 0 || rows == 0 || cols == 0)
		return r;
	if (p.ws > a.workspace_size) {
		hr_err(kernel->ctx, "kernel %s: %llu x %llu needs %zu workspace bytes, %zu given\n", kernel->name,
		       (unsigned long long)rows, (unsigned long long)cols, p.ws, a.workspace_size);
		return -ENOSPC;
	}
	if (f.pr.batch)
		return pre_run(kernel, &f, rows, cols, &a);
	in = (struct bind_in){ .a = &a, .rows = rows, .cols = cols, .splits = p.splits,
	                       .block = p.g.block[0], .ws_needed = p.ws > 0 };
	if (!p.split) {
		if (p.run != kernel && (r = forms_get(p.run, &f, NULL)) < 0)
			return r;
		r = bind(p.run, &f, &in, &b1);
		if (r < 0 || f.passes < 2)
			return r < 0 ? r : hanzo_rocm_kernel_launch_work(p.run, rows, cols, a.stream, b1.argv);
		/* #@passes: the same launch, its numbering argument 0, 1, ... */
		for (unsigned i = 0; r == 0 && i < f.passes; i++) {
			b1.v[f.pass_arg].i32 = (int32_t)i;
			r = hanzo_rocm_kernel_launch_work(p.run, rows, cols, a.stream, b1.argv);
		}
		return r;
	}
	in.partial = p.ws_partial;
	if ((r = forms_get(p.split, &fs, NULL)) < 0 || (r = forms_get(p.second, &f2, NULL)) < 0 ||
	    (r = bind(p.split, &fs, &in, &b1)) < 0 || (r = bind(p.second, &f2, &in, &b2)) < 0)
		return r;
	r = hanzo_rocm_kernel_launch_work(p.split, rows, cols, a.stream, b1.argv);
	if (r < 0)
		return r;
	return hanzo_rocm_kernel_launch_work(p.second, rows,
	                                     b2.work_cols ? b2.work_cols :
	                                     p.second_per_item ? 1 : cols, a.stream, b2.argv);
}
