#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The q8_1 integer dot products use the target's packed 8-bit dot
# instruction where it has one (v_dot4_i32_i8 = sdot4 on gfx90a) and the
# scalar path where it has none (gfx1010): hr_dp4a picks at compile time,
# and a wrong target test would silently fall back to the slow path.
. "$top_srcdir/t/tap.sh"

# The code objects are hipcc's and nvcc's output for the plugins' embedded
# sources, the same whatever the library is built with: the plain tree's
# `make check` compiles them, a sanitized tree (tools/test.sh's asan-check)
# does not do it a second time.
[ -z "$HR_SANITIZED" ] || skip_all "sanitized build: the code objects do not depend on it (the plain tree's make check compiles them)"
[ -n "$HIPCC" ] || skip_all "hipcc not found"
[ -n "$LLVM_READELF" ] || skip_all "llvm-readelf not found"
OBJDUMP=$(printf '%s' "$LLVM_READELF" | sed 's/readelf/objdump/')
command -v "$OBJDUMP" >/dev/null 2>&1 || skip_all "$OBJDUMP not found"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT

# mul_mat_vec_q8_0_q8_1_cuda1's code, alone: the family's kernels become
# static device functions (none is emitted) and one kernel calls that one,
# so the compiler builds one kernel instead of the whole family's (1.5 s
# against 40 s a target) with the same instruction selection.
cat >"$T/probe.hip" <<'EOF'
#include "hr-kernel.h"
#undef HR_KERNEL
#define HR_KERNEL static __device__
#include "quantized.hip"
extern "C" __global__ void isa_probe(const void *vx, const void *vy, float *dst, int ncols_x,
				     int nrows_x, int nrows_y, int nrows_dst)
{
	mul_mat_vec_q8_0_q8_1_cuda1(vx, vy, dst, ncols_x, nrows_x, nrows_y, nrows_dst);
}
EOF
body() {
	"$OBJDUMP" -d "$1" | awk '/^[0-9a-f]+ <isa_probe>:/ { on = 1; next }
		on && /^[0-9a-f]+ </ { on = 0 } on'
}

for tgt in gfx90a gfx1010; do
	"$HIPCC" -std=c++17 --cuda-device-only --no-gpu-bundle-output --offload-arch=$tgt -O3 \
		-c -x hip -I"$top_srcdir/kernels" "$T/probe.hip" \
		-o "$T/$tgt.o" 2>"$T/$tgt.err"
	rc=$?
	ok $rc "mul_mat_vec_q8_0_q8_1_cuda1 compiles for $tgt"
	[ $rc -eq 0 ] || sed 's/^/# /' "$T/$tgt.err" | head -5
	body "$T/$tgt.o" >"$T/$tgt.s"
	[ -s "$T/$tgt.s" ]
	ok $? "$tgt: mul_mat_vec_q8_0_q8_1_cuda1 disassembles"
done
n=$(grep -c 'v_dot4c\?_i32_i8' "$T/gfx90a.s")
[ "$n" -ge 8 ]
ok $? "gfx90a: the q8 dot path uses sdot4 ($n v_dot4_i32_i8)"
n=$(grep -c 'v_dot4' "$T/gfx1010.s")
[ "$n" -eq 0 ] && grep -q 'v_mad_i32_i24\|v_mul_i32_i24\|v_mad_u32_u24\|v_bfe_i32' "$T/gfx1010.s"
ok $? "gfx1010: no dot instruction, the scalar path ($n v_dot4)"
done_testing
