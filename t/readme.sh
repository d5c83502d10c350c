#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The README's shell blocks, extracted from README.md and run as written, so
# the README cannot drift from what works.
#   t/readme.sh              (make check) the "uninstalled" block: the CLI
#                            wrapper, the -uninstalled.pc, building and running
#                            examples/vector-add.c against this build tree
#   t/readme.sh from-source  (make check-readme: it builds the tree once more)
#                            the "From source" block in a copy of the source,
#                            installing into a scratch prefix, then make uninstall
# A block is the ```sh fence after the line `<!-- t/readme.sh: NAME -->`.
# What the test provides, not the README: the checkout (a scratch directory
# whose _build/main and examples are this tree's), and for from-source the
# scratch prefix (the value of the block's `prefix=` line), a no-op
# `ldconfig` and install-deps.sh (the dependencies are installed already) and
# PKG_CONFIG_PATH/LD_LIBRARY_PATH for that prefix (the README says so).
. "${top_builddir:-.}/t/test-env.sh"
. "$top_srcdir/t/tap.sh"
mode=${1:-uninstalled}

block() { # block NAME: the shell block under NAME's marker, as is
	awk -v m="<!-- t/readme.sh: $1 -->" '
		$0 == m { on = 1; next }
		on == 1 && /^```sh$/ { on = 2; next }
		on == 2 && /^```$/ { exit }
		on == 2 { print }' "$top_srcdir/README.md"
}

block "$mode" >"$T/block.sh"
[ -s "$T/block.sh" ]; ok $? "README.md has the $mode block"
[ -s "$T/block.sh" ] || done_testing

case $mode in
uninstalled)
	mkdir -p "$T/checkout/_build"
	ln -s "$top_builddir" "$T/checkout/_build/main"
	ln -s "$top_srcdir/examples" "$T/checkout/examples"
	(cd "$T/checkout" && sh -eux "$T/block.sh") >"$T/log" 2>&1
	s=$?; ok $s "the uninstalled block runs as written (exit $s)"
	[ $s -eq 0 ] || sed 's/^/# /' "$T/log" | tail -n 30
	fams=$(grep -v '^#' "$top_srcdir/plugins/families" | paste -sd'|')
	want=$(grep -cv '^#' "$top_srcdir/plugins/families")
	n=$(grep -cE "^($fams) .* ok " "$T/log")
	[ "$n" -eq "$want" ] && grep -q "every family of plugins/families" "$T/block.sh"
	ok $? "its hanzo-rocm lists every family of plugins/families ($n of $want), as the README says"
	[ -x "$T/checkout/vector-add" ]; ok $? "examples/vector-add.c built with the README's command"
	grep_ok "vector-add ran through the wrapper" '^device 0: ' "$T/log"
	grep_ok "  ... and added its vectors right" 'floats: max relative error .*: OK' "$T/log"
	;;
from-source)
	prefix=$T/prefix
	mkdir -p "$T/src" "$T/bin"
	# The source as a checkout has it (no build trees, no generated files).
	(cd "$top_srcdir" && tar --exclude=./_build --exclude=./.git -cf - .) | tar -C "$T/src" -xf -
	printf '#!/bin/sh\n[ "$1" = --main ] || exit 2\n' >"$T/src/tools/install-deps.sh"
	printf '#!/bin/sh\nexit 0\n' >"$T/bin/ldconfig"
	chmod +x "$T/bin/ldconfig"
	sed "s|^prefix=.*|prefix='$prefix'|" "$T/block.sh" >"$T/run.sh"
	start=$(date +%s)
	(cd "$T/src" && PATH="$T/bin:$PATH" PKG_CONFIG_PATH="$prefix/lib/pkgconfig" \
		LD_LIBRARY_PATH="$prefix/lib" sh -eux "$T/run.sh") >"$T/log" 2>&1
	s=$?; ok $s "the From source block runs as written in a scratch prefix (exit $s, $(($(date +%s) - start)) s)"
	[ $s -eq 0 ] || sed 's/^/# /' "$T/log" | tail -n 30
	[ -x "$prefix/bin/hanzo-rocm" ] && [ -f "$prefix/include/hanzo-rocm.h" ] &&
		[ -f "$prefix/lib/pkgconfig/hanzo-rocm.pc" ]
	ok $? "make install put the CLI, the header and the .pc under the prefix"
	fams=$(grep -v '^#' "$top_srcdir/plugins/families" | paste -sd'|')
	want=$(grep -cv '^#' "$top_srcdir/plugins/families")
	n=$(grep -cE "^($fams) .* ok +$prefix/lib/hanzo-rocm/plugins/" "$T/log")
	[ "$n" -eq "$want" ]; ok $? "the installed CLI finds every installed plugin ($n of $want)"
	grep_ok "the example built against the installed library ran" '^device 0: ' "$T/log"
	(cd "$T/src/_build/install" && make -s uninstall) >/dev/null 2>&1
	left=$(find "$prefix" -type f | head -n 5)
	[ -z "$left" ]; ok $? "make uninstall leaves no file behind${left:+ (left: $left)}"
	;;
*)
	echo "usage: $0 [uninstalled|from-source]" >&2; exit 2 ;;
esac
done_testing
