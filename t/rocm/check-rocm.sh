#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# `make check-rocm`: the kernel families built by each Debian release's own
# ROCm compiler, in cached debootstrap roots (t/rocm/root.sh), through the
# installed hanzo-rocm CLI (so the library's toolchain and device-library
# discovery is proven on each release too).  As TAP, per release:
#   - precompile --output of every family for the given targets exits 0
#     (nothing failed: a broken toolchain would);
#   - per target, either every family is built, and each code object is an
#     AMDGPU ELF of the target's EF_AMDGPU_MACH (named by llvm-readobj),
#     defines every kernel of kernels/<family>.list, and on gfx90a/gfx942
#     has no VGPR spills and no scratch (the AMDGPU metadata note); or every
#     family is skipped, the release's hipcc really refuses the target (a
#     one-line kernel fails to compile) and the library's "needs ROCm >= X"
#     names a version above the installed one;
#   - a built target whose "needs ROCm >= X" entry exists has X <= the
#     installed version (the table checked against the compilers).
# WORKDIR/matrix.md gets the target × release table for doc/TARGETS.md.
#
# usage: check-rocm.sh SRCDIR STAGEDIR CACHEDIR WORKDIR SUITE=T1,T2 [SUITE=...]
#   STAGEDIR: `make install DESTDIR=STAGEDIR` of this build.  Needs root.
set -u
src=$1 stage=$2 cache=$3
mkdir -p "$4" && work=$(cd "$4" && pwd)
shift 4
# shellcheck disable=SC2034 # tap.sh reads it
top_srcdir=$src
. "$src/t/tap.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root (chroot)"

root=
cleanup() {
	[ -z "$root" ] || umount "$root/proc" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
in_root() {
	chroot "$root" env -i PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		LANG=C.UTF-8 HANZO_ROCM_CACHE_DIR=/tmp/user-cache "$@"
}
# needs TARGET: the library's "needs ROCm >= X" entry: first_rocm, the 5th
# column of its row in lib/shared/targets.def (empty: every release).
needs() {
	sed -n "s/^HR_AMD_TARGET(\"$1\", *[^,]*, *[^,]*, *[^,]*, *\"\([0-9.]*\)\".*/\1/p" \
		"$src/lib/shared/targets.def" | head -n 1
}
# version_ge A B: A >= B
version_ge() { [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n 1)" = "$2" ]; }
families=$(sed -e 's/#.*//' "$src/plugins/families")
matrix=$work/matrix.md
: >"$work/matrix.rows"

for spec; do
	suite=${spec%%=*}
	targets=$(echo "${spec#*=}" | tr ',' ' ')
	tarball=$(sh "$src/t/rocm/root.sh" "$cache" "$suite") || {
		ok 1 "$suite: root with its ROCm compiler"
		continue
	}
	[ -z "$root" ] || umount "$root/proc" 2>/dev/null
	root=$work/$suite
	rm -rf "$root" && mkdir -p "$root"
	tar -C "$root" -xf "$tarball" && cp -a "$stage/." "$root/" && mount -t proc proc "$root/proc"
	in_root ldconfig
	in_root hanzo-rocm info --json >"$work/$suite.info" 2>"$work/$suite.info.err"
	tcinfo=$(python3 -c '
import json, sys
for t in json.load(open(sys.argv[1]))["toolchains"]:
    if t["kind"] == "hipcc":
        print(t["version"] + "\t" + t["identity"])' "$work/$suite.info" 2>/dev/null)
	version=${tcinfo%%	*} identity=${tcinfo#*	}
	[ -n "$version" ]
	ok $? "$suite: the installed CLI finds hipcc: $identity" || sed 's/^/# /' "$work/$suite.info.err"
	readobj=$(cd "$root" && ls usr/lib/llvm-*/bin/llvm-readobj | sort -t- -k2,2 -rn | head -n 1)
	set -- $targets
	targs=
	for t; do targs="$targs -t $t"; done
	start=$(date +%s)
	# shellcheck disable=SC2086
	in_root nice hanzo-rocm precompile --output /out $targs -j "${HR_ROCM_JOBS:-2}" \
		--progress never >"$work/$suite.out" 2>"$work/$suite.err"
	rc=$?
	secs=$(($(date +%s) - start))
	[ $rc -eq 0 ]
	ok $? "$suite: precompile of $(echo $families | wc -w) families × $# targets exits 0 (${secs} s)" ||
		{ sed 's/^/# /' "$work/$suite.out" | grep -v ' built$' | head -n 30; }
	for t in $targets; do
		nb=$(awk -v t="$t" '$1 == t && $NF == "built"' "$work/$suite.out" | wc -l)
		ns=$(awk -v t="$t" '$1 == t && / skipped \(/' "$work/$suite.out" | wc -l)
		nf=$(echo $families | wc -w)
		need=$(needs "$t")
		if [ "$nb" -eq "$nf" ]; then
			ok 0 "$suite/$t: every family built"
			if [ -n "$need" ]; then
				version_ge "$version" "$need"
				ok $? "$suite/$t: built by $version, and the table says it needs ROCm >= $need"
			fi
			upper=$(echo "$t" | tr a-z A-Z)
			spills=0 vsp=0 scratch=0 sspk=
			mkdir -p "$root/chk"
			for f in $families; do
				o=/chk/$f-$t.o
				tail -c +385 "$root/out/$t/$f.hrco" >"$root$o"
				in_root "/$readobj" -h "$o" >"$T/h" 2>&1
				grep -q 'EM_AMDGPU' "$T/h" && grep -q "EF_AMDGPU_MACH_AMDGCN_$upper " "$T/h"
				ok $? "$suite/$t/$f: AMDGPU ELF for $t (EF_AMDGPU_MACH_AMDGCN_$upper)" ||
					grep -E 'Machine|EF_AMDGPU_MACH' "$T/h" | sed 's/^/# /'
				in_root "/${readobj%/*}/llvm-readelf" -s --wide "$o" |
					awk '$4 == "FUNC" && $5 == "GLOBAL" && $(NF-1) != "UND" { print $NF }' |
					sort -u >"$T/syms"
				sed -e 's/#.*//' "$src/kernels/$f.list" | awk 'NF { print $1 }' | sort -u >"$T/want"
				missing=$(comm -23 "$T/want" "$T/syms" | wc -l)
				[ "$missing" -eq 0 ]
				ok $? "$suite/$t/$f: all $(wc -l <"$T/want") kernels of kernels/$f.list present" ||
					comm -23 "$T/want" "$T/syms" | head -n 5 | sed 's/^/# missing: /'
				in_root "/${readobj%/*}/llvm-readelf" --notes "$o" >"$T/notes" 2>&1
				v=$(grep -c '\.vgpr_spill_count: *[1-9]' "$T/notes")
				s=$(grep -c '\.sgpr_spill_count: *[1-9]' "$T/notes")
				p=$(grep -c '\.private_segment_fixed_size: *[1-9]' "$T/notes")
				vsp=$((vsp + v)) scratch=$((scratch + p)) spills=$((spills + s))
				[ "$s" -eq 0 ] || sspk="$sspk $f:$s"
				case $t in
				gfx90a|gfx942)
					[ "$v" -eq 0 ] && [ "$p" -eq 0 ]
					ok $? "$suite/$t/$f: no VGPR spills, no scratch ($v, $p kernels)" ;;
				*)	# the matrix prefill is spill-free on every target
					if [ "$f" = attention ]; then
						[ "$v" -eq 0 ] && [ "$p" -eq 0 ]
						ok $? "$suite/$t/$f: no VGPR spills, no scratch ($v, $p kernels)"
					fi ;;
				esac
			done
			cell="built"
			[ "$vsp$scratch" = 00 ] || cell="$cell; VGPR spills in $vsp, scratch in $scratch kernels"
			[ "$spills" -eq 0 ] || cell="$cell; SGPR spills in $spills kernels ($(echo $sspk | tr ' ' ','))"
		elif [ "$ns" -eq "$nf" ]; then
			reason=$(awk -v t="$t" '$1 == t { sub(/.* skipped \(/, ""); sub(/\)$/, ""); print; exit }' "$work/$suite.out")
			printf '__global__ void k(float *x) { x[threadIdx.x] = 1.0f; }\n' >"$root/chk-probe.hip"
			in_root hipcc --cuda-device-only --offload-arch="$t" -c -x hip /chk-probe.hip \
				-o /chk-probe.o >"$T/probe" 2>&1
			prc=$?
			why=$(grep -m 1 -E 'error' "$T/probe" | sed -e 's/^clang[^:]*: //' -e 's/;.*//')
			[ $prc -ne 0 ]
			ok $? "$suite/$t: skipped ($reason); hipcc $version refuses it too: $why"
			if [ -n "$need" ]; then
				! version_ge "$version" "$need"
				ok $? "$suite/$t: the table's ROCm >= $need is above the installed $version"
			fi
			cell="refused: ${why:-$reason}"
		else
			ok 1 "$suite/$t: $nb of $nf families built, $ns skipped (want all or none)"
			awk -v t="$t" '$1 == t' "$work/$suite.out" | sed 's/^/# /'
			cell="$nb/$nf built"
		fi
		printf '%s\t%s\t%s\n' "$t" "$suite ($version)" "$cell" >>"$work/matrix.rows"
	done
done

# target × release, releases in the order given.
python3 - "$work/matrix.rows" >"$matrix" <<'PY'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
cols, tgts, cell = [], [], {}
for t, s, c in rows:
    if s not in cols: cols.append(s)
    if t not in tgts: tgts.append(t)
    cell[t, s] = c.replace("|", "/")
print("| target | " + " | ".join(cols) + " |")
print("|---" * (len(cols) + 1) + "|")
for t in tgts:
    print("| " + t + " | " + " | ".join(cell.get((t, s), "—") for s in cols) + " |")
PY
echo "# matrix: $matrix"
sed 's/^/# /' "$matrix"
done_testing
