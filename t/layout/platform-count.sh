#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The cost of adding a backend (a platform) and a target, as doc/HACKING.md
# states it, against the tree: every file that names one platform in code
# (HR_PLATFORM_AMD, hr_cuda_ops, HR_COMPILER_NVCC, ...) is on one of
# HACKING's lists, the count HACKING writes is its list's length, and the
# list's edits are real (each names every platform); every file that names
# an AMD processor in code (__gfxNNN__, HR_AMD_TARGET() is on its target list.
. "$top_srcdir/t/tap.sh"
doc="$top_srcdir/doc/HACKING.md"

# The backticked paths between <!-- NAME --> and <!-- /NAME --> in HACKING.md.
section() {
	sed -n "/<!-- $1 -->/,/<!-- \/$1 -->/p" "$doc" | grep -o '`[a-z][a-z]*/[^`]*`' | tr -d '`' | sort -u
}
# A path of a list as an anchored ERE: P stands for the platform's name (a
# file lib/platform/P.c, lib/backend/P-*.c, or a folder lib/backend/P/*.[ch]).
as_regex() {
	sed -e 's/-P\([-.*]\)/-[a-z0-9]+\1/g' -e 's|/P\([-./]\)|/[a-z0-9]+\1|g' -e 's/\./\\./g' \
		-e 's/\*/[a-z0-9-]*/g' -e 's/^/^/' -e 's/$/$/'
}

section platform-files >"$T/must"
section platform-files-if >"$T/if"
section one-platform >"$T/one"
[ -s "$T/must" ] && [ -s "$T/one" ]; ok $? "doc/HACKING.md lists the files adding a backend touches"

# The count HACKING writes, against its list (a path with * is a family of
# new files of the backend's own, not counted).
want=$(sed -n 's/.*Adding a backend P touches \*\*\([0-9][0-9]*\) files\*\*.*/\1/p' "$doc")
have=$(grep -cv '\*' "$T/must")
[ -n "$want" ] && [ "$want" -eq "$have" ]; ok $? "the count HACKING states ($want) is its list's ($have files)" ||
	sed 's/^/#   /' "$T/must"

cat "$T/must" "$T/if" "$T/one" | as_regex >"$T/allowed"
amd='HR_PLATFORM_AMD|hr_platform_amd|hr_hip_ops|HANZO_ROCM_PLATFORM_AMD|HR_COMPILER_HIPCC|Platform::Amd'
nv='HR_PLATFORM_NVIDIA|hr_platform_nvidia|hr_cuda_ops|HANZO_ROCM_PLATFORM_NVIDIA|HR_COMPILER_NVCC|Platform::Nvidia'
host='HR_PLATFORM_HOST|hr_platform_host|hr_host_ops|HANZO_ROCM_PLATFORM_HOST|HR_COMPILER_CXX|Platform::Host'
# lib/ and its folders (lib/platform/, lib/backend/host/, ...), and the
# bindings (bindings/rust: the crates' sources, tests and examples).
libsrc=$(cd "$top_srcdir" && find lib -path '*/.*' -prune -o -type f -name '*.[ch]' -print | sort)
rssrc=$(cd "$top_srcdir" && find bindings -path '*/.*' -prune -o -path '*/target' -prune -o -type f -name '*.rs' -print | sort)
(cd "$top_srcdir" && grep -lE "\\b($amd|$nv|$host)\\b" $libsrc $rssrc tools/*.[ch] common/*.[ch] kernels/*.h) |
	sort >"$T/naming"
[ -s "$T/naming" ]; ok $? "files naming a platform found ($(wc -l <"$T/naming"))"
grep -vEf "$T/allowed" "$T/naming" >"$T/outside"
[ ! -s "$T/outside" ]; ok $? "no file outside HACKING's lists names a platform" ||
	sed 's/^/#   not listed: /' "$T/outside"

# Each listed edit of an existing file is one: it names every platform (a
# list the new one joins).  Each list entry of the tree exists.
: >"$T/bad"
for f in $(grep -v 'P[-./*]' "$T/must" "$T/if" "$T/one" | cut -d: -f2); do
	[ -e "$top_srcdir/$f" ] || echo "$f: no such file" >>"$T/bad"
done
for f in $(grep -v 'P[-./*]' "$T/must" | grep '\.[ch]$\|\.rs$'); do
	for p in "$amd" "$nv" "$host"; do
		grep -qE "\\b($p)\\b" "$top_srcdir/$f" || echo "$f: does not name every platform" >>"$T/bad"
	done
done
sort -u "$T/bad" -o "$T/bad"
[ ! -s "$T/bad" ]; ok $? "HACKING's list names existing files, and its edits are per-platform lists" ||
	sed 's/^/#   /' "$T/bad"

# Every platform has the new files the list asks of the next one.
for p in amd nvidia host; do
	[ -e "$top_srcdir/lib/platform/$p.c" ] || echo "lib/platform/$p.c"
done >"$T/rows"
[ ! -s "$T/rows" ]; ok $? "each platform's row is its own file" || sed 's/^/#   missing: /' "$T/rows"

# Targets: a processor is named in code only where HACKING says.
section target-files >"$T/tfiles"
[ -s "$T/tfiles" ]; ok $? "doc/HACKING.md lists the files adding a target touches"
(cd "$top_srcdir" && grep -lE '__gfx[0-9]+[0-9a-z]*__|HR_AMD_TARGET\(' $libsrc $(find lib -name '*.def') \
	kernels/*.h kernels/*.hip kernels/*.sh common/*.[ch] tools/*.[ch] plugins/*.c) | sort >"$T/tnaming"
grep -vxFf "$T/tfiles" "$T/tnaming" >"$T/toutside"
[ ! -s "$T/toutside" ]; ok $? "no file outside HACKING's target list names a processor" ||
	sed 's/^/#   not listed: /' "$T/toutside"

done_testing
