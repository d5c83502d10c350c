/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The public layout helpers: fill the kernels' by-value struct
 * hanzo_rocm_layout (kernels/hr-kernel.h's hr_layout, same bytes) from dims
 * and strides, or from candle's packed dims_and_strides array, so a candle
 * port keeps its own bookkeeping.  Pure.  Layer: context (lib/layers).
 */
#include <errno.h>
#include <string.h>

#include "context.h"

#define DIMS HANZO_ROCM_MAX_DIMS

_Static_assert(sizeof(struct hanzo_rocm_layout) == 4 * 8 * sizeof(uint64_t),
               "struct hanzo_rocm_layout must match kernels/hr-kernel.h's hr_layout");

static int check(const void *layout, size_t num_dims, size_t n_operands)
{
	if (!layout || num_dims > DIMS || n_operands < 1 || n_operands > HANZO_ROCM_MAX_OPERANDS)
		return -EINVAL;
	return 0;
}

HR_EXPORT int hanzo_rocm_layout_init(struct hanzo_rocm_layout *layout, size_t num_dims,
                                     const size_t *dims, size_t n_operands,
                                     const size_t *const *strides)
{
	int r = check(layout, num_dims, n_operands);

	if (r < 0 || (num_dims && !dims))
		return r < 0 ? r : -EINVAL;
	memset(layout, 0, sizeof(*layout));
	for (size_t d = 0; d < num_dims; d++)
		layout->v[d] = dims[d];
	for (size_t op = 0; op < n_operands; op++) {
		uint64_t *s = layout->v + DIMS * (1 + op), step = 1;

		for (size_t d = num_dims; d-- > 0;) {
			if (strides && strides[op]) {
				s[d] = strides[op][d];
			} else {
				s[d] = step;
				step *= dims[d];
			}
		}
	}
	return 0;
}

HR_EXPORT int hanzo_rocm_layout_from_candle(struct hanzo_rocm_layout *layout,
                                            size_t num_dims, size_t n_operands,
                                            const size_t *dims_and_strides)
{
	const size_t *strides[HANZO_ROCM_MAX_OPERANDS] = { NULL };
	int r = check(layout, num_dims, n_operands);

	if (r < 0 || (num_dims && !dims_and_strides))
		return r < 0 ? r : -EINVAL;
	for (size_t op = 0; op < n_operands; op++)
		strides[op] = dims_and_strides ? dims_and_strides + num_dims * (1 + op) : NULL;
	return hanzo_rocm_layout_init(layout, num_dims, dims_and_strides, n_operands,
	                              num_dims ? strides : NULL);
}

HR_EXPORT int hanzo_rocm_layout_to_candle(const struct hanzo_rocm_layout *layout,
                                          size_t num_dims, size_t n_operands,
                                          size_t *dims_and_strides)
{
	int r = check(layout, num_dims, n_operands);

	if (r < 0 || (num_dims && !dims_and_strides))
		return r < 0 ? r : -EINVAL;
	for (size_t op = 0; op <= n_operands; op++)
		for (size_t d = 0; d < num_dims; d++)
			dims_and_strides[op * num_dims + d] = (size_t)layout->v[DIMS * op + d];
	return 0;
}

HR_EXPORT int hanzo_rocm_layout_packed(struct hanzo_rocm_layout *layout, size_t num_dims,
                                       size_t n_tensors, const size_t *const *dims,
                                       const size_t *const *strides)
{
	size_t at = 0;

	if (!layout || !dims || num_dims == 0 || n_tensors == 0 ||
	    n_tensors > sizeof(layout->v) / sizeof(layout->v[0]) / 2 / num_dims)
		return -EINVAL;
	for (size_t t = 0; t < n_tensors; t++)
		if (!dims[t])
			return -EINVAL;
	memset(layout, 0, sizeof(*layout));
	for (size_t t = 0; t < n_tensors; t++) {
		const size_t *s = strides ? strides[t] : NULL;
		uint64_t acc = 1;

		for (size_t d = 0; d < num_dims; d++)
			layout->v[at + d] = dims[t][d];
		for (size_t d = num_dims; d-- > 0;) {
			layout->v[at + num_dims + d] = s ? s[d] : acc;
			acc *= dims[t][d];
		}
		at += 2 * num_dims;
	}
	return 0;
}
