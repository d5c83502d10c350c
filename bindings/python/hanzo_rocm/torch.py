# SPDX-License-Identifier: LGPL-2.1-or-later
"""torch integration: stock operations as ``torch.library`` custom ops.

Imported explicitly (``import hanzo_rocm.torch``), never by ``hanzo_rocm``
itself; it needs torch >= 2.4 (``torch.library.custom_op``).  Registers:

* ``torch.ops.hanzo_rocm.rmsnorm(x, weight, eps)``: RMS norm over the last
  dimension (weight may be None);
* ``torch.ops.hanzo_rocm.softmax(x)``: softmax over the last dimension;

for float32, float64, float16 and bfloat16 tensors, each with a fake
(meta) implementation so they trace under ``torch.compile``.  CUDA (or
ROCm) tensors run on the matching GPU of :func:`context`; CPU tensors on
its host device (the host backend).  The launch goes to torch's current
stream.
"""

import os
import threading
from typing import Optional

import torch

from . import PLATFORM_AMD, PLATFORM_HOST, PLATFORM_NVIDIA, Context

if not hasattr(torch, "library") or not hasattr(torch.library, "custom_op"):
    raise ImportError("hanzo_rocm.torch needs torch >= 2.4 (torch.library.custom_op); "
                      "this is torch %s" % torch.__version__)

_SUFFIX = {torch.float32: "f32", torch.float64: "f64", torch.float16: "f16",
           torch.bfloat16: "bf16"}
_lock = threading.Lock()
_ctx = None


def context():
    """The context the ops use: created on first use, with the host device
    of ``$HANZO_ROCM_HOST`` (default "host-w64") for CPU tensors."""
    global _ctx
    with _lock:
        if _ctx is None:
            _ctx = Context(host=os.environ.get("HANZO_ROCM_HOST") or "host-w64")
        return _ctx


def _device_index(t):
    ctx = context()
    if t.device.type == "cpu":
        want, ordinal = PLATFORM_HOST, 0
    elif t.device.type == "cuda":
        want = PLATFORM_AMD if getattr(torch.version, "hip", None) else PLATFORM_NVIDIA
        ordinal = t.device.index if t.device.index is not None else torch.cuda.current_device()
    else:
        raise RuntimeError("hanzo_rocm: no device for a %s tensor" % t.device)
    for d in ctx.devices:
        if d.platform == want and d.ordinal == ordinal:
            return d.index
    raise RuntimeError("hanzo_rocm: the context has no device for %s (devices %r)"
                       % (t.device, ctx.devices))


def kernel(family, stem, t):
    """The kernel ``stem_<dtype>`` of a family for tensor t's dtype and device."""
    sfx = _SUFFIX.get(t.dtype)
    if sfx is None:
        raise TypeError("hanzo_rocm: %s is not one of %s" % (t.dtype, list(_SUFFIX)))
    return context().kernel(family, "%s_%s" % (stem, sfx), device=_device_index(t))


def _rows_cols(x):
    cols = x.shape[-1] if x.dim() else 1
    return (x.numel() // cols if cols else 0), cols


@torch.library.custom_op("hanzo_rocm::rmsnorm", mutates_args=())
def rmsnorm(x: torch.Tensor, weight: Optional[torch.Tensor], eps: float) -> torch.Tensor:
    """RMS norm of x over its last dimension, times weight (None: 1)."""
    x = x.contiguous()
    out = torch.empty_like(x)
    rows, cols = _rows_cols(x)
    w = weight.contiguous() if weight is not None else None
    kernel("norm", "rmsnorm", x).op(rows, cols, x=x, dst=out, alpha=w, eps=eps)
    return out


@rmsnorm.register_fake
def _rmsnorm_fake(x, weight, eps):
    return torch.empty_like(x)


@torch.library.custom_op("hanzo_rocm::softmax", mutates_args=())
def softmax(x: torch.Tensor) -> torch.Tensor:
    """Softmax of x over its last dimension."""
    x = x.contiguous()
    out = torch.empty_like(x)
    rows, cols = _rows_cols(x)
    kernel("norm", "softmax", x).op(rows, cols, src=x, dst=out)
    return out


@softmax.register_fake
def _softmax_fake(x):
    return torch.empty_like(x)
