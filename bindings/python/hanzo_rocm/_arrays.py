# SPDX-License-Identifier: LGPL-2.1-or-later
"""Arrays of other libraries as the kernels' pointers.

Internal.  An argument for a pointer parameter may be:

* a numpy array (or anything with ``__array_interface__``): host memory,
  for the host backend;
* anything with ``__cuda_array_interface__`` (CuPy, Numba, torch CUDA
  tensors): device memory;
* anything with ``__dlpack__``/``__dlpack_device__`` (torch, JAX, CuPy,
  numpy >= 1.22): the capsule is read, not consumed, and kept alive until
  the launch has been queued;
* a :class:`hanzo_rocm.Pointer`: a raw address with its size and device;
* ``hanzo_rocm.NULL``: NULL, where the kernel takes it (None is refused,
  except for the operation call's optional alpha and beta).
"""

import ctypes
import sys

# DLPack device types (dlpack.h).
DL_CPU, DL_CUDA, DL_CUDA_HOST, DL_ROCM, DL_ROCM_HOST, DL_CUDA_MANAGED = 1, 2, 3, 10, 11, 13
DEVICE_NAMES = {DL_CPU: "cpu", DL_CUDA: "cuda", DL_CUDA_HOST: "cuda_host",
                DL_ROCM: "rocm", DL_ROCM_HOST: "rocm_host",
                DL_CUDA_MANAGED: "cuda_managed"}
# DLPack type codes: int, uint, float, bfloat, complex, bool.
_DL_KIND = {0: "i", 1: "u", 2: "f", 4: "bf", 5: "c", 6: "b"}


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice),
                ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


_capsule_ptr = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_ptr.restype = ctypes.c_void_p
_capsule_ptr.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule_valid = ctypes.pythonapi.PyCapsule_IsValid
_capsule_valid.restype = ctypes.c_int
_capsule_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]


class Buf:
    """One array as the launch sees it: address, extent, element type, device.

    ``kind`` is "i", "u", "f", "bf", "b", "c" or "V" (opaque) and ``bits``
    the element's width; ``nbytes`` the bytes from ``ptr`` to the end of
    the last element; ``keep`` whatever must stay alive until the launch is
    queued (a DLPack capsule).
    """
    __slots__ = ("ptr", "nbytes", "kind", "bits", "dev_type", "dev_id",
                 "contiguous", "readonly", "numel", "keep", "obj")

    def __init__(self, ptr, nbytes, kind, bits, dev_type, dev_id, contiguous,
                 readonly, numel, keep, obj):
        self.ptr, self.nbytes, self.kind, self.bits = ptr, nbytes, kind, bits
        self.dev_type, self.dev_id = dev_type, dev_id
        self.contiguous, self.readonly, self.numel = contiguous, readonly, numel
        self.keep, self.obj = keep, obj

    @property
    def itemsize(self):
        """Bytes per element."""
        return max(1, self.bits // 8)

    def device_name(self):
        """The device as text, e.g. "cuda:0" or "cpu"."""
        n = DEVICE_NAMES.get(self.dev_type, "device type %d" % self.dev_type)
        return n if self.dev_type == DL_CPU else "%s:%s" % (n, self.dev_id)


def _extent(shape, strides, itemsize):
    """(numel, bytes spanned, contiguous) of a strided array (strides in bytes)."""
    numel = 1
    for s in shape:
        numel *= s
    if numel == 0:
        return 0, 0, True
    if strides is None:
        return numel, numel * itemsize, True
    last = 0
    for n, st in zip(shape, strides):
        if st < 0:
            return numel, None, False   # negative strides: refused below
        last += (n - 1) * st
    expect, contiguous = itemsize, True
    for n, st in reversed(list(zip(shape, strides))):
        if n != 1 and st != expect:
            contiguous = False
        expect *= n
    return numel, last + itemsize, contiguous


def _typestr(ts):
    """(kind, bits) of an __array_interface__ typestr such as '<f4'."""
    if len(ts) < 3 or not ts[2:].isdigit():
        raise ValueError("typestr %r" % ts)
    kind = ts[1]
    bits = int(ts[2:]) * 8
    if kind in "iufcb":
        return kind, bits
    return "V", bits


def _from_interface(obj, ai, dev_type, dev_id):
    shape = tuple(int(s) for s in ai["shape"])
    kind, bits = _typestr(ai["typestr"])
    item = max(1, bits // 8)
    strides = ai.get("strides")
    if strides is not None:
        strides = tuple(int(s) for s in strides)
    numel, span, contiguous = _extent(shape, strides, item)
    if span is None:
        raise ValueError("negative strides")
    data = ai.get("data")
    if isinstance(data, tuple):
        ptr, readonly = int(data[0] or 0), bool(data[1])
    else:
        raise ValueError("no data pointer in the array interface")
    return Buf(ptr, span, kind, bits, dev_type, dev_id, contiguous, readonly,
               numel, None, obj)


def _from_dlpack(obj):
    try:
        dev_type, dev_id = obj.__dlpack_device__()
    except Exception:                   # noqa: BLE001 - the library says why
        dev_type, dev_id = None, None
    try:
        if dev_type in (DL_CUDA, DL_ROCM):
            # Ask for no stream synchronization: the launch goes to the
            # caller's stream, which orders it.
            cap = obj.__dlpack__(stream=None)
        else:
            cap = obj.__dlpack__()
    except TypeError:
        cap = obj.__dlpack__()
    if not _capsule_valid(cap, b"dltensor"):
        raise ValueError("__dlpack__ did not return a DLPack capsule")
    addr = _capsule_ptr(cap, b"dltensor")
    # DLManagedTensor starts with its DLTensor.
    t = _DLTensor.from_address(addr)
    nd = t.ndim
    if nd < 0 or nd > 64:
        raise ValueError("DLPack tensor of %d dimensions" % nd)
    shape = tuple(t.shape[i] for i in range(nd))
    if t.dtype.lanes != 1:
        raise ValueError("DLPack vector types (lanes %d)" % t.dtype.lanes)
    kind = _DL_KIND.get(t.dtype.code, "V")
    bits = t.dtype.bits
    item = max(1, bits // 8)
    strides = None
    if t.strides:
        strides = tuple(t.strides[i] * item for i in range(nd))
    numel, span, contiguous = _extent(shape, strides, item)
    if span is None:
        raise ValueError("negative strides")
    ptr = (t.data or 0) + t.byte_offset
    return Buf(ptr, span, kind, bits, t.device.device_type, t.device.device_id,
               contiguous, False, numel, cap, obj)


def _torch_buf(obj):
    """A torch tensor, read directly (cheaper than a capsule)."""
    dev = obj.device
    if dev.type == "cpu":
        dt, di = DL_CPU, 0
    elif dev.type == "cuda":
        import torch
        dt = DL_ROCM if getattr(torch.version, "hip", None) else DL_CUDA
        di = dev.index if dev.index is not None else torch.cuda.current_device()
    else:
        return None
    dtype = obj.dtype
    if dtype.is_complex:
        kind = "c"
    elif dtype.is_floating_point:
        kind = "bf" if str(dtype) == "torch.bfloat16" else "f"
    elif str(dtype) == "torch.bool":
        kind = "b"
    elif str(dtype).startswith("torch.uint"):
        kind = "u"
    else:
        kind = "i"
    item = obj.element_size()
    numel, span, contiguous = _extent(tuple(obj.shape),
                                      tuple(s * item for s in obj.stride()), item)
    if span is None:
        raise ValueError("negative strides")
    return Buf(obj.data_ptr(), span, kind, item * 8, dt, di, contiguous, False,
               numel, None, obj)


def as_buf(obj):
    """The :class:`Buf` of an array; ValueError/TypeError say why not."""
    from . import Pointer
    if isinstance(obj, Pointer):
        return Buf(obj.address, obj.nbytes, "V", 0, obj.device_type, obj.device_id,
                   True, False, obj.nbytes, None, obj)
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(obj, torch.Tensor):
        b = _torch_buf(obj)
        if b is not None:
            return b
    if hasattr(obj, "__array_interface__") and not hasattr(obj, "__cuda_array_interface__"):
        return _from_interface(obj, obj.__array_interface__, DL_CPU, 0)
    if hasattr(obj, "__cuda_array_interface__"):
        dt, di = DL_CUDA, -1
        if hasattr(obj, "__dlpack_device__"):
            try:
                dt, di = obj.__dlpack_device__()
            except Exception:       # noqa: BLE001
                pass
        return _from_interface(obj, obj.__cuda_array_interface__, dt, di)
    if hasattr(obj, "__dlpack__"):
        return _from_dlpack(obj)
    raise TypeError("%s is not an array (no __dlpack__, __cuda_array_interface__ "
                    "or __array_interface__)" % type(obj).__name__)
