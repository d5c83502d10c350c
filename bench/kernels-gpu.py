#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Check and time the unary/affine/fill kernels on an NVIDIA GPU.

    python3 bench/kernels-gpu.py [--check] DIR  # DIR: unary.cubin affine.cubin fill.cubin

--check only checks (t/kernels/gpu.sh runs it that way); exit 1 on a mismatch.

The cubins are the plugins' embedded sources compiled with
`nvcc -cubin -arch=sm_90 -O3 -x cu`.  PyTorch provides device buffers and
the float64 CPU references; kernels are launched through the CUDA driver
(ctypes) with exactly the ABI the library uses (hr_layout by value).
Correctness: odd sizes, contiguous, transposed and broadcast inputs, a
poisoned output, a tiny grid (grid-stride loop) and a full one.
Timing: CUDA events, median of 20 after warm-up, 2^28 elements.
"""
import ctypes as C
import math
import statistics
import sys

import torch

cuda = C.CDLL("libcuda.so.1")


def ck(r, what):
    if r != 0:
        raise RuntimeError(f"{what}: CUresult {r}")


torch.zeros(1, device="cuda")  # make torch's primary context current
CHECK_ONLY = sys.argv[1] == "--check"
DIR = sys.argv[-1]
mods = {}


def func(family, name):
    if family not in mods:
        m = C.c_void_p()
        ck(cuda.cuModuleLoad(C.byref(m), f"{DIR}/{family}.cubin".encode()), "cuModuleLoad " + family)
        mods[family] = m
    f = C.c_void_p()
    ck(cuda.cuModuleGetFunction(C.byref(f), mods[family], name.encode()), "cuModuleGetFunction " + name)
    return f


class Layout(C.Structure):
    _fields_ = [("v", C.c_uint64 * 32)]


def layout(t):
    """hr_layout of tensor t's view: dims, then strides of operand 0."""
    lay = Layout()
    for i, (d, s) in enumerate(zip(t.shape, t.stride())):
        lay.v[i] = d
        lay.v[8 + i] = s
    return lay, t.dim()


DT = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16, "bf16": torch.bfloat16,
      "u8": torch.uint8, "u32": torch.int32, "i64": torch.int64}
TOL = {"f32": 1e-5, "f64": 1e-12, "f16": 1e-3, "bf16": 1.6e-2}


def scalar(dt, x):
    if dt == "f32":
        return C.c_float(x)
    if dt == "f64":
        return C.c_double(x)
    if dt in ("f16", "bf16"):
        return C.c_uint16(torch.tensor([x], dtype=DT[dt]).view(torch.int16).item() & 0xFFFF)
    return {"u8": C.c_uint8, "u32": C.c_uint32, "i64": C.c_int64}[dt](int(x))


def launch(f, args, n, grid=None, block=256):
    grid = grid or max(1, min((n + block - 1) // block, 1 << 20))
    params = (C.c_void_p * len(args))(*[C.cast(C.pointer(a), C.c_void_p) for a in args])
    ck(cuda.cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, None, params, None), "cuLaunchKernel")


def ptr(t):
    return C.c_void_p(t.data_ptr())


def u64(x):
    return C.c_uint64(x)


REF = {
    "copy": lambda x: x, "neg": lambda x: -x, "recip": lambda x: 1 / x, "exp": torch.exp,
    "log": torch.log, "sin": torch.sin, "cos": torch.cos, "tanh": torch.tanh, "erf": torch.erf,
    "ceil": torch.ceil, "floor": torch.floor, "round": lambda x: torch.sign(x) * torch.floor(x.abs() + 0.5),
    "normcdf": lambda x: 0.5 * torch.erfc(-x / math.sqrt(2)), "abs": torch.abs, "sqr": lambda x: x * x,
    "sqrt": torch.sqrt,
    "gelu": lambda x: 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3))),
    "gelu_erf": lambda x: x * 0.5 * torch.erfc(-x / math.sqrt(2)), "relu": torch.relu,
    "silu": lambda x: x * torch.sigmoid(x), "sign": torch.sign, "sigmoid": torch.sigmoid,
}
POSITIVE = {"log", "sqrt"}

fails = 0
checked = 0


def compare(name, dt, got, ref):
    """Relative error with an absolute floor of tol (values near 0)."""
    global fails, checked
    checked += 1
    got = got.double().cpu()
    ref = ref.double().cpu()
    if dt in TOL:
        q = ref.to(DT[dt]).double()  # the best the dtype can hold
        err = ((got - ref).abs() / ref.abs().clamp_min(1.0)).max().item()
        qerr = ((q - ref).abs() / ref.abs().clamp_min(1.0)).max().item()
        if not err <= max(TOL[dt], 2 * qerr) or not torch.isfinite(got).all():
            fails += 1
            print(f"FAIL {name}: max rel err {err:.3g} (tol {TOL[dt]})")
    else:
        if not torch.equal(got.long(), ref.long()):
            fails += 1
            print(f"FAIL {name}: integer mismatch")


def views(n, dt, positive=False):
    """(name, device view, float64 CPU copy): contiguous, transposed, broadcast, sliced."""
    g = torch.Generator().manual_seed(n)
    base = torch.randn(n, generator=g, dtype=torch.float64) * 2
    if positive:
        base = base.abs() + 0.1
    if dt in ("u8", "u32", "i64"):
        base = (base * 40).round().abs() % 250 if dt != "i64" else (base * 1e6).round()
    dev = base.to(DT[dt]).cuda()
    yield "contig", dev, dev.double().cpu()
    rows = 41
    m = dev[: (n // rows) * rows].view(rows, -1).t()  # transposed: strided
    yield "strided", m, m.double().cpu()
    b = dev[:125].view(1, 125).expand(7, 125)  # broadcast: stride 0
    yield "bcast", b, b.double().cpu()
    if n >= 32 * 48:
        # sliced rows, 16-element aligned: the kernels' vector row path
        s = dev[: 32 * 48].view(32, 48)[:, 16:48]
        yield "sliced", s, s.double().cpu()


def run_unary(op, dt, extra=None):
    for n in (5125, 769):
        for vname, x, xr in views(n, dt, op in POSITIVE):
            for grid in (3, None):
                out = torch.full((x.numel(),), 77, dtype=DT[dt], device="cuda")  # poison
                lay, nd = layout(x) if vname != "contig" else (Layout(), 0)
                args = [u64(x.numel()), u64(nd), lay]
                if extra is not None:
                    args.append(scalar(dt, extra))
                args += [ptr(x), ptr(out)]
                name = f"u{op}_{dt}"
                launch(func("unary", name), args, x.numel(), grid)
                torch.cuda.synchronize()
                xr = xr.contiguous().view(-1)
                if op == "elu":
                    ref = torch.where(xr >= 0, xr, extra * torch.expm1(xr))
                elif op == "powf":
                    ref = torch.pow(xr, extra)
                else:
                    ref = REF[op](xr)
                compare(f"{name} {vname} n={n} grid={grid}", dt, out, ref)


def main():
    for dt in ("f32", "f64", "f16", "bf16"):
        for op in REF:
            run_unary(op, dt)
        run_unary("elu", dt, 0.7)
        run_unary("powf", dt, 2.0)
    for dt in ("u8", "u32", "i64"):
        run_unary("copy", dt)
    for op in ("neg", "abs", "sqr", "sign"):
        run_unary(op, "i64")
    # affine
    for dt in DT:
        for vname, x, xr in views(2053, dt):
            out = torch.full((x.numel(),), 77, dtype=DT[dt], device="cuda")
            lay, nd = layout(x) if vname != "contig" else (Layout(), 0)
            mul, add = (1.5, -0.25) if dt in TOL else (3, 5)
            launch(func("affine", f"affine_{dt}"),
                   [u64(x.numel()), u64(nd), lay, ptr(x), ptr(out), scalar(dt, mul), scalar(dt, add)],
                   x.numel(), 2)
            torch.cuda.synchronize()
            ref = xr.contiguous().view(-1) * mul + add
            if dt == "u8":
                ref = ref.long() % 256
            compare(f"affine_{dt} {vname}", dt, out, ref)
    # fill, copy2d, const_set
    for dt in DT:
        buf = torch.zeros(1001, dtype=DT[dt], device="cuda")
        launch(func("fill", f"fill_{dt}"), [ptr(buf), scalar(dt, 3), u64(1001)], 1001, 2)
        src = torch.arange(37 * 19, device="cuda").to(DT[dt]).view(37, 19)
        dst = torch.full((37, 23), 9, dtype=DT[dt], device="cuda")
        launch(func("fill", f"copy2d_{dt}"),
               [ptr(src), ptr(dst), u64(37), u64(11), u64(19), u64(23)], 37 * 11, 2)
        cs = torch.full((12, 10), 9, dtype=DT[dt], device="cuda")
        view = cs.t()[:, 2:8]  # strided output region (offset applied on the host)
        lay, nd = layout(view)
        launch(func("fill", f"const_set_{dt}"), [u64(view.numel()), u64(nd), lay, scalar(dt, 4), ptr(view)],
               view.numel(), 1)
        torch.cuda.synchronize()
        compare(f"fill_{dt}", dt, buf, torch.full((1001,), 3.0, dtype=torch.float64))
        want = torch.full((37, 23), 9.0, dtype=torch.float64)
        want[:, :11] = src[:, :11].double().cpu()
        compare(f"copy2d_{dt}", dt, dst, want)
        want = torch.full((12, 10), 9.0, dtype=torch.float64)
        want.t()[:, 2:8] = 4
        compare(f"const_set_{dt}", dt, cs, want)
    print(f"# {checked} checks, {fails} failures on {torch.cuda.get_device_name()}")
    if CHECK_ONLY:
        return 1 if fails else 0

    # timing: 2^28 elements, GB/s = bytes read + written / time
    n = 1 << 28
    ev = lambda: torch.cuda.Event(enable_timing=True)

    def timeit(fn):
        for _ in range(3):
            fn()
        ts = []
        for _ in range(20):
            a, b = ev(), ev()
            a.record()
            fn()
            b.record()
            torch.cuda.synchronize()
            ts.append(a.elapsed_time(b) / 1e3)
        return statistics.median(ts)

    print("| kernel | ours, 1 thread/elem GB/s | ours, 1 thread/16 B | ours, 4096 blocks | torch GB/s | best/torch |")
    print("|---|---|---|---|---|---|")
    for dt, elt in (("f32", 4), ("bf16", 2)):
        x = torch.randn(n, device="cuda").to(DT[dt])
        out = torch.empty_like(x)
        xs = x.view(1 << 14, 1 << 14).t()  # strided input
        lay, nd = layout(xs)
        z = Layout()
        grids = (None, n * elt // 16 // 256, 4096)

        def un(op, g, lay=z, nd=0, src=x):
            return lambda: launch(func("unary", f"u{op}_{dt}"), [u64(n), u64(nd), lay, ptr(src), ptr(out)], n, g)

        cases = [
            (f"ucopy_{dt}", lambda g: un("copy", g), lambda: out.copy_(x), 2),
            (f"uexp_{dt}", lambda g: un("exp", g), lambda: torch.exp(x, out=out), 2),
            (f"ugelu_{dt}", lambda g: un("gelu", g), lambda: torch.nn.functional.gelu(x, approximate="tanh"), 2),
            (f"affine_{dt}", lambda g: lambda: launch(func("affine", f"affine_{dt}"),
             [u64(n), u64(0), z, ptr(x), ptr(out), scalar(dt, 2.0), scalar(dt, 1.0)], n, g),
             lambda: torch.mul(x, 2.0, out=out), 2),
            (f"ucopy_{dt} transposed", lambda g: un("copy", g, lay, nd, xs),
             lambda: out.view(1 << 14, 1 << 14).copy_(xs), 2),
            (f"fill_{dt}", lambda g: lambda: launch(func("fill", f"fill_{dt}"), [ptr(out), scalar(dt, 1.0), u64(n)], n, g),
             lambda: out.fill_(1.0), 1),
        ]
        for name, ours, theirs, passes in cases:
            gb = passes * n * elt / 1e9
            rates = [gb / timeit(ours(g)) for g in grids]
            tr = gb / timeit(theirs)
            print(f"| {name} | " + " | ".join(f"{r:.0f}" for r in rates) + f" | {tr:.0f} | {max(rates) / tr:.2f} |")
    return 1 if fails else 0


sys.exit(main())
