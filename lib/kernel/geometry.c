/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The launch geometry for an amount of work (hr_launch_derive, kernel.h):
 * pure arithmetic over a kernel's `#@launch` metadata and a device's limits,
 * so the tests drive it with made-up devices.  The handle's plan that feeds
 * it lives with the handle (kernel.c).
 * Layer: kernel (lib/layers).
 */
#include <errno.h>
#include <stdint.h>

#include "kernel.h"

#define EST_THREADS_PER_MP 2048u

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
	unsigned block = m->block ? m->block : HR_LAUNCH_DEFAULT_BLOCK;
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

/*
 * Splits of a rows-split kernel whose blocks serve split_share rows together
 * (the paged decode: the query heads of one KV head; the other rows' blocks
 * return at once): units = rows / share blocks do the work, and the splits
 * fill one wave of the device's resident blocks (the driver's occupancy at
 * this block, else the estimate) - floor(wave / units), so the grid's busy
 * blocks are at most one wave and no tail wave runs a few of them - with
 * each split at least split_min columns (default 8 a thread).  The
 * split-KV rule of FlashDecoding++ / FlashInfer: split only when the work
 * units leave multiprocessors idle, and never into slivers.
 */
static uint64_t shared_splits(const struct hr_launch_meta *m, const struct hr_device_limits *d,
                              const uint16_t *occ, unsigned block, uint64_t rows, uint64_t cols)
{
	uint64_t units = ceil_div(rows, m->split_share), o = occ ? occ[block / 32] : 0;
	uint64_t min = m->split_min ? m->split_min : 8ull * block, wave, s;

	if (o == 0)
		o = EST_THREADS_PER_MP / block ? EST_THREADS_PER_MP / block : 1;
	wave = o * (d->multiprocessors ? d->multiprocessors : 1);
	if (units == 0 || units >= wave || cols < 2 * min)
		return 1;
	s = min_u64(wave / units, cols / min);
	return s < 1 ? 1 : min_u64(s, grid_limits(d)->blocks[1]);
}

static int derive_rows(const struct hr_launch_meta *m, const struct hr_device_limits *d,
                       const uint16_t *occ, uint64_t rows, uint64_t cols,
                       struct hanzo_rocm_geometry *g)
{
	unsigned max_block = round_down(d->max_block < 1024 ? d->max_block : 1024, HR_LAUNCH_ROW_UNIT);
	unsigned wave = d->wave == 32 ? 32 : 64;
	uint64_t ecols = cols, shared = 0, splits = 1;
	unsigned block;
	/* wave_rows: a short row is one wave's (grid = rows / waves a block) */
	bool by_wave = m->wave_rows && !m->exact && cols <= (uint64_t)wave * m->wave_rows;

	if (m->pad_pow2) {
		if (cols > (1ull << 62))
			return -E2BIG;
		for (ecols = 1; ecols < cols; ecols <<= 1)
			;
	}
	if (m->block) {
		block = m->block <= max_block ? m->block : max_block;
	} else {
		uint64_t want = ceil_div(ceil_div(ecols, m->per_thread ? m->per_thread : 1), HR_LAUNCH_ROW_UNIT) * HR_LAUNCH_ROW_UNIT;

		block = (unsigned)min_u64(want < HR_LAUNCH_ROW_UNIT ? HR_LAUNCH_ROW_UNIT : want, max_block);
	}
	/* Blocks of at least HR_LAUNCH_WAVE_ROW_WAVES waves for rows a wave
	 * reduces (max_block is a multiple of 64, so of the wave). */
	if (by_wave && block < HR_LAUNCH_WAVE_ROW_WAVES * wave)
		block = (unsigned)min_u64(HR_LAUNCH_WAVE_ROW_WAVES * wave, max_block);
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
		uint64_t blocks = by_wave ? ceil_div(rows, block / wave) : rows;

		g->grid[0] = (unsigned)min_u64(blocks, grid_cap(m, d, occ, block));
	}
	if (m->kind == HR_LAUNCH_ROWS_SPLIT && m->split_share) {
		splits = shared_splits(m, d, occ, block, rows, cols);
	} else if (m->kind == HR_LAUNCH_ROWS_SPLIT) {
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
