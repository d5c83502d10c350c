#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""hanzo_rocm on numpy arrays, the host backend: what an installed package
must do, each result checked against numpy in float64.

1. a stock kernel: fill_f32 by its launch metadata (launch_work), and the
   norm family's rmsnorm_f32 through the operation call;
2. an operation with a library-sized workspace: rmsnorm over two rows of
   2^18, which the library runs in its split form (two passes); op() asks
   the library for the workspace bytes and allocates them as a numpy array;
3. the caller's own HIP source through the cache: ctx.module(name, source),
   its kernel launched with arguments typed from the source's declaration,
   and a compile error raised as hanzo_rocm.CompileError;
4. a wrong argument refused by name before anything is launched.

The host backend compiles its code objects with the C++ compiler
([compiler] cxx, default c++) on a cache miss: the stock families once per
user (unless a cache already holds the host target), the caller's source
once per source text.  A second run finds everything in the cache: with
--no-compiler (and no compiler on PATH) it shows that, a source the cache
does not hold then failing with ENOENT.

usage: numpy_ops.py [--host TARGET] [--no-compiler]
       (TARGET: host-w64 or host-w32; default $HANZO_ROCM_HOST or host-w64)
Prints one line per check, PASS or FAIL, and exits 1 on any failure.
"""

import argparse
import errno
import os
import sys

import numpy as np

import hanzo_rocm as hr

AXPBY = r'''
#include <hip/hip_runtime.h>
/* #@launch axpby elementwise */
extern "C" __global__ void axpby(float *y, const float *x, float a, float b, size_t n)
{
	for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		y[i] = a * x[i] + b * y[i];
}
'''


def rms_ref(x, w, eps):
    """RMS norm of each row of x in float64, times w."""
    x64 = x.astype(np.float64)
    return x64 / np.sqrt((x64 * x64).mean(axis=1, keepdims=True) + eps) * w


class Checks:
    """PASS/FAIL lines and the exit status."""

    def __init__(self):
        self.failed = 0

    def __call__(self, ok, what):
        print("%s %s" % ("PASS" if ok else "FAIL", what), flush=True)
        self.failed += not ok
        return ok


def main(argv=None):
    """Parses argv, runs the checks, returns the exit status."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--host", default=os.environ.get("HANZO_ROCM_HOST") or "host-w64",
                    help="the host target (host-w64 or host-w32)")
    ap.add_argument("--no-compiler", action="store_true",
                    help="no C++ compiler is reachable (a second run): every code object "
                    "must come from the cache, and a new source fails with ENOENT")
    opt = ap.parse_args(argv)
    check = Checks()
    ctx = hr.Context(host=opt.host)
    dev = [d for d in ctx.devices if d.platform == hr.PLATFORM_HOST and d.target == opt.host]
    if not dev:
        print("FAIL no %s device in %r" % (opt.host, ctx.devices))
        return 1
    dev = dev[0]
    print("devices: %r, running on %r" % (ctx.devices, dev))
    rng = np.random.default_rng(43)

    # 1. stock kernels
    fill = ctx.kernel("fill", "fill_f32", device=dev.index)
    buf = np.zeros(1001, np.float32)
    fill.launch_work(1000, 1, buf, 1.5, 1000)
    check((buf[:1000] == 1.5).all() and buf[1000] == 0, "fill_f32 (launch_work) on 1000 floats")
    norm = ctx.kernel("norm", "rmsnorm_f32", device=dev.index)
    x = rng.standard_normal((5, 1000), dtype=np.float32)
    w = rng.standard_normal(1000, dtype=np.float32)
    y = np.full_like(x, np.nan)
    norm.op(5, 1000, x=x, dst=y, alpha=w, eps=1e-5)
    err = float(np.abs(y - rms_ref(x, w, 1e-5)).max())
    check(err < 2e-5, "rmsnorm_f32 op 5 x 1000: max error %.3g" % err)

    # 2. the library-sized workspace, allocated by the package
    rows, cols = 2, 1 << 18
    g = norm.geometry_ex(rows, cols)
    need = norm.workspace_size(rows, cols)
    check(g.op_form == "split" and need == g.op_workspace > 0,
          "rmsnorm_f32 %d x %d: the library picks the %s form, %d passes, %d workspace bytes"
          % (rows, cols, g.op_form, g.op_passes, need))
    x = rng.standard_normal((rows, cols), dtype=np.float32)
    y = np.full_like(x, np.nan)
    norm.op(rows, cols, x=x, dst=y, eps=1e-6)      # no workspace=: op() allocates it
    err = float(np.abs(y - rms_ref(x, 1.0, 1e-6)).max())
    check(err < 2e-5, "  ... op() with the workspace it allocated: max error %.3g" % err)
    try:
        norm.op(rows, cols, x=x, dst=y, eps=1e-6, workspace=np.empty(need - 1, np.uint8))
        check(False, "  ... a workspace one byte short is refused")
    except hr.ArgumentError as e:
        check(e.argument == "workspace" and e.errno == errno.ENOSPC,
              "  ... a workspace one byte short is refused: %s" % e)

    # 3. the caller's own source, through the cache
    m = ctx.module("numpy_ops_axpby", AXPBY, device=dev.index)
    k = m.kernel("axpby")
    n = 3000
    xs = rng.standard_normal(n, dtype=np.float32)
    ys = rng.standard_normal(n, dtype=np.float32)
    want = 2.0 * xs.astype(np.float64) - 0.5 * ys
    k.launch_work(n, 1, ys, xs, 2.0, -0.5, n)
    err = float(np.abs(ys - want).max())
    check(err < 1e-5 and [a.type for a in k.args] == ["float *", "const float *", "float",
                                                      "float", "size_t"],
          "ctx.module(source): axpby on %d floats, types from the source: max error %.3g"
          % (n, err))
    again = hr.Context(host=opt.host)
    d2 = [d for d in again.devices if d.target == opt.host][0]
    k2 = again.module("numpy_ops_axpby", AXPBY, device=d2.index).kernel("axpby")
    zs = np.zeros(n, np.float32)
    k2.launch(((n + 255) // 256,), (256,), zs, xs, 1.0, 0.0, n)
    check(np.array_equal(zs, xs), "  ... the same source in a second context (the cache's)")
    again.close()
    bad = 'extern "C" __global__ void f(float *p) { p[0] = ; }'
    try:
        ctx.module("numpy_ops_bad", bad, device=dev.index)
        check(False, "  ... a source with an error is refused")
    except hr.CompileError as e:
        check(not opt.no_compiler and "error" in e.diagnostics,
              "  ... a compile error raises CompileError with the compiler's text (%d lines)"
              % len(e.diagnostics.splitlines()))
    except hr.Error as e:
        # No compiler: a source the cache does not hold cannot be built.
        check(opt.no_compiler and e.errno == errno.ENOENT,
              "  ... a source the cache does not hold, with no compiler: %s" % e)

    # 4. a wrong argument: an exception naming it, nothing launched
    buf[:] = 0
    try:
        fill.launch_work(1000, 1, buf.astype(np.float64), 1.5, 1000)
        check(False, "a float64 array for float *buf is refused")
    except hr.ArgumentError as e:
        check(e.argument == "buf" and not buf.any(),
              "a float64 array for float *buf is refused: %s" % e)
    ctx.close()
    print("FAILED: %d checks" % check.failed if check.failed else "PASS: all checks")
    return 1 if check.failed else 0


if __name__ == "__main__":
    sys.exit(main())
