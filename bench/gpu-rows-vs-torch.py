#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Row-wise kernels (reduce, norm) and PyTorch side by side, on one GPU.

    python3 bench/gpu-rows-vs-torch.py LIBHANZO [--json OUT]

Our kernels go through the public C API only (ctypes: hanzo_rocm_kernel_get,
hanzo_rocm_kernel_geometry, hanzo_rocm_kernel_launch_work; no hand-picked
grid) on torch's own buffers.  Each op runs in its one-pass form (a block per
row) and its two-pass form (split pass over (row, chunk) blocks into a
scratch, then finish/apply; S = geometry.splits), and "auto" is what a caller
following the .list headers picks: two-pass when rows < 2 x multiprocessors.
Every result is checked against torch first (max abs difference, and f32
results within 1e-3 relative), then timed with CUDA events: 3 warm-ups,
median of 20.  GB/s = minimal bytes (input read once, output written once,
weights) / time, the same formula for torch, so the ratio is exact.
Shapes: 4096x4096, 8192x8192 and 32x151936 (an LLM vocabulary), f32 and bf16.
"""
import ctypes as C
import json
import statistics
import sys

import torch
import torch.nn.functional as F

LIB = sys.argv[1]
JSON_OUT = sys.argv[sys.argv.index("--json") + 1] if "--json" in sys.argv else None

torch.zeros(1, device="cuda")
hr = C.CDLL(LIB)
hr.hanzo_rocm_strerror.restype = C.c_char_p
hr.hanzo_rocm_kernel_launch_work.argtypes = [C.c_void_p, C.c_uint64, C.c_uint64,
                                             C.c_void_p, C.c_void_p]
hr.hanzo_rocm_kernel_geometry.argtypes = [C.c_void_p, C.c_uint64, C.c_uint64, C.c_void_p]
ctx = C.c_void_p()


def ck(r, what):
    if r < 0:
        raise RuntimeError(f"{what}: {hr.hanzo_rocm_strerror(r).decode()}")


ck(hr.hanzo_rocm_new(C.byref(ctx)), "hanzo_rocm_new")
SMS = torch.cuda.get_device_properties(0).multi_processor_count


class Geometry(C.Structure):
    _fields_ = [("grid", C.c_uint * 3), ("block", C.c_uint * 3), ("shared", C.c_uint),
                ("splits", C.c_uint)]


class Layout(C.Structure):
    _fields_ = [("v", C.c_uint64 * 32)]


kc = {}


def kernel(family, name):
    if name not in kc:
        k = C.c_void_p()
        ck(hr.hanzo_rocm_kernel_get(ctx, 0, family.encode(), name.encode(), C.byref(k)),
           f"kernel_get {family}/{name}")
        kc[name] = k
    return kc[name]


def geometry(k, rows, cols):
    g = Geometry()
    ck(hr.hanzo_rocm_kernel_geometry(k, rows, cols, C.byref(g)), "geometry")
    return g


def argv(vals):
    return (C.c_void_p * len(vals))(*[C.cast(C.pointer(v), C.c_void_p) for v in vals])


def launcher(steps):
    """steps: [(kernel, rows, cols, values)] launched in order by work."""
    packed = [(k, r, c, argv(v), v) for k, r, c, v in steps]

    def run():
        for k, r, c, a, _ in packed:
            ck(hr.hanzo_rocm_kernel_launch_work(k, r, c, None, a), "launch_work")
    run.keep = packed
    return run


def p(t):
    return C.c_uint64(t.data_ptr())


def timed(fn):
    for _ in range(3):
        fn()
    ms = []
    for _ in range(20):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        fn()
        e1.record()
        e1.synchronize()
        ms.append(e0.elapsed_time(e1))
    return statistics.median(ms)


SUF = {torch.float32: "f32", torch.bfloat16: "bf16"}
EPS = 1e-5


def build(op, x, out, w, b, form):
    """Our launcher for op on x [rows, cols] in form one/two; None if n/a."""
    rows, cols = x.shape
    t = SUF[x.dtype]
    fam = "reduce" if op == "sum" else "norm"
    if op == "sum":
        one, split, fin = f"fast_sum_{t}", f"fast_sum_split_{t}", f"fast_sum_finish_{t}"
        if form == "one":
            k = kernel(fam, one)
            return launcher([(k, rows, cols, [C.c_size_t(rows * cols), C.c_size_t(cols),
                                              C.c_size_t(0), Layout(), p(x), p(out)])])
        ks, kf = kernel(fam, split), kernel(fam, fin)
        s = geometry(ks, rows, cols).splits
        ws = torch.empty(rows * s * 4, dtype=torch.uint8, device="cuda")
        r = launcher([(ks, rows, cols, [C.c_size_t(rows * cols), C.c_size_t(cols), C.c_size_t(0),
                                        Layout(), p(x), p(ws)]),
                      (kf, rows, 1, [C.c_size_t(rows), C.c_size_t(s), p(ws), p(out)])])
        r.ws = ws
        return r
    part = {"softmax": 8, "rmsnorm": 4, "layernorm": 8}[op]
    if form == "one":
        k = kernel(fam, f"{op}_{t}")
        bs = C.c_int(geometry(k, rows, cols).block[0])
        v = {"softmax": [p(x), p(out), C.c_int(cols)],
             "rmsnorm": [p(x), p(out), p(w), C.c_int(cols), bs, C.c_float(EPS)],
             "layernorm": [p(x), p(out), p(w), p(b), C.c_int(cols), bs, C.c_float(EPS)]}[op]
        return launcher([(k, rows, cols, v)])
    ks, ka = kernel(fam, f"{op}_split_{t}"), kernel(fam, f"{op}_apply_{t}")
    s = geometry(ks, rows, cols).splits
    ws = torch.empty(rows * s * part, dtype=torch.uint8, device="cuda")
    tail = [C.c_float(EPS), p(ws), C.c_int(s)]
    v2 = {"softmax": [p(x), p(out), C.c_int(cols), p(ws), C.c_int(s)],
          "rmsnorm": [p(x), p(out), p(w), C.c_int(cols)] + tail,
          "layernorm": [p(x), p(out), p(w), p(b), C.c_int(cols)] + tail}[op]
    r = launcher([(ks, rows, cols, [p(x), p(ws), C.c_int(cols)]), (ka, rows, cols, v2)])
    r.ws = ws
    return r


def torch_op(op, x, w, b):
    if op == "sum":
        return lambda: x.sum(dim=-1)
    if op == "softmax":
        return lambda: torch.softmax(x, dim=-1)
    if op == "rmsnorm":
        return lambda: F.rms_norm(x, (x.shape[1],), w, EPS)
    return lambda: F.layer_norm(x, (x.shape[1],), w, b, EPS)


g = torch.Generator(device="cuda").manual_seed(7)
rows_out = []
print(f"# torch {torch.__version__} on {torch.cuda.get_device_name(0)}, {SMS} SMs; "
      f"median of 20 (CUDA events); GB/s = minimal bytes / time")
print(f"{'op':9s} {'dtype':5s} {'shape':>11s} {'torch':>7s} {'one':>7s} {'two':>7s} "
      f"{'auto':>5s} {'ratio':>6s} {'S':>3s} {'max|diff|':>9s}")
for shape in [(4096, 4096), (8192, 8192), (32, 151936)]:
    for dt in (torch.float32, torch.bfloat16):
        rows, cols = shape
        x = (torch.randn(shape, device="cuda", generator=g) * 3).to(dt)
        w = (torch.rand(cols, device="cuda", generator=g) + 0.5).to(dt)
        b = (torch.rand(cols, device="cuda", generator=g) - 0.5).to(dt)
        for op in ("sum", "softmax", "rmsnorm", "layernorm"):
            if op == "sum" and dt == torch.bfloat16:
                continue
            try:
                ref = torch_op(op, x, w, b)()
                out = torch.empty_like(ref)
                esz = x.element_size()
                nbytes = rows * cols * esz + out.numel() * esz + \
                    (cols * esz * (2 if op == "layernorm" else 1) if op in ("rmsnorm", "layernorm") else 0)
                res = {"op": op, "dtype": SUF[dt], "rows": rows, "cols": cols}
                res["torch_gbps"] = nbytes / timed(torch_op(op, x, w, b)) / 1e6
                diff = 0.0
                for form in ("one", "two"):
                    run = build(op, x, out, w, b, form)
                    out.fill_(float("nan"))
                    run()
                    torch.cuda.synchronize()
                    d = (out.float() - ref.float()).abs()
                    scale = ref.float().abs().max().item() + 1e-30
                    md = d.max().item()
                    tol = (1e-3 if dt == torch.float32 else 2e-2) * max(1.0, scale)
                    if not (md <= tol):
                        raise RuntimeError(f"{op} {SUF[dt]} {shape} {form}: max|diff| {md} > {tol}")
                    diff = max(diff, md)
                    res[f"{form}_gbps"] = nbytes / timed(run) / 1e6
                    if form == "two":
                        k = kernel("reduce" if op == "sum" else "norm",
                                   f"fast_sum_split_{SUF[dt]}" if op == "sum" else f"{op}_split_{SUF[dt]}")
                        res["splits"] = geometry(k, rows, cols).splits
                res["auto"] = "two" if rows < 2 * SMS else "one"
                res["ratio"] = res[f"{res['auto']}_gbps"] / res["torch_gbps"]
                res["max_diff"] = diff
                rows_out.append(res)
                print(f"{op:9s} {res['dtype']:5s} {rows:>5d}x{cols:<6d}{res['torch_gbps']:7.0f} "
                      f"{res['one_gbps']:7.0f} {res['two_gbps']:7.0f} {res['auto']:>5s} "
                      f"{res['ratio']:6.2f} {res['splits']:3d} {diff:9.2g}", flush=True)
            except Exception as e:  # one op's failure must not hide the others
                print(f"{op:9s} {SUF[dt]:5s} {rows:>5d}x{cols:<6d} FAILED: {e}", flush=True)
                rows_out.append({"op": op, "dtype": SUF[dt], "rows": rows, "cols": cols, "error": str(e)})
        del x, w, b
if JSON_OUT:
    json.dump(rows_out, open(JSON_OUT, "w"), indent=1)
