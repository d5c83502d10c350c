/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hanzo_rocm_kernel_launch_work and hanzo_rocm_kernel_geometry.  The first
 * call for a kernel handle builds its plan: the kernel's `#@launch` line,
 * read from its family's plugin (untrusted: util-launch-meta.c validates it),
 * the device's limits and the driver's occupancy at each block size the
 * line can lead to.  The plan is published on the handle with a
 * compare-and-swap (runtime.c), so every later call is one acquire load, a
 * few integer operations and the raw launch: no lock, no allocation.
 * Layer: kernel (lib/layers).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "context.h"
#include "build-plugin.h"
#include "runtime.h"
#include "util.h"

#define DEFAULT_BLOCK 256u
#define ROW_UNIT 64u            /* kernels/hr-rows.h: blocks are multiples of 64 */
#define EST_THREADS_PER_MP 2048u

struct plan {
	int err;                /* a permanent failure, returned by every call */
	struct hr_launch_meta meta;
	struct hr_device_limits dev;
	uint16_t occ[HR_LAUNCH_OCC];
	struct hr_op_cache op;  /* lib/kernel-op.c's, zeroed with the plan */
};

/* ---- the derivation (pure) ------------------------------------------- */

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* The platform's grid limits (zero, a made-up device: the strictest row). */
static const struct hr_grid_limits *grid_limits(const struct hr_device_limits *d)
{
	return d->grid.blocks[0] ? &d->grid : hr_platform_grid_limits(HR_PLATFORM_NONE);
}

/* The most blocks grid x may have at this block size: the platform's block
 * count, and on AMD grid x x block x <= 2^32 - 1. */
static uint64_t grid_x_max(const struct hr_device_limits *d, unsigned block)
{
	const struct hr_grid_limits *l = grid_limits(d);

	return min_u64(l->blocks[0], l->threads / block);
}

/* Blocks the grid may hold: waves x resident blocks of the whole device,
 * never more than the platform allows. */
static uint64_t grid_cap(const struct hr_launch_meta *m, const struct hr_device_limits *d,
                         const uint16_t *occ, unsigned block)
{
	uint64_t o = occ ? occ[block / 32] : 0;

	if (m->waves == 0)
		return grid_x_max(d, block);
	if (o == 0)
		o = EST_THREADS_PER_MP / block ? EST_THREADS_PER_MP / block : 1;
	return min_u64(o * (d->multiprocessors ? d->multiprocessors : 1) * m->waves,
	               grid_x_max(d, block));
}

/* The largest multiple of unit <= limit (at least unit). */
static unsigned round_down(unsigned limit, unsigned unit)
{
	return limit >= unit ? limit / unit * unit : unit;
}

static int derive_elementwise(const struct hr_launch_meta *m, const struct hr_device_limits *d,
                              const uint16_t *occ, uint64_t rows, uint64_t cols,
                              struct hanzo_rocm_geometry *g)
{
	unsigned wave = d->wave == 32 ? 32 : 64;
	unsigned block = m->block ? m->block : DEFAULT_BLOCK;
	uint64_t per_row, cap, blocks;

	if (block > d->max_block)
		block = round_down(d->max_block, wave);
	if (m->kind == HR_LAUNCH_ELEMENTWISE2D) {
		if (rows > grid_limits(d)->blocks[1])
			return -E2BIG;
		per_row = cols;
	} else {
		per_row = rows * cols;
		rows = 1;
	}
	cap = grid_cap(m, d, occ, block);
	if (m->kind == HR_LAUNCH_ELEMENTWISE2D && m->waves)
		cap = cap / rows ? cap / rows : 1;
	blocks = ceil_div(ceil_div(per_row, m->vec ? m->vec : 1), block);
	g->grid[0] = (unsigned)min_u64(blocks, cap);
	g->grid[1] = (unsigned)rows;
	g->block[0] = block;
	return 0;
}

static int derive_rows(const struct hr_launch_meta *m, const struct hr_device_limits *d,
                       const uint16_t *occ, uint64_t rows, uint64_t cols,
                       struct hanzo_rocm_geometry *g)
{
	unsigned max_block = round_down(d->max_block < 1024 ? d->max_block : 1024, ROW_UNIT);
	uint64_t ecols = cols, shared = 0, splits = 1;
	unsigned block;

	if (m->pad_pow2) {
		if (cols > (1ull << 62))
			return -E2BIG;
		for (ecols = 1; ecols < cols; ecols <<= 1)
			;
	}
	if (m->block) {
		block = m->block <= max_block ? m->block : max_block;
	} else {
		uint64_t want = ceil_div(ceil_div(ecols, m->per_thread ? m->per_thread : 1), ROW_UNIT) * ROW_UNIT;

		block = (unsigned)min_u64(want < ROW_UNIT ? ROW_UNIT : want, max_block);
	}
	if (m->shared_per_col) {
		if (ecols > UINT32_MAX)
			return -E2BIG;
		shared = ecols * m->shared_per_col;
	}
	if (shared + m->shared > d->max_shared)
		return -E2BIG;
	if (m->exact) {
		if (rows > grid_x_max(d, block))
			return -E2BIG;
		g->grid[0] = (unsigned)rows;
	} else {
		g->grid[0] = (unsigned)min_u64(rows, grid_cap(m, d, occ, block));
	}
	if (m->kind == HR_LAUNCH_ROWS_SPLIT) {
		uint64_t mps = d->multiprocessors ? d->multiprocessors : 1;

		/* Few rows, long ones: enough blocks to fill the device, each
		 * chunk still at least 8 elements a thread. */
		if (rows < 2 * mps && cols >= 8ull * block) {
			splits = min_u64(ceil_div(4 * mps, rows), cols / (8ull * block));
			splits = splits < 1 ? 1 : min_u64(splits, grid_limits(d)->blocks[1]);
		}
	}
	g->grid[1] = (unsigned)splits;
	g->splits = (unsigned)splits;
	g->block[0] = block;
	g->shared = (unsigned)shared;
	return 0;
}

int hr_launch_derive(const struct hr_launch_meta *m, const struct hr_device_limits *d,
                     const uint16_t *occ, uint64_t rows, uint64_t cols,
                     struct hanzo_rocm_geometry *g)
{
	*g = (struct hanzo_rocm_geometry){ .splits = 1 };
	if (cols && rows > UINT64_MAX / cols)
		return -EOVERFLOW;
	if (rows == 0 || cols == 0) {
		g->splits = 0;
		return 0;
	}
	g->grid[2] = g->block[1] = g->block[2] = 1;
	switch (m->kind) {
	case HR_LAUNCH_ELEMENTWISE:
	case HR_LAUNCH_ELEMENTWISE2D:
		return derive_elementwise(m, d, occ, rows, cols, g);
	case HR_LAUNCH_ROWS:
	case HR_LAUNCH_ROWS_SPLIT:
		return derive_rows(m, d, occ, rows, cols, g);
	case HR_LAUNCH_NONE:
		break;
	}
	return -EINVAL;
}

/* ---- the plan, once per handle ----------------------------------------- */

/* The family's metadata text, from its (dlopen-ed once) plugin. */
static int family_text(struct hanzo_rocm *ctx, const char *family, const char **text)
{
	const struct hanzo_rocm_plugin *desc = NULL;
	struct hr_family *fam = NULL;
	int r;

	*text = NULL;
	r = hr_plugins_family(ctx, family, &fam);
	if (r == 0)
		r = hr_family_load(ctx, fam, &desc);
	if (r < 0)
		return r;
	if (!desc)
		return -ENOENT;
	if (desc->struct_size >= offsetof(struct hanzo_rocm_plugin, launch) + sizeof(desc->launch))
		*text = desc->launch;
	return 0;
}

/* Occupancy at every block the metadata can lead to (one at a fixed block). */
static void plan_occupancy(struct hanzo_rocm_kernel *k, struct plan *p)
{
	bool rows = p->meta.kind == HR_LAUNCH_ROWS || p->meta.kind == HR_LAUNCH_ROWS_SPLIT;
	unsigned step = rows ? ROW_UNIT : 32;

	for (unsigned b = step; b <= p->dev.max_block && b <= 1024; b += step) {
		unsigned o = 0;

		if (p->meta.block && b != p->meta.block)
			continue;
		if (!p->meta.block && !rows && b != DEFAULT_BLOCK)
			continue;
		if (hr_kernel_occupancy(k, b, 0, &o) < 0)
			return;         /* not supported: every entry stays an estimate */
		p->occ[b / 32] = (uint16_t)(o > UINT16_MAX ? UINT16_MAX : o);
	}
}

static int plan_build(struct hanzo_rocm_kernel *k, struct plan *p)
{
	struct hr_kernel_view v;
	const char *text;
	unsigned lineno = 0;
	char why[160] = "";
	size_t len;
	int r;

	hr_kernel_view(k, &v);
	p->dev = *v.limits;
	text = v.launch;
	r = text ? 0 : family_text(v.ctx, v.family, &text);
	if (r < 0)
		return r;
	if (!text) {
		hr_err(v.ctx, "family '%s': its plugin carries no launch metadata (rebuild it); "
		       "launch %s with hanzo_rocm_kernel_launch\n", v.family, v.name);
		return -ENODATA;
	}
	len = strnlen(text, HR_LAUNCH_MAX_TEXT + 1);
	r = hr_launch_meta_find(text, len, v.name, &p->meta, &lineno, why, sizeof(why));
	if (r == -ENOENT) {
		hr_err(v.ctx, "family '%s': no launch metadata line matches kernel %s\n",
		       v.family, v.name);
		return -ENODATA;
	}
	if (r < 0) {
		if (lineno)
			hr_err(v.ctx, "family '%s': launch metadata line %u: %s\n", v.family,
			       lineno, why[0] ? why : "invalid");
		else
			hr_err(v.ctx, "family '%s': launch metadata: %s\n", v.family,
			       why[0] ? why : "invalid");
		return -EBADMSG;
	}
	plan_occupancy(k, p);
	hr_dbg(v.ctx, "kernel %s/%s on device %u: launch kind %s, %u multiprocessors, wave %u\n",
	       v.family, v.name, v.device, hr_launch_kind_name(p->meta.kind),
	       p->dev.multiprocessors, p->dev.wave);
	return 0;
}

/* The handle's plan, built on first use and kept, with a permanent error
 * (bad metadata) too; NULL with *transient set for an error that may pass
 * (out of memory or descriptors: util.h), which the next call retries. */
static const struct plan *plan_get(struct hanzo_rocm_kernel *k, int *transient)
{
	struct plan *p = hr_kernel_plan(k);

	if (__builtin_expect(p != NULL, 1))
		return p;
	*transient = -ENOMEM;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->err = plan_build(k, p);
	if (hr_errno_transient(p->err)) {
		int err = p->err;

		free(p);
		*transient = err;       /* not cached: it may work next time */
		return NULL;
	}
	return hr_kernel_plan_publish(k, p);
}

/* The geometry of kernel for rows x cols from its plan (built on first use). */
static int derive(struct hanzo_rocm_kernel *kernel, uint64_t rows, uint64_t cols,
                  struct hanzo_rocm_geometry *g)
{
	int transient = 0;
	const struct plan *p = plan_get(kernel, &transient);

	if (!p)
		return transient;
	if (p->err)
		return p->err;
	return hr_launch_derive(&p->meta, &p->dev, p->occ, rows, cols, g);
}

struct hr_op_cache *hr_kernel_op_cache(struct hanzo_rocm_kernel *kernel)
{
	int transient = 0;
	struct plan *p = (struct plan *)plan_get(kernel, &transient);

	return p ? &p->op : NULL;       /* no plan yet (transient error): no cache */
}

HR_EXPORT int hanzo_rocm_kernel_geometry(struct hanzo_rocm_kernel *kernel, uint64_t rows,
                                         uint64_t cols, struct hanzo_rocm_geometry *geometry)
{
	struct hanzo_rocm_geometry g = { 0 };
	int r;

	if (!kernel || !geometry)
		return -EINVAL;
	r = derive(kernel, rows, cols, &g);
	if (r == 0)
		*geometry = g;  /* untouched on error, never half written */
	return r;
}

HR_EXPORT int hanzo_rocm_kernel_launch_work(struct hanzo_rocm_kernel *kernel,
                                            uint64_t rows, uint64_t cols, void *stream,
                                            void **args)
{
	struct hanzo_rocm_geometry g = { 0 };
	int r;

	if (!kernel)
		return -EINVAL;
	r = derive(kernel, rows, cols, &g);
	if (r < 0 || g.grid[0] == 0)
		return r;
	return hr_kernel_launch_raw(kernel, g.grid, g.block, g.shared, stream, args);
}
