#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The Python package (bindings/python, hanzo_rocm) on the host backend:
# pytest with Debian's python3 (or $HR_PYTHON) over this build tree's
# library and plugins, both host targets (host-w64, host-w32), a scratch
# cache.  Each pytest test is one TAP line.  Skipped (with the reason) when
# pytest or numpy is missing, and in a sanitized tree (the interpreter is not
# built with the sanitizer runtime).  `make check-python` runs only this.
. "$top_srcdir/t/tap.sh"

PY=${HR_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || skip_all "no $PY (python3)"
"$PY" -c 'import pytest' 2>/dev/null || skip_all "no pytest for $PY (Debian: python3-pytest)"
"$PY" -c 'import numpy' 2>/dev/null || skip_all "no numpy for $PY (Debian: python3-numpy)"
command -v c++ >/dev/null 2>&1 || skip_all "no C++ compiler (host code objects)"
if ldd "$top_builddir/lib/.libs/libhanzo-rocm.so" 2>/dev/null | grep -q 'libasan\|libtsan'; then
	skip_all "sanitized build: python3 cannot load it"
fi

export HANZO_ROCM_PLUGIN_PATH="$HR_PLUGINS"
export HANZO_ROCM_CONF="$T/hanzo-rocm.conf"
# The suite's host cache (t/backend/local.mk) as a read-only site tier.
printf '[cache]\nuser_dir = %s/cache\nsystem_dir = %s/system\nsite_dirs = %s\n' "$T" "$T" "$HR_HOST_CACHE" \
	>"$HANZO_ROCM_CONF"
export LD_LIBRARY_PATH="$top_builddir/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONPATH="$top_srcdir/bindings/python" PYTHONDONTWRITEBYTECODE=1
export HR_CLI
# No .pytest_cache or __pycache__ in the source tree (read-only in distcheck).
"$PY" -m pytest -p no:cacheprovider -q -rA --rootdir="$top_srcdir/bindings/python" \
	"$top_srcdir/bindings/python/tests" >"$T/pytest.out" 2>&1
rc=$?
sed -n 's#^\(PASSED\|FAILED\|ERROR\|SKIPPED\|XPASS\|XFAIL\) \(\.\./\)*\(.*\)$#\1 \3#p' "$T/pytest.out" |
	while read -r res name; do
		case $res in
		PASSED|XFAIL) echo "ok - $name" ;;
		SKIPPED) echo "ok - $name # SKIP" ;;
		*) echo "not ok - $name" ;;
		esac
	done >"$T/tap"
n=$(grep -c '' "$T/tap")
cat "$T/tap"
tap_n=$n
ok $rc "pytest exits 0 ($(tail -n 1 "$T/pytest.out"))" || sed 's/^/# /' "$T/pytest.out" | tail -n 80
done_testing
