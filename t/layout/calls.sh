#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The call graph between lib/ files, from the objects' symbol tables (nm):
# file A calls file B when A's object leaves a symbol undefined that B's
# object defines.  t/layout/layers.sh checks the includes; this checks the
# calls: no cycle between files (a lower file never calls back up into one
# that calls it), and every call goes to the caller's layer or a lower one.
. "$top_srcdir/t/tap.sh"
NM=${NM:-nm}
command -v "$NM" >/dev/null 2>&1 || skip_all "no $NM"
# The objects of lib/ and of its folders (subdir-objects: lib/cache/entry.c's
# is lib/cache/.libs/libhanzo_rocm_internal_la-entry.o; lib/backend/host/ too), each directory's
# libtool PIC objects in .libs/ when there are some, else its plain ones;
# FILE is the source's path under lib/ (cache/cache.c), as lib/layers has it.
: >"$T/objs"
for d in "$top_builddir/lib" "$top_builddir"/lib/*/ "$top_builddir"/lib/*/*/; do
	d=${d%/}
	[ -d "$d" ] || continue
	case $d in */.*) continue ;; esac
	rel=${d#"$top_builddir/lib"}; rel=${rel#/}; rel=${rel:+$rel/}
	objdir="$d/.libs"
	ls "$objdir"/libhanzo_rocm_internal_la-*.o >/dev/null 2>&1 || objdir=$d
	for o in "$objdir"/libhanzo_rocm_internal_la-*.o; do
		[ -f "$o" ] || continue
		f=${o##*/libhanzo_rocm_internal_la-}
		echo "$rel${f%.o}.c $o"
	done >>"$T/objs"
done
[ -s "$T/objs" ] || skip_all "lib/ objects not built"

# "D FILE SYMBOL" for every external definition, "U FILE SYMBOL" for every use.
while read -r f o; do
	# An object left in a build tree by a source since removed (or moved
	# into a folder) is not lib/.
	[ -f "$top_srcdir/lib/$f" ] || continue
	"$NM" "$o" | awk -v f="$f" '$1 == "U" { print "U", f, $2 }
		NF == 3 && $2 ~ /^[TDBRVW]$/ { print "D", f, $3 }'
done <"$T/objs" >"$T/syms"
awk '$1 == "D" { def[$3] = $2; next } { use[NR] = $2 " " $3 }
	END { for (i in use) { split(use[i], a, " ")
		if ((a[2] in def) && def[a[2]] != a[1]) print a[1], def[a[2]] } }' \
	"$T/syms" | sort -u >"$T/calls"
n=$(awk '{ print $2 }' "$T/syms" | sort -u | wc -l)
[ -s "$T/calls" ] && [ "$n" -gt 20 ]
ok $? "call graph derived: $(wc -l <"$T/calls") file-to-file edges between $n objects"

# tsort names a loop if there is one; every file also sorts by itself.
{ cat "$T/calls"; awk '{ print $2, $2 }' "$T/syms"; } >"$T/graph"
tsort "$T/graph" >/dev/null 2>"$T/loop"
[ ! -s "$T/loop" ]; ok $? "no cycle between lib/ files in the call graph"
[ -s "$T/loop" ] && sed 's/^/# /' "$T/loop"

# Calls follow lib/layers as includes do: never to a higher layer.
sed -e 's/#.*//' "$top_srcdir/lib/layers" | awk 'NF >= 3 {
	if (!($1 in rank)) rank[$1] = n++
	for (i = 3; i <= NF; i++) print $i, rank[$1], $1
}' >"$T/files"
awk 'NR == FNR { rank[$1] = $2; layer[$1] = $3; next }
	!($1 in rank) || !($2 in rank) { print "not in lib/layers: " $1 " -> " $2; next }
	rank[$2] > rank[$1] { print "upward: " $1 " (" layer[$1] ") calls " $2 " (" layer[$2] ")" }' \
	"$T/files" "$T/calls" >"$T/upward"
[ ! -s "$T/upward" ]; ok $? "no lib/ file calls into a higher layer"
[ -s "$T/upward" ] && sed 's/^/# /' "$T/upward"
# The cache layer only reads and publishes: compiling on a miss (a family's
# plugin and the compiler, or caller source) is the kernel layer's, which
# asked (kernel/compile.c).
sed -e 's/#.*//' "$top_srcdir/lib/layers" | awk '$1 == "cache" { for (i = 3; i <= NF; i++) print $i }' >"$T/cache-files"
awk 'NR == FNR { f[$1] = 1; next }
	$1 == "U" && ($2 in f) && $3 ~ /^(hr_toolchain_|hr_family_load$|hr_source_compile$)/ { print $2 " calls " $3 }' \
	"$T/cache-files" "$T/syms" >"$T/cache-compiles"
grep -q source/key.c "$T/cache-files" && [ ! -s "$T/cache-compiles" ]
ok $? "the cache layer neither loads plugins nor compiles, families or caller source (the kernel layer does, on a miss)"
[ -s "$T/cache-compiles" ] && sed 's/^/# /' "$T/cache-compiles"
done_testing
