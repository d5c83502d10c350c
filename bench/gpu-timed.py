#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Our kernels and PyTorch timed on the GPU itself, side by side.

    python3 bench/gpu-timed.py LIBHANZO [--json OUT] [SECTION ...]
    SECTION: copy rows quant index (default: all)

Why not time launch by launch from Python: a kernel under ~0.1 ms timed
that way measures ctypes and the driver's launch path (~40 us a call), not
the GPU.  Here every measurement is N launches queued behind a GPU spin
(torch.cuda._sleep) that outlasts the host's queueing - checked: the spin
must still be running when the last launch is queued, else the spin doubles
and the measurement restarts - between two CUDA events; the time per launch
is (end - start) / N, the median of 7 such batches.  Ours and torch's run on
the same (legacy default) stream, on the same buffers.  Inputs smaller than
3 x L2 are rotated over enough copies that every launch reads from memory,
not L2.  Every result is checked against torch BEFORE it is timed; a
mismatch is an error for that line, never a timing.

Our kernels go through the public C API (ctypes): hanzo_rocm_kernel_get,
hanzo_rocm_kernel_geometry, hanzo_rocm_kernel_launch_work (the library's
geometry) and, where a section compares geometries, hanzo_rocm_kernel_launch.

GB/s = minimal bytes (inputs read once, outputs written once) / time, the
same bytes for torch, so ratio = torch time / our time (> 1: ours faster).
The copy section measures device-to-device copy bandwidth (read + write) of
1 GiB in the same run: the ceiling the percentages are written against.

rows section, environment: HR_ROW_BLOCKS, HR_ROW_OPS, HR_ROW_SHAPES (below);
HR_ROW_L2=1 times the rows section on ONE copy of each input instead (inputs
that fit the L2 stay there between launches, as a decode step's activations
do: the regime where launch and tail costs, not memory, decide).
quant section, environment: HR_QUANT_FORMATS="q4_0 ..." only those formats;
HR_MV_GEOS="BLOCK/ROWS ..." raw geometries timed
beside the library's (a grid of rows / ROWS blocks of BLOCK threads; default
"128/4 128/8 128/16"); each format's line "copy of the weights" is torch
copying the same number of bytes (read + write): the ceiling at that size; HR_MV_MISALIGN=1 also times the library's geometry on
copies of the weights and y 4 bytes past a 16-byte boundary ("work+4": the
kernels' path for buffers that are not 16-byte aligned).  The formats of
the planar layout (q4_0 q4_1 q5_0 q5_1 q8_0) add lines "Qp": the same weights
through pack_Qp (unpack_Qp checked to give them back), the q8_1p kernels at
batch 1, 2, 4, 8 and op_run at batch 1 and 8.
"""
import ctypes as C
import json
import math
import sys

import torch
import torch.nn.functional as F

from gpu_spin import gpu_time  # bench/gpu_spin.py, beside this script

LIB = sys.argv[1]
JSON_OUT = sys.argv[sys.argv.index("--json") + 1] if "--json" in sys.argv else None
SECTIONS = [a for a in sys.argv[2:] if a in ("copy", "rows", "quant", "index")] or \
    ["copy", "rows", "quant", "index"]

torch.zeros(1, device="cuda")
PROPS = torch.cuda.get_device_properties(0)
SMS = PROPS.multi_processor_count
L2 = getattr(PROPS, "L2_cache_size", 50 << 20) or (50 << 20)
hr = C.CDLL(LIB)
hr.hanzo_rocm_strerror.restype = C.c_char_p
hr.hanzo_rocm_kernel_launch_work.argtypes = [C.c_void_p, C.c_uint64, C.c_uint64,
                                             C.c_void_p, C.c_void_p]
hr.hanzo_rocm_kernel_launch.argtypes = [C.c_void_p, C.c_void_p, C.c_void_p, C.c_uint,
                                        C.c_void_p, C.c_void_p]
hr.hanzo_rocm_kernel_geometry.argtypes = [C.c_void_p, C.c_uint64, C.c_uint64, C.c_void_p]
ctx = C.c_void_p()
RESULTS = []


def ck(r, what):
    if r < 0:
        raise RuntimeError(f"{what}: {hr.hanzo_rocm_strerror(r).decode()}")


ck(hr.hanzo_rocm_new(C.byref(ctx)), "hanzo_rocm_new")


class Geometry(C.Structure):
    _fields_ = [("grid", C.c_uint * 3), ("block", C.c_uint * 3), ("shared", C.c_uint),
                ("splits", C.c_uint)]


class Layout(C.Structure):
    _fields_ = [("v", C.c_uint64 * 32)]


def packed(*ts):
    """candle's info array: each tensor's dims then its strides."""
    lay = Layout()
    i = 0
    for t in ts:
        for v in list(t.shape) + list(t.stride()):
            lay.v[i] = v
            i += 1
    return lay


_kc = {}


def kernel(family, name):
    if name not in _kc:
        k = C.c_void_p()
        ck(hr.hanzo_rocm_kernel_get(ctx, 0, family.encode(), name.encode(), C.byref(k)),
           f"kernel_get {family}/{name}")
        _kc[name] = k
    return _kc[name]


def geometry(k, rows, cols):
    g = Geometry()
    ck(hr.hanzo_rocm_kernel_geometry(k, rows, cols, C.byref(g)), "geometry")
    return g


def argv(vals):
    return (C.c_void_p * len(vals))(*[C.cast(C.pointer(v), C.c_void_p) for v in vals])


def launcher(steps, keep=None):
    """steps: [(kernel, rows, cols, values)] by work, or
    [(kernel, (grid, block), None, values)] raw; launched in order."""
    packed = []
    for k, r, c, v in steps:
        if c is None:
            grid, block = r
            packed.append((k, (C.c_uint * 3)(grid, 1, 1), (C.c_uint * 3)(block, 1, 1), argv(v), v))
        else:
            packed.append((k, r, c, argv(v), v))

    def run():
        for k, r, c, a, _ in packed:
            if isinstance(r, int):
                ck(hr.hanzo_rocm_kernel_launch_work(k, r, c, None, a), "launch_work")
            else:
                ck(hr.hanzo_rocm_kernel_launch(k, r, c, 0, None, a), "launch")
    run.keep = (packed, keep)
    return run


def p(t):
    return C.c_uint64(t.data_ptr())


# ---- hanzo_rocm_op_run: the form the library picks ------------------------
class OpArg(C.Structure):
    _fields_ = [("name", C.c_char_p), ("value", C.c_void_p), ("bytes", C.c_size_t)]


class OpArgs(C.Structure):
    _fields_ = [("size", C.c_size_t), ("src", C.c_void_p), ("dst", C.c_void_p),
                ("alpha", C.c_void_p), ("beta", C.c_void_p), ("residual", C.c_void_p),
                ("residual_out", C.c_void_p), ("eps", C.c_float), ("workspace", C.c_void_p),
                ("workspace_size", C.c_size_t), ("stream", C.c_void_p),
                ("named", C.POINTER(OpArg)), ("n_named", C.c_size_t), ("batch", C.c_size_t)]


class GeometryEx(C.Structure):
    _fields_ = [("size", C.c_size_t), ("geometry", Geometry), ("workspace", C.c_size_t),
                ("op_workspace", C.c_size_t), ("op_form", C.c_char_p), ("op_passes", C.c_uint)]


hr.hanzo_rocm_op_run.argtypes = [C.c_void_p, C.c_uint64, C.c_uint64, C.POINTER(OpArgs)]
hr.hanzo_rocm_kernel_geometry_ex.argtypes = [C.c_void_p, C.c_uint64, C.c_uint64,
                                             C.POINTER(GeometryEx)]
hr.hanzo_rocm_op_workspace.argtypes = [C.c_void_p, C.c_uint64, C.c_uint64, C.c_void_p]


def geometry_ex(k, rows, cols):
    g = GeometryEx()
    g.size = C.sizeof(g)
    ck(hr.hanzo_rocm_kernel_geometry_ex(k, rows, cols, C.byref(g)), "geometry_ex")
    return g


def op_runner(k, rows, cols, src=None, dst=None, named=(), batch=0):
    """A callable running hanzo_rocm_op_run(k, rows, cols) with a workspace
    of the size the library asks for; named: [(name, ctypes value)]."""
    nws = C.c_size_t()
    ck(hr.hanzo_rocm_op_workspace(k, rows, cols, C.byref(nws)), "op_workspace")
    try:
        g = geometry_ex(k, rows, cols)
        form, splits = (g.op_form or b"?").decode(), g.geometry.splits
    except RuntimeError:    # a sort's row past shared memory: op_run takes the wide form
        form, splits = "wide", 1
    ws = torch.empty(max(nws.value, 1), dtype=torch.uint8, device="cuda")
    vals = [v for _, v in named]
    arr = (OpArg * max(len(named), 1))(*[OpArg(n.encode(), C.cast(C.pointer(v), C.c_void_p),
                                               C.sizeof(v)) for n, v in named])
    a = OpArgs()
    a.size = C.sizeof(a)
    a.src = src.data_ptr() if src is not None else None
    a.dst = dst.data_ptr() if dst is not None else None
    a.workspace = ws.data_ptr()
    a.workspace_size = nws.value
    a.named = arr
    a.n_named = len(named)
    a.batch = batch

    def run():
        ck(hr.hanzo_rocm_op_run(k, rows, cols, C.byref(a)), "op_run")
    run.keep = (ws, vals, arr, a, src, dst)
    run.form, run.splits = form, splits
    return run


# ---- timing: gpu_time is bench/gpu_spin.py's -------------------------------


def copies(nbytes, make, resident=False):
    """Enough copies (make(i)) that a rotation over them exceeds 3 x L2
    (resident: one copy, left in the L2 when it fits)."""
    return [make(i) for i in range(1 if resident else max(1, math.ceil(3 * L2 / max(nbytes, 1))))]


def gbps(nbytes, ms):
    return nbytes / ms / 1e6


def record(section, **kw):
    kw["section"] = section
    RESULTS.append(kw)


def header():
    print(f"# {torch.cuda.get_device_name(0)}, {SMS} SMs, L2 {L2 >> 20} MiB, torch {torch.__version__}, "
          f"CUDA {torch.version.cuda}; launches queued behind a GPU spin, CUDA events, "
          f"median of 7 batches; inputs rotated over copies > 3 x L2", flush=True)


# ---- copy -------------------------------------------------------------------
COPY_GBPS = [None]


def sec_copy():
    n = 1 << 30
    a = torch.empty(n, dtype=torch.uint8, device="cuda")
    b = torch.empty_like(a)
    ms = gpu_time([lambda: b.copy_(a)], n=10)
    COPY_GBPS[0] = gbps(2 * n, ms)
    print(f"copy 1 GiB device to device: {ms:.3f} ms, {COPY_GBPS[0]:.0f} GB/s (read + write)", flush=True)
    record("copy", bytes=2 * n, ms=ms, gbps=COPY_GBPS[0])
    del a, b


def pct(g):
    return f"{100 * g / COPY_GBPS[0]:5.1f}%" if COPY_GBPS[0] else "    -"


# ---- rows -------------------------------------------------------------------
SUF = {torch.float32: "f32", torch.bfloat16: "bf16"}
EPS = 1e-5
RED = ("sum", "min", "max", "argmin", "argmax")
NORM = ("softmax", "rmsnorm", "layernorm", "add_rmsnorm")


def torch_op(op, t):
    x, w, b, r = t["x"], t["w"], t["b"], t["r"]
    n = x.shape[1]
    return {"sum": lambda: x.sum(dim=-1), "min": lambda: x.amin(dim=-1),
            "max": lambda: x.amax(dim=-1), "argmin": lambda: x.argmin(dim=-1),
            "argmax": lambda: x.argmax(dim=-1), "softmax": lambda: torch.softmax(x, dim=-1),
            "rmsnorm": lambda: F.rms_norm(x, (n,), w, EPS),
            "layernorm": lambda: F.layer_norm(x, (n,), w, b, EPS),
            "add_rmsnorm": lambda: F.rms_norm(x + r, (n,), w, EPS)}[op]


def our_op(op, t, form):
    """Our launcher for op on the tensors t in form one/two."""
    x, out, w, b, r, ro = t["x"], t["out"], t["w"], t["b"], t["r"], t["ro"]
    rows, cols = x.shape
    s = SUF[x.dtype]
    if form == "op":     # hanzo_rocm_op_run on the one-pass kernel: the library's pick
        k = kernel("reduce", f"fast_{op}_{s}") if op in RED else kernel("norm", f"{op}_{s}")
        run = op_runner(k, rows, cols, x, out)
        a = run.keep[3]
        if op in ("rmsnorm", "layernorm", "add_rmsnorm"):
            a.alpha, a.eps = w.data_ptr(), EPS
        if op == "layernorm":
            a.beta = b.data_ptr()
        if op == "add_rmsnorm":
            a.residual, a.residual_out = r.data_ptr(), ro.data_ptr()
        return run
    if form.startswith("w"):  # a wave a row: ceil(rows / waves) blocks of form[1:] threads
        if op not in RED:
            raise RuntimeError(f"{form}: for the reduce family only")
        blk = int(form[1:])
        k = kernel("reduce", f"fast_{op}_{s}")
        v = [C.c_size_t(rows * cols), C.c_size_t(cols), C.c_size_t(0), Layout(), p(x), p(out)]
        return launcher([(k, (-(-rows // (blk // 32)), blk), None, v)])
    if form.startswith("b"):  # the one-pass kernel on a raw grid: rows blocks of form[1:] threads
        blk = int(form[1:])
        if op in RED:
            k = kernel("reduce", f"fast_{op}_{s}")
            v = [C.c_size_t(rows * cols), C.c_size_t(cols), C.c_size_t(0), Layout(), p(x), p(out)]
        else:
            k = kernel("norm", f"{op}_{s}")
            bs = C.c_int(blk)
            v = {"softmax": [p(x), p(out), C.c_int(cols)],
                 "rmsnorm": [p(x), p(out), p(w), C.c_int(cols), bs, C.c_float(EPS)],
                 "layernorm": [p(x), p(out), p(w), p(b), C.c_int(cols), bs, C.c_float(EPS)],
                 "add_rmsnorm": [p(x), p(r), p(out), p(ro), p(w), C.c_int(cols), bs,
                                 C.c_float(EPS)]}[op]
        return launcher([(k, (rows, blk), None, v)])
    if op in RED:
        head = [C.c_size_t(rows * cols), C.c_size_t(cols), C.c_size_t(0), Layout(), p(x)]
        if form == "one":
            return launcher([(kernel("reduce", f"fast_{op}_{s}"), rows, cols, head + [p(out)])])
        ks, kf = kernel("reduce", f"fast_{op}_split_{s}"), kernel("reduce", f"fast_{op}_finish_{s}")
        sp = geometry(ks, rows, cols).splits
        ws = torch.empty(rows * sp * 16, dtype=torch.uint8, device="cuda")
        return launcher([(ks, rows, cols, head + [p(ws)]),
                         (kf, rows, 1, [C.c_size_t(rows), C.c_size_t(sp), p(ws), p(out)])], ws)
    if form == "one":
        k = kernel("norm", f"{op}_{s}")
        bs = C.c_int(geometry(k, rows, cols).block[0])
        v = {"softmax": [p(x), p(out), C.c_int(cols)],
             "rmsnorm": [p(x), p(out), p(w), C.c_int(cols), bs, C.c_float(EPS)],
             "layernorm": [p(x), p(out), p(w), p(b), C.c_int(cols), bs, C.c_float(EPS)],
             "add_rmsnorm": [p(x), p(r), p(out), p(ro), p(w), C.c_int(cols), bs, C.c_float(EPS)]}[op]
        return launcher([(k, rows, cols, v)])
    ks, ka = kernel("norm", f"{op}_split_{s}"), kernel("norm", f"{op}_apply_{s}")
    sp = geometry(ks, rows, cols).splits
    ws = torch.empty(rows * sp * 32, dtype=torch.uint8, device="cuda")
    tail = [C.c_float(EPS), p(ws), C.c_int(sp)]
    first = {"add_rmsnorm": [p(x), p(r), p(ro), p(ws), C.c_int(cols)]}.get(op, [p(x), p(ws), C.c_int(cols)])
    v2 = {"softmax": [p(x), p(out), C.c_int(cols), p(ws), C.c_int(sp)],
          "rmsnorm": [p(x), p(out), p(w), C.c_int(cols)] + tail,
          "layernorm": [p(x), p(out), p(w), p(b), C.c_int(cols)] + tail,
          "add_rmsnorm": [p(ro), p(out), p(w), C.c_int(cols)] + tail}[op]
    return launcher([(ks, rows, cols, first), (ka, rows, cols, v2)], ws)


def row_bytes(op, rows, cols, esz):
    n = rows * cols * esz
    if op in ("sum", "min", "max"):
        return n + rows * esz
    if op in ("argmin", "argmax"):
        return n + rows * 4
    return {"softmax": 2 * n, "rmsnorm": 2 * n + cols * esz, "layernorm": 2 * n + 2 * cols * esz,
            "add_rmsnorm": 4 * n + cols * esz}[op]


def check_rows(op, got, ref, x):
    if op in ("argmin", "argmax"):
        # ties and bf16 duplicates: the value at our index must equal the extreme
        v = x.float().gather(1, got.long().view(-1, 1)).view(-1)
        want = x.float().gather(1, ref.view(-1, 1)).view(-1)
        return (v - want).abs().max().item(), 0.0
    d = (got.float() - ref.float()).abs().max().item()
    scale = ref.float().abs().max().item()
    tol = (1e-3 if x.dtype == torch.float32 else 2e-2) * max(1.0, scale)
    if op == "sum":
        tol *= math.sqrt(x.shape[1]) / 8
    return d, tol


# HR_ROW_BLOCKS="256 512": also the one-pass kernels on a raw grid of rows
# blocks of each size (forms b256 ...; rows lines end with "b256:GB/s"); "w256":
# the reduce kernels on ceil(rows / 8) blocks of 256 threads, a row a 32-lane
# wave, for rows short enough to be one wave's (reduce.hip's red_wave_row)
ROW_BLOCKS = tuple(b if b.startswith("w") else f"b{b}"
                   for b in __import__("os").environ.get("HR_ROW_BLOCKS", "").split())
# HR_ROW_OPS="softmax argmax" / HR_ROW_SHAPES="32x151936 4096x4096": only those
# ops / shapes (default: every op at 4096^2, 8192^2 and 32 x 151936)
ROW_OPS = tuple(__import__("os").environ.get("HR_ROW_OPS", "").split())
ROW_SHAPES = [tuple(int(v) for v in s.split("x"))
              for s in __import__("os").environ.get("HR_ROW_SHAPES", "").split()] or \
    [(4096, 4096), (8192, 8192), (32, 151936)]
ROW_L2 = __import__("os").environ.get("HR_ROW_L2") == "1"


def sec_rows():
    g = torch.Generator(device="cuda").manual_seed(7)
    if ROW_L2:
        print("# HR_ROW_L2=1: one copy of each input, L2-resident where it fits", flush=True)
    print(f"{'op':11s} {'dtype':5s} {'shape':>12s} {'torch':>6s} {'one':>6s} {'two':>6s} {'op':>6s} "
          f"{'op_run form':>11s} {'ratio':>6s} {'S':>3s} {'copies':>3s} {'max|diff|':>9s}  (GB/s; "
          f"ratio = op_run / torch)", flush=True)
    for shape in ROW_SHAPES:
        for dt in (torch.float32, torch.bfloat16):
            rows, cols = shape
            esz = torch.empty(0, dtype=dt).element_size()

            def make(i):
                t = {"x": (torch.randn(shape, device="cuda", generator=g) * 3).to(dt),
                     "r": (torch.randn(shape, device="cuda", generator=g)).to(dt),
                     "w": (torch.rand(cols, device="cuda", generator=g) + 0.5).to(dt),
                     "b": (torch.rand(cols, device="cuda", generator=g) - 0.5).to(dt)}
                t["ro"] = torch.empty_like(t["x"])
                return t
            ts = copies(rows * cols * esz, make, ROW_L2)
            for op in RED + NORM:
                if ROW_OPS and op not in ROW_OPS:
                    continue
                res = {"op": op, "dtype": SUF[dt], "rows": rows, "cols": cols, "copies": len(ts)}
                try:
                    for t in ts:
                        ref = torch_op(op, t)()
                        t["out"] = torch.empty(ref.shape, device="cuda",
                                               dtype=torch.int32 if op.startswith("arg") else dt)
                    nbytes = row_bytes(op, rows, cols, esz)
                    res["torch_gbps"] = gbps(nbytes, gpu_time([torch_op(op, t) for t in ts]))
                    diff = 0.0
                    for form in ("one", "two", "op") + ROW_BLOCKS:
                        runs = [our_op(op, t, form) for t in ts]
                        t = ts[0]
                        ref = torch_op(op, t)()
                        t["out"].fill_(-7)
                        t["ro"].fill_(float("nan"))
                        runs[0]()
                        torch.cuda.synchronize()
                        d, tol = check_rows(op, t["out"], ref, t["x"])
                        if not d <= tol:
                            raise RuntimeError(f"{form}: max|diff| {d:.3g} > {tol:.3g}")
                        if op == "add_rmsnorm":
                            d2 = (t["ro"].float() - (t["x"] + t["r"]).float()).abs().max().item()
                            if not d2 <= 1e-2:
                                raise RuntimeError(f"{form}: residual_out max|diff| {d2:.3g}")
                        diff = max(diff, d)
                        res[f"{form}_gbps"] = gbps(nbytes, gpu_time(runs))
                    fam, nm = ("reduce", f"fast_{op}_split_{SUF[dt]}") if op in RED else \
                        ("norm", f"{op}_split_{SUF[dt]}")
                    res["splits"] = geometry(kernel(fam, nm), rows, cols).splits
                    res["auto"] = op_runner(kernel(fam, nm.replace("_split", "")), rows, cols).form
                    res["ratio"] = res["op_gbps"] / res["torch_gbps"]
                    res["max_diff"] = diff
                    print(f"{op:11s} {res['dtype']:5s} {rows:>5d}x{cols:<6d} {res['torch_gbps']:6.0f} "
                          f"{res['one_gbps']:6.0f} {res['two_gbps']:6.0f} {res['op_gbps']:6.0f} "
                          f"{res['auto']:>11s} "
                          f"{res['ratio']:6.2f} {res['splits']:3d} {len(ts):3d} {diff:9.2g}"
                          + "".join(f" {f}:{res[f + '_gbps']:.0f}" for f in ROW_BLOCKS), flush=True)
                except Exception as e:  # one op's failure must not hide the others
                    print(f"{op:11s} {SUF[dt]:5s} {rows:>5d}x{cols:<6d} FAILED: {e}", flush=True)
                    res["error"] = str(e)
                record("rows", **res)
            del ts


# ---- quant ------------------------------------------------------------------
# name: (bytes a block, elements a block, offsets of the f16 fields)
QF = {"q4_0": (18, 32, (0,)), "q4_1": (20, 32, (0, 2)), "q5_0": (22, 32, (0,)),
      "q5_1": (24, 32, (0, 2)), "q8_0": (34, 32, (0,)), "q4_K": (144, 256, (0, 2)),
      "q5_K": (176, 256, (0, 2)), "q6_K": (210, 256, (208,))}
# HR_QUANT_FORMATS="q4_0 ...": only those formats (e.g. under a profiler)
if __import__("os").environ.get("HR_QUANT_FORMATS"):
    QF = {q: QF[q] for q in __import__("os").environ["HR_QUANT_FORMATS"].split()}
QROWS, QCOLS = 14336, 4096
# raw geometries tried besides the library's: (block, rows a block)
GEOS = [tuple(int(v) for v in g.split("/")) for g in
        (__import__("os").environ.get("HR_MV_GEOS") or "128/4 128/8 128/16").split() if g != "none"]
# HR_QMV_SMALL="ROWS ...": the op's two forms at batch 1 on ROWS x 4096
# weights (one launch of the f32 form against quantize + the q8_1 form)
SMALL = [int(v) for v in (__import__("os").environ.get("HR_QMV_SMALL") or "").split()]
# HR_MV_MISALIGN=1: also the library's geometry with the weights and y 4 bytes
# past a 16-byte boundary: the kernels' 32-bit-load path (geometry "work+4")
MISALIGN = __import__("os").environ.get("HR_MV_MISALIGN") == "1"


def shifted(t, off=4):
    """A copy of the bytes of t starting off bytes past a 16-byte boundary
    (the tensor that holds it, and the address)."""
    raw = t.contiguous().view(torch.uint8).view(-1)
    buf = torch.empty(raw.numel() + 16, dtype=torch.uint8, device="cuda")
    buf[off:off + raw.numel()] = raw
    return buf, buf.data_ptr() + off


def rand_blocks(q, nrows, ncols, g):
    nb, qk, offs = QF[q]
    n = nrows * ncols // qk
    blk = torch.randint(0, 256, (n, nb), dtype=torch.uint8, device="cuda", generator=g)
    for o in offs:   # valid, small f16 scales
        blk[:, o:o + 2] = (torch.rand(n, device="cuda", generator=g) * 0.01 + 0.001) \
            .half().view(torch.uint8).view(n, 2)
    return blk


def q8_1_decode(yq, ncols):
    """q8_1 blocks (36 bytes: f16 d, f16 s, 32 int8) -> float32."""
    b = yq.view(-1, 36)
    d = b[:, 0:2].contiguous().view(torch.float16).float()
    return (b[:, 4:36].contiguous().view(torch.int8).float() * d).view(-1)[:ncols]


def mv_check(got, ref, absw, absy, tol):
    """|got - ref| within tol of sum |w||y| of each row: 1e-4 for f32
    accumulation; 1e-3 for q8_1, whose s (d * sum q, an f16) ggml's
    formulas use where the reference takes d * sum q exactly."""
    mag = (absw @ absy).t()
    e = ((got - ref).abs() / mag.clamp_min(1e-30)).max().item()
    if not e <= tol:
        raise RuntimeError(f"relative error {e:.3g} > {tol}")
    return e


PLANAR = ("q4_0", "q4_1", "q5_0", "q5_1", "q8_0")


def sec_quant_planar(q, ws, wbytes, y, dst, ref_q, absw, absyd, g):
    """The planar layout Qp of the same weights: pack_Qp (unpack_Qp checked
    to give the ggml bytes back), the q8_1p kernels alone (quantize_q8_1p's
    activations) and op_run (quantize_q8_1p + the q8_1p form) at batch 1
    and 8, each result checked against the float64 reference first."""
    B = 8
    kp, ku = kernel("quantized", f"pack_{q}p"), kernel("quantized", f"unpack_{q}p")
    n = QROWS * QCOLS
    wps = [torch.empty_like(w) for w in ws]
    for w, wp in zip(ws, wps):
        launcher([(kp, n // 32, 1, [p(w), p(wp), C.c_int(n)])])()
    back = torch.empty_like(ws[0])
    launcher([(ku, n // 32, 1, [p(wps[0]), p(back), C.c_int(n)])])()
    torch.cuda.synchronize()
    if not torch.equal(back, ws[0]) or torch.equal(wps[0], ws[0]):
        raise RuntimeError(f"unpack_{q}p(pack_{q}p(w)) is not w")
    del back
    kqp = kernel("quantized", "quantize_q8_1p")
    yqp = torch.empty(B * QCOLS // 32 * 36, dtype=torch.uint8, device="cuda")
    launcher([(kqp, B, QCOLS // 32, [p(y), p(yqp), C.c_int(QCOLS), C.c_int(QCOLS)])])()
    torch.cuda.synchronize()
    for b in (1, 2, 4, 8):
        k = kernel("quantized", f"mul_mat_vec_{q}p_q8_1p_cuda{b}")
        kname = f"mul_mat_vec_{q}p_q8_1p_cuda{b}"
        for gname, blk, rpb in [("work", None, 0)] + [(f"{b_}/{r}r", b_, r) for b_, r in GEOS]:
            def v(w):
                return [p(w), p(yqp), p(dst), C.c_int(QCOLS), C.c_int(QROWS), C.c_int(QCOLS), C.c_int(QROWS)]
            if blk is None:
                runs = [launcher([(k, QROWS, QCOLS, v(w))]) for w in wps]
            else:
                runs = [launcher([(k, (-(-QROWS // rpb), blk), None, v(w))]) for w in wps]
            e, ms, gb = mv_measure(runs, dst, b, ref_q, absw, absyd, wbytes)
            print(f"{q + 'p':6s} {kname:26s} {gname:>14s} {gb:6.0f} {pct(gb)} {e:8.2g}", flush=True)
            record("quant", fmt=q + "p", op=kname, batch=b, geometry=gname, ms=ms, gbps=gb,
                   pct=100 * gb / COPY_GBPS[0] if COPY_GBPS[0] else None, err=e)
    quant_op_run(q + "p", wps, wbytes, y, dst, ref_q, absw, absyd)
    del wps


def mv_measure(runs, dst, n, ref_q, absw, absyd, wbytes):
    """Run runs[0] on a poisoned dst, check its n columns against the q8_1
    reference, then time runs: (error, ms, GB/s of the weights)."""
    dst.fill_(float("nan"))
    runs[0]()
    torch.cuda.synchronize()
    e = mv_check(dst[:n].double(), ref_q[:n], absw, absyd[:, :n], 1e-3)
    ms = gpu_time(runs)
    return e, ms, gbps(wbytes, ms)


def quant_op_run(q, ws, wbytes, y, dst, ref_q, absw, absyd):
    """What a caller gets: hanzo_rocm_op_run of dequantize_mul_mat_vec_Q
    (the pre-pass + the q8_1 or q8_1p form here) at batch 1 and 8, the
    pre-pass included, checked first."""
    kop = kernel("quantized", f"dequantize_mul_mat_vec_{q}")
    for batch in (1, 8):
        runs = [op_runner(kop, QROWS, QCOLS, src=y, dst=dst, named=[("vx", C.c_void_p(w.data_ptr()))],
                          batch=batch) for w in ws]
        e, ms, gb = mv_measure(runs, dst, batch, ref_q, absw, absyd, wbytes)
        print(f"{q:6s} {'op_run batch ' + str(batch):26s} {runs[0].form:>14s} {gb:6.0f} "
              f"{pct(gb)} {e:8.2g}", flush=True)
        record("quant", fmt=q, op="op_run", batch=batch, form=runs[0].form, ms=ms, gbps=gb,
               pct=100 * gb / COPY_GBPS[0] if COPY_GBPS[0] else None, err=e)


def sec_quant():
    g = torch.Generator(device="cuda").manual_seed(11)
    kq = kernel("quantized", "quantize_q8_1")
    print(f"# mat-vec {QROWS} x {QCOLS}; GB/s = weight bytes / time (activations and output "
          f"are < 1%); % of the copy bandwidth", flush=True)
    # the peer: torch's f16 mv of the same shape
    wh = copies(QROWS * QCOLS * 2, lambda i: torch.randn(QROWS, QCOLS, device="cuda", generator=g).half())
    yh = torch.randn(QCOLS, device="cuda", generator=g).half()
    ms = gpu_time([lambda w=w: torch.mv(w, yh) for w in wh])
    print(f"torch f16 mv: {gbps(QROWS * QCOLS * 2, ms):.0f} GB/s {pct(gbps(QROWS * QCOLS * 2, ms))}", flush=True)
    record("quant", op="torch_f16_mv", gbps=gbps(QROWS * QCOLS * 2, ms))
    del wh
    B = 8
    y = torch.randn(B, QCOLS, device="cuda", generator=g)
    yq = torch.empty(B * QCOLS // 32 * 36, dtype=torch.uint8, device="cuda")
    kx = C.c_int(QCOLS)
    launcher([(kq, B, QCOLS // 32, [p(y), p(yq), kx, C.c_int(QCOLS)])])()
    torch.cuda.synchronize()
    yd = torch.stack([q8_1_decode(yq[j * QCOLS // 32 * 36:(j + 1) * QCOLS // 32 * 36], QCOLS)
                      for j in range(B)])
    print(f"{'format':6s} {'kernel':26s} {'geometry':>14s} {'GB/s':>6s} {'%copy':>6s} {'err':>8s}",
          flush=True)
    for q, (nb, qk, _) in QF.items():
        wbytes = QROWS * QCOLS // qk * nb
        ws = copies(wbytes, lambda i: rand_blocks(q, QROWS, QCOLS, g))
        try:
            # the ceiling at this size: torch copying the same bytes (read +
            # write), rotated as the kernels' inputs are (a kernel of ~10 us
            # pays its ramp and tail, which the 1 GiB copy does not)
            cdst = torch.empty_like(ws[0])
            gb = gbps(2 * wbytes, gpu_time([lambda w=w: cdst.copy_(w) for w in ws]))
            print(f"{q:6s} {'copy of the weights':26s} {'torch':>14s} {gb:6.0f} {pct(gb)}", flush=True)
            record("quant", fmt=q, op="copy_same_bytes", gbps=gb)
            del cdst
            # reference: our dequantizer (checked against float64 by the host
            # selftest), then torch's matmul in float64
            kd = kernel("quantized", f"dequantize_block_{q}_f32")
            wf = torch.empty(QROWS, QCOLS, device="cuda")
            launcher([(kd, QROWS * QCOLS, 1, [p(ws[0]), p(wf), C.c_int(QROWS * QCOLS)])])()
            torch.cuda.synchronize()
            if not torch.isfinite(wf).all():
                raise RuntimeError("dequantized weights not finite")
            w64, absw = wf.double(), wf.abs().double()
            ref_f = (w64 @ y.double().t()).t()          # [B, rows]
            ref_q = (w64 @ yd.double().t()).t()
            absy, absyd = y.abs().double().t(), yd.abs().double().t()
            # dequantize: bytes = blocks read + f32 written
            outs = [torch.empty(QROWS * QCOLS, device="cuda") for _ in range(1)]
            dq = [launcher([(kd, QROWS * QCOLS, 1, [p(w), p(outs[0]), C.c_int(QROWS * QCOLS)])]) for w in ws]
            gb = gbps(wbytes + QROWS * QCOLS * 4, gpu_time(dq))
            print(f"{q:6s} {'dequantize_block_f32':26s} {'work':>14s} {gb:6.0f} {pct(gb)}", flush=True)
            record("quant", fmt=q, op="dequantize_f32", gbps=gb)
            # get_rows: 4096 random rows of the matrix
            kg = kernel("quantized", f"get_rows_{q}")
            nids = 4096
            ids = torch.randint(0, QROWS, (nids,), device="cuda", generator=g, dtype=torch.int32)
            gr = torch.empty(nids, QCOLS, device="cuda")
            run = launcher([(kg, nids * QCOLS, 1, [p(ws[0]), p(ids), p(gr), C.c_int(QCOLS), C.c_int(nids)])])
            gr.fill_(float("nan"))
            run()
            torch.cuda.synchronize()
            if not torch.equal(gr, wf[ids.long()]):
                raise RuntimeError("get_rows differs from the dequantized rows")
            gb = gbps(nids * QCOLS // qk * nb + nids * QCOLS * 4,
                      gpu_time([launcher([(kg, nids * QCOLS, 1, [p(w), p(ids), p(gr), C.c_int(QCOLS),
                                                                 C.c_int(nids)])]) for w in ws]))
            print(f"{q:6s} {'get_rows (4096 rows)':26s} {'work':>14s} {gb:6.0f} {pct(gb)}", flush=True)
            record("quant", fmt=q, op="get_rows", gbps=gb)
            # its ceiling: torch copying its output's bytes (get_rows moves
            # 64 MiB + 9-15 MiB, ~25 us)
            gsrc = [torch.empty_like(gr) for _ in range(3)]
            gb = gbps(2 * gr.numel() * 4, gpu_time([lambda s_=s_: gr.copy_(s_) for s_ in gsrc]))
            print(f"{q:6s} {'copy of get_rows output':26s} {'torch':>14s} {gb:6.0f} {pct(gb)}", flush=True)
            record("quant", fmt=q, op="copy_get_rows_bytes", gbps=gb)
            del gsrc
            del wf, w64
            dst = torch.empty(B, QROWS, device="cuda")
            # geometries: the library's (work) and a wave per row, 4 or 8 rows a block
            # (name, block, rows a block): the wave-per-row mapping with
            # rows / (rows a block) blocks, i.e. rows a block / waves a block
            # rows a wave
            geos = [("work", None, 0)] + [("work+4", None, 4)] * MISALIGN + \
                [(f"{b}/{r}r", b, r) for b, r in GEOS]
            for kname, batch in [(f"dequantize_mul_mat_vec_{q}", 0)] + \
                    [(f"mul_mat_vec_{q}_q8_1_cuda{b}", b) for b in (1, 2, 4, 8)]:
                k = kernel("quantized", kname)
                t1 = None
                for gname, blk, rpb in geos:
                    def mk(w, k=k, batch=batch, blk=blk, rpb=rpb):
                        keep = None
                        pw, py = p(w), p(yq if batch else y)
                        if blk is None and rpb:     # work+4: shifted copies
                            keep = (shifted(w), shifted(yq if batch else y))
                            pw, py = C.c_uint64(keep[0][1]), C.c_uint64(keep[1][1])
                        if batch:
                            v = [pw, py, p(dst), C.c_int(QCOLS), C.c_int(QROWS), C.c_int(QCOLS),
                                 C.c_int(QROWS)]
                        else:
                            v = [pw, py, p(dst), C.c_int(QCOLS), C.c_int(QROWS)]
                        if blk is None:
                            return launcher([(k, QROWS, QCOLS, v)], keep)
                        grid = -(-QROWS // rpb)
                        return launcher([(k, (grid, blk), None, v)])
                    runs = [mk(w) for w in ws]
                    dst.fill_(float("nan"))
                    runs[0]()
                    torch.cuda.synchronize()
                    nb_ = max(batch, 1)
                    e = mv_check(dst[:nb_].double(), (ref_q if batch else ref_f)[:nb_], absw,
                                 (absyd if batch else absy)[:, :nb_], 1e-3 if batch else 1e-4)
                    ms = gpu_time(runs)
                    gb = gbps(wbytes, ms)
                    if gname == "work":
                        t1 = ms
                    print(f"{q:6s} {kname:26s} {gname:>14s} {gb:6.0f} {pct(gb)} "
                          f"{e:8.2g}", flush=True)
                    record("quant", fmt=q, op=kname, batch=batch, geometry=gname, ms=ms, gbps=gb,
                           pct=100 * gb / COPY_GBPS[0] if COPY_GBPS[0] else None, err=e)
            # what a caller gets: hanzo_rocm_op_run (quantize_q8_1 + the q8_1
            # form here), batch 1 and 8, the quantize included
            quant_op_run(q, ws, wbytes, y, dst, ref_q, absw, absyd)
            kop = kernel("quantized", f"dequantize_mul_mat_vec_{q}")
            if q in PLANAR:
                sec_quant_planar(q, ws, wbytes, y, dst, ref_q, absw, absyd, g)
            # the op's form choice at batch 1: the f32 form (one launch)
            # against quantize + the q8_1 form, on smaller weights (at most
            # 120 copies: a queue of ~1000 launches behind the spin blocks)
            k1 = kernel("quantized", f"mul_mat_vec_{q}_q8_1_cuda1")
            for rows in SMALL:
                sb = rows * QCOLS // qk * nb
                sws = copies(sb, lambda i: ws[i % len(ws)][:rows * QCOLS // qk].clone())[:120]
                tf = gpu_time([launcher([(kop, rows, QCOLS, [p(w), p(y), p(dst), C.c_int(QCOLS), C.c_int(rows)])])
                               for w in sws])
                tq = gpu_time([launcher([(kq, 1, QCOLS, [p(y), p(yq), kx, C.c_int(QCOLS)]),
                                         (k1, rows, QCOLS, [p(w), p(yq), p(dst), C.c_int(QCOLS), C.c_int(rows),
                                                            C.c_int(QCOLS), C.c_int(rows)])]) for w in sws])
                print(f"{q:6s} {'forms at ' + str(rows) + ' rows':26s} {'f32/q8_1 us':>14s} "
                      f"{1000 * tf:7.2f} {1000 * tq:7.2f}", flush=True)
                record("quant", fmt=q, op="forms_batch1", rows=rows, f32_ms=tf, q8_1_ms=tq)
                del sws
        except Exception as ex:
            print(f"{q:6s} FAILED: {ex}", flush=True)
            record("quant", fmt=q, error=str(ex))
            # a failed spin doubled to its limit: start the next format afresh
            __import__("gpu_spin").SPIN[0] = 2_000_000
        del ws


# ---- index ------------------------------------------------------------------
def sec_index():
    g = torch.Generator(device="cuda").manual_seed(13)
    print(f"{'op':14s} {'shape':>30s} {'torch':>6s} {'ours':>6s} {'ratio':>6s}  (GB/s)", flush=True)
    # index_select: 32768 rows of 4096 f32 from a 131072-row table (2 GiB)
    tab = torch.randn(131072, 4096, device="cuda", generator=g)
    ids = torch.randint(0, 131072, (32768,), device="cuda", generator=g)
    ids32 = ids.to(torch.int32)
    out = torch.empty(32768, 4096, device="cuda")
    k = kernel("indexing", "is_u32_f32")
    run = launcher([(k, out.numel(), 1, [C.c_size_t(out.numel()), C.c_size_t(0), Layout(), p(ids32), p(tab),
                                          p(out), C.c_size_t(1), C.c_size_t(131072), C.c_size_t(32768),
                                          C.c_size_t(4096)])])
    cases = [("index_select", "131072x4096 f32, 32768 ids", run, lambda: torch.index_select(tab, 0, ids),
              lambda: torch.equal(out, tab[ids]), 2 * out.numel() * 4 + ids.numel() * 4)]
    # gather along dim 1 of 4096 x 4096 f32 (rotated copies)
    gi = copies(3 * 64 << 20, lambda i: (torch.randn(4096, 4096, device="cuda", generator=g),
                                          torch.randint(0, 4096, (4096, 4096), device="cuda", generator=g),
                                          torch.empty(4096, 4096, device="cuda")))
    kg = kernel("indexing", "gather_u32_f32")
    gi = [(a, i, i.to(torch.int32), o) for a, i, o in gi]
    gruns = [launcher([(kg, o.numel(), 1, [C.c_size_t(o.numel()), p(i32), p(a), p(o), C.c_size_t(4096),
                                           C.c_size_t(4096), C.c_size_t(4096), C.c_size_t(1)])])
             for a, i, i32, o in gi]
    a0, i0, _, o0 = gi[0]
    cases.append(("gather dim 1", "4096x4096 f32", gruns, [lambda a=a, i=i: torch.gather(a, 1, i)
                                                         for a, i, _, _ in gi],
                  lambda: torch.equal(o0, torch.gather(a0, 1, i0)), 3 * 4096 * 4096 * 4))
    for name, shape, ours, theirs, check, nbytes in cases:
        ours = ours if isinstance(ours, list) else [ours]
        theirs = theirs if isinstance(theirs, list) else [theirs]
        try:
            ours[0]()
            torch.cuda.synchronize()
            if not check():
                raise RuntimeError("differs from torch")
            tg, og = gbps(nbytes, gpu_time(theirs)), gbps(nbytes, gpu_time(ours))
            print(f"{name:14s} {shape:>30s} {tg:6.0f} {og:6.0f} {og / tg:6.2f}", flush=True)
            record("index", op=name, shape=shape, torch_gbps=tg, gbps=og, ratio=og / tg)
        except Exception as ex:
            print(f"{name:14s} FAILED: {ex}", flush=True)
            record("index", op=name, error=str(ex))


if __name__ == "__main__":
    header()
    sec_copy()
    for s in SECTIONS:
        if s == "rows":
            sec_rows()
        elif s == "quant":
            sec_quant()
        elif s == "index":
            sec_index()
    if JSON_OUT:
        json.dump(RESULTS, open(JSON_OUT, "w"), indent=1)
