/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Operations (hanzo_rocm_op_workspace, hanzo_rocm_op_run): a kernel run end
 * to end.  When its family's catalogue lines give it a split form
 * (#@forms), the split kernel's geometry decides: more than one split (few,
 * long rows: lib/kernel-launch.c's rows-split rule, from the device's
 * multiprocessors) runs the split pass then the second pass on a workspace
 * of rows x splits x #@ws bytes; one split runs the one-pass kernel.  The
 * arguments are bound by name from the signatures the plugin carries, with
 * their types checked, and every pass is bound before the first launch:
 * nothing runs unless everything can.  Layer: kernel (lib/layers).
 */
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "kernel-catalogue.h"
#include "kernel-launch.h"
#include "context.h"
#include "runtime.h"

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
};

/* What one call binds from: the caller's args and the plan's numbers. */
struct bind_in {
	const struct hanzo_rocm_op_args *a;
	uint64_t rows, cols, block, splits;
};

struct plan {
	struct hanzo_rocm_kernel *split, *second;   /* NULL: one-pass */
	uint64_t splits;
	size_t ws;
	bool second_per_item;   /* the second pass's work is rows x 1 */
	struct hanzo_rocm_kernel *wide;             /* non-NULL: run it instead */
};

static bool is(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

static int set_int(struct hanzo_rocm *ctx, const char *kernel, const struct hr_cat_arg *arg,
                   union val *v, uint64_t x)
{
	if (arg->pointer || (arg->bytes != 4 && arg->bytes != 8) || strstr(arg->type, "float") ||
	    strstr(arg->type, "double")) {
		hr_err(ctx, "kernel %s: argument '%s %s' is not an integer\n", kernel, arg->type,
		       arg->name);
		return -ENOTSUP;
	}
	if (arg->bytes == 8) {
		v->u64 = x;
		return 0;
	}
	if (x > INT32_MAX) {
		hr_err(ctx, "kernel %s: %s = %llu does not fit its %s\n", kernel, arg->name,
		       (unsigned long long)x, arg->type);
		return -E2BIG;
	}
	v->i32 = (int32_t)x;
	return 0;
}

static int set_ptr(struct hanzo_rocm *ctx, const char *kernel, const struct hr_cat_arg *arg,
                   union val *v, const void *p, bool required)
{
	if (!arg->pointer) {
		hr_err(ctx, "kernel %s: argument '%s %s' is not a pointer\n", kernel, arg->type,
		       arg->name);
		return -ENOTSUP;
	}
	if (!p && required) {
		hr_err(ctx, "kernel %s: argument %s may not be NULL\n", kernel, arg->name);
		return -EINVAL;
	}
	v->p = (void *)(uintptr_t)p;
	return 0;
}

/* The argument array of kernel k, bound by name. */
static int bind(struct hanzo_rocm_kernel *k, const struct bind_in *in, struct bound *b)
{
	const struct hanzo_rocm_op_args *a = in->a;
	struct hr_cat_arg args[HR_CAT_MAX_ARGS];
	struct hr_kernel_view v;
	const char *sig = NULL;
	int r;

	hr_kernel_view(k, &v);
	r = hr_cat_signature(v.ctx, v.family, v.name, &sig);
	if (r < 0)
		return r;
	if (hr_cat_args(sig, args, HR_CAT_MAX_ARGS, &b->n) < 0) {
		hr_err(v.ctx, "kernel %s: cannot read its argument list \"%s\"\n", v.name, sig);
		return -EBADMSG;
	}
	memset(b->v, 0, sizeof(b->v));
	for (size_t i = 0; i < b->n; i++) {
		const struct hr_cat_arg *arg = &args[i];
		const char *n = arg->name;
		union val *val = &b->v[i];

		b->argv[i] = val;
		if (is(n, "src") || is(n, "x"))
			r = set_ptr(v.ctx, v.name, arg, val, a->src, true);
		else if (is(n, "dst"))
			r = set_ptr(v.ctx, v.name, arg, val, a->dst, true);
		else if (is(n, "alpha"))
			r = set_ptr(v.ctx, v.name, arg, val, a->alpha, false);
		else if (is(n, "beta"))
			r = set_ptr(v.ctx, v.name, arg, val, a->beta, false);
		else if (is(n, "residual"))
			r = set_ptr(v.ctx, v.name, arg, val, a->residual, true);
		else if (is(n, "residual_out"))
			r = set_ptr(v.ctx, v.name, arg, val, a->residual_out, true);
		else if (is(n, "ws"))
			r = set_ptr(v.ctx, v.name, arg, val, a->workspace, true);
		else if (is(n, "eps")) {
			if (arg->pointer || !is(arg->type, "float")) {
				hr_err(v.ctx, "kernel %s: eps is '%s', not float\n", v.name, arg->type);
				r = -ENOTSUP;
			} else {
				val->f = a->eps;
			}
		} else if (is(n, "ncols_pad")) {
			uint64_t pad = 1;

			while (pad < in->cols && pad <= INT32_MAX)
				pad <<= 1;
			r = set_int(v.ctx, v.name, arg, val, pad);
		} else if (is(n, "ncols") || is(n, "el_to_sum_per_block"))
			r = set_int(v.ctx, v.name, arg, val, in->cols);
		else if (is(n, "src_numel"))
			r = set_int(v.ctx, v.name, arg, val, in->rows * in->cols);
		else if (is(n, "rows"))
			r = set_int(v.ctx, v.name, arg, val, in->rows);
		else if (is(n, "num_dims"))
			r = set_int(v.ctx, v.name, arg, val, 0);
		else if (is(n, "block_size"))
			r = set_int(v.ctx, v.name, arg, val, in->block);
		else if (is(n, "splits"))
			r = set_int(v.ctx, v.name, arg, val, in->splits);
		else if (is(n, "info") && is(arg->type, "hr_layout"))
			r = 0;          /* zeroed: contiguous */
		else {
			hr_err(v.ctx, "kernel %s: hanzo_rocm_op_run has no value for argument '%s %s' "
			       "(launch it with hanzo_rocm_kernel_launch_work)\n", v.name, arg->type, n);
			r = -ENOTSUP;
		}
		if (r < 0)
			return r;
	}
	return 0;
}

/* A kernel's forms, from its family's catalogue lines; cached on its plan. */
struct forms {
	struct hanzo_rocm_kernel *split, *second;   /* split form; NULL: none */
	struct hanzo_rocm_kernel *wide;             /* wide form; NULL: none */
	unsigned ws, ws_col;                        /* bytes per partial / per column */
	bool second_per_item, pad;
};
_Static_assert(sizeof(struct forms) <= HR_OP_CACHE_BYTES, "struct forms outgrew the plan's room");

static int forms_find(struct hanzo_rocm_kernel *k, struct forms *f)
{
	char split[HR_CAT_MAX_NAME], second[HR_CAT_MAX_NAME];
	struct hr_kernel_view v;
	int r;

	memset(f, 0, sizeof(*f));
	hr_kernel_view(k, &v);
	r = hr_cat_forms(v.ctx, v.family, v.name, split, second, &f->ws, &f->second_per_item);
	if (r == 0) {
		r = hanzo_rocm_kernel_get(v.ctx, v.device, v.family, split, &f->split);
		if (r == 0)
			r = hanzo_rocm_kernel_get(v.ctx, v.device, v.family, second, &f->second);
		return r;
	}
	if (r != -ENOENT)
		return r;
	r = hr_cat_wide(v.ctx, v.family, v.name, split, &f->ws_col, &f->pad);
	if (r == 0)
		return hanzo_rocm_kernel_get(v.ctx, v.device, v.family, split, &f->wide);
	return r == -ENOENT ? 0 : r;
}

/*
 * The forms, worked out on the first call for a handle and kept on its plan
 * (an operation call after the first reads them back: no catalogue walk).
 */
static int forms_get(struct hanzo_rocm_kernel *k, struct forms *f)
{
	struct hr_op_cache *c = hr_kernel_op_cache(k);
	int state = 0, r;

	if (c && atomic_load_explicit(&c->state, memory_order_acquire) == 2) {
		memcpy(f, c->data, sizeof(*f));
		return 0;
	}
	r = forms_find(k, f);
	if (r < 0 || !c)
		return r;
	if (atomic_compare_exchange_strong_explicit(&c->state, &state, 1, memory_order_acq_rel,
	                                            memory_order_acquire)) {
		memcpy(c->data, f, sizeof(*f));
		atomic_store_explicit(&c->state, 2, memory_order_release);
	}
	return 0;
}

static int plan_make(struct hanzo_rocm_kernel *k, uint64_t rows, uint64_t cols, struct plan *p)
{
	struct hanzo_rocm_geometry g;
	struct forms f;
	uint64_t pcols = cols;
	int r;

	memset(p, 0, sizeof(*p));
	if (rows == 0 || cols == 0)
		return 0;
	if (rows > UINT64_MAX / cols)
		return -EOVERFLOW;
	r = forms_get(k, &f);
	if (r < 0)
		return r;
	if (f.split) {
		r = hanzo_rocm_kernel_geometry(f.split, rows, cols, &g);
		if (r < 0 || g.splits <= 1)
			return r;
		p->split = f.split;
		p->second = f.second;
		p->second_per_item = f.second_per_item;
		p->splits = g.splits;
		if (rows > SIZE_MAX / g.splits / f.ws)
			return -EOVERFLOW;
		p->ws = (size_t)(rows * g.splits * f.ws);
		return 0;
	}
	if (!f.wide)
		return 0;
	/* the wide form when the kernel's own launch cannot take the work */
	r = hanzo_rocm_kernel_geometry(k, rows, cols, &g);
	if (r != -E2BIG)
		return r < 0 ? r : 0;
	p->wide = f.wide;
	if (f.pad) {
		if (cols > (1ull << 62))
			return -E2BIG;
		for (pcols = 1; pcols < cols; pcols <<= 1)
			;
	}
	if (pcols > SIZE_MAX / f.ws_col || rows > SIZE_MAX / (pcols * f.ws_col))
		return -EOVERFLOW;
	p->ws = (size_t)(rows * pcols * f.ws_col);
	return 0;
}

HR_EXPORT int hanzo_rocm_op_workspace(struct hanzo_rocm_kernel *kernel, uint64_t rows,
                                      uint64_t cols, size_t *bytes)
{
	struct plan p;
	int r;

	if (!kernel || !bytes)
		return -EINVAL;
	*bytes = 0;
	r = plan_make(kernel, rows, cols, &p);
	if (r == 0)
		*bytes = p.ws;
	return r;
}

HR_EXPORT int hanzo_rocm_op_run(struct hanzo_rocm_kernel *kernel, uint64_t rows, uint64_t cols,
                                const struct hanzo_rocm_op_args *args)
{
	struct hanzo_rocm_op_args a = { 0 };
	struct hanzo_rocm_geometry g;
	struct bind_in in;
	struct bound b1, b2;
	struct hr_kernel_view v;
	struct plan p;
	int r;

	if (!kernel || !args || args->size < offsetof(struct hanzo_rocm_op_args, stream))
		return -EINVAL;
	memcpy(&a, args, args->size < sizeof(a) ? args->size : sizeof(a));
	r = plan_make(kernel, rows, cols, &p);
	if (r < 0 || rows == 0 || cols == 0)
		return r;
	hr_kernel_view(kernel, &v);
	if (p.ws > a.workspace_size) {
		hr_err(v.ctx, "kernel %s: %llu x %llu needs %zu workspace bytes, %zu given\n", v.name,
		       (unsigned long long)rows, (unsigned long long)cols, p.ws, a.workspace_size);
		return -ENOSPC;
	}
	in = (struct bind_in){ .a = &a, .rows = rows, .cols = cols, .splits = p.splits };
	if (p.wide)
		kernel = p.wide;
	if (!p.split) {
		r = hanzo_rocm_kernel_geometry(kernel, rows, cols, &g);
		if (r < 0)
			return r;
		in.block = g.block[0];
		r = bind(kernel, &in, &b1);
		if (r < 0)
			return r;
		return hanzo_rocm_kernel_launch_work(kernel, rows, cols, a.stream, b1.argv);
	}
	r = hanzo_rocm_kernel_geometry(p.split, rows, cols, &g);
	if (r < 0)
		return r;
	in.block = g.block[0];
	if ((r = bind(p.split, &in, &b1)) < 0 || (r = bind(p.second, &in, &b2)) < 0)
		return r;
	r = hanzo_rocm_kernel_launch_work(p.split, rows, cols, a.stream, b1.argv);
	if (r < 0)
		return r;
	return hanzo_rocm_kernel_launch_work(p.second, rows, p.second_per_item ? 1 : cols,
	                                     a.stream, b2.argv);
}
