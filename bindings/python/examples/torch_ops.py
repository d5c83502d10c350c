#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""hanzo_rocm on torch tensors: the stock operations as torch custom ops,
eagerly and under torch.compile, checked against torch's own.

Runs on CUDA tensors when torch has a GPU, else on CPU tensors through the
host backend (HANZO_ROCM_HOST, default host-w64).  Prints one line per check
and "OK" at the end; exits 1 on a mismatch.
"""

import sys
import time

import torch

import hanzo_rocm as hr
import hanzo_rocm.torch as hrt


def main():
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    ctx = hrt.context()
    print("devices:", ctx.devices, "torch", torch.__version__, "on", dev)
    torch.manual_seed(0)
    rows, cols = 64, 4096
    x = torch.randn(rows, cols, device=dev)
    w = torch.randn(cols, device=dev)
    eps = 1e-6

    def ref(x, w):
        x64, w64 = x.double(), w.double()
        n = x64 * torch.rsqrt((x64 * x64).mean(-1, keepdim=True) + eps) * w64
        return torch.softmax(n * 2, -1)

    def f(x, w):
        return torch.ops.hanzo_rocm.softmax(torch.ops.hanzo_rocm.rmsnorm(x, w, eps) * 2)

    ok = True
    want = ref(x, w)
    got = f(x, w)
    err = (got.double() - want).abs().max().item()
    print("eager rmsnorm+softmax %dx%d: max error %.3g" % (rows, cols, err))
    ok &= err < 1e-6
    t0 = time.time()
    cf = torch.compile(f, fullgraph=True, backend="inductor" if dev == "cuda" else "aot_eager")
    got_c = cf(x, w)
    err = (got_c.double() - want).abs().max().item()
    print("torch.compile (%.1f s): max error %.3g" % (time.time() - t0, err))
    ok &= err < 1e-6
    # half precision in, against torch in float64
    for dt in (torch.float16, torch.bfloat16):
        xh, wh = x.to(dt), w.to(dt)
        got = torch.ops.hanzo_rocm.rmsnorm(xh, wh, eps)
        x64 = xh.double()
        r = x64 * torch.rsqrt((x64 * x64).mean(-1, keepdim=True) + eps) * wh.double()
        err = ((got.double() - r).abs() / (r.abs() + 1)).max().item()
        print("rmsnorm %s: max relative error %.3g" % (str(dt), err))
        ok &= err < (1e-2 if dt == torch.bfloat16 else 2e-3)
    # the split form: few long rows, workspace allocated by the package on
    # the caller's stream
    k = hrt.kernel("norm", "rmsnorm", x)
    xl = torch.randn(2, 1 << 20, device=dev)
    wl = torch.ones(1 << 20, device=dev)
    print("split form:", k.geometry_ex(2, 1 << 20))
    yl = torch.empty_like(xl)
    if dev == "cuda":
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        k.op(2, 1 << 20, x=xl, dst=yl, alpha=wl, eps=eps, stream=s)
        s.synchronize()
    else:
        k.op(2, 1 << 20, x=xl, dst=yl, alpha=wl, eps=eps)
    x64 = xl.double()
    r = x64 * torch.rsqrt((x64 * x64).mean(-1, keepdim=True) + eps)
    err = (yl.double() - r).abs().max().item()
    print("rmsnorm 2 x 2^20 on a side stream: max error %.3g" % err)
    ok &= err < 1e-5
    if dev == "cuda":
        try:
            hrt.kernel("norm", "rmsnorm", torch.empty(1)).op(
                2, 8, x=x[:2, :8].contiguous(), dst=torch.empty(2, 8, device=dev), eps=eps)
            print("device mismatch NOT refused")
            ok = False
        except hr.Error as e:
            print("device mismatch refused:", e)
            ok &= e.errno == 18
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
