#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Varlen prefill (flash_attn_varlen_dD_T) on an NVIDIA GPU against torch's
scaled_dot_product_attention, checked then timed in the same run.

    python3 bench/attention-prefill.py LIBHANZO [--json OUT] [--all]

--all times the whole matrix (1k, 4k and 16k tokens, d64 and d128, causal
and not, f16 and bf16: 24 lines) instead of the four lines of the goal.
Each line shows torch's flash backend (FlashAttention-2, the goal's
reference) and torch's default backend choice (cuDNN's attention on an
H100), both timed in the same run on the same buffers.

Why: the goal (doc/BENCHMARKS.md) is prefill on the matrix units (mma.sync on sm_80+)
at >= 0.5x torch's flash SDPA at (batch 1, 32 heads, 4096, head 128,
causal, bf16).  Our kernel goes through the public C API (ctypes):
hanzo_rocm_kernel_get (the library compiles the family for the device on
a cache miss) and hanzo_rocm_kernel_launch_work with the work the .list
declares (batch * heads * ceil(max_seqlen_q / 16) rows x max_seqlen_k).

Correctness first: several shapes (causal or not, two sequences of odd
lengths, GQA, head dims 64/80/96/128, f16 and bf16) against the float32
math of torch (SDPA's math backend on float32 copies); the outputs are
poisoned (NaN) before each launch.  Then the timing: N launches queued
behind a GPU spin (torch.cuda._sleep, checked to outlast the queueing)
between two CUDA events, median of 7 batches, ours and torch's flash
backend on the same buffers; TFLOP/s counts 4 * S^2 * D * H (halved when
causal).
"""
import ctypes as C
import json
import math
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from gpu_spin import gpu_time  # bench/gpu_spin.py, beside this script

LIB = sys.argv[1]
JSON_OUT = sys.argv[sys.argv.index("--json") + 1] if "--json" in sys.argv else None
QTILE = 16
hr = C.CDLL(LIB)
hr.hanzo_rocm_strerror.restype = C.c_char_p
hr.hanzo_rocm_kernel_launch_work.argtypes = [C.c_void_p, C.c_uint64, C.c_uint64,
                                             C.c_void_p, C.c_void_p]
ctx = C.c_void_p()
torch.zeros(1, device="cuda")
RESULTS = []
BAD = [0]


def ck(r, what):
    if r < 0:
        raise RuntimeError(f"{what}: {hr.hanzo_rocm_strerror(r).decode()}")


ck(hr.hanzo_rocm_new(C.byref(ctx)), "hanzo_rocm_new")
_kc = {}


def kernel(name):
    if name not in _kc:
        k = C.c_void_p()
        ck(hr.hanzo_rocm_kernel_get(ctx, 0, b"attention", name.encode(), C.byref(k)),
           f"kernel_get {name}")
        _kc[name] = k
    return _kc[name]


def launcher(name, out, lse, q, k, v, cuq, cuk, batch, nh, nkv, maxq, maxk, scale, causal):
    D = q.shape[-1]
    vals = [C.c_uint64(out.data_ptr()), C.c_uint64(lse.data_ptr() if lse is not None else 0),
            C.c_uint64(q.data_ptr()), C.c_uint64(k.data_ptr()), C.c_uint64(v.data_ptr()),
            C.c_uint64(cuq.data_ptr()), C.c_uint64(cuk.data_ptr()), C.c_uint64(0),
            C.c_size_t(batch), C.c_size_t(nh), C.c_size_t(nkv), C.c_size_t(maxq),
            C.c_size_t(nh * D), C.c_size_t(nkv * D), C.c_size_t(nkv * D), C.c_size_t(nh * D),
            C.c_float(scale), C.c_float(0.0), C.c_int(1 if causal else 0), C.c_int(-1),
            C.c_int(-1)]
    argv = (C.c_void_p * len(vals))(*[C.cast(C.pointer(x), C.c_void_p) for x in vals])
    kh = kernel(name)
    rows = batch * nh * ((maxq + QTILE - 1) // QTILE)

    def run():
        ck(hr.hanzo_rocm_kernel_launch_work(kh, rows, maxk, None, argv), "launch_work")
    run.keep = (vals, argv)
    return run


def reference(q, k, v, lq, lk, nh, nkv, causal, scale):
    """float32 math attention of one sequence: q [lq, nh, D], k/v [lk, nkv, D]."""
    g = nh // nkv
    qf = q.float().transpose(0, 1)                      # [nh, lq, D]
    kf = k.float().transpose(0, 1).repeat_interleave(g, 0)
    vf = v.float().transpose(0, 1).repeat_interleave(g, 0)
    s = (qf @ kf.transpose(1, 2)) * scale
    if causal:                                          # bottom-right aligned
        i = torch.arange(lq, device="cuda")[:, None]
        j = torch.arange(lk, device="cuda")[None, :]
        s = s.masked_fill(j > i + (lk - lq), float("-inf"))
    p = torch.softmax(s, -1)
    p = torch.nan_to_num(p, nan=0.0)
    return (p @ vf).transpose(0, 1), torch.logsumexp(s, -1).transpose(0, 1)


def check(D, dt, lens, nh, nkv, causal):
    tname = {torch.float16: "f16", torch.bfloat16: "bf16"}[dt]
    name = f"flash_attn_varlen_d{D}_{tname}"
    lq = [a for a, _ in lens]
    lk = [b for _, b in lens]
    cuq = torch.tensor([0] + list(torch.tensor(lq).cumsum(0)), dtype=torch.int32, device="cuda")
    cuk = torch.tensor([0] + list(torch.tensor(lk).cumsum(0)), dtype=torch.int32, device="cuda")
    g = torch.Generator(device="cuda").manual_seed(D * 7 + nh)
    q = torch.randn(sum(lq), nh, D, device="cuda", generator=g).to(dt)
    k = torch.randn(sum(lk), nkv, D, device="cuda", generator=g).to(dt)
    v = torch.randn(sum(lk), nkv, D, device="cuda", generator=g).to(dt)
    out = torch.full_like(q, float("nan"))
    lse = torch.full((sum(lq), nh), float("nan"), device="cuda")
    scale = 1 / math.sqrt(D)
    launcher(name, out, lse, q, k, v, cuq, cuk, len(lens), nh, nkv, max(lq), max(lk), scale,
             causal)()
    torch.cuda.synchronize()
    err = lerr = 0.0
    for b in range(len(lens)):
        q0, k0 = int(cuq[b]), int(cuk[b])
        ro, rl = reference(q[q0:q0 + lq[b]], k[k0:k0 + lk[b]], v[k0:k0 + lk[b]], lq[b], lk[b],
                           nh, nkv, causal, scale)
        err = max(err, (out[q0:q0 + lq[b]].float() - ro).abs().max().item())
        fin = torch.isfinite(rl)
        lerr = max(lerr, (lse[q0:q0 + lq[b]][fin] - rl[fin]).abs().max().item())
    tol = 2e-3 if dt == torch.float16 else 1.6e-2
    ok = err <= tol and lerr <= 1e-4 and not torch.isnan(out).any().item()
    BAD[0] += not ok
    line = (f"check {name:28s} lens={lens} heads={nh}/{nkv} causal={int(causal)}: "
            f"max err {err:.3g} (tol {tol:g}), lse err {lerr:.3g}  {'ok' if ok else 'FAIL'}")
    print(line, flush=True)
    RESULTS.append({"check": name, "lens": lens, "heads": [nh, nkv], "causal": causal,
                    "max_err": err, "lse_err": lerr, "ok": ok})


def bench(D, dt, S, nh, causal):
    tname = {torch.float16: "f16", torch.bfloat16: "bf16"}[dt]
    name = f"flash_attn_varlen_d{D}_{tname}"
    q = torch.randn(S, nh, D, device="cuda").to(dt)
    k = torch.randn(S, nh, D, device="cuda").to(dt)
    v = torch.randn(S, nh, D, device="cuda").to(dt)
    cu = torch.tensor([0, S], dtype=torch.int32, device="cuda")
    out = torch.full_like(q, float("nan"))
    scale = 1 / math.sqrt(D)
    ours = launcher(name, out, None, q, k, v, cu, cu, 1, nh, nh, S, S, scale, causal)
    tq, tk, tv = (x.view(1, S, nh, D).transpose(1, 2) for x in (q, k, v))

    def theirs():
        return F.scaled_dot_product_attention(tq, tk, tv, is_causal=causal, scale=scale)
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        ref = theirs()
        ours()
        torch.cuda.synchronize()
        err = (out.view(1, S, nh, D).transpose(1, 2).float() - ref.float()).abs().max().item()
        tol = 2e-3 if dt == torch.float16 else 1.6e-2
        if not err <= tol:
            BAD[0] += 1
            print(f"bench {name} S={S}: result differs from torch by {err:.3g}: not timed")
            return
        t_ours = gpu_time([ours])
        t_torch = gpu_time([theirs])
    t_dflt = gpu_time([theirs])      # outside sdpa_kernel: torch's own backend choice
    flops = 4.0 * S * S * D * nh * (0.5 if causal else 1.0)
    line = (f"bench {name} batch 1 heads {nh} S {S} causal={int(causal)}: ours {t_ours:.3f} ms "
            f"({flops / t_ours / 1e9:.0f} TFLOP/s), torch flash {t_torch:.3f} ms "
            f"({flops / t_torch / 1e9:.0f} TFLOP/s), ours/torch speed {t_torch / t_ours:.2f}x; "
            f"torch default {t_dflt:.3f} ms ({flops / t_dflt / 1e9:.0f} TFLOP/s, ours "
            f"{t_dflt / t_ours:.2f}x) (err vs torch {err:.3g})")
    print(line, flush=True)
    RESULTS.append({"bench": name, "S": S, "heads": nh, "causal": causal, "ours_ms": t_ours,
                    "torch_ms": t_torch, "ratio": t_torch / t_ours, "torch_default_ms": t_dflt,
                    "ratio_default": t_dflt / t_ours, "err": err})


print(torch.cuda.get_device_name(0), "torch", torch.__version__, flush=True)
for D in (64, 80, 96, 128):
    for dt in (torch.float16, torch.bfloat16):
        check(D, dt, [(257, 300), (33, 33)], 4, 2, True)
check(128, torch.bfloat16, [(1000, 1000)], 8, 8, False)
check(128, torch.float16, [(77, 4097), (1, 7)], 8, 1, True)
if "--all" in sys.argv:
    for S in (1024, 4096, 16384):
        for D in (64, 128):
            for causal in (True, False):
                for dt in (torch.bfloat16, torch.float16):
                    bench(D, dt, S, 32, causal)
else:
    bench(128, torch.bfloat16, 4096, 32, True)
    bench(128, torch.bfloat16, 4096, 32, False)
    bench(128, torch.float16, 4096, 32, True)
    bench(64, torch.bfloat16, 4096, 32, True)
if JSON_OUT:
    json.dump(RESULTS, open(JSON_OUT, "w"), indent=1)
print(f"# {BAD[0]} failed")
sys.exit(1 if BAD[0] else 0)
