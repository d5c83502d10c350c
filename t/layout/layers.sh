#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The include graph of lib/, derived from its #include lines, against the
# layers declared in lib/layers: every file placed, no include of a higher
# layer, no cycle between units; and no lib/ header shadows a system header
# (lib/ is on every compile's -I path); the CLI uses only the public
# headers and hanzo-rocm-tools.h, and no test builds from tools/.
# A unit of more than three files is a folder of lib/ (lib/cache/, ...);
# files are named by their path under lib/ (cache/entry.c), and a
# folder's <folder>-internal.h is included only by the folder's own files.
. "$top_srcdir/t/tap.sh"
lib="$top_srcdir/lib"
layers="$lib/layers"

sed -e 's/#.*//' "$layers" | awk 'NF >= 3 {
	if (!($1 in rank)) rank[$1] = n++
	for (i = 3; i <= NF; i++) print $i, $2, rank[$1], $1
}' >"$T/files"

# Every .c, .h and .def, in lib/ or a folder of it, is placed exactly once.
(cd "$lib" && find . -maxdepth 3 -path './.*' -prune -o -type f \( -name '*.c' -o -name '*.h' -o -name '*.def' \) -print) |
	sed 's|^\./||' | sort >"$T/have"
awk '{ print $1 }' "$T/files" | sort >"$T/listed"
comm -23 "$T/have" "$T/listed" >"$T/unplaced"
[ ! -s "$T/unplaced" ]; ok $? "every lib/ file is in lib/layers$( [ -s "$T/unplaced" ] && printf ' (missing: %s)' "$(tr '\n' ' ' <"$T/unplaced")")"
sort "$T/listed" | uniq -d >"$T/dups"
comm -13 "$T/have" "$T/listed" >>"$T/dups"
[ ! -s "$T/dups" ]; ok $? "lib/layers lists each existing file once$( [ -s "$T/dups" ] && printf ' (bad: %s)' "$(tr '\n' ' ' <"$T/dups")")"

# The edges: FILE includes "HEADER" (system headers <...> are not ours),
# both as paths under lib/.  An include is looked up as the compiler does:
# next to the including file first (a folder's own headers by bare name),
# then in lib/ (on every compile's -I path: "cache/cache.h", "util.h").
# PATH without its "." and "DIR/.." components.
normalize() {
	printf '%s\n' "$1" | sed -e 's|^\./||' -e 's|/\./|/|g' -e ':a' -e 's|[^/.][^/]*/\.\./||' -e 'ta'
}
for f in $(grep -v "\.def$" "$T/have"); do
	case $f in */*) dir=${f%/*}/ ;; *) dir= ;; esac
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$lib/$f" |
		while read -r h; do
			p=$(normalize "$dir$h")
			[ -n "$dir" ] && [ -e "$lib/$p" ] || p=$(normalize "$h")
			# A header outside lib/ (../../kernels/hr-host-abi.h, the
			# host code objects' ABI) is an interface, not a layer.
			case $p in ../*) continue ;; esac
			echo "$f $p"
		done
done >"$T/edges"
[ -s "$T/edges" ]; ok $? "include graph derived ($(wc -l <"$T/edges") edges)"

awk 'NR == FNR { unit[$1] = $2; rank[$1] = $3; layer[$1] = $4; next }
	!($2 in unit) { print "unknown header: " $1 " includes \"" $2 "\""; next }
	rank[$2] > rank[$1] {
		print "upward: " $1 " (" layer[$1] ") includes " $2 " (" layer[$2] ")"
	}' "$T/files" "$T/edges" >"$T/upward"
[ ! -s "$T/upward" ]; ok $? "no file includes a header of a higher layer"
[ -s "$T/upward" ] && sed 's/^/# /' "$T/upward"

# A folder's <folder>-internal.h is private to the folder: it lives in its
# folder, is named after it, and only the folder's own files include it.
awk '$1 ~ /-internal\.h$/ { print $1 }' "$T/files" | while read -r h; do
	case $h in
	*/*) d=${h%/*}; [ "${h##*/}" = "${d##*/}-internal.h" ] || echo "$h: not named after its folder (${d##*/}-internal.h)" ;;
	*) echo "$h: an -internal.h in lib/ itself, not in a folder" ;;
	esac
done >"$T/internal"
awk '$2 ~ /-internal\.h$/ {
		hd = $2; if (hd ~ /\//) sub(/\/[^\/]*$/, "", hd); else hd = "."
		fd = $1; if (fd ~ /\//) sub(/\/[^\/]*$/, "", fd); else fd = "."
		if (fd != hd) print $1 " includes " $2 ", private to " hd "/"
	}' "$T/edges" >>"$T/internal"
[ ! -s "$T/internal" ]; ok $? "a folder's -internal.h is included by that folder's files only"
[ -s "$T/internal" ] && sed 's/^/# /' "$T/internal"

# Units' graph through tsort, which names a loop if there is one.
awk 'NR == FNR { unit[$1] = $2; next }
	($2 in unit) && unit[$1] != unit[$2] { print unit[$1], unit[$2] }
	{ print unit[$1], unit[$1] }' "$T/files" "$T/edges" >"$T/units"
tsort "$T/units" >"$T/order" 2>"$T/loop"
[ ! -s "$T/loop" ]; ok $? "the units' include graph has no cycle"
[ -s "$T/loop" ] && sed 's/^/# /' "$T/loop"

# No lib/ header may share a name with a header of the system include path
# (a folder's header as it is included from outside: "cache/cache.h").
dirs=$(${CC:-cc} -xc -E -v /dev/null 2>&1 >/dev/null |
	sed -n '/^#include <...> search starts here:/,/^End of search list\./p' |
	sed -n 's/^ \(\/[^ ]*\).*/\1/p')
: >"$T/shadow"
for h in $(grep '\.h$' "$T/have"); do
	for d in $(printf "%s\n" $dirs /usr/include | sort -u); do
		[ -e "$d/$h" ] && echo "$h shadows $d/$h" >>"$T/shadow"
	done
done
[ -n "$dirs" ]; ok $? "system include path found"
[ ! -s "$T/shadow" ]; ok $? "no lib/ header shadows a system header"
[ -s "$T/shadow" ] && sed 's/^/# /' "$T/shadow"

# The CLI sees the library through the public headers and hanzo-rocm-tools.h
# only; the tests never reach into tools/.
for f in "$top_srcdir"/tools/*.c "$top_srcdir"/tools/*.h; do
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
		while read -r h; do
			case $h in hanzo-rocm.h|hanzo-rocm-plugin.h|hanzo-rocm-tools.h) continue ;; esac
			[ -e "$lib/$h" ] && echo "${f##*/} includes lib/$h"
		done
done >"$T/tools"
[ ! -s "$T/tools" ]; ok $? "tools/ includes no private library header but hanzo-rocm-tools.h"
[ -s "$T/tools" ] && sed 's/^/# /' "$T/tools"
grep -n 'top_srcdir)/tools\|tools/[a-z-]*\.[ch]' "$top_srcdir"/t/local.mk "$top_srcdir"/t/*/local.mk | grep -v '^[^:]*:[0-9]*:[[:space:]]*#' >"$T/reach" || :
[ ! -s "$T/reach" ]; ok $? "no test builds from tools/ sources"
[ -s "$T/reach" ] && sed 's/^/# /' "$T/reach"

# A flat file of lib/ carries its layer's name as a prefix (LAYER.x or
# LAYER-NAME.x) but the headers named for their users (the public ones and
# the tools'); a folder's files carry no layer word: FOLDER.x,
# FOLDER-internal.h, or a name that starts with no layer's name.
awk '{ print $4 }' "$T/files" | sort -u >"$T/layernames"
while read -r f unit rank layer; do
	b=${f##*/}
	case $f in
	*/*)
		d=${f%/*}; d=${d##*/}
		case $b in "$d".*|"$d-internal.h") continue ;; esac
		while read -r l; do
			case $b in "$l".*|"$l"-*) echo "$f (a layer word: $l)" ;; esac
		done <"$T/layernames"
		;;
	*)
		case $b in
		"$layer".*|"$layer"-*|hanzo-rocm.h|hanzo-rocm-plugin.h|hanzo-rocm-tools.h) ;;
		*) echo "$f (layer $layer)" ;;
		esac
		;;
	esac
done <"$T/files" >"$T/prefix"
[ ! -s "$T/prefix" ]; ok $? "every flat lib/ file is named after its layer, no folder's file carries a layer word"
[ -s "$T/prefix" ] && sed "s/^/# /" "$T/prefix"
# doc/HACKING.md's layer diagram (the first fenced block after "## Layout"):
# a row starts with a layer's name; every .c and .def of lib/layers is named
# in its layer's row (a folder's file as FOLDER/NAME.c, its path under lib/),
# and every file named there is in that layer.
awk '/^## Layout/ { on = 1 } on && /^  ```/ { if (in_) exit; in_ = 1; next }
	in_ { print }' "$top_srcdir/doc/HACKING.md" >"$T/diagram"
awk 'NR == FNR { layer[$4] = 1; next }
	{ if ($1 in layer) cur = $1
	  for (i = 1; i <= NF; i++) {
		w = $i; gsub(/[(),`]/, "", w)
		if (w ~ /^([a-z0-9-]+\/)*[a-z0-9-]+\.(c|h|def)$/) print w, cur
	  } }' "$T/files" "$T/diagram" | sort -u >"$T/drawn"
awk '$1 ~ /\.(c|def)$/ { print $1, $4 }' "$T/files" | sort >"$T/placed"
{ comm -23 "$T/placed" "$T/drawn" | sed 's/^/not drawn in its layer: /'
  awk 'NR == FNR { l[$1] = $4; next } !($1 in l) || l[$1] != $2 {
	print "drawn in the wrong layer or not in lib/layers: " $1 " (" $2 ")" }' \
	"$T/files" "$T/drawn"; } >"$T/drift"
[ -s "$T/diagram" ] && [ ! -s "$T/drift" ]; ok $? "doc/HACKING.md's diagram places every lib/ file as lib/layers does"
[ -s "$T/drift" ] && sed 's/^/# /' "$T/drift"
done_testing
