# SPDX-License-Identifier: LGPL-2.1-or-later
"""The C declarations of <hanzo-rocm.h>, through ctypes.

Internal: the public objects live in :mod:`hanzo_rocm`.  The library is
loaded by its soname, libhanzo-rocm.so.1, as the dynamic linker finds it
(the installed library, or the build tree's through ``LD_LIBRARY_PATH``).
"""

import ctypes
from ctypes import (POINTER, Structure, c_char_p, c_int, c_size_t, c_uint,
                    c_uint64, c_void_p, c_float, c_char)

SONAME = "libhanzo-rocm.so.1"


class Options(Structure):
    """struct hanzo_rocm_options."""
    _fields_ = [("size", c_size_t), ("root", c_char_p), ("config", c_char_p),
                ("log_fn", c_void_p), ("log_data", c_void_p),
                ("log_priority", c_int), ("host", c_char_p),
                ("plugin_path", c_char_p)]


class Geometry(Structure):
    """struct hanzo_rocm_geometry."""
    _fields_ = [("grid", c_uint * 3), ("block", c_uint * 3),
                ("shared", c_uint), ("splits", c_uint)]


class GeometryEx(Structure):
    """struct hanzo_rocm_geometry_ex."""
    _fields_ = [("size", c_size_t), ("geometry", Geometry),
                ("workspace", c_size_t), ("op_workspace", c_size_t),
                ("op_form", c_char_p), ("op_passes", c_uint)]


MAX_DIMS = 8
MAX_OPERANDS = 3


class Layout(Structure):
    """struct hanzo_rocm_layout."""
    _fields_ = [("v", c_uint64 * ((1 + MAX_OPERANDS) * MAX_DIMS))]


class KernelDesc(Structure):
    """struct hanzo_rocm_kernel_desc."""
    _fields_ = [("size", c_size_t), ("family", c_char_p), ("name", c_char_p),
                ("signature", c_char_p), ("n_args", c_size_t),
                ("launch", c_char_p), ("rows", c_char_p), ("cols", c_char_p),
                ("form", c_char_p), ("op", c_char_p), ("split", c_char_p),
                ("second", c_char_p), ("ws_per_partial", c_size_t),
                ("notes", c_char_p), ("wide", c_char_p),
                ("ws_per_col", c_size_t)]


class ArgDesc(Structure):
    """struct hanzo_rocm_arg_desc (doc, may_be_null and bind since 1.3: an
    older library leaves them 0)."""
    _fields_ = [("size", c_size_t), ("type", c_char_p), ("name", c_char_p),
                ("bytes", c_size_t), ("doc", c_char_p), ("may_be_null", c_int),
                ("bind", c_char_p)]


class OpArg(Structure):
    """struct hanzo_rocm_op_arg."""
    _fields_ = [("name", c_char_p), ("value", c_void_p), ("bytes", c_size_t)]


class OpArgs(Structure):
    """struct hanzo_rocm_op_args."""
    _fields_ = [("size", c_size_t), ("src", c_void_p), ("dst", c_void_p),
                ("alpha", c_void_p), ("beta", c_void_p),
                ("residual", c_void_p), ("residual_out", c_void_p),
                ("eps", c_float), ("workspace", c_void_p),
                ("workspace_size", c_size_t), ("stream", c_void_p),
                ("named", POINTER(OpArg)), ("n_named", c_size_t),
                ("batch", c_size_t)]


_lib = None


def lib():
    """The loaded library (loaded on first use); OSError if it is missing."""
    global _lib
    if _lib is not None:
        return _lib
    L = ctypes.CDLL(SONAME)
    P = c_void_p
    protos = {
        "hanzo_rocm_new_with_options": (c_int, [POINTER(Options), POINTER(P)]),
        "hanzo_rocm_unref": (P, [P]),
        "hanzo_rocm_strerror": (c_char_p, [c_int]),
        "hanzo_rocm_device_count": (c_int, [P]),
        "hanzo_rocm_device_target": (c_int, [P, c_uint, POINTER(c_char_p)]),
        "hanzo_rocm_device_platform": (c_int, [P, c_uint]),
        "hanzo_rocm_get_log_priority": (c_int, [P]),
        "hanzo_rocm_set_log_priority": (None, [P, c_int]),
        "hanzo_rocm_code_object": (c_int, [P, c_char_p, c_char_p, POINTER(P),
                                           POINTER(c_size_t)]),
        "hanzo_rocm_kernel_get": (c_int, [P, c_uint, c_char_p, c_char_p, POINTER(P)]),
        "hanzo_rocm_kernel_launch": (c_int, [P, POINTER(c_uint), POINTER(c_uint),
                                             c_uint, P, POINTER(P)]),
        "hanzo_rocm_kernel_launch_work": (c_int, [P, c_uint64, c_uint64, P, POINTER(P)]),
        "hanzo_rocm_kernel_geometry": (c_int, [P, c_uint64, c_uint64, POINTER(Geometry)]),
        "hanzo_rocm_kernel_geometry_ex": (c_int, [P, c_uint64, c_uint64,
                                                  POINTER(GeometryEx)]),
        "hanzo_rocm_layout_init": (c_int, [POINTER(Layout), c_size_t, POINTER(c_size_t),
                                           c_size_t, POINTER(POINTER(c_size_t))]),
        "hanzo_rocm_catalogue_new": (c_int, [P, c_char_p, POINTER(P)]),
        "hanzo_rocm_catalogue_unref": (P, [P]),
        "hanzo_rocm_catalogue_count": (c_size_t, [P]),
        "hanzo_rocm_catalogue_kernel": (c_int, [P, c_size_t, POINTER(KernelDesc)]),
        "hanzo_rocm_catalogue_arg": (c_int, [P, c_size_t, c_size_t, POINTER(ArgDesc)]),
        "hanzo_rocm_op_workspace": (c_int, [P, c_uint64, c_uint64, POINTER(c_size_t)]),
        "hanzo_rocm_op_run": (c_int, [P, c_uint64, c_uint64, POINTER(OpArgs)]),
    }
    for name, (res, args) in protos.items():
        f = getattr(L, name)
        f.restype = res
        f.argtypes = args
    # The source-text calls, where this library has them.
    try:
        f = L.hanzo_rocm_module_get
        f.restype = c_int
        f.argtypes = [P, c_uint, c_char_p, c_char_p, c_size_t, POINTER(c_char_p),
                      POINTER(P), POINTER(P)]
        f = L.hanzo_rocm_module_kernel
        f.restype = c_int
        f.argtypes = [P, c_char_p, POINTER(P)]
        L.has_source = True
    except AttributeError:
        L.has_source = False
    libc = ctypes.CDLL(None)
    L.free = libc.free
    L.free.restype = None
    L.free.argtypes = [P]
    _lib = L
    return L


def take_string(p):
    """The malloc'd C string at address p as str (None for NULL), freed."""
    if not p:
        return None
    try:
        return ctypes.string_at(p).decode("utf-8", "replace")
    finally:
        lib().free(p)
