# SPDX-License-Identifier: LGPL-2.1-or-later
"""hanzo_rocm: precompiled, cached GPU kernels from Python.

A pure-Python binding (ctypes) of the installed C library libhanzo-rocm
(libhanzo-rocm(3)): kernel families found in tiered caches, compiled on a
miss, launched through HIP, the CUDA driver or the host backend (the same
kernels on the CPU); a caller's own HIP source through the same cache; the
self-describing catalogue; the operation call that picks a kernel's form
and checks its workspace.

Example (the host backend, numpy arrays)::

    import numpy as np
    import hanzo_rocm

    ctx = hanzo_rocm.Context(host="host-w64")
    dev = ctx.devices[-1]                     # the host device
    k = ctx.kernel("norm", "rmsnorm_f32", device=dev.index)
    x = np.random.rand(4, 1000).astype(np.float32)
    w = np.ones(1000, np.float32)
    y = np.empty_like(x)
    k.op(4, 1000, x=x, dst=y, alpha=w, eps=1e-5)

Arrays: anything with ``__dlpack__``/``__dlpack_device__`` or
``__cuda_array_interface__`` (torch, CuPy, JAX) and numpy arrays
(``__array_interface__``, host devices only); :class:`Pointer` for a raw
address.  Every argument is checked against the kernel's signature in the
catalogue before anything is launched: a wrong type, count, device or a
too-small buffer raises :class:`ArgumentError` (or :class:`Error` with
``errno.EXDEV`` for a device mismatch) naming the argument.  The library's
own errors are :class:`Error` with its negative errno and
``hanzo_rocm_strerror``'s text.

Launches are queued on the caller's stream (``stream=``: a raw
``hipStream_t``/``CUstream`` handle as an int, a ``torch.cuda.Stream``,
a CuPy stream; default: torch's current stream for torch tensors, else the
default stream).  Argument storage lives until the launch is queued; the
arrays themselves must live until the kernel has run, as with any
asynchronous launch.
"""

import ctypes
import errno as _errno
import numbers
import re
import struct
import sys
import threading
from collections import namedtuple

from . import _ffi
from ._arrays import (DL_CPU, DL_CUDA, DL_CUDA_HOST, DL_CUDA_MANAGED, DL_ROCM,
                      DL_ROCM_HOST, as_buf)

__all__ = ["Context", "Device", "Kernel", "Module", "Catalogue", "KernelInfo",
           "Arg", "Layout", "Pointer", "NULL", "Geometry", "GeometryEx", "Error",
           "ArgumentError", "CompileError", "strerror",
           "PLATFORM_AMD", "PLATFORM_NVIDIA", "PLATFORM_HOST"]
__version__ = "0.1.0"

PLATFORM_AMD = 1
PLATFORM_NVIDIA = 2
PLATFORM_HOST = 3
_PLATFORM_NAMES = {PLATFORM_AMD: "amd", PLATFORM_NVIDIA: "nvidia", PLATFORM_HOST: "host"}


# --------------------------------------------------------------------------
# Errors


def strerror(err):
    """The library's text for an errno (negative or positive)."""
    err = int(err)
    return _ffi.lib().hanzo_rocm_strerror(-abs(err)).decode("utf-8", "replace")


class Error(OSError):
    """An error of libhanzo-rocm or of this package's checks.

    ``errno`` is the positive errno (``code`` the library's negative
    return value), ``strerror`` the library's text for it, ``what`` the
    call or argument concerned.
    """

    def __init__(self, code, what, detail=None):
        code = -abs(int(code))
        text = strerror(code)
        msg = "%s: %s" % (what, detail if detail else text)
        super().__init__(-code, msg)
        self.code = code
        self.what = what
        self.text = text

    def __str__(self):
        name = _errno.errorcode.get(-self.code, str(-self.code))
        return "%s (%s)" % (self.strerror, name)


class ArgumentError(Error, TypeError, ValueError):
    """A wrong argument, found before anything was launched.

    ``argument`` names it; ``errno`` is EINVAL (ENOSPC for a too-small
    workspace).  It is also a TypeError and a ValueError.
    """

    def __init__(self, argument, detail, code=-_errno.EINVAL, kernel=None):
        what = "argument %r" % argument
        if kernel:
            what = "%s: %s" % (kernel, what)
        super().__init__(code, what, detail)
        self.argument = argument


class CompileError(Error):
    """The compiler rejected a caller's source; ``diagnostics`` is its text."""

    def __init__(self, code, what, diagnostics):
        super().__init__(code, what,
                         "the compiler rejected the source:\n%s" % (diagnostics or ""))
        self.diagnostics = diagnostics or ""


def _check(rc, what):
    if rc < 0:
        raise Error(rc, what)
    return rc


def _b(s, what):
    if not isinstance(s, str):
        raise ArgumentError(what, "expected str, got %s" % type(s).__name__)
    if "\0" in s:
        raise ArgumentError(what, "contains a NUL character")
    return s.encode("utf-8")


def _s(p):
    return p.decode("utf-8", "replace") if p is not None else None


# --------------------------------------------------------------------------
# Argument types


# C scalar type -> struct format ("bf" is bfloat16, "L" the layout).
_SCALARS = {
    "float": "f", "double": "d", "hr_f16": "e", "hr_bf16": "bf",
    "hanzo_rocm_f16": "e", "hanzo_rocm_bf16": "bf",
    "int": "i", "signed": "i", "signed int": "i", "int32_t": "i",
    "unsigned": "I", "unsigned int": "I", "uint32_t": "I",
    "long": "q", "long int": "q", "long long": "q", "int64_t": "q",
    "ssize_t": "q", "ptrdiff_t": "q", "intptr_t": "q",
    "unsigned long": "Q", "unsigned long long": "Q", "uint64_t": "Q",
    "size_t": "Q", "uintptr_t": "Q",
    "short": "h", "int16_t": "h", "unsigned short": "H", "uint16_t": "H",
    "char": "b", "signed char": "b", "int8_t": "b",
    "unsigned char": "B", "uint8_t": "B", "bool": "?",
    "hr_layout": "L", "hanzo_rocm_layout": "L", "struct hanzo_rocm_layout": "L",
}
_QUALIFIERS = {"const", "volatile", "restrict", "__restrict__", "__restrict"}
# Element types of pointer arguments: the (kind, bits) an array may have.
_INTS = ("i", "u")
_ELEMENTS = {
    "f": (("f",), 32), "d": (("f",), 64), "e": (("f", "i", "u"), 16),
    "bf": (("bf", "i", "u", "V"), 16),
    "i": (_INTS, 32), "I": (_INTS, 32), "q": (_INTS, 64), "Q": (_INTS, 64),
    "h": (_INTS, 16), "H": (_INTS, 16), "b": (_INTS + ("b",), 8),
    "B": (_INTS + ("b",), 8), "?": (("b", "u", "i"), 8),
}


class Arg:
    """One argument of a kernel's signature.

    ``type`` as in the source (``"const float *"``), ``name``, ``bytes``
    its size as a launch argument, ``pointer`` whether it is one,
    ``const`` whether the kernel only reads through it, ``base`` the
    element or scalar type without qualifiers; from the catalogue also
    ``doc`` (what it means), ``may_be_null`` and ``bind`` (what
    :meth:`Kernel.op` gives it when it is not named: ``"src"``, ``"cols"``,
    ...; None: it must be named).
    """
    __slots__ = ("type", "name", "bytes", "pointer", "const", "base", "fmt", "doc",
                 "may_be_null", "bind")

    def __init__(self, type_, name, nbytes=None, doc=None, may_be_null=False, bind=None):
        self.type = type_.strip()
        self.name = name
        self.doc, self.may_be_null, self.bind = doc, bool(may_be_null), bind
        self.pointer = "*" in self.type
        words = [w for w in self.type.replace("*", " * ").split()]
        self.const = self.pointer and "const" in words[:words.index("*")]
        self.base = " ".join(w for w in words if w not in _QUALIFIERS and w != "*")
        self.fmt = None if self.pointer else _SCALARS.get(self.base)
        if nbytes is None or nbytes == 0:
            if self.pointer:
                nbytes = 8
            elif self.fmt == "L":
                nbytes = ctypes.sizeof(_ffi.Layout)
            elif self.fmt == "bf":
                nbytes = 2
            elif self.fmt:
                nbytes = struct.calcsize("=" + self.fmt)
            else:
                nbytes = 0
        self.bytes = int(nbytes)

    def __repr__(self):
        return "Arg(%r, %r, %d)" % (self.type, self.name, self.bytes)


def _parse_signature(sig):
    """[Arg] of a C argument list such as "const float *x, int n"."""
    args = []
    sig = sig.strip()
    if not sig or sig == "void":
        return args
    for part in sig.split(","):
        part = part.strip()
        m = re.match(r"^(.*?)([A-Za-z_][A-Za-z0-9_]*)\s*$", part)
        if not m or not m.group(1).strip():
            raise ValueError("cannot read the argument %r" % part)
        args.append(Arg(m.group(1), m.group(2)))
    return args


class Layout:
    """The kernels' tensor layout (``hr_layout``), passed by value.

    ``Layout(dims, strides)``: ``dims`` up to 8 sizes, ``strides`` one
    stride tuple (in elements) per operand (1 to 3), ``None`` for a
    contiguous operand; ``Layout()`` is the zeroed layout.
    """

    def __init__(self, dims=(), strides=(None,)):
        self._c = _ffi.Layout()
        dims = list(dims)
        strides = list(strides)
        if not dims and strides == [None]:
            return
        if len(dims) > _ffi.MAX_DIMS:
            raise ArgumentError("dims", "more than %d dims" % _ffi.MAX_DIMS)
        if not 1 <= len(strides) <= _ffi.MAX_OPERANDS:
            raise ArgumentError("strides", "1 to 3 operands")
        D = ctypes.c_size_t * max(1, len(dims))
        try:
            cd = D(*dims)
            keep = []
            sp = (ctypes.POINTER(ctypes.c_size_t) * len(strides))()
            for i, s in enumerate(strides):
                if s is None:
                    continue
                s = list(s)
                if len(s) != len(dims):
                    raise ArgumentError("strides", "operand %d has %d strides for %d dims"
                                        % (i, len(s), len(dims)))
                a = (ctypes.c_size_t * max(1, len(s)))(*s)
                keep.append(a)
                sp[i] = ctypes.cast(a, ctypes.POINTER(ctypes.c_size_t))
        except (TypeError, OverflowError) as e:
            raise ArgumentError("dims", str(e)) from None
        _check(_ffi.lib().hanzo_rocm_layout_init(ctypes.byref(self._c), len(dims), cd,
                                                 len(strides), sp), "layout_init")

    @property
    def v(self):
        """The 32 values: dims, then each operand's strides."""
        return tuple(self._c.v)

    def __repr__(self):
        return "Layout(%r)" % (self.v,)


class Pointer:
    """A raw device (or host) address with its size in bytes and device.

    ``device`` is ``"cpu"``, ``"cuda:N"`` or ``"rocm:N"`` (default
    ``"cpu"``).  Use it for memory no array object describes.
    """

    def __init__(self, address, nbytes, device="cpu"):
        import operator
        self.address = operator.index(address)
        self.nbytes = operator.index(nbytes)
        if self.address < 0 or self.nbytes < 0:
            raise ValueError("negative address or size")
        kind, _, idx = str(device).partition(":")
        types = {"cpu": DL_CPU, "cuda": DL_CUDA, "rocm": DL_ROCM}
        if kind not in types:
            raise ValueError("device %r: cpu, cuda:N or rocm:N" % device)
        self.device_type = types[kind]
        self.device_id = int(idx) if idx else 0

    def __repr__(self):
        return "Pointer(0x%x, %d)" % (self.address, self.nbytes)


NULL = Pointer(0, 0)
NULL.__doc__ = """The NULL pointer, for a pointer argument the kernel documents
as optional (None is refused: it is too easy to pass by mistake)."""


def _bf16_bits(x):
    (u,) = struct.unpack("=I", struct.pack("=f", x))
    if (u & 0x7F800000) == 0x7F800000 and (u & 0x7FFFFF):
        return (u >> 16) | 0x40
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF


def _pack_scalar(arg, value, where):
    """The bytes of a scalar argument, checked against its C type."""
    import numbers
    import operator
    fmt = arg.fmt
    if fmt == "L":
        if value is None:
            return bytes(arg.bytes)
        if not isinstance(value, Layout):
            raise ArgumentError(arg.name, "expected a hanzo_rocm.Layout for %s, got %s"
                                % (arg.type, type(value).__name__), kernel=where)
        return bytes(value._c)
    if fmt is None:
        raise ArgumentError(arg.name, "type %r is unknown to this package: launch it "
                            "with a signature of known types" % arg.type, kernel=where)
    if isinstance(value, (bool,)) and fmt != "?":
        raise ArgumentError(arg.name, "expected %s, got bool" % arg.type, kernel=where)
    try:
        if fmt in ("f", "d", "e", "bf"):
            if not isinstance(value, numbers.Real) and not hasattr(value, "__float__"):
                raise TypeError
            if hasattr(value, "__len__"):
                raise TypeError
            f = float(value)
            if fmt == "bf":
                return struct.pack("=H", _bf16_bits(f))
            return struct.pack("=" + fmt, f)
        return struct.pack("=" + fmt, operator.index(value))
    except TypeError:
        raise ArgumentError(arg.name, "expected %s, got %s" % (arg.type, type(value).__name__),
                            kernel=where) from None
    except (struct.error, OverflowError):
        raise ArgumentError(arg.name, "%r does not fit %s" % (value, arg.type),
                            kernel=where) from None


Geometry = namedtuple("Geometry", "grid block shared splits")
Geometry.__doc__ = """A launch by work: grid and block (3-tuples), dynamic shared
memory bytes, and the partials per row of a rows-split kernel (else 1)."""
GeometryEx = namedtuple("GeometryEx", "geometry workspace op_workspace op_form op_passes")
GeometryEx.__doc__ = """The geometry with the workspace: the kernel's own launch's
workspace bytes, and what the operation call would do (its workspace,
form and number of launches)."""


# --------------------------------------------------------------------------
# Catalogue


class KernelInfo:
    """One kernel of the catalogue (``hanzo-rocm kernels``).

    Fields as struct hanzo_rocm_kernel_desc: ``family``, ``name``,
    ``signature``, ``args`` (a list of :class:`Arg`), ``launch`` (the
    launch kind, None: raw launch only), ``rows``, ``cols`` (what the work
    means), ``form``, ``op``, ``split``, ``second``, ``ws_per_partial``,
    ``notes``, ``wide``, ``ws_per_col``.
    """
    _FIELDS = ("family", "name", "signature", "launch", "rows", "cols", "form", "op",
               "split", "second", "ws_per_partial", "notes", "wide", "ws_per_col")

    def __init__(self, **kw):
        for f in self._FIELDS:
            setattr(self, f, kw.get(f))
        self.args = kw.get("args", [])

    def as_dict(self):
        """The fields as a dict (args as [type, name, bytes] lists)."""
        d = {f: getattr(self, f) for f in self._FIELDS}
        d["args"] = [[a.type, a.name, a.bytes] for a in self.args]
        return d

    def __repr__(self):
        return "KernelInfo(%s/%s(%s))" % (self.family, self.name, self.signature)


class Catalogue:
    """Every kernel of the installed families (or one family), by name.

    ``cat[family, name]`` or ``cat.get(family, name)`` gives a
    :class:`KernelInfo`; iterating gives them all in the library's order;
    ``cat.families`` lists the families.
    """

    def __init__(self, ctx, family=None):
        L = _ffi.lib()
        p = ctypes.c_void_p()
        fam = _b(family, "family") if family is not None else None
        _check(L.hanzo_rocm_catalogue_new(ctx._ptr, fam, ctypes.byref(p)),
               "catalogue(%s)" % (family or "all"))
        self._kernels = []
        self._index = {}
        try:
            n = L.hanzo_rocm_catalogue_count(p)
            for i in range(n):
                d = _ffi.KernelDesc()
                d.size = ctypes.sizeof(d)
                _check(L.hanzo_rocm_catalogue_kernel(p, i, ctypes.byref(d)), "catalogue_kernel")
                args = []
                for j in range(d.n_args):
                    a = _ffi.ArgDesc()
                    a.size = ctypes.sizeof(a)
                    _check(L.hanzo_rocm_catalogue_arg(p, i, j, ctypes.byref(a)),
                           "catalogue_arg")
                    args.append(Arg(_s(a.type), _s(a.name), a.bytes, doc=_s(a.doc),
                                    may_be_null=a.may_be_null, bind=_s(a.bind)))
                k = KernelInfo(family=_s(d.family), name=_s(d.name),
                               signature=_s(d.signature), launch=_s(d.launch),
                               rows=_s(d.rows), cols=_s(d.cols), form=_s(d.form),
                               op=_s(d.op), split=_s(d.split), second=_s(d.second),
                               ws_per_partial=d.ws_per_partial, notes=_s(d.notes),
                               wide=_s(d.wide), ws_per_col=d.ws_per_col, args=args)
                self._kernels.append(k)
                self._index[(k.family, k.name)] = k
        finally:
            L.hanzo_rocm_catalogue_unref(p)

    @property
    def families(self):
        """The families, in the catalogue's order."""
        seen = []
        for k in self._kernels:
            if k.family not in seen:
                seen.append(k.family)
        return seen

    def get(self, family, name, default=None):
        """The :class:`KernelInfo` of family/name, or default."""
        return self._index.get((family, name), default)

    def __getitem__(self, key):
        return self._index[tuple(key)]

    def __contains__(self, key):
        return tuple(key) in self._index

    def __iter__(self):
        return iter(self._kernels)

    def __len__(self):
        return len(self._kernels)

    def __repr__(self):
        return "Catalogue(%d kernels, %d families)" % (len(self), len(self.families))


# --------------------------------------------------------------------------
# Context and devices


class Device:
    """One device of a context: ``index``, ``target`` (e.g. "gfx90a",
    "sm_90", "host-w64"), ``platform`` (PLATFORM_AMD, PLATFORM_NVIDIA or
    PLATFORM_HOST) and ``ordinal`` (its HIP or CUDA device number; 0 for
    host devices)."""

    def __init__(self, index, target, platform, ordinal):
        self.index, self.target, self.platform, self.ordinal = index, target, platform, ordinal

    @property
    def platform_name(self):
        """"amd", "nvidia" or "host"."""
        return _PLATFORM_NAMES.get(self.platform, str(self.platform))

    def __repr__(self):
        return "Device(%d, %r, %s)" % (self.index, self.target, self.platform_name)


class Context:
    """A libhanzo-rocm context (thread-safe; share one per process).

    Keyword options (all optional, as struct hanzo_rocm_options):
    ``host`` host devices to add after the GPUs ("host-w64 host-w32";
    default ``$HANZO_ROCM_HOST``), ``root``, ``config``, ``plugin_path``,
    ``log_priority`` (syslog priority; 0: the library's default, silent).
    Usable as a context manager; :meth:`close` frees it (kernels of it
    then fail).
    """

    def __init__(self, *, host=None, root=None, config=None, plugin_path=None,
                 log_priority=0):
        L = _ffi.lib()
        o = _ffi.Options()
        o.size = ctypes.sizeof(o)
        o.host = _b(host, "host") if host is not None else None
        o.root = _b(root, "root") if root is not None else None
        o.config = _b(config, "config") if config is not None else None
        o.plugin_path = _b(plugin_path, "plugin_path") if plugin_path is not None else None
        import operator
        o.log_priority = operator.index(log_priority)
        p = ctypes.c_void_p()
        _check(L.hanzo_rocm_new_with_options(ctypes.byref(o), ctypes.byref(p)), "hanzo_rocm_new")
        self._ptr = p
        self._lock = threading.Lock()
        self._kernels = {}
        self._modules = {}
        self._cats = {}
        self._devices = None

    def close(self):
        """Frees the context (idempotent)."""
        p, self._ptr = getattr(self, "_ptr", None), None
        if p:
            _ffi.lib().hanzo_rocm_unref(p)

    def __del__(self):
        try:
            self.close()
        except Exception:           # noqa: BLE001 - interpreter shutdown
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _p(self):
        if not self._ptr:
            raise Error(-_errno.EINVAL, "context", "the context was closed")
        return self._ptr

    @property
    def devices(self):
        """The devices: AMD first, then NVIDIA, then host devices."""
        if self._devices is None:
            L = _ffi.lib()
            n = _check(L.hanzo_rocm_device_count(self._p()), "device_count")
            devs, per = [], {}
            for i in range(n):
                t = ctypes.c_char_p()
                _check(L.hanzo_rocm_device_target(self._p(), i, ctypes.byref(t)),
                       "device_target(%d)" % i)
                plat = _check(L.hanzo_rocm_device_platform(self._p(), i),
                              "device_platform(%d)" % i)
                ordinal = per.get(plat, 0)
                per[plat] = ordinal + 1
                devs.append(Device(i, _s(t.value), plat, ordinal))
            self._devices = devs
        return list(self._devices)

    @property
    def device_count(self):
        """The number of devices."""
        return len(self.devices)

    @property
    def targets(self):
        """Each device's target, in device order."""
        return [d.target for d in self.devices]

    def device(self, index):
        """The :class:`Device` of an index; ArgumentError when out of range."""
        import operator
        try:
            i = operator.index(index)
        except TypeError:
            raise ArgumentError("device", "expected a device index, got %s"
                                % type(index).__name__) from None
        devs = self.devices
        if not 0 <= i < len(devs):
            raise ArgumentError("device", "%d is out of range: %d devices" % (i, len(devs)),
                                code=-_errno.ENODEV)
        return devs[i]

    @property
    def log_priority(self):
        """The log priority (syslog's); settable."""
        return _ffi.lib().hanzo_rocm_get_log_priority(self._p())

    @log_priority.setter
    def log_priority(self, value):
        _ffi.lib().hanzo_rocm_set_log_priority(self._p(), int(value))

    def catalogue(self, family=None):
        """The :class:`Catalogue` of every installed family, or of one."""
        return Catalogue(self, family)

    def _info(self, family, name):
        with self._lock:
            cat = self._cats.get(family)
        if cat is None:
            cat = Catalogue(self, family)
            with self._lock:
                self._cats[family] = cat
        return cat.get(family, name)

    def code_object(self, family, target):
        """The code object (bytes) of a family for a target, from the cache."""
        data, size = ctypes.c_void_p(), ctypes.c_size_t()
        _check(_ffi.lib().hanzo_rocm_code_object(self._p(), _b(family, "family"),
                                                 _b(target, "target"), ctypes.byref(data),
                                                 ctypes.byref(size)),
               "code_object(%s, %s)" % (family, target))
        return ctypes.string_at(data, size.value)

    def kernel(self, family, name, device=0):
        """A :class:`Kernel` of a family on a device (cached: a second call
        is a lookup).  ENOENT for an unknown family or kernel."""
        dev = self.device(device)
        key = (family, name, dev.index)
        k = self._kernels.get(key)
        if k is not None:
            return k
        fb, nb = _b(family, "family"), _b(name, "name")
        p = ctypes.c_void_p()
        _check(_ffi.lib().hanzo_rocm_kernel_get(self._p(), dev.index, fb, nb, ctypes.byref(p)),
               "kernel(%s, %s, device %d)" % (family, name, dev.index))
        info = self._info(family, name)
        k = Kernel(self, p, dev, name, family, info, info.args if info else None)
        self._kernels[key] = k
        return k

    def module(self, name, source, device=0, flags=None):
        """Compiles (or finds in the cache) a caller's HIP source for a
        device: a :class:`Module`.  ``flags``: extra compiler flags (host
        targets: only -D and -U).  A compile error raises
        :class:`CompileError` with the compiler's text."""
        L = _ffi.lib()
        if not L.has_source:
            raise Error(-_errno.ENOSYS, "module", "this libhanzo-rocm has no source-text API")
        dev = self.device(device)
        nb = _b(name, "name")
        if isinstance(source, str):
            src = source.encode("utf-8")
        elif isinstance(source, (bytes, bytearray)):
            src = bytes(source)
        else:
            raise ArgumentError("source", "expected str or bytes, got %s"
                                % type(source).__name__)
        fl = list(flags or ())
        cflags = None
        if fl:
            cflags = (ctypes.c_char_p * (len(fl) + 1))(*[_b(f, "flags") for f in fl], None)
        p, diag = ctypes.c_void_p(), ctypes.c_void_p()
        rc = L.hanzo_rocm_module_get(self._p(), dev.index, nb, src, len(src), cflags,
                                     ctypes.byref(p), ctypes.byref(diag))
        text = _ffi.take_string(diag.value)
        if rc == -_errno.EILSEQ:
            raise CompileError(rc, "module(%s)" % name, text)
        _check(rc, "module(%s, device %d)" % (name, dev.index))
        return Module(self, p, dev, name, src.decode("utf-8", "replace"))

    def __repr__(self):
        return "Context(%s)" % ", ".join(self.targets) if self._ptr else "Context(closed)"


class Module:
    """A caller's source compiled and loaded on one device (owned by its
    context).  :meth:`kernel` looks its kernels up by symbol name."""

    def __init__(self, ctx, ptr, device, name, source):
        self.context, self._ptr, self.device, self.name = ctx, ptr, device, name
        self._source = source
        self._kernels = {}

    def _signature(self, kernel):
        m = re.search(r"__global__[^;{(]*?\b" + re.escape(kernel) + r"\s*\(([^)]*)\)",
                      self._source)
        return m.group(1) if m else None

    def kernel(self, name, signature=None):
        """A :class:`Kernel` of this module.  Its argument types come from
        ``signature`` (``"const float *x, float *y, size_t n"``) or, when
        None, from the kernel's declaration in the source.  ENOENT: no such
        kernel."""
        k = self._kernels.get((name, signature))
        if k is not None:
            return k
        p = ctypes.c_void_p()
        _check(_ffi.lib().hanzo_rocm_module_kernel(self._ptr, _b(name, "name"),
                                                   ctypes.byref(p)),
               "module %s: kernel %s" % (self.name, name))
        sig = signature if signature is not None else self._signature(name)
        args = None
        if sig is not None:
            try:
                args = _parse_signature(sig)
            except ValueError as e:
                raise ArgumentError("signature", str(e)) from None
        info = KernelInfo(family=None, name=name, signature=sig, args=args or [])
        k = Kernel(self.context, p, self.device, name, None, info, args, module=self)
        self._kernels[(name, signature)] = k
        return k

    def __repr__(self):
        return "Module(%r on %r)" % (self.name, self.device)


# --------------------------------------------------------------------------
# Kernels


# What the operation call binds itself (libhanzo-rocm(3), Operations).
_OP_FIELDS = ("src", "dst", "alpha", "beta", "residual", "residual_out")
_OP_DERIVED = {"src", "x", "dst", "alpha", "beta", "residual", "residual_out", "ws",
               "ncols_pad", "ncols", "el_to_sum_per_block", "src_numel", "rows",
               "num_dims", "block_size", "splits", "eps", "info"}
_OP_OPTIONAL = {"alpha", "beta"}
_QMV_PREFIX = "dequantize_mul_mat_vec_"


def _resolve_stream(stream, bufs, device):
    """The raw stream handle (int) of stream= for a launch on device."""
    if stream is None:
        torch = sys.modules.get("torch")
        if torch is not None and device.platform != PLATFORM_HOST:
            for b in bufs:
                if isinstance(b.obj, torch.Tensor) and b.obj.is_cuda:
                    return torch.cuda.current_stream(b.obj.device).cuda_stream, None
        return 0, None
    if isinstance(stream, bool):
        raise ArgumentError("stream", "expected a stream, got bool")
    if isinstance(stream, int):
        if stream < 0:
            raise ArgumentError("stream", "negative handle")
        return stream, None
    for attr in ("cuda_stream", "ptr", "handle"):
        h = getattr(stream, attr, None)
        if isinstance(h, int) and not isinstance(h, bool):
            return h, stream
    raise ArgumentError("stream", "expected a raw handle (int), a torch.cuda.Stream or a "
                        "CuPy stream, got %s" % type(stream).__name__)


class _Launch:
    """Argument storage of one launch: kept alive until the call returns
    (the launch is then queued and the driver has copied the values)."""

    def __init__(self):
        self.keep = []
        self.bufs = []

    def value(self, data):
        words = (len(data) + 7) // 8 or 1
        cell = (ctypes.c_uint64 * words)()
        ctypes.memmove(cell, data, len(data))
        self.keep.append(cell)
        return ctypes.addressof(cell)


class Kernel:
    """A loaded kernel on one device (from :meth:`Context.kernel` or
    :meth:`Module.kernel`).

    ``name``, ``family`` (None for a module's kernel), ``device`` (a
    :class:`Device`), ``info`` (its :class:`KernelInfo`), ``args`` (its
    :class:`Arg` list; None when the types are unknown).
    """

    def __init__(self, ctx, ptr, device, name, family, info, args, module=None):
        self.context, self._ptr, self.device = ctx, ptr, device
        self.name, self.family, self.info = name, family, info
        self.args = list(args) if args is not None else None
        self._module = module

    def __repr__(self):
        return "Kernel(%s/%s on %r)" % (self.family or "module", self.name, self.device)

    @property
    def _where(self):
        return "%s/%s" % (self.family or (self._module.name if self._module else "?"),
                          self.name)

    def _p(self):
        self.context._p()
        return self._ptr

    # -- work geometry ------------------------------------------------

    @staticmethod
    def _work(rows, cols):
        import operator
        out = []
        for n, v in (("rows", rows), ("cols", cols)):
            if isinstance(v, bool):
                raise ArgumentError(n, "expected an int, got bool")
            try:
                v = operator.index(v)
            except TypeError:
                raise ArgumentError(n, "expected an int, got %s" % type(v).__name__) from None
            if not 0 <= v < 1 << 64:
                raise ArgumentError(n, "%d is out of 0..2^64-1" % v, code=-_errno.ERANGE)
            out.append(v)
        return out

    def geometry(self, rows, cols):
        """The :class:`Geometry` launch_work would use for rows x cols."""
        rows, cols = self._work(rows, cols)
        g = _ffi.Geometry()
        _check(_ffi.lib().hanzo_rocm_kernel_geometry(self._p(), rows, cols, ctypes.byref(g)),
               "%s: geometry(%d x %d)" % (self._where, rows, cols))
        return Geometry(tuple(g.grid), tuple(g.block), g.shared, g.splits)

    def geometry_ex(self, rows, cols):
        """The :class:`GeometryEx` of rows x cols: geometry, workspaces, the
        operation's form and passes."""
        rows, cols = self._work(rows, cols)
        g = _ffi.GeometryEx()
        g.size = ctypes.sizeof(g)
        _check(_ffi.lib().hanzo_rocm_kernel_geometry_ex(self._p(), rows, cols,
                                                        ctypes.byref(g)),
               "%s: geometry_ex(%d x %d)" % (self._where, rows, cols))
        gg = g.geometry
        return GeometryEx(Geometry(tuple(gg.grid), tuple(gg.block), gg.shared, gg.splits),
                          g.workspace, g.op_workspace, _s(g.op_form), g.op_passes)

    def workspace_size(self, rows, cols):
        """Bytes of workspace :meth:`op` needs for rows x cols (0: none)."""
        rows, cols = self._work(rows, cols)
        n = ctypes.c_size_t()
        _check(_ffi.lib().hanzo_rocm_op_workspace(self._p(), rows, cols, ctypes.byref(n)),
               "%s: op_workspace(%d x %d)" % (self._where, rows, cols))
        return n.value

    # -- argument checks ----------------------------------------------

    def _buf(self, arg, value, launch, where=None, nullable=False):
        """The address of an array for pointer argument arg (checked)."""
        where = where or self._where
        if value is None:
            if arg.name in _OP_OPTIONAL and nullable:
                return 0, None
            raise ArgumentError(arg.name, "None for %s: pass an array, or hanzo_rocm.NULL "
                                "where the kernel takes NULL" % arg.type, kernel=where)
        if value is NULL:
            return 0, None
        if isinstance(value, (numbers.Number, str, bytes)) or value is Ellipsis:
            raise ArgumentError(arg.name, "expected an array for %s, got %s"
                                % (arg.type, type(value).__name__), kernel=where)
        try:
            b = as_buf(value)
        except TypeError as e:
            raise ArgumentError(arg.name, "%s for %s" % (e, arg.type), kernel=where) from None
        except Exception as e:      # noqa: BLE001 - any malformed interface
            raise ArgumentError(arg.name, "unusable array: %s: %s"
                                % (type(e).__name__, e), kernel=where) from None
        if b.ptr == 0 and (isinstance(value, Pointer) or b.numel > 0):
            raise ArgumentError(arg.name, "a NULL address: pass hanzo_rocm.NULL where the "
                                "kernel takes NULL", kernel=where)
        self._check_device(arg.name, b, where)
        want = _SCALARS.get(arg.base)
        el = _ELEMENTS.get(want)
        if el is not None and not (b.kind == "V" and b.bits in (0, el[1])):
            kinds, bits = el
            if b.kind not in kinds or b.bits != bits:
                raise ArgumentError(arg.name, "%s needs %s elements, got %s%d"
                                    % (arg.type, arg.base, b.kind, b.bits), kernel=where)
        if not arg.const and b.readonly:
            raise ArgumentError(arg.name, "%s is written by the kernel: the array is "
                                "read-only" % arg.type, kernel=where)
        launch.bufs.append(b)
        if b.keep is not None:
            launch.keep.append(b.keep)
        return b.ptr, b

    def _check_device(self, name, b, where):
        d = self.device
        ok = True
        if d.platform == PLATFORM_HOST:
            ok = b.dev_type in (DL_CPU, DL_CUDA_HOST, DL_ROCM_HOST)
        elif d.platform == PLATFORM_NVIDIA:
            ok = (b.dev_type in (DL_CUDA_HOST, DL_CUDA_MANAGED)
                  or (b.dev_type == DL_CUDA and b.dev_id in (-1, d.ordinal)))
        elif d.platform == PLATFORM_AMD:
            ok = (b.dev_type == DL_ROCM_HOST
                  or (b.dev_type == DL_ROCM and b.dev_id in (-1, d.ordinal)))
        if not ok:
            raise Error(-_errno.EXDEV, "%s: argument %r" % (where, name),
                        "the array is on %s, the kernel on device %d (%s, %s)"
                        % (b.device_name(), d.index, d.target, d.platform_name))

    def _bind(self, values, kwargs, what):
        """Positional and keyword values in signature order."""
        if self.args is None:
            raise ArgumentError("signature", "the argument types of %s are unknown: pass "
                                "signature= to Module.kernel" % self.name, kernel=self._where)
        n = len(self.args)
        if len(values) > n:
            raise ArgumentError("*args", "%s takes %d arguments (%s), %d given"
                                % (self.name, n, self.info.signature if self.info else "",
                                   len(values)), kernel=self._where)
        out = list(values) + [_MISSING] * (n - len(values))
        names = {a.name: i for i, a in enumerate(self.args)}
        for k, v in kwargs.items():
            i = names.get(k)
            if i is None:
                raise ArgumentError(k, "%s has no such argument (%s)"
                                    % (self.name, self.info.signature if self.info else ""),
                                    kernel=self._where)
            if out[i] is not _MISSING:
                raise ArgumentError(k, "given twice", kernel=self._where)
            out[i] = v
        for a, v in zip(self.args, out):
            if v is _MISSING:
                raise ArgumentError(a.name, "missing (%s %s)" % (a.type, a.name),
                                    kernel=self._where)
        return out

    def _argv(self, values, launch):
        ptrs = (ctypes.c_void_p * max(1, len(values)))()
        for i, (a, v) in enumerate(zip(self.args, values)):
            if a.pointer:
                addr, _ = self._buf(a, v, launch)
                ptrs[i] = launch.value(struct.pack("=Q", addr))
            else:
                data = _pack_scalar(a, v, self._where)
                if a.bytes and len(data) != a.bytes:
                    raise ArgumentError(a.name, "%s is %d bytes in the catalogue, %d here"
                                        % (a.type, a.bytes, len(data)), kernel=self._where)
                ptrs[i] = launch.value(data)
        launch.keep.append(ptrs)
        return ptrs

    # -- launches ------------------------------------------------------

    def launch(self, grid, block, *args, shared=0, stream=None, **kwargs):
        """Launches with an explicit geometry: ``grid`` and ``block`` are
        1 to 3 ints, ``args`` the kernel's arguments in signature order
        (or by name), ``shared`` the dynamic shared memory bytes."""
        g = _dim3(grid, "grid")
        bl = _dim3(block, "block")
        import operator
        try:
            shared = operator.index(shared)
        except TypeError:
            raise ArgumentError("shared", "expected an int") from None
        if not 0 <= shared < 1 << 32:
            raise ArgumentError("shared", "%d is out of range" % shared)
        values = self._bind(args, kwargs, "launch")
        launch = _Launch()
        argv = self._argv(values, launch)
        s, _ = _resolve_stream(stream, launch.bufs, self.device)
        rc = _ffi.lib().hanzo_rocm_kernel_launch(self._p(), g, bl, shared,
                                                 ctypes.c_void_p(s), argv)
        _check(rc, "%s: launch" % self._where)
        del launch

    def launch_work(self, rows, cols, *args, stream=None, **kwargs):
        """Launches for rows x cols of work, the geometry from the kernel's
        launch metadata (element-wise kernels: rows = n, cols = 1).  ENODATA
        when the kernel has none."""
        rows, cols = self._work(rows, cols)
        values = self._bind(args, kwargs, "launch_work")
        launch = _Launch()
        argv = self._argv(values, launch)
        s, _ = _resolve_stream(stream, launch.bufs, self.device)
        rc = _ffi.lib().hanzo_rocm_kernel_launch_work(self._p(), rows, cols,
                                                      ctypes.c_void_p(s), argv)
        _check(rc, "%s: launch_work(%d x %d)" % (self._where, rows, cols))
        del launch

    # -- the operation call ---------------------------------------------

    def _op_args(self):
        """{name: Arg} over the passes of the operation (this kernel, its
        split passes and wide form)."""
        out = {}
        names = [self.name]
        if self.info is not None:
            names += [n for n in (self.info.split, self.info.second, self.info.wide) if n]
        for n in names:
            info = self.context._info(self.family, n) if n != self.name else self.info
            if info is None:
                continue
            for a in info.args:
                out.setdefault(a.name, a)
        return out

    def op(self, rows, cols, *, stream=None, workspace=None, batch=None, **kwargs):
        """Runs the operation end to end over rows x cols: the library picks
        the form (one-pass, split, wide) and runs every pass.

        Keyword arguments are named as the kernel's signature names them
        (``src``/``x``, ``dst``, ``alpha``, ``beta``, ``residual``,
        ``residual_out``, ``eps`` and any other argument the call cannot
        derive, e.g. attention's ``q``, caches and ``scale``).  ``alpha``
        and ``beta`` may be left out (weight 1, bias 0).  ``workspace``:
        an array of at least :meth:`workspace_size` bytes; None: allocated
        here with the arrays' library (numpy, torch, CuPy).  ``batch``:
        the quantized mat-vec's columns of y.
        """
        rows, cols = self._work(rows, cols)
        if self.family is None:
            raise ArgumentError("op", "a module's kernel has no operation call: use launch",
                                kernel=self._where)
        sig = {a.name: a for a in (self.args or [])}
        allowed = self._op_args()
        kw = dict(kwargs)
        if "x" in kw and "src" in kw:
            raise ArgumentError("x", "src and x are the same argument", kernel=self._where)
        # An argument the family binds to a field of the call under another
        # name (the quantized mat-vec's y is .src): named either way.
        alias = {a.name: a.bind for a in sig.values()
                 if a.bind in _OP_FIELDS and a.name != a.bind and a.name != "x"}
        for name, field in alias.items():
            if name in kw:
                if field in kw or (field == "src" and "x" in kw):
                    raise ArgumentError(name, "%s and %s are the same argument" % (field, name),
                                        kernel=self._where)
                kw[field] = kw.pop(name)
            allowed.setdefault(field, sig[name])
        for own in ("ws", "splits"):
            if own in kw:
                raise ArgumentError(own, "the operation's own: pass workspace= (or none)",
                                    kernel=self._where)
        for k in kw:
            if k not in allowed and not (k in ("src", "x") and ("src" in allowed or
                                                                 "x" in allowed)):
                raise ArgumentError(k, "%s has no such argument (%s)"
                                    % (self.name, self.info.signature), kernel=self._where)
        if "x" in kw:
            kw["src"] = kw.pop("x")
        # Paged attention: block_size is the page size, never the launch's.
        paged = "num_seqs" in sig and "block_tables" in sig
        for a in sig.values():
            n = "src" if a.name == "x" else alias.get(a.name, a.name)
            if paged and n == "block_size" and n not in kw:
                raise ArgumentError(n, "missing: the page size of the KV cache (%s %s)"
                                    % (a.type, a.name), kernel=self._where)
            if n in kw or n in _OP_OPTIONAL:
                continue
            if a.name in _OP_DERIVED and a.name not in _OP_FIELDS and a.name != "eps" \
                    and a.name != "x":
                continue
            if a.bind and a.bind not in _OP_FIELDS and a.bind != "eps":
                continue            # the family's #@bind derives it (the work's sizes)
            raise ArgumentError(a.name, "missing (%s %s)" % (a.type, a.name),
                                kernel=self._where)
        launch = _Launch()
        c = _ffi.OpArgs()
        c.size = ctypes.sizeof(c)
        arg_of = dict(allowed)
        if "x" in arg_of and "src" not in arg_of:
            arg_of["src"] = arg_of["x"]
        bufs = {}
        for f in _OP_FIELDS:
            if f in kw:
                addr, b = self._buf(arg_of[f], kw.pop(f), launch, nullable=True)
                setattr(c, f, addr)
                bufs[f] = b
        if "eps" in kw:
            data = _pack_scalar(arg_of["eps"], kw.pop("eps"), self._where)
            c.eps = struct.unpack("=f", data)[0] if len(data) == 4 else 0.0
        qmv = self.family == "quantized" and self.name.startswith(_QMV_PREFIX)
        if batch is not None:
            import operator
            try:
                batch = operator.index(batch)
            except TypeError:
                raise ArgumentError("batch", "expected an int", kernel=self._where) from None
            if batch < 0:
                raise ArgumentError("batch", "negative", kernel=self._where)
            c.batch = batch
        # The sizes the call implies (libhanzo-rocm(3), Operations): rows of
        # cols contiguous elements in; out, rows of cols (norms, sorts: the
        # kernel takes ncols), one per row (reductions, sampling's tokens)
        # or k per row (sampling's top-k indices); the quantized mat-vec:
        # batch x cols in, batch x rows out.
        n_src = (batch or 1) * cols if qmv else rows * cols
        need = {"src": n_src, "residual": rows * cols, "residual_out": rows * cols}
        if not qmv:
            need.update(alpha=cols, beta=cols)
        if qmv:
            need["dst"] = (batch or 1) * rows       # a row of the weights: one output a column of y
        elif self.family == "sampling" and self.name.startswith("sample_"):
            need["dst"] = rows
        elif self.family == "sampling" and self.name.startswith("topk_"):
            k = kw.get("k")
            if isinstance(k, numbers.Integral) and not isinstance(k, bool) and k > 0:
                need["dst"] = rows * int(k)
        elif "ncols" in sig:
            need["dst"] = rows * cols
        elif "el_to_sum_per_block" in sig:
            need["dst"] = rows
        for f, b in bufs.items():
            if b is not None and not b.contiguous:
                raise ArgumentError(f, "not contiguous: the operation takes rows of "
                                    "contiguous elements", kernel=self._where)
        for f, n in need.items():
            b = bufs.get(f)
            if b is not None and b.numel < n:
                raise ArgumentError(f, "%d elements, the work %d x %d needs %d"
                                    % (b.numel, rows, cols, n), kernel=self._where)
        # Named values: everything else, typed by the catalogue.
        named = []
        for k, v in kw.items():
            a = arg_of[k]
            if a.pointer:
                addr, _ = self._buf(a, v, launch)
                data = struct.pack("=Q", addr)
            else:
                data = _pack_scalar(a, v, self._where)
            if a.bytes and len(data) != a.bytes:
                raise ArgumentError(k, "%s is %d bytes in the catalogue, %d here"
                                    % (a.type, a.bytes, len(data)), kernel=self._where)
            nm = k.encode()
            launch.keep.append(nm)
            named.append((nm, launch.value(data), len(data)))
        if named:
            arr = (_ffi.OpArg * len(named))()
            for i, (nm, addr, nb) in enumerate(named):
                arr[i].name, arr[i].value, arr[i].bytes = nm, addr, nb
            launch.keep.append(arr)
            c.named = ctypes.cast(arr, ctypes.POINTER(_ffi.OpArg))
            c.n_named = len(named)
        s, sobj = _resolve_stream(stream, launch.bufs, self.device)
        c.stream = s
        need_ws = self.workspace_size(rows, cols)
        ws_owner = None
        if workspace is not None:
            wa = Arg("void *", "workspace")
            addr, b = self._buf(wa, workspace, launch)
            if b is not None and b.nbytes < need_ws:
                raise ArgumentError("workspace", "%d bytes, the work %d x %d needs %d"
                                    % (b.nbytes, rows, cols, need_ws), code=-_errno.ENOSPC,
                                    kernel=self._where)
            if b is not None and not b.contiguous:
                raise ArgumentError("workspace", "not contiguous", kernel=self._where)
            c.workspace, c.workspace_size = addr, (b.nbytes if b is not None else 0)
        elif need_ws:
            ws_owner = _alloc_like(launch.bufs, need_ws, self.device, sobj, s)
            if ws_owner is None:
                raise ArgumentError("workspace", "%d bytes needed and none of the arrays "
                                    "is numpy, torch or CuPy: pass workspace=" % need_ws,
                                    code=-_errno.ENOSPC, kernel=self._where)
            addr, b = self._buf(Arg("void *", "workspace"), ws_owner, launch)
            c.workspace, c.workspace_size = addr, need_ws
        rc = _ffi.lib().hanzo_rocm_op_run(self._p(), rows, cols, ctypes.byref(c))
        _check(rc, "%s: op(%d x %d)" % (self._where, rows, cols))
        del launch

    __call__ = op


class _Missing:
    def __repr__(self):
        return "<missing>"


_MISSING = _Missing()


def _dim3(v, name):
    import operator
    if isinstance(v, int) and not isinstance(v, bool):
        v = (v,)
    try:
        t = [operator.index(x) for x in v]
    except TypeError:
        raise ArgumentError(name, "expected 1 to 3 ints") from None
    if not 1 <= len(t) <= 3 or any(isinstance(x, bool) for x in v):
        raise ArgumentError(name, "expected 1 to 3 ints")
    t += [1] * (3 - len(t))
    for x in t:
        if not 0 <= x < 1 << 32:
            raise ArgumentError(name, "%d is out of range" % x)
    return (ctypes.c_uint * 3)(*t)


def _alloc_like(bufs, nbytes, device, stream_obj, stream):
    """A workspace of nbytes from the library of the launch's arrays."""
    torch = sys.modules.get("torch")
    for b in bufs:
        o = b.obj
        if torch is not None and isinstance(o, torch.Tensor):
            ws = torch.empty(nbytes, dtype=torch.uint8, device=o.device)
            if o.is_cuda and stream:
                s = stream_obj if isinstance(stream_obj, torch.cuda.Stream) else \
                    torch.cuda.ExternalStream(stream, device=o.device)
                ws.record_stream(s)
            return ws
        mod = type(o).__module__.split(".")[0]
        if mod == "cupy":
            import cupy
            return cupy.empty((nbytes,), dtype=cupy.uint8)
        if hasattr(o, "__array_interface__") and b.dev_type == DL_CPU:
            import numpy
            return numpy.empty(nbytes, dtype=numpy.uint8)
    return None
