#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The CLI's manners: one style for usage errors in every command,
# unknown processors rejected with the known ones listed, -q quiets
# precompile's table, TERM=dumb turns the progress bar off, and cache list
# sorts its rows, sizes its columns to them and prints precompile's size.
. "$top_srcdir/t/tap.sh"
export HANZO_ROCM_CACHE_DIR="$T/cache" HANZO_ROCM_PLUGIN_PATH="$HR_PLUGINS"
hr() { "$HR_CLI" "$@"; }

# usage CMD ARGS...: exit 2, two lines, "hanzo-rocm CMD: ..." then Try.
usage() {
	cmd=$1; shift
	"$HR_CLI" "$@" >"$T/out" 2>"$T/err"; s=$?
	l1=$(sed -n 1p "$T/err"); l2=$(sed -n 2p "$T/err"); n=$(wc -l <"$T/err")
	[ $s -eq 2 ] && [ "$n" -eq 2 ] && [ ! -s "$T/out" ] &&
		case $l1 in "hanzo-rocm${cmd:+ $cmd}: "?*) true ;; *) false ;; esac &&
		[ "$l2" = "Try 'hanzo-rocm${cmd:+ $cmd} --help' for more information." ]
	ok $? "'hanzo-rocm $*': exit 2, 'hanzo-rocm${cmd:+ $cmd}: ...' and the Try line"
	[ $s -eq 2 ] && [ "$n" -eq 2 ] || { echo "# exit $s, $n lines:"; sed 's/^/#   /' "$T/err" | head -5; }
}
usage "" --bogus
usage "" nosuchcommand
usage "" ""
usage info info --bogus
usage plugins plugins -x
usage precompile precompile -j
usage precompile precompile -j many
usage precompile precompile --progress sometimes
usage precompile precompile extra
usage "cache list" cache list --bogus
usage "cache verify" cache verify --bogus
usage "cache gc" cache gc --max-size 12Q
usage "cache clear" cache clear --bogus
usage cache cache nosuch
usage "config check" config check --bogus
usage selftest selftest --bogus
usage selftest selftest --device x

# An invented processor is a usage error naming the known ones; a real one
# the compiler cannot build (gfx1200: ROCm >= 6.3) stays "skipped".
exit_is 2 "precompile --target gfx9999 is a usage error" hr precompile --target gfx9999 --family fill
grep_ok "it says the target is unknown" "^hanzo-rocm precompile: unknown target 'gfx9999'" "$T/err"
grep_ok "it lists the known processors (gfx90a)" " gfx90a( |$)" "$T/err"
grep_ok "it lists the known processors (gfx1030)" " gfx1030( |$)" "$T/err"
[ ! -s "$T/out" ]; ok $? "and builds nothing"
exit_is 2 "a feature on an unknown processor too" hr precompile --target gfx9999:xnack+ --family fill
exit_is 0 "a known target the compiler cannot build is skipped" hr precompile --target gfx1200 --family fill
grep_ok "reported skipped" "^gfx1200 +fill .*skipped" "$T/out"
exit_is 0 "-q precompile (nothing failed)" hr -q precompile --target gfx1200 --family fill
[ ! -s "$T/out" ]; ok $? "-q prints no table and no summary"

# The bar on a terminal (script(1) gives one), not with TERM=dumb.
if command -v script >/dev/null 2>&1 && script -qec true /dev/null >/dev/null 2>&1; then
	TERM=xterm script -qec "$HR_CLI precompile --force --target gfx1200 --family fill" /dev/null >"$T/tty" 2>&1
	grep -q "$(printf '\033')\[K" "$T/tty"; ok $? "a terminal gets the progress bar"
	TERM=dumb script -qec "$HR_CLI precompile --force --target gfx1200 --family fill" /dev/null >"$T/tty" 2>&1
	! grep -q "$(printf '\033')" "$T/tty"; ok $? "TERM=dumb gets no escape sequence"
else
	skip 2 "no script(1), or no pseudo-terminal for it"
fi

# cache list after real compiles: sorted, aligned, precompile's sizes.
if [ -n "$HIPCC" ] && [ -x "$HIPCC" ]; then
	exit_is 0 "precompile fill for two targets" hr precompile --target gfx90a --target gfx1030 --family fill
	cp "$T/out" "$T/pc"
	exit_is 0 "cache list" hr cache list
	cp "$T/out" "$T/list"
	for t in gfx90a gfx1030; do
		a=$(awk -v t=$t '$1 == t && $2 == "fill" { print $4 }' "$T/pc")
		b=$(awk -v t=$t '$2 == t && $3 == "fill" { print $4 }' "$T/list")
		[ -n "$a" ] && [ "$a" = "$b" ]; ok $? "$t fill: the same size in precompile and cache list ($a, $b)"
	done
	[ "$(awk 'NR > 1 { print $2 }' "$T/list")" = "$(printf 'gfx1030\ngfx90a')" ]
	ok $? "rows sorted by target"
	col=$(head -n1 "$T/list" | awk '{ print index($0, "CREATED") }')
	bad=$(awk -v c="$col" 'NR > 1 && substr($0, c, 2) != "20"' "$T/list")
	[ -z "$bad" ]; ok $? "the CREATED column is aligned under its header${bad:+ ($bad)}"
else
	skip 6 "no hipcc"
fi
done_testing
