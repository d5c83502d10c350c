#!/bin/sh
# hanzo-rocm precompile under stress: kill -9 mid-way, 16 concurrent runs on a
# cold directory, a system tier it may not write.
. "$top_srcdir/t/tap.sh"
. "$top_srcdir/t/precompile/setup.sh"
PC() { "$HR_CLI" precompile -f pctest --progress never "$@"; }

wait_for_compiles() { # N: until N compiles are logged (5 min at most)
	i=0
	while [ "$(grep -c offload-arch "$PC_LOG")" -lt "$1" ] && [ $i -lt 3000 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# kill -9 while the second of two compiles runs (the first is published).
PC_SLOW=2 PC --output "$T/k" -t gfx90a -t gfx1030 -j1 > "$T/k.out" 2>&1 &
pid=$!
wait_for_compiles 2
kill -9 "$pid"
wait "$pid" 2> /dev/null
[ $? -eq 137 ]
ok $? "precompile killed with SIGKILL mid-way"
# The orphaned wrapper of the compile in flight: stop it too.
for w in $(awk '/offload-arch/ { print $1 }' "$PC_LOG"); do kill -9 "$w" 2>/dev/null; done
"$PC_HELPER" verify "$T/k" > "$T/verify" 2>&1
ok $? "after the kill: no partial or invalid entry, no temp file visible"
sed 's/^/#   /' "$T/verify"
grep_ok "the entry finished before the kill is there" '^1 good, 0 bad' "$T/verify"
exit_is 0 "a rerun completes" PC --output "$T/k" -t gfx90a -t gfx1030
grep_ok "rerun builds only what was missing" '^1 built, 1 up to date, 0 skipped, 0 failed' "$T/out"

# 16 processes on a cold directory: each entry compiled exactly once.
: > "$PC_LOG"
pids=
i=0
while [ $i -lt 16 ]; do
	PC --output "$T/c" -t gfx90a -t gfx1030 > "$T/c.$i" 2>&1 &
	pids="$pids $!"
	i=$((i + 1))
done
fails=0
for p in $pids; do wait "$p" || fails=$((fails + 1)); done
[ $fails -eq 0 ]
ok $? "16 concurrent precompiles all succeed"
[ $fails -eq 0 ] || cat "$T"/c.* | sed 's/^/#   /' | head -40
[ "$(pc_compiles gfx90a)" -eq 1 ] && [ "$(pc_compiles gfx1030)" -eq 1 ]
ok $? "each entry compiled once ($(pc_compiles gfx90a) gfx90a, $(pc_compiles gfx1030) gfx1030)"
[ "$(cat "$T"/c.* | grep -c ' built$')" -eq 2 ]
ok $? "exactly two runs report built, the rest up to date"
"$PC_HELPER" verify "$T/c" > "$T/verify" 2>&1
ok $? "no leftover temp files, entries valid"
grep_ok "both entries there" '^2 good, 0 bad' "$T/verify"

# A system tier this user may not write: exit 2, "needs root".
mkdir -p "$T/system"
if [ "$(id -u)" -ne 0 ]; then
	chmod 555 "$T/system"
	exit_is 2 "--system without write access exits 2" PC --system -t gfx90a
	grep_ok "says it needs root" 'needs root' "$T/err"
elif command -v setpriv > /dev/null 2>&1; then
	chmod 755 "$T"
	exit_is 2 "--system as nobody exits 2" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$HR_CLI" precompile -f pctest --progress never --system -t gfx90a
	grep_ok "says it needs root" 'needs root' "$T/err"
else
	skip 2 "root without setpriv: cannot drop privileges"
fi
done_testing
