# bindings/python/local.mk: the Python package hanzo_rocm (README.md here),
# pure Python over the installed library (ctypes).  Not built or installed by
# `make`: Debian's pybuild and the RPM's %pyproject macros build it from
# pyproject.toml; `make check` tests it (t/python/local.mk).
EXTRA_DIST += \
	bindings/python/README.md bindings/python/pyproject.toml \
	bindings/python/hanzo_rocm/__init__.py bindings/python/hanzo_rocm/_ffi.py \
	bindings/python/hanzo_rocm/_arrays.py bindings/python/hanzo_rocm/torch.py \
	bindings/python/tests/conftest.py bindings/python/tests/test_host.py \
	bindings/python/tests/test_fuzz.py bindings/python/tests/test_torch.py \
	bindings/python/tests/test_examples.py \
	bindings/python/examples/torch_ops.py bindings/python/examples/numpy_ops.py \
	bindings/python/examples/decode_step.py
