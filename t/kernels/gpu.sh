#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# On an NVIDIA GPU: the unary, affine and fill kernels, compiled for sm_90
# from the built plugins' embedded sources, match float64 references
# (bench/kernels-gpu.py --check: odd sizes, strided and broadcast inputs,
# poisoned outputs, small and full grids).  Needs nvcc and PyTorch.
. "$top_srcdir/t/tap.sh"

[ -n "$NVCC" ] && [ -x "$NVCC" ] || skip_all "no GPU (nvcc not found)"
# The configured python3 first, then the one on PATH (PyTorch may live there).
py=
for p in "$PYTHON3" python3; do
	[ -n "$p" ] && "$p" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' \
		2>/dev/null && { py=$p; break; }
done
[ -n "$py" ] || skip_all "no GPU (or no PyTorch with CUDA)"
PYTHON3=$py
arch=$("$PYTHON3" -c 'import torch; print("sm_%d%d" % torch.cuda.get_device_capability())')

for fam in unary affine fill; do
	"$top_builddir/t/kernels/hr-dump-plugin" "$HR_PLUGINS/$fam.so" "$T/$fam.hip" "$T/$fam.names" >/dev/null &&
		"$NVCC" -cubin -arch="$arch" -O3 -x cu "$T/$fam.hip" -o "$T/$fam.cubin" 2>"$T/err"
	ok $? "$fam compiles for $arch"
done
"$PYTHON3" "$top_srcdir/bench/kernels-gpu.py" --check "$T" >"$T/out" 2>&1
ok $? "kernels match the float64 references"
sed 's/^/# /' "$T/out" | tail -20

done_testing
