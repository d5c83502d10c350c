#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Every built kernel-family plugin embeds a self-contained source that
# compiles with hipcc for gfx90a and gfx1030 (and with nvcc for sm_90 when
# nvcc is present), and for gfx908 where the family has a matrix path (its
# source calls kernels/hr-matrix.h's hr_mma_*, which takes another form on
# gfx908: MFMA without gfx90a's bf16_1k).  A family without one is the same
# code on gfx908 as on gfx90a; compiling it for gfx908 too cost 12 compiles
# of ~17 s, a sixth of the plain tree's `make check` on 2 cores.  Each code
# object is an ELF of the right machine and target and defines exactly the
# kernels of the family's table; on gfx90a no kernel spills VGPRs or uses
# scratch memory.
# The source is compiled from a scratch directory with no include path, which
# proves the plugin needs nothing but itself.
. "$top_srcdir/t/tap.sh"

DUMP="$top_builddir/t/kernels/hr-dump-plugin"
AMD_TARGETS="gfx90a gfx1030"
# amd_targets FAMILY: the AMD targets it is compiled for here.
amd_targets() {
	if cat "$top_srcdir/kernels/$1.hip" "$top_srcdir/kernels/$1"/*.h 2>/dev/null |
		grep -q 'hr_mma_'; then
		echo "$AMD_TARGETS gfx908"
	else
		echo "$AMD_TARGETS"
	fi
}

# The code objects are hipcc's and nvcc's output for the plugins' embedded
# sources, the same whatever the library is built with: the plain tree's
# `make check` compiles them, a sanitized tree (tools/test.sh's asan-check)
# does not do it a second time.
[ -z "$HR_SANITIZED" ] || skip_all "sanitized build: the code objects do not depend on it (the plain tree's make check compiles them)"
[ -n "$HIPCC$NVCC" ] || skip_all "neither hipcc nor nvcc found"
[ -n "$LLVM_READELF" ] || skip_all "llvm-readelf not found"
set -- "$HR_PLUGINS"/*.so
[ -e "$1" ] || skip_all "no plugins built in $HR_PLUGINS"

# e_machine (2 bytes at 18) and e_flags (4 bytes at 48) of an ELF64 file.
elf_machine() { od -An -tu2 -j18 -N2 "$1" | tr -d ' '; }
elf_flags() { od -An -tu4 -j48 -N4 "$1" | tr -d ' '; }
# EF_AMDGPU_MACH_* (e_flags & 0xff) of the AMD targets tested here.
amd_mach() { case $1 in gfx90a) echo 63 ;; gfx908) echo 48 ;; gfx1030) echo 54 ;; esac; }

# compile FAMILY TARGET: $T/FAMILY.hip -> $T/FAMILY-TARGET.o (.cubin for sm_*),
# stderr and exit status next to it (hipcc prints a rocm_agent_enumerator
# traceback without /dev/kfd: judge by the status).  Run through xargs -P 2
# so both cores stay busy; every (family, target) is compiled once.
COMPILE='fam=$1 tgt=$2 T=$3
case $tgt in
sm_*) obj="$T/$fam-$tgt.cubin"
	"$NVCC" -cubin -arch="$tgt" -O3 -x cu "$T/$fam.hip" -o "$obj" 2>"$obj.err" ;;
*) obj="$T/$fam-$tgt.o"
	"$HIPCC" -std=c++17 --cuda-device-only --no-gpu-bundle-output \
		--offload-arch="$tgt" -O3 -c -x hip "$T/$fam.hip" -o "$obj" 2>"$obj.err" ;;
esac
echo $? >"$obj.rc"'

# Kernel symbols defined by a code object: global functions (AMD kernels
# also have .kd descriptors, which are objects; CUDA helpers are weak).
# AMD objects list each symbol in .dynsym and .symtab, hence sort -u; CUDA
# adds "[<other: 0x10>]" to the visibility, hence $NF and $(NF-1).
kernel_symbols() {
	"$LLVM_READELF" -s --wide "$1" |
		awk '$4 == "FUNC" && $5 == "GLOBAL" && $(NF-1) != "UND" { print $NF }' | sort -u
}

# check_object FAMILY TARGET OBJECT MACHINE
check_object() {
	fam=$1 tgt=$2 obj=$3 want_machine=$4
	rc=$(cat "$obj.rc" 2>/dev/null)
	[ "$rc" = 0 ] && [ -s "$obj" ]
	ok $? "$fam: compiles for $tgt"
	if [ "$rc" != 0 ]; then
		grep -E 'error' "$obj.err" | head -10 | sed 's/^/# /'
		skip 2 "$fam/$tgt did not compile"
		return
	fi
	m=$(elf_machine "$obj") fl=$(elf_flags "$obj")
	case $tgt in
	sm_*) [ "$m" = "$want_machine" ] && { [ $(((fl >> 8) & 255)) = "${tgt#sm_}" ] || [ $((fl & 255)) = "${tgt#sm_}" ]; } ;;
	*) [ "$m" = "$want_machine" ] && [ $((fl & 255)) = "$(amd_mach "$tgt")" ] ;;
	esac
	ok $? "$fam/$tgt: ELF machine $m (want $want_machine), e_flags $fl match the target"
	kernel_symbols "$obj" >"$obj.syms"
	cmp -s "$obj.syms" "$T/$fam.names.sorted"
	ok $? "$fam/$tgt: code object defines exactly the kernels of the table"
	diff "$T/$fam.names.sorted" "$obj.syms" | grep '^[<>]' | head -10 | sed 's/^/# /'
}

# No VGPR spills, no scratch: each key appears once per kernel, always 0.
# SGPR spills (to VGPR lanes, not to memory) are reported, not failed: Debian
# 13's clang 17 spills one in uerf_f64 on gfx90a (doc/TARGETS.md).
check_resources() {
	fam=$1 obj=$2 n=$3
	"$LLVM_READELF" --notes "$obj" >"$obj.notes"
	bad=0
	for key in vgpr_spill_count private_segment_fixed_size; do
		got=$(grep -c "\.$key: *0\$" "$obj.notes")
		[ "$got" = "$n" ] || { bad=1; echo "# .$key: 0 for $got of $n kernels"; }
	done
	s=$(grep -c '\.sgpr_spill_count: *[1-9]' "$obj.notes")
	[ "$s" -eq 0 ] || echo "# note: SGPR spills (to VGPR lanes) in $s kernels"
	ok $bad "$fam/gfx90a: no VGPR spills and no scratch in $n kernels"
	[ $bad = 0 ] || grep -E '\.name:|spill_count: [1-9]|private_segment_fixed_size: [1-9]' "$obj.notes" |
		grep -B1 -E ': [1-9]' | head -20 | sed 's/^/# /'
}

families=
for so in "$HR_PLUGINS"/*.so; do
	fam=$(basename "$so" .so)
	src="$T/$fam.hip"
	"$DUMP" "$so" "$src" "$T/$fam.names" >"$T/$fam.desc" 2>"$T/err"
	ok $? "$fam: plugin descriptor is consistent and its source can be read"
	[ -s "$src" ] || { sed 's/^/# /' "$T/err"; continue; }
	sort "$T/$fam.names" >"$T/$fam.names.sorted"
	! grep -q '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$src"
	ok $? "$fam: embedded source has no quoted #include left"
	families="$families $fam"
	for tgt in ${HIPCC:+$(amd_targets "$fam")} ${NVCC:+sm_90}; do
		echo "$fam $tgt $T"
	done >>"$T/jobs"
done
[ -s "$T/jobs" ] && xargs -P 2 -L 1 sh -c "$COMPILE" sh <"$T/jobs"

for fam in $families; do
	n=$(wc -l <"$T/$fam.names")
	if [ -n "$HIPCC" ]; then
		for tgt in $(amd_targets "$fam"); do
			check_object "$fam" "$tgt" "$T/$fam-$tgt.o" 224
		done
		if [ "$(cat "$T/$fam-gfx90a.o.rc")" = 0 ]; then
			check_resources "$fam" "$T/$fam-gfx90a.o" "$n"
		else
			skip 1 "$fam/gfx90a did not compile"
		fi
	else
		skip $((3 * $(echo $(amd_targets "$fam") | wc -w) + 1)) "hipcc not found"
	fi
	if [ -n "$NVCC" ]; then
		check_object "$fam" sm_90 "$T/$fam-sm_90.cubin" 190
	else
		skip 3 "nvcc not found"
	fi
done

# The attention prefill takes the matrix path where the target has one
# (kernels/hr-matrix.h): MFMA on gfx90a for f16/bf16 up to d128, the
# portable code for f32, d256 and the targets without MFMA bf16_1k/WMMA
# (gfx908, gfx1030); mma.sync (HMMA) on sm_90.  A wrong target test would
# silently fall back to the slow path.
OBJDUMP=$(printf '%s' "$LLVM_READELF" | sed 's/readelf/objdump/')
# body OBJECT KERNEL: its disassembly
body() {
	"$OBJDUMP" -d "$1" | awk -v k="<$2>:" '$2 == k { on = 1; next } on && /^[0-9a-f]+ </ { on = 0 } on'
}
a=$T/attention
if [ -n "$HIPCC" ] && command -v "$OBJDUMP" >/dev/null 2>&1 && [ -s "$a-gfx90a.o" ]; then
	body "$a-gfx90a.o" flash_attn_varlen_d128_bf16 | grep -q v_mfma_f32_16x16x16bf16_1k &&
		body "$a-gfx90a.o" flash_attn_varlen_d64_f16 | grep -q v_mfma_f32_16x16x16f16
	ok $? "attention/gfx90a: the f16/bf16 prefill runs on MFMA"
	! { body "$a-gfx90a.o" flash_attn_varlen_d256_bf16; body "$a-gfx90a.o" flash_attn_varlen_d128_f32; } |
		grep -q v_mfma
	ok $? "attention/gfx90a: d256 and f32 keep the portable prefill"
	# gfx908 is compiled only for a family found calling hr_mma_*
	# (amd_targets): its object must be there, or this would pass on nothing.
	[ -s "$a-gfx908.o" ] && [ -s "$a-gfx1030.o" ] &&
		! { "$OBJDUMP" -d "$a-gfx908.o"; "$OBJDUMP" -d "$a-gfx1030.o"; } | grep -q -E 'v_mfma|v_wmma'
	ok $? "attention: gfx908 and gfx1030 keep the portable prefill"
else
	skip 3 "no gfx90a attention object or no llvm-objdump"
fi
CUOBJDUMP=$(dirname "${NVCC:-/nonexistent}")/cuobjdump
if [ -n "$NVCC" ] && [ -x "$CUOBJDUMP" ] && [ -s "$a-sm_90.cubin" ]; then
	"$CUOBJDUMP" -sass -fun flash_attn_varlen_d128_bf16 "$a-sm_90.cubin" >"$T/prefill.sass"
	grep -q 'HMMA\.16816\.F32\.BF16' "$T/prefill.sass"
	ok $? "attention/sm_90: the bf16 prefill runs on mma.sync (HMMA.16816)"
	# K/V tiles by cp.async, V's fragments by ldmatrix.trans
	grep -q LDGSTS "$T/prefill.sass" && grep -q 'LDSM\.16\.MT88' "$T/prefill.sass"
	ok $? "attention/sm_90: the prefill stages K/V by cp.async (LDGSTS), reads V by ldmatrix.trans"
else
	skip 2 "no sm_90 attention object or no cuobjdump"
fi

done_testing
