# SPDX-License-Identifier: LGPL-2.1-or-later
"""The argument layer under random types and sizes: every call either runs
or raises hanzo_rocm.Error (ArgumentError for the package's own checks);
nothing else escapes and nothing crashes.  Arrays of the right element type
are as large as the largest work, so a call that passes the checks stays in
bounds; the seed is printed for a rerun (HR_FUZZ_SEED)."""

import os
import random

import numpy as np

import hanzo_rocm as hr

N = 4096


class Weird:
    pass


class BadInterface:
    def __init__(self, ai):
        self.__array_interface__ = ai


def pool(rng):
    big = np.zeros(N, np.float32)
    return [
        None, 0, 1, -1, 7, 1 << 31, 1 << 63, 1 << 64, -(1 << 70), 2.5, float("nan"),
        float("inf"), True, "x", b"y", [1.0, 2.0], (1,), {}, Weird(), object(),
        np.float32(1.5), np.int64(3), np.zeros(3, np.float64), np.zeros(5, np.int8),
        big, big[::2], big.reshape(64, 64).T, big, big,
        np.zeros(N, np.uint32), np.zeros(N, np.float16), np.zeros(N, np.int64),
        hr.Layout(), hr.Layout([2, 3], [None]),
        BadInterface({"shape": (2,), "typestr": "<f4", "data": None}),
        BadInterface({"shape": None, "typestr": "<f4", "data": (0, False)}),
        BadInterface({"shape": (2,), "typestr": "zz", "data": (0, False)}),
        BadInterface({"shape": (2,), "typestr": "<f4", "data": (0,)}),
        BadInterface({"shape": (2,), "typestr": "<f4", "data": (0, False),
                      "strides": (-4,)}),
        BadInterface(None),
    ]


# Values the kernels take as they are (sizes within the arrays, num_dims 0
# with the zeroed layout); anything else drawn is of a wrong type or range
# and must be refused.  A wrong but well-typed size (a numel past the end,
# a block_size other than the launch's) is a lie the library cannot see, as
# in C: the fuzz does not tell it.
SAFE_INT = {"num_dims": [0]}
SIZES = [0, 1, 16, 64]
BAD_INT = [-1, 1 << 64, -(1 << 70), 2.5, "8", None, [1], True]


def draw(rng, a, values):
    if a.pointer or a.fmt == "L":
        return rng.choice(values)
    if a.fmt in ("f", "d", "e", "bf"):
        return rng.choice([0.0, 1.5, -2, float("nan"), "1.0", None, [1.0], 1 << 2000])
    return rng.choice(SAFE_INT.get(a.name, SIZES) + BAD_INT)


def test_fuzz_arguments(ctx):
    seed = int(os.environ.get("HR_FUZZ_SEED", random.randrange(1 << 30)))
    print("HR_FUZZ_SEED=%d" % seed)
    rng = random.Random(seed)
    dev = [d for d in ctx.devices if d.platform == hr.PLATFORM_HOST][0].index
    # op: the library binds every size; launches: kernels whose sizes are
    # all numel-like (no block_size to lie about).
    op_kernels = [ctx.kernel("norm", "rmsnorm_f32", device=dev),
                  ctx.kernel("fill", "fill_f32", device=dev),
                  ctx.kernel("affine", "affine_f32", device=dev)]
    launch_kernels = op_kernels[1:]
    values = pool(rng)
    counts = {"ok": 0, "refused": 0}
    for _ in range(int(os.environ.get("HR_FUZZ_ITERS", "10000"))):
        how = rng.choice(["op", "work", "launch", "kw"])
        k = rng.choice(op_kernels if how == "op" else launch_kernels)
        rows = rng.choice([0, 1, 2, 3, 64, -1, 1 << 64, 2.0, "r", None])
        cols = rng.choice([0, 1, 5, 64, -3, 1 << 40])
        if isinstance(rows, int) and isinstance(cols, int) and rows * cols > N:
            rows, cols = 1, 1           # the work within the arrays (see above)
        nargs = len(k.args) + rng.choice([0, 0, 0, -1, 1])
        args = [draw(rng, a, values) for a in k.args[:max(0, nargs)]]
        args += [rng.choice(values) for _ in range(max(0, nargs - len(k.args)))]
        if os.environ.get("HR_FUZZ_TRACE"):
            print(k.name, how, rows, cols, args, flush=True)
        try:
            if how == "op":
                kw = {a.name: v for a, v in zip(k.args, args)
                      if a.name in ("x", "src", "dst", "alpha", "eps")}
                if rng.random() < 0.2:
                    kw[rng.choice(["bogus", "ws", "splits", "numel"])] = rng.choice(values)
                k.op(rows, cols, **kw)
            elif how == "work":
                k.launch_work(rows, cols, *args)
            elif how == "launch":
                k.launch((rng.choice([1, 2, 0]),), (rng.choice([1, 64, 256]),), *args)
            else:
                k.launch_work(rows, cols, **{a.name: v for a, v in zip(k.args, args)})
            counts["ok"] += 1
        except hr.Error:
            counts["refused"] += 1
    print(counts)
    assert counts["refused"] > 0 and counts["ok"] > 0, counts
