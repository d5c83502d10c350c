# SPDX-License-Identifier: LGPL-2.1-or-later
"""hanzo_rocm on the host backend: results against float64 numpy
references, and every wrong argument refused before a launch."""

import errno
import json
import os
import subprocess

import numpy as np
import pytest

import hanzo_rocm as hr


def rms_ref(x, w, eps):
    x64 = x.astype(np.float64)
    return x64 / np.sqrt((x64 * x64).mean(axis=1, keepdims=True) + eps) * w


def test_devices(ctx):
    devs = ctx.devices
    assert ctx.device_count == len(devs) >= 1
    assert [d.index for d in devs] == list(range(len(devs)))
    hosts = [d.target for d in devs if d.platform == hr.PLATFORM_HOST]
    assert set(hosts) >= set(os.environ.get("HR_PYTEST_HOST", "host-w64 host-w32").split())
    with pytest.raises(hr.ArgumentError) as e:
        ctx.device(len(devs))
    assert e.value.errno == errno.ENODEV


def test_catalogue_matches_cli(ctx):
    cat = ctx.catalogue()
    cli = os.environ.get("HR_CLI")
    if not cli:
        pytest.skip("HR_CLI not set (t/python/pytest.sh sets it)")
    out = subprocess.run([cli, "kernels", "--json"], check=True, capture_output=True,
                         text=True).stdout
    ref = json.loads(out)["kernels"]
    assert len(cat) == len(ref)
    for k, r in zip(cat, ref):
        assert (k.family, k.name, k.signature, k.form, k.op) == \
            (r["family"], r["name"], r["signature"], r["form"], r["op"])
        # bytes 0 in the catalogue: a type it does not size (the package does)
        assert [[a.type, a.name] for a in k.args] == [[a["type"], a["name"]] for a in r["args"]]
        for a, ra in zip(k.args, r["args"]):
            assert ra["bytes"] in (0, a.bytes), (k.name, a)
    norm = ctx.catalogue("norm")
    assert norm.families == ["norm"]
    assert ("norm", "rmsnorm_f32") in norm
    with pytest.raises(hr.Error) as e:
        ctx.catalogue("no_such_family")
    assert e.value.errno == errno.ENOENT


def test_errors(ctx):
    with pytest.raises(hr.Error) as e:
        ctx.kernel("norm", "no_such_kernel", device=ctx.devices[-1].index)
    assert e.value.errno == errno.ENOENT and e.value.code == -errno.ENOENT
    assert e.value.strerror.endswith(hr.strerror(-errno.ENOENT))
    assert "no_such_kernel" in str(e.value)
    with pytest.raises(hr.Error):
        hr.Context(config="/nonexistent/hanzo-rocm.conf")


@pytest.mark.parametrize("rows,cols", [(3, 1000), (2, 1 << 18), (1, 1)])
def test_rmsnorm_op(ctx, dev, rows, cols):
    k = ctx.kernel("norm", "rmsnorm_f32", device=dev.index)
    rng = np.random.default_rng(rows * cols)
    x = rng.standard_normal((rows, cols), dtype=np.float32)
    w = rng.standard_normal(cols, dtype=np.float32)
    y = np.full_like(x, np.nan)
    k.op(rows, cols, x=x, dst=y, alpha=w, eps=1e-5)
    np.testing.assert_allclose(y, rms_ref(x, w, 1e-5), rtol=2e-5, atol=2e-5)
    # alpha left out: weight 1
    k.op(rows, cols, src=x, dst=y, eps=1e-5)
    np.testing.assert_allclose(y, rms_ref(x, 1.0, 1e-5), rtol=2e-5, atol=2e-5)


def test_workspace(ctx, dev):
    k = ctx.kernel("norm", "rmsnorm_f32", device=dev.index)
    rows, cols = 2, 1 << 18
    g = k.geometry_ex(rows, cols)
    need = k.workspace_size(rows, cols)
    assert g.op_form == "split" and g.op_passes == 2 and need == g.op_workspace > 0
    x = np.random.default_rng(1).random((rows, cols), dtype=np.float32)
    y = np.empty_like(x)
    with pytest.raises(hr.ArgumentError) as e:
        k.op(rows, cols, x=x, dst=y, eps=1e-6, workspace=np.empty(need - 1, np.uint8))
    assert e.value.argument == "workspace" and e.value.errno == errno.ENOSPC
    y[:] = np.nan
    k.op(rows, cols, x=x, dst=y, eps=1e-6, workspace=np.empty(need, np.uint8))
    np.testing.assert_allclose(y, rms_ref(x, 1.0, 1e-6), rtol=2e-5, atol=2e-5)


def test_launch_work_fill(ctx, dev):
    k = ctx.kernel("fill", "fill_f32", device=dev.index)
    buf = np.zeros(1001, np.float32)
    k.launch_work(1000, 1, buf, 2.5, 1000)
    assert (buf[:1000] == 2.5).all() and buf[1000] == 0
    k.launch_work(10, 1, numel=10, value=-1, buf=buf)
    assert (buf[:10] == -1).all() and (buf[10:1000] == 2.5).all()


def test_layout_strided(ctx, dev):
    # affine over a transposed view: the layout carries the strides.
    k = ctx.kernel("affine", "affine_f32", device=dev.index)
    base = np.arange(20, dtype=np.float32).reshape(5, 4)
    v = base.T                                  # 4 x 5, strides (1, 4) elements
    out = np.zeros((4, 5), np.float32)
    lay = hr.Layout([4, 5], [(1, 4)])
    assert lay.v[:2] == (4, 5) and lay.v[8:10] == (1, 4)
    k.launch_work(20, 1, 20, 2, lay, base, out, 3.0, 1.0)
    np.testing.assert_array_equal(out, 3 * v + 1)


SRC = r'''
#include <hip/hip_runtime.h>
/* #@launch axpy elementwise */
extern "C" __global__ void axpy(float *y, const float *x, float a, size_t n)
{
	for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		y[i] += a * x[i];
}
'''


def test_module(ctx, dev):
    m = ctx.module("pytest_axpy", SRC, device=dev.index)
    k = m.kernel("axpy")
    assert [a.name for a in k.args] == ["y", "x", "a", "n"]
    x = np.arange(300, dtype=np.float32)
    y = np.ones(300, np.float32)
    k.launch((3,), (128,), y, x, 2.0, 300)
    np.testing.assert_array_equal(y, 1 + 2 * x)
    k.launch_work(300, 1, y, x, -2.0, 300)
    np.testing.assert_array_equal(y, np.ones(300, np.float32))
    # an explicit signature wins over the source's
    k2 = m.kernel("axpy", signature="float *y, const float *x, float a, size_t n")
    k2.launch(1, 64, y=y, x=x, a=1.0, n=10)
    assert y[9] == 10 and y[10] == 1
    with pytest.raises(hr.Error) as e:
        m.kernel("no_such")
    assert e.value.errno == errno.ENOENT


def test_compile_error(ctx, dev):
    with pytest.raises(hr.CompileError) as e:
        ctx.module("pytest_bad", 'extern "C" __global__ void f(float *p) { p[0] = ; }',
                   device=dev.index)
    assert e.value.errno == errno.EILSEQ
    assert "error" in e.value.diagnostics and "error" in str(e.value)


def test_argument_errors(ctx, dev):
    k = ctx.kernel("norm", "rmsnorm_f32", device=dev.index)
    x = np.ones((2, 8), np.float32)
    y = np.empty_like(x)

    def bad(name, fn, code=errno.EINVAL):
        with pytest.raises(hr.ArgumentError) as e:
            fn()
        assert e.value.argument == name, e.value
        assert e.value.errno == code
        assert repr(name) in str(e.value)

    bad("x", lambda: k.op(2, 8, x=x.astype(np.float64), dst=y, eps=1e-5))
    bad("dst", lambda: k.op(2, 8, x=x, dst=[1.0] * 16, eps=1e-5))
    bad("eps", lambda: k.op(2, 8, x=x, dst=y))
    bad("eps", lambda: k.op(2, 8, x=x, dst=y, eps="small"))
    bad("alpha", lambda: k.op(2, 8, x=x, dst=y, eps=1e-5, alpha=np.ones(7, np.float32)))
    bad("src", lambda: k.op(2, 9, x=x, dst=y, eps=1e-5))
    bad("bogus", lambda: k.op(2, 8, x=x, dst=y, eps=1e-5, bogus=1))
    bad("ws", lambda: k.op(2, 8, x=x, dst=y, eps=1e-5, ws=y))
    bad("rows", lambda: k.op(-1, 8, x=x, dst=y, eps=1e-5), errno.ERANGE)
    bad("cols", lambda: k.op(2, 8.0, x=x, dst=y, eps=1e-5))
    ro = np.empty_like(x)
    ro.flags.writeable = False
    bad("dst", lambda: k.op(2, 8, x=x, dst=ro, eps=1e-5))
    f = ctx.kernel("fill", "fill_f32", device=dev.index)
    buf = np.zeros(8, np.float32)
    bad("numel", lambda: f.launch_work(8, 1, buf, 1.0))
    bad("*args", lambda: f.launch_work(8, 1, buf, 1.0, 8, 9))
    bad("numel", lambda: f.launch_work(8, 1, buf, 1.0, -8))
    bad("numel", lambda: f.launch_work(8, 1, buf, 1.0, 1 << 64))
    bad("numel", lambda: f.launch_work(8, 1, buf, 1.0, 8.0))
    bad("value", lambda: f.launch_work(8, 1, buf, None, 8))
    bad("buf", lambda: f.launch_work(8, 1, 12345, 1.0, 8))
    bad("buf", lambda: f.launch_work(8, 1, buf.astype(np.int32), 1.0, 8))
    bad("grid", lambda: f.launch((0, 1, 1, 1), (1,), buf, 1.0, 8))
    bad("stream", lambda: f.launch_work(8, 1, buf, 1.0, 8, stream="default"))
    assert (buf == 0).all()


def test_device_mismatch(ctx, dev):
    f = ctx.kernel("fill", "fill_f32", device=dev.index)
    ghost = hr.Pointer(0x1000, 64, device="cuda:0")
    with pytest.raises(hr.Error) as e:
        f.launch_work(8, 1, ghost, 1.0, 8)
    assert e.value.errno == errno.EXDEV and "buf" in str(e.value)

    class DeviceArray:                  # what CuPy or Numba hand over
        __cuda_array_interface__ = {"shape": (8,), "typestr": "<f4",
                                    "data": (0x2000, False), "version": 3}

    with pytest.raises(hr.Error) as e:
        f.launch_work(8, 1, DeviceArray(), 1.0, 8)
    assert e.value.errno == errno.EXDEV


def test_null(ctx, dev):
    f = ctx.kernel("fill", "fill_f32", device=dev.index)
    with pytest.raises(hr.ArgumentError) as e:
        f.launch_work(8, 1, None, 1.0, 8)
    assert e.value.argument == "buf" and "hanzo_rocm.NULL" in str(e.value)
    with pytest.raises(hr.ArgumentError):
        f.launch_work(8, 1, hr.Pointer(0, 32), 1.0, 8)
    f.launch_work(0, 1, hr.NULL, 1.0, 0)    # zero work: nothing launched


def test_dlpack_numpy(ctx, dev):
    # An object that only speaks DLPack (numpy >= 1.22 has __dlpack__).
    if not hasattr(np.ndarray, "__dlpack__"):
        pytest.skip("numpy %s has no __dlpack__" % np.__version__)

    class OnlyDLPack:
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, stream=None):
            return self.a.__dlpack__()

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    f = ctx.kernel("fill", "fill_f32", device=dev.index)
    buf = np.zeros(16, np.float32)
    f.launch_work(16, 1, OnlyDLPack(buf), 4.0, 16)
    assert (buf == 4).all()


def test_op_named_values(ctx, dev):
    # Arguments the call cannot derive go by name (the C call's .named),
    # typed by the catalogue: a pointer, a float, a size_t.
    f = ctx.kernel("fill", "fill_f32", device=dev.index)
    buf = np.zeros(64, np.float32)
    f.op(50, 1, buf=buf, value=3.0, numel=50)
    assert (buf[:50] == 3).all() and (buf[50:] == 0).all()
    a = ctx.kernel("affine", "affine_f32", device=dev.index)
    x = np.arange(30, dtype=np.float32)
    y = np.zeros_like(x)
    a.op(30, 1, inp=x, out=y, mul=0.5, add=-1, numel=30)     # num_dims, info: derived
    np.testing.assert_array_equal(y, 0.5 * x - 1)
    with pytest.raises(hr.ArgumentError) as e:
        a.op(30, 1, inp=x, out=y, mul=0.5, numel=30)
    assert e.value.argument == "add"
    with pytest.raises(hr.ArgumentError) as e:
        f.op(50, 1, buf=buf, value=3.0, numel=-1)
    assert e.value.argument == "numel"
    with pytest.raises(hr.ArgumentError) as e:
        f.op(50, 1, buf=buf.astype(np.float64), value=3.0, numel=50)
    assert e.value.argument == "buf"


def test_sampling_op_sizes(ctx, dev):
    # sample_*: one token a row in dst; topk_*: k indices a row.
    s = ctx.kernel("sampling", "sample_f32", device=dev.index)
    x = np.random.default_rng(7).standard_normal((3, 100), dtype=np.float32)
    tok = np.full(3, -1, np.int32)
    nulls = dict(temperature=hr.NULL, top_k=hr.NULL, top_p=hr.NULL, min_p=hr.NULL,
                 seed=hr.NULL, offset=hr.NULL)
    s.op(3, 100, x=x, dst=tok, **dict(nulls, top_k=np.ones(3, np.int32)))
    np.testing.assert_array_equal(tok, x.argmax(axis=1))
    with pytest.raises(hr.ArgumentError) as e:
        s.op(3, 100, x=x, dst=tok[:2], **nulls)
    assert e.value.argument == "dst"
    t = ctx.kernel("sampling", "topk_f32", device=dev.index)
    vals, idx = np.empty((3, 4), np.float32), np.empty((3, 4), np.int32)
    t.op(3, 100, x=x, values=vals, dst=idx, k=4)
    np.testing.assert_array_equal(idx, np.argsort(-x, axis=1, kind="stable")[:, :4])
    with pytest.raises(hr.ArgumentError) as e:
        t.op(3, 100, x=x, values=vals, dst=idx[:2], k=4)
    assert e.value.argument == "dst"


def test_quantized_op(ctx, dev):
    # The quantized mat-vec: y is the call's src (its #@bind), named either
    # way; nrows and ncols come from the work; batch x cols in, batch x rows
    # out.  q8_0 blocks with scale 1/64 and quants -20..19, y integers whose
    # every 32-block holds 127 (q8_1 scale 1): exact in f32.
    q = ctx.kernel("quantized", "dequantize_mul_mat_vec_q8_0", device=dev.index)
    args = {a.name: a for a in q.args}
    assert args["y"].bind == "src" and args["nrows"].bind == "rows" and args["vx"].bind is None
    rows, cols, batch = 5, 64, 3
    rng = np.random.default_rng(3)
    qs = rng.integers(-20, 20, (rows, cols // 32, 32)).astype(np.int8)
    blocks = np.empty((rows, cols // 32, 34), np.uint8)
    blocks[..., :2] = np.full((rows, cols // 32), 1 / 64, np.float16).view(np.uint8) \
        .reshape(rows, cols // 32, 2)
    blocks[..., 2:] = qs.view(np.uint8)
    w = qs.reshape(rows, cols).astype(np.float64) / 64
    y = rng.integers(-127, 128, (batch, cols)).astype(np.float32)
    y[:, ::32] = 127
    want = y.astype(np.float64) @ w.T
    for name in ("y", "src"):
        dst = np.full((batch, rows), np.nan, np.float32)
        q.op(rows, cols, vx=blocks, dst=dst, batch=batch, **{name: y})
        np.testing.assert_array_equal(dst, want)
    with pytest.raises(hr.ArgumentError) as e:
        q.op(rows, cols, vx=blocks, y=y, src=y, dst=dst, batch=batch)
    assert e.value.argument == "y"
    with pytest.raises(hr.ArgumentError) as e:
        q.op(rows, cols, vx=blocks, y=y, dst=dst[:2], batch=batch)
    assert e.value.argument == "dst"
    with pytest.raises(hr.ArgumentError) as e:
        q.op(rows, cols, y=y, dst=dst, batch=batch)
    assert e.value.argument == "vx"
