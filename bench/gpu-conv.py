#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""conv2d on the GPU against torch.nn.functional.conv2d (cuDNN), timed.

    python3 bench/gpu-conv.py LIBHANZO [--json OUT]

Same method and helpers as bench/gpu-timed.py (imported from it): N launches
queued behind a GPU spin between two CUDA events, median of 7 batches, ours
and torch's on the same buffers and stream, every result checked against a
float32 torch convolution BEFORE it is timed (a mismatch is an error for
that line, never a timing).  Inputs are not rotated: torch reads the same
L2-resident tensors (the shapes are compute-bound).

Ours: conv2d_T through hanzo_rocm_kernel_launch_work (the library's
geometry from kernels/conv.list: 256-thread blocks, so f16/bf16 take the
implicit GEMM on the matrix units, mma.sync on NVIDIA; f32 the direct
kernel).  "grid=tiles" also times a raw launch of exactly one block per
64 x 64 tile of the output (what the library's geometry gives at c_out 64).
TFLOP/s = 2 x N x C_out x H_out x W_out x C_in x KH x KW / time; ratio =
torch time / ours (> 1: ours faster).  torch's f32 uses TF32 (cuDNN's
default); ours stays f32.
"""
import ctypes as C
import importlib.util
import os
import sys

import torch
import torch.nn.functional as F

_spec = importlib.util.spec_from_file_location(
    "gpu_timed", os.path.join(os.path.dirname(os.path.abspath(__file__)), "gpu-timed.py"))
T = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(T)
kernel, launcher, gpu_time, p, Layout = T.kernel, T.launcher, T.gpu_time, T.p, T.Layout

SUF = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16"}
TOL = {torch.float32: 1e-3, torch.float16: 5e-3, torch.bfloat16: 3e-2}

# (name, N, C_in, H, W, C_out, KH, KW, stride, padding, dilation, dtypes)
SHAPES = [
    ("resnet 3x3", 8, 64, 56, 56, 64, 3, 3, 1, 1, 1,
     (torch.float16, torch.bfloat16, torch.float32)),
    ("resnet 3x3 c128", 8, 128, 28, 28, 128, 3, 3, 1, 1, 1, (torch.float16, torch.bfloat16)),
    ("1x1 64->256", 8, 64, 56, 56, 256, 1, 1, 1, 0, 1, (torch.float16, torch.bfloat16)),
    ("3x3 s2", 8, 64, 56, 56, 128, 3, 3, 2, 1, 1, (torch.float16, torch.bfloat16)),
    ("odd 5x3 s2 d2", 3, 29, 37, 41, 45, 5, 3, 2, 2, 2, (torch.float16, torch.bfloat16)),
]


packed = T.packed


def out_len(n, k, s, pad, d):
    return (n + 2 * pad - d * (k - 1) - 1) // s + 1


def main():
    T.header()
    g = torch.Generator(device="cuda").manual_seed(29)
    print(f"{'conv2d':28s} {'shape':>36s} {'torch':>7s} {'ours':>7s} {'ratio':>6s}  (TFLOP/s)",
          flush=True)
    for name, n, ci, h, w, co, kh, kw, st, pad, dil, dts in SHAPES:
        ho, wo = out_len(h, kh, st, pad, dil), out_len(w, kw, st, pad, dil)
        flop = 2 * n * co * ho * wo * ci * kh * kw
        shape = f"{n}x{ci}x{h}x{w}, {co}x{ci}x{kh}x{kw} s{st} p{pad} d{dil}"
        for dt in dts:
            s = SUF[dt]
            label = f"{name} {s}"
            try:
                x = torch.randn(n, ci, h, w, device="cuda", generator=g).to(dt)
                wt = (torch.randn(co, ci, kh, kw, device="cuda", generator=g) /
                      (ci * kh * kw) ** 0.5).to(dt)
                ref = F.conv2d(x.float(), wt.float(), stride=st, padding=pad, dilation=dil)
                y = torch.empty(n, co, ho, wo, dtype=dt, device="cuda")
                k = kernel("conv", f"conv2d_{s}")
                args = [C.c_size_t(x.numel()), C.c_size_t(wo), C.c_size_t(ho), C.c_size_t(st),
                        C.c_size_t(pad), C.c_size_t(dil), packed(x, wt), p(x), p(wt), p(y)]
                ours = launcher([(k, y.numel(), 1, args)])
                tiles = -(-(n * ho * wo) // 64) * -(-co // 64)
                raw = launcher([(k, (tiles, 256), None, args)])
                scale = max(1.0, ref.abs().max().item())
                for run, what in ((ours, "library geometry"), (raw, "grid=tiles")):
                    y.fill_(float("nan"))
                    run()
                    torch.cuda.synchronize()
                    d = (y.float() - ref).abs().max().item()
                    if not d <= TOL[dt] * scale:        # NaN fails too
                        raise RuntimeError(f"{what}: max|diff| {d:.3g} > {TOL[dt] * scale:.3g}")
                tt = gpu_time([lambda: F.conv2d(x, wt, stride=st, padding=pad, dilation=dil)])
                to = gpu_time([ours])
                tr = gpu_time([raw]) if dt != torch.float32 else None
                extra = f"grid=tiles ({tiles}) {flop / tr / 1e9:.1f}" if tr else ""
                print(f"{label:28s} {shape:>36s} {flop / tt / 1e9:7.1f} {flop / to / 1e9:7.1f} "
                      f"{tt / to:6.2f}  {extra}", flush=True)
                T.record("conv", op=label, shape=shape, torch_tflops=flop / tt / 1e9,
                         tflops=flop / to / 1e9, ratio=tt / to, torch_ms=tt, ms=to,
                         tiles_tflops=flop / tr / 1e9 if tr else None)
                del x, wt, ref, y
            except Exception as ex:  # one shape's failure must not hide the others
                print(f"{label:28s} {shape:>36s} FAILED: {ex}", flush=True)
                T.record("conv", op=label, shape=shape, error=str(ex))
    if T.JSON_OUT:
        import json
        json.dump(T.RESULTS, open(T.JSON_OUT, "w"), indent=1)


if __name__ == "__main__":
    main()
