#!/bin/sh
# Killing precompile (SIGTERM, SIGINT) kills the compiler it runs: hipcc
# and its children live in their own process group, which the terminal's
# Ctrl-C does not reach; nothing of them may survive, nor their temp dir
# (doc/RELIABILITY.md).
. "$top_srcdir/t/tap.sh"
command -v ps >/dev/null 2>&1 || skip_all "no ps (procps): the compiler's processes cannot be counted"
. "$top_srcdir/t/precompile/setup.sh"
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"

wait_for_compile() { # until a compile is logged (60 s at most)
	i=0
	while ! grep -q offload-arch "$PC_LOG" && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

for sig in TERM INT; do
	: > "$PC_LOG"
	# A shell's background job starts with SIGINT ignored: reset it.
	PC_SLOW=60 perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV' \
		"$HR_CLI" precompile -f pctest --progress never --output "$T/o-$sig" -t gfx90a -j1 \
		> "$T/out-$sig" 2>&1 &
	pid=$!
	wait_for_compile
	# The compiler's process group (led by the library's reaper, not hipcc).
	wrapper=$(ps -o pgid= -p "$(awk '/offload-arch/ { print $1; exit }' "$PC_LOG")" | tr -d ' ')
	kill -s $sig "$pid"
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	wait "$pid" 2>/dev/null
	st=$?
	want=$([ $sig = TERM ] && echo 143 || echo 130)
	[ "$st" -eq "$want" ]; ok $? "SIG$sig: precompile dies of it (exit $st, want $want)"
	sleep 0.5
	# Zombies (dead, waiting for their reaper) do not count.
	alive=$(ps -eo pgid=,stat= | awk -v g="$wrapper" '$1 == g && $2 !~ /^Z/' | wc -l)
	[ -n "$wrapper" ] && [ "$alive" -eq 0 ]
	ok $? "SIG$sig: no process of the compiler's group survives ($alive left)"
	[ "$alive" -eq 0 ] || ps -eo pid,pgid,stat,args | awk -v g="$wrapper" '$2 == g' | sed 's/^/# /'
	[ "$alive" -eq 0 ] || perl -e "kill 9, -$wrapper"
	left=$(ls "$T/tmp" | wc -l)
	[ "$left" -eq 0 ]; ok $? "SIG$sig: its temp dir is removed ($left left)"
	rm -rf "$T/tmp"/*
done

done_testing
