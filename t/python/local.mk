# t/python/local.mk: the Python package (bindings/python) under pytest on the host
# backend (t/python/pytest.sh), part of `make check`; `make check-python` runs only it.
EXTRA_DIST += t/python/pytest.sh
TESTS += t/python/pytest.sh

check-python: all
	$(MAKE) $(AM_MAKEFLAGS) check TESTS=t/python/pytest.sh
.PHONY: check-python
