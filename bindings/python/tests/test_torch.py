# SPDX-License-Identifier: LGPL-2.1-or-later
"""The torch integration: tensors as arguments, the custom ops eagerly and
under torch.compile; CPU tensors on the host backend, CUDA tensors where a
GPU and CUDA torch are there.  Skipped without torch >= 2.4."""

import pytest

torch = pytest.importorskip("torch")
if not hasattr(torch.library, "custom_op"):
    pytest.skip("torch %s has no torch.library.custom_op" % torch.__version__,
                allow_module_level=True)

import hanzo_rocm as hr                 # noqa: E402
import hanzo_rocm.torch as hrt          # noqa: E402

DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


def ref_rms(x, w, eps):
    x64 = x.double()
    return x64 * torch.rsqrt((x64 * x64).mean(-1, keepdim=True) + eps) * w.double()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(3, 1000), (2, 1 << 17)])
def test_op_on_tensors(device, shape):
    g = torch.Generator(device="cpu").manual_seed(0)
    x = torch.randn(shape, generator=g).to(device)
    w = torch.randn(shape[-1], generator=g).to(device)
    k = hrt.kernel("norm", "rmsnorm", x)
    y = torch.full_like(x, float("nan"))
    k.op(shape[0], shape[1], x=x, dst=y, alpha=w, eps=1e-5)   # workspace allocated here
    torch.testing.assert_close(y.double(), ref_rms(x, w, 1e-5), rtol=2e-5, atol=2e-5)
    if device == "cuda":
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            y2 = torch.empty_like(x)
        k.op(shape[0], shape[1], x=x, dst=y2, alpha=w, eps=1e-5, stream=s)
        s.synchronize()
        torch.testing.assert_close(y2, y)


@pytest.mark.parametrize("device", DEVICES)
def test_custom_ops_compile(device):
    x = torch.randn(4, 512, device=device)
    w = torch.randn(512, device=device)

    def f(x, w):
        return torch.ops.hanzo_rocm.softmax(torch.ops.hanzo_rocm.rmsnorm(x, w, 1e-6) * 2)

    eager = f(x, w)
    want = torch.softmax(ref_rms(x, w, 1e-6) * 2, -1)
    torch.testing.assert_close(eager.double(), want, rtol=1e-5, atol=1e-6)
    backend = "inductor" if device == "cuda" else "aot_eager"
    compiled = torch.compile(f, fullgraph=True, backend=backend)
    torch.testing.assert_close(compiled(x, w), eager)


def test_device_mismatch():
    if not torch.cuda.is_available():
        pytest.skip("no CUDA torch")
    x = torch.randn(2, 8, device="cuda")
    k = hrt.kernel("norm", "rmsnorm", torch.empty(1))       # the host device
    with pytest.raises(hr.Error) as e:
        k.op(2, 8, x=x, dst=torch.empty_like(x), eps=1e-5)
    assert e.value.errno == 18                               # EXDEV
