#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds the real code objects the cache tests share, once per build tree
# (t/cache-fixtures/), serialised with flock so parallel tests compile once.
# Prints the directory.  Exit 77 when hipcc is missing (tests skip).
set -e
: "${top_srcdir:?}" "${top_builddir:?}"
out="$top_builddir/t/cache-fixtures"
src="$top_srcdir/t/fixtures/cache/kernels.cu"
mkdir -p "$out"
exec 9>"$out/.lock"
flock 9
[ -n "$HIPCC" ] && [ -x "$HIPCC" ] || exit 77
for t in gfx90a gfx1030; do
	[ -s "$out/k-$t.co" ] && continue
	# hipcc 5.2 prints a rocm_agent_enumerator traceback without /dev/kfd: keep it out.
	"$HIPCC" -std=c++17 --cuda-device-only --no-gpu-bundle-output \
		--offload-arch=$t -O3 -c -x hip "$src" -o "$out/k-$t.tmp" 2>"$out/k-$t.log"
	mv "$out/k-$t.tmp" "$out/k-$t.co"
done
if [ -n "$NVCC" ] && [ -x "$NVCC" ] && [ ! -s "$out/k-sm_90.cubin" ]; then
	"$NVCC" -cubin -arch=sm_90 -O3 -x cu "$src" -o "$out/k-sm_90.tmp" 2>"$out/k-sm_90.log" &&
		mv "$out/k-sm_90.tmp" "$out/k-sm_90.cubin" || rm -f "$out/k-sm_90.tmp"
fi
echo "$out"
