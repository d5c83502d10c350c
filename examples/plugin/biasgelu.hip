// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * biasgelu: an out-of-tree kernel family (the hanzo-rocm plugin SDK's
 * example; hanzo-rocm ships no such kernel).  One fused pass over a
 * rows x cols row-major matrix:
 *
 *   out[r][c] = gelu(x[r][c] + bias[c])
 *   gelu(v)   = 0.5 v (1 + tanh(sqrt(2/pi) (v + 0.044715 v^3)))
 *
 * hr-kernel.h (the SDK's portability header, pkg-config --variable=
 * kernelincludedir hanzo-rocm) makes the same source build for AMD (hipcc),
 * NVIDIA (nvcc) and the host backend (the CPU).
 */
#include "hr-kernel.h"

template <typename T>
HR_DEVICE void biasgelu_map(uint64_t rows, uint64_t cols, const T *x, const T *bias, T *out)
{
	HR_GRID_STRIDE_LOOP(i, rows * cols) {
		float v = (float)x[i] + (float)bias[i % cols];
		float u = 0.79788456080286535588f * (v + 0.044715f * v * v * v);

		out[i] = (T)(0.5f * v * (1.0f + hr_tanh(u)));
	}
}

HR_KERNEL void biasgelu_f32(size_t rows, size_t cols, const float *x, const float *bias,
                            float *out)
{
	biasgelu_map<float>(rows, cols, x, bias, out);
}
