#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Host benchmarks (`make bench`, from the build tree): library start-up and
# cache hits against the "seed-style" flow a naive crate runs at every process
# start, and precompile's no-op and full runs.  Prints a Markdown table.
#   BENCH_TARGETS        targets to precompile (default: the 4 default ones)
#   BENCH_FAMILIES       families for the full/no-op runs: a list or "all"
#                        (default: affine, the quickest to build; else the
#                        test fixture when no kernel plugin is built)
set -e
. ./t/test-env.sh
B=./bench/bench-host
W=$(mktemp -d "${TMPDIR:-/tmp}/hanzo-rocm-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
TARGETS=${BENCH_TARGETS:-gfx90a gfx942 gfx1100 gfx1030}
NCPU=$(getconf _NPROCESSORS_ONLN)

PLUGINS=$HR_PLUGINS
ls "$PLUGINS"/*.so > /dev/null 2>&1 || PLUGINS=$top_builddir/t/fixtures/precompile/.libs
avail=$(cd "$PLUGINS" && ls *.so | sed 's/\.so$//' | tr '\n' ' ')
FAMS=
want=${BENCH_FAMILIES:-affine}
[ "$want" != all ] || want=$avail
for f in $want; do
	case " $avail " in *" $f "*) FAMS="$FAMS $f" ;; esac
done
[ -n "$FAMS" ] || FAMS=$avail
set -- $FAMS
FAM=$1
FAMS=$*
SRC=$top_srcdir/kernels/$FAM.hip
[ -f "$SRC" ] || SRC=$top_srcdir/t/fixtures/precompile/pctest.c

cat > "$W/hr.conf" <<EOF
[cache]
system_dir = $W/jN
EOF
HANZO_ROCM_CONF=$W/hr.conf
HANZO_ROCM_CACHE_DIR=$W/user
HANZO_ROCM_PLUGIN_PATH=$PLUGINS
export HANZO_ROCM_CONF HANZO_ROCM_CACHE_DIR HANZO_ROCM_PLUGIN_PATH

tflags=
for t in $TARGETS; do tflags="$tflags -t $t"; done
fflags=
for f in $FAMS; do fflags="$fflags -f $f"; done
now() { date +%s.%N; }
ms() { echo "$1 $2" | awk '{ printf "%.0f", ($2 - $1) * 1000 }'; }
field() { sed -n "s/.*$1 \([0-9.]*\).*/\1/p" "$2"; }
PC="$HR_CLI precompile --progress never $tflags $fflags"

t0=$(now); $PC -j1 --output "$W/j1" > "$W/j1.out"; t1=$(now)
$PC -j"$NCPU" --output "$W/jN" > "$W/jN.out"; t2=$(now)
FIRST_T=$(sed -n 's/^\([^ ]*\) .* built$/\1/p' "$W/jN.out" | head -1)
ENTRY=$W/jN/$FIRST_T/$FAM.hrco
$B spawn 5 "$HR_CLI" precompile --progress never $tflags $fflags --output "$W/jN" > "$W/noop"
$PC --output "$W/jN" > "$W/noop.out"
$B init 2000 > "$W/init"
$B first "$FAM" "$FIRST_T" > "$W/first"
$B spawn 20 - first "$FAM" "$FIRST_T" > "$W/firstp"
$B hit "$FAM" "$FIRST_T" 1000000 > "$W/hit"
$B seed "$SRC" "$ENTRY" > "$W/seed"
$B spawn 3 - seed "$SRC" "$ENTRY" > "$W/seedp"
if command -v strace > /dev/null 2>&1; then
	strace -f -qq -e trace=execve -o "$W/st1" $B first "$FAM" "$FIRST_T" > /dev/null
	strace -f -qq -e trace=execve -o "$W/st2" $B seed "$SRC" "$ENTRY" > /dev/null
	# successful execs (PATH lookups fail first), minus bench-host's own
	EX1=$(($(grep 'execve(' "$W/st1" | grep -c '= 0$') - 1))
	EX2=$(($(grep 'execve(' "$W/st2" | grep -c '= 0$') - 1))
else
	EX1="n/a (no strace)"
	EX2="n/a"
fi
npairs=$(grep -cE '^(gfx|sm_)' "$W/jN.out" || true)

cat <<EOF
Host benchmarks — $(uname -n), $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $NCPU CPUs, $(date -u '+%Y-%m-%d %H:%M UTC')
Families: $FAMS; targets: $TARGETS ($npairs pairs, first buildable: $FIRST_T)

| measure | hanzo-rocm | seed-style |
|---|---|---|
| context init (new + unref) | $(field init_ns "$W/init") ns | — |
| first code object, in-process (new + code_object) | $(field first_us "$W/first") µs, children: $(sed -n 's/.*children \(.*\)/\1/p' "$W/first") | $(field seed_us "$W/seed") µs |
| first code object, whole new process (median of 20 / 3) | $(field median "$W/firstp") ms | $(field median "$W/seedp") ms |
| processes spawned per start (strace execve) | $EX1 | $EX2 |
| repeated hit, in-process | $(field hit_ns "$W/hit") ns/call | (re-reads the file) |
| no-op re-precompile (median of 5, whole CLI) | $(field median "$W/noop") ms — $(tail -1 "$W/noop.out" | sed 's/ (.*//') | — |
| full precompile -j1 | $(ms "$t0" "$t1") ms — $(tail -1 "$W/j1.out" | sed 's/ (.*//') | — |
| full precompile -j$NCPU | $(ms "$t1" "$t2") ms | — |
EOF
