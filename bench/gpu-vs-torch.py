#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""hanzo-rocm kernels and PyTorch side by side, in one process, on one GPU.

    python3 bench/gpu-vs-torch.py LIBHANZO [LOG2_ELEMENTS=28] [--json OUT]

Our kernels are launched through the public C API (libhanzo-rocm.so.1 via
ctypes: hanzo_rocm_kernel_get + hanzo_rocm_kernel_launch_work, default
stream: the library picks the grid) on torch's own buffers, so both sides
read and write the same memory.  A second column launches the same kernel
with candle's geometry (ceil(n / 1024) blocks of 1024 threads, raw
hanzo_rocm_kernel_launch) for comparison; "grid" is the library's choice
(hanzo_rocm_kernel_geometry).  Every
op is checked against torch's result first (max abs difference), then timed
with CUDA events: 3 warm-ups, median of 20.  GB/s = logical bytes read and
written / time (the same formula for both sides, so the ratio is exact).
Layouts: contiguous; "strided" = the first input (lhs, ids) a transposed
view of a square matrix, the other operands contiguous; "sliced" = one input
a [:, :n] slice of a [n, 2n] matrix (row stride 2n); "bcast" = the rhs a
broadcast row.  The reference ceiling is the device-to-device copy
(torch's c.copy_(a) -> cudaMemcpyAsync).
"""
import ctypes as C
import json
import sys

import torch
import torch.nn.functional as F

LIB = sys.argv[1]
LOG2 = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2].isdigit() else 28
JSON_OUT = sys.argv[sys.argv.index("--json") + 1] if "--json" in sys.argv else None
N = 1 << LOG2
SIDE = 1 << (LOG2 // 2)          # square view for the strided cases
assert SIDE * SIDE == N, "use an even LOG2"

torch.zeros(1, device="cuda")    # torch's primary context first; the library shares it
hr = C.CDLL(LIB)
hr.hanzo_rocm_strerror.restype = C.c_char_p
ctx = C.c_void_p()


def ck(r, what):
    if r < 0:
        raise RuntimeError(f"{what}: {hr.hanzo_rocm_strerror(r).decode()}")


ck(hr.hanzo_rocm_new(C.byref(ctx)), "hanzo_rocm_new")
hr.hanzo_rocm_kernel_launch_work.argtypes = [C.c_void_p, C.c_uint64, C.c_uint64,
                                             C.c_void_p, C.c_void_p]


class Geometry(C.Structure):
    _fields_ = [("grid", C.c_uint * 3), ("block", C.c_uint * 3), ("shared", C.c_uint),
                ("splits", C.c_uint)]


hr.hanzo_rocm_kernel_geometry.argtypes = [C.c_void_p, C.c_uint64, C.c_uint64, C.c_void_p]


class Layout(C.Structure):            # struct hanzo_rocm_layout
    _fields_ = [("v", C.c_uint64 * 32)]


def layout(dims, *strides):
    lay = Layout()
    dims_a = (C.c_size_t * len(dims))(*dims)
    st = [(C.c_size_t * len(s_))(*s_) for s_ in strides]
    st_p = (C.POINTER(C.c_size_t) * len(st))(*[C.cast(x, C.POINTER(C.c_size_t)) for x in st])
    ck(hr.hanzo_rocm_layout_init(C.byref(lay), C.c_size_t(len(dims)), dims_a,
                                 C.c_size_t(len(st)), st_p), "layout_init")
    return lay


kcache = {}


def kernel(family, name):
    if (family, name) not in kcache:
        k = C.c_void_p()
        ck(hr.hanzo_rocm_kernel_get(ctx, 0, family.encode(), name.encode(), C.byref(k)),
           f"kernel_get {family}/{name}")
        kcache[(family, name)] = k
    return kcache[(family, name)]


def ours(family, name, view_dims, strides, ptrs, scalars_before=(), scalars_after=()):
    """A launcher for an element-wise kernel (numel, num_dims, info, ...)."""
    k = kernel(family, name)
    vals = [C.c_size_t(N), C.c_size_t(len(view_dims) if strides else 0),
            layout(view_dims, *strides) if strides else Layout()]
    vals += list(scalars_before) + [C.c_uint64(p) for p in ptrs] + list(scalars_after)
    args = (C.c_void_p * len(vals))(*[C.cast(C.pointer(v), C.c_void_p) for v in vals])
    # candle's geometry: one thread per element, blocks of 1024
    grid = (C.c_uint * 3)(max(1, min((N + 1023) // 1024, (1 << 31) - 1)), 1, 1)
    block = (C.c_uint * 3)(1024, 1, 1)
    geo = Geometry()
    ck(hr.hanzo_rocm_kernel_geometry(k, N, 1, C.byref(geo)), "geometry " + name)

    def run():
        ck(hr.hanzo_rocm_kernel_launch_work(k, N, 1, None, args), "launch_work " + name)

    def run_candle():
        ck(hr.hanzo_rocm_kernel_launch(k, grid, block, 0, None, args), "launch " + name)
    run.keep = run_candle.keep = vals   # the argument storage must outlive the launches
    run.candle = run_candle
    run.geometry = f"{geo.grid[0]}x{geo.block[0]}"
    return run


def timed(fn):
    for _ in range(3):
        fn()
    ms = []
    for _ in range(20):
        e0 = torch.cuda.Event(enable_timing=True)
        e1 = torch.cuda.Event(enable_timing=True)
        e0.record()
        fn()
        e1.record()
        e1.synchronize()
        ms.append(e0.elapsed_time(e1))
    ms.sort()
    return ms[10]


g = torch.Generator(device="cuda").manual_seed(1)
a = torch.rand(N, device="cuda", generator=g) * 4 - 2
b = torch.rand(N, device="cuda", generator=g) * 4 + 0.5
cond = torch.rand(N, device="cuda", generator=g) > 0.5
cond_u8 = cond.to(torch.uint8)
brow = b[:SIDE].clone()          # a broadcast row for bcast cases
out = torch.empty_like(a)
ref = torch.empty_like(a)
out16 = torch.empty(N, device="cuda", dtype=torch.bfloat16)
ref16 = torch.empty_like(out16)
aT = a.view(SIDE, SIDE).t()      # transposed view, same storage
a_wide = torch.rand(SIDE, 2 * SIDE, device="cuda", generator=g) * 4 - 2
aS = a_wide[:, :SIDE]            # sliced view: rows of SIDE, row stride 2 SIDE
D2, ST_T, ST_C, ST_B, ST_S = [SIDE, SIDE], [1, SIDE], [SIDE, 1], [0, 1], [2 * SIDE, 1]
f32 = C.c_float

# name, layout, bytes per element, torch fn (writes ref/ref16), ours (writes out/out16), outputs
cases = []


def case(name, lay, bpe, tfn, ofn, o=out, r=ref, tol=1e-5):
    cases.append((name, lay, bpe, tfn, ofn, o, r, tol))


case("copy", "contig", 8, lambda: ref.copy_(a),
     ours("unary", "ucopy_f32", [], None, [a.data_ptr(), out.data_ptr()]))
for op, tname, tfn in (("add", "badd_f32", torch.add), ("mul", "bmul_f32", torch.mul)):
    case(op, "contig", 12, lambda tfn=tfn: tfn(a, b, out=ref),
         ours("binary", tname, [], None, [a.data_ptr(), b.data_ptr(), out.data_ptr()]))
    case(op, "strided", 12,
         lambda tfn=tfn: tfn(aT, b.view(SIDE, SIDE), out=ref.view(SIDE, SIDE)),
         ours("binary", tname, D2, [ST_T, ST_C], [a.data_ptr(), b.data_ptr(), out.data_ptr()]))
    case(op, "sliced", 12,
         lambda tfn=tfn: tfn(aS, b.view(SIDE, SIDE), out=ref.view(SIDE, SIDE)),
         ours("binary", tname, D2, [ST_S, ST_C], [a_wide.data_ptr(), b.data_ptr(), out.data_ptr()]))
    case(op, "bcast", 12,
         lambda tfn=tfn: tfn(a.view(SIDE, SIDE), brow, out=ref.view(SIDE, SIDE)),
         ours("binary", tname, D2, [ST_C, ST_B], [a.data_ptr(), brow.data_ptr(), out.data_ptr()]))
# aten's out= variants: one kernel, contiguous output, as ours.
silu_out = torch.ops.aten.silu.out
gelu_out = torch.ops.aten.gelu.out
unary = (("exp", "uexp_f32", lambda x, o: torch.exp(x, out=o)),
         ("silu", "usilu_f32", lambda x, o: silu_out(x, out=o)),
         ("gelu", "ugelu_f32", lambda x, o: gelu_out(x, approximate="tanh", out=o)))
for op, kname, tfn in unary:
    case(op, "contig", 8, lambda tfn=tfn: tfn(a, ref),
         ours("unary", kname, [], None, [a.data_ptr(), out.data_ptr()]))
    case(op, "strided", 8, lambda tfn=tfn: tfn(aT, ref.view(SIDE, SIDE)),
         ours("unary", kname, D2, [ST_T], [a.data_ptr(), out.data_ptr()]))
    case(op, "sliced", 8, lambda tfn=tfn: tfn(aS, ref.view(SIDE, SIDE)),
         ours("unary", kname, D2, [ST_S], [a_wide.data_ptr(), out.data_ptr()]))
case("cast_f32_bf16", "contig", 6, lambda: ref16.copy_(a),
     ours("cast", "cast_f32_bf16", [], None, [a.data_ptr(), out16.data_ptr()]), out16, ref16, 0)
case("cast_f32_bf16", "strided", 6, lambda: ref16.view(SIDE, SIDE).copy_(aT),
     ours("cast", "cast_f32_bf16", D2, [ST_T], [a.data_ptr(), out16.data_ptr()]), out16, ref16, 0)
case("cast_f32_bf16", "sliced", 6, lambda: ref16.view(SIDE, SIDE).copy_(aS),
     ours("cast", "cast_f32_bf16", D2, [ST_S], [a_wide.data_ptr(), out16.data_ptr()]), out16, ref16, 0)
# torch has no one-kernel affine (x * m + a); torch.mul by a scalar moves the
# same bytes, so it is the bandwidth to match.  add = 0 keeps results equal.
case("affine", "contig", 8, lambda: torch.mul(a, 1.5, out=ref),
     ours("affine", "affine_f32", [], None, [a.data_ptr(), out.data_ptr()],
          scalars_after=(f32(1.5), f32(0.0))))
case("affine", "strided", 8, lambda: torch.mul(aT, 1.5, out=ref.view(SIDE, SIDE)),
     ours("affine", "affine_f32", D2, [ST_T], [a.data_ptr(), out.data_ptr()],
          scalars_after=(f32(1.5), f32(0.0))))
case("affine", "sliced", 8, lambda: torch.mul(aS, 1.5, out=ref.view(SIDE, SIDE)),
     ours("affine", "affine_f32", D2, [ST_S], [a_wide.data_ptr(), out.data_ptr()],
          scalars_after=(f32(1.5), f32(0.0))))
case("where", "contig", 13, lambda: torch.where(cond, a, b, out=ref),
     ours("ternary", "where_u8_f32", [], None,
          [cond_u8.data_ptr(), a.data_ptr(), b.data_ptr(), out.data_ptr()]))
case("where", "strided", 13,
     lambda: torch.where(cond.view(SIDE, SIDE).t(), a.view(SIDE, SIDE), b.view(SIDE, SIDE),
                         out=ref.view(SIDE, SIDE)),
     ours("ternary", "where_u8_f32", D2, [ST_T, ST_C, ST_C],
          [cond_u8.data_ptr(), a.data_ptr(), b.data_ptr(), out.data_ptr()]))
case("where", "sliced", 13,
     lambda: torch.where(cond.view(SIDE, SIDE), aS, b.view(SIDE, SIDE), out=ref.view(SIDE, SIDE)),
     ours("ternary", "where_u8_f32", D2, [ST_C, ST_S, ST_C],
          [cond_u8.data_ptr(), a_wide.data_ptr(), b.data_ptr(), out.data_ptr()]))

dev = torch.cuda.get_device_name(0)
print(f"# torch {torch.__version__} on {dev}, 2^{LOG2} elements, median of 20 (CUDA events)")
print(f"{'op':15s} {'layout':8s} {'torch GB/s':>10s} {'ours GB/s':>10s} {'ratio':>6s} "
      f"{'vs copy':>7s} {'candle GB/s':>11s} {'ratio':>6s} {'grid':>12s} {'max|diff|':>9s}")
results = []
copy_gbps = None
for name, lay, bpe, tfn, ofn, o, r, tol in cases:
    tfn()
    diff = 0.0
    for fn in (ofn, ofn.candle):          # both geometries must be right
        o.fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        diff = max(diff, (o.float() - r.float()).abs().max().item())
    scale = r.float().abs().max().item()
    t_ms, o_ms, c_ms = timed(tfn), timed(ofn), timed(ofn.candle)
    t_gbps, o_gbps, c_gbps = (N * bpe / x / 1e6 for x in (t_ms, o_ms, c_ms))
    if name == "copy":
        copy_gbps = t_gbps
    row = dict(op=name, layout=lay, elements=N, torch_gbps=t_gbps, ours_gbps=o_gbps,
               ratio=o_gbps / t_gbps, vs_copy=o_gbps / copy_gbps, candle_gbps=c_gbps,
               candle_ratio=c_gbps / t_gbps, grid=ofn.geometry, max_abs_diff=diff,
               ok=diff <= tol * max(1.0, scale))
    results.append(row)
    print(f"{name:15s} {lay:8s} {t_gbps:10.1f} {o_gbps:10.1f} {row['ratio']:6.2f} "
          f"{row['vs_copy']:7.2f} {c_gbps:11.1f} {row['candle_ratio']:6.2f} {ofn.geometry:>12s} "
          f"{diff:9.2g}{'' if row['ok'] else '  MISMATCH'}")
if JSON_OUT:
    with open(JSON_OUT, "w") as f:
        json.dump(dict(device=dev, torch=torch.__version__, log2=LOG2, rows=results), f, indent=1)
sys.exit(0 if all(r["ok"] for r in results) else 1)
