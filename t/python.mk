# t/python.mk: the Python package (bindings/python) under pytest on the host
# backend (t/python.sh), part of `make check`; `make check-python` runs only it.
EXTRA_DIST += t/python.sh
TESTS += t/python.sh

check-python: all
	$(MAKE) $(AM_MAKEFLAGS) check TESTS=t/python.sh
.PHONY: check-python
