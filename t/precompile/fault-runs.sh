#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The heavy fault-injection runs (make check-faults; doc/RELIABILITY.md): each prints
# its figures as "# FIGURE" lines (doc/RELIABILITY.md has the table).
#   kill -9 of precompile at random points, FAULT_KILLS times (50)
#   64 processes x 2 threads, and 32 library lookups, on a cold cache
#   ENOSPC: the user cache on a full tmpfs (root: a private mount namespace)
#   the user cache made read-only, or removed, while compiles run
. "$top_srcdir/t/tap.sh"
. "$top_srcdir/t/precompile/setup.sh"
. "$top_srcdir/t/precompile/faults-setup.sh"
U="$T/user"
# No hang is injected here: under 64 processes on 2 cores, a 2 s timeout
# would kill sane compiles (and count as duplicates).
sed 's/^timeout = .*/timeout = 120/' "$T/fault.conf" > "$T/heavy.conf"
HANZO_ROCM_CONF="$T/heavy.conf"
PCU() { "$HR_CLI" precompile -f pctest --progress never --user -t gfx90a -t gfx1030 "$@"; }
verify_counts() { # DIR -> "GOOD BAD STRAY"
	"$PC_HELPER" verify "$1" > "$T/v" 2>&1
	echo "$(sed -n 's/^\([0-9]*\) good, \([0-9]*\) bad.*/\1 \2/p' "$T/v" | tail -1) $(grep -c '^stray' "$T/v")"
}

# ---- kill -9 at random points -------------------------------------------
runs=${FAULT_KILLS:-50}
bad=0 stray=0 alive=0 i=0 killed=0 compiling=0
# A first full run writes the toolchain stamps: later runs go straight to
# compiling (--force), so the kills land in compiles and publishes.
PCU > /dev/null 2>&1
: > "$PC_LOG"
while [ $i -lt "$runs" ]; do
	# 0..2 s into a run that probes the toolchain (about 1 s: --force
	# probes) then compiles for 0..0.5 s each: kills land
	# before, in and after compiling and publishing.
	d=$(awk -v s="$i" 'BEGIN { srand(s); printf "%.2f %.2f", rand() * 2, rand() * 0.5 }')
	c0=$(grep -c offload-arch "$PC_LOG")
	# (not through PCU: $! must be precompile itself, not a subshell)
	FAULT_SLEEP=${d#* } "$HR_CLI" precompile -f pctest --progress never --user \
		-t gfx90a -t gfx1030 --force -j2 > /dev/null 2>&1 &
	pid=$!
	sleep "${d% *}"
	k=0; kill -9 "$pid" 2>/dev/null && k=1
	wait "$pid" 2>/dev/null
	killed=$((killed + k))
	# a kill that hit a run that had started a compile
	[ $k -eq 1 ] && [ "$(grep -c offload-arch "$PC_LOG")" -gt "$c0" ] && compiling=$((compiling + 1))
	sleep 0.2
	a=$(fault_alive)
	[ "$a" -eq 0 ] || { echo "# run $i: $a left:"; ps -eo pgid=,pid=,ppid=,stat=,args= | awk -v g="$(awk '{ print $1 }' "$PC_LOG" | sort -u | tr '\n' ' ')" '
		BEGIN { n = split(g, a, " "); for (i = 1; i <= n; i++) want[a[i]] = 1 }
		($1 in want) && $4 !~ /^Z/' | sed 's/^/#   /'; }
	alive=$((alive + a))
	set -- $(verify_counts "$U")
	bad=$((bad + ${2:-0}))
	i=$((i + 1))
done
stray=$(fault_tempfiles "$U"); dirs=$(fault_tmpdirs)
[ "$bad" -eq 0 ]; ok $? "kill -9 x $runs ($killed mid-run): 0 corrupt entries seen by a reader ($bad)"
[ "$alive" -eq 0 ]; ok $? "kill -9 x $runs: no compiler process outlived its precompile ($alive)"
"$HR_CLI" cache gc > /dev/null 2>&1
dirs_after=$(fault_tmpdirs)
[ "$dirs_after" -eq 0 ]; ok $? "kill -9 x $runs: $dirs compile temp dirs left, $dirs_after after cache gc"
find "$U" -name '.*.hrco.*' -exec touch -d '2 hours ago' {} +
"$HR_CLI" cache gc > /dev/null 2>&1
stray_after=$(fault_tempfiles "$U")
[ "$stray_after" -eq 0 ]; ok $? "kill -9 x $runs: $stray publish temp files left (never read), $stray_after after gc once stale"
exit_is 0 "kill -9 x $runs: then a run completes" PCU
set -- $(verify_counts "$U")
[ "$1" = 2 ] && [ "$2" = 0 ]; ok $? "kill -9 x $runs: both entries good ($1 good, $2 bad)"
echo "# FIGURE kill-9: runs=$runs killed-mid-run=$killed of-which-after-a-compile-started=$compiling corrupt=$bad surviving-compilers=$alive tmpdirs=$dirs->$dirs_after publish-temp=$stray->$stray_after"

# ---- 64 processes x 2 threads on a cold cache --------------------------------
rm -rf "$U"; : > "$PC_LOG"
pids= i=0
while [ $i -lt 64 ]; do
	FAULT_SLEEP=1 PCU -j2 > "$T/c.$i" 2>&1 &
	pids="$pids $!"; i=$((i + 1))
done
failed=0
for p in $pids; do wait "$p" || failed=$((failed + 1)); done
c90=$(pc_compiles gfx90a); c10=$(pc_compiles gfx1030)
[ "$failed" -eq 0 ]; ok $? "64 processes x 2 threads: all exit 0 ($failed failed)"
[ "$c90" -eq 1 ] && [ "$c10" -eq 1 ]; ok $? "64 processes x 2 threads: each entry compiled once (gfx90a $c90, gfx1030 $c10)"
[ "$c90" -eq 1 ] && [ "$c10" -eq 1 ] || grep -h -v '^TARGET\|up to date$' "$T"/c.* | sort | uniq -c | sed 's/^/# /'
set -- $(verify_counts "$U")
[ "$1" = 2 ] && [ "$2" = 0 ] && [ "$3" = 0 ]; ok $? "64 processes: 2 good entries, $2 bad, $3 temp files"
echo "# FIGURE 64x2: failed=$failed compiles=gfx90a:$c90,gfx1030:$c10 corrupt=$2 temp=$3 tmpdirs=$(fault_tmpdirs)"

rm -rf "$U"; : > "$PC_LOG"
pids= i=0
while [ $i -lt 32 ]; do
	FAULT_SLEEP=1 "$PC_HELPER" lookup gfx90a pctest > "$T/l.$i" 2>&1 &
	pids="$pids $!"; i=$((i + 1))
done
failed=0
for p in $pids; do wait "$p" || failed=$((failed + 1)); done
c90=$(pc_compiles gfx90a)
[ "$failed" -eq 0 ] && [ "$c90" -eq 1 ]; ok $? "32 applications on one cold entry: all served ($failed failed), $c90 compile"
echo "# FIGURE lookups-32: failed=$failed compiles=$c90 tmpdirs=$(fault_tmpdirs)"

# ---- ENOSPC, read-only, vanished (root: a private mount namespace) -------------
if [ "$(id -u)" -ne 0 ] || ! unshare -m true 2>/dev/null; then
	skip 8 "not root: no private mount namespace for a full or read-only cache"
	done_testing
	exit 0
fi
# ENOSPC: room for the tier's stamp and index, not for an entry.
rm -rf "$U"; mkdir -p "$U"
unshare -m sh -c "mount -t tmpfs -o size=12k,mode=0700 hr-full '$U' &&
	dd if=/dev/zero of='$U/filler' bs=1k count=9 2>/dev/null;
	FAULT_SLEEP=0 $(command -v "$HR_CLI") precompile -f pctest --progress never --user -t gfx90a -t gfx1030 > '$T/full.out' 2>&1
	echo \$? > '$T/full.rc'; rm -f '$U/filler'
	'$PC_HELPER' verify '$U' > '$T/full.v' 2>&1; find '$U' -name '.*.hrco.*' | wc -l > '$T/full.tmp'"
rc=$(cat "$T/full.rc"); tmpf=$(cat "$T/full.tmp")
[ "$rc" -eq 1 ]; ok $? "ENOSPC: precompile fails ($rc)"
grep -q "No space left on device" "$T/full.out"; ok $? "ENOSPC: and says why"
grep -q " 0 bad" "$T/full.v" && [ "$tmpf" -eq 0 ]; ok $? "ENOSPC: nothing partial ($(tail -1 "$T/full.v"), $tmpf temp files)"
echo "# FIGURE enospc: exit=$rc $(tail -1 "$T/full.v") temp=$tmpf"

# Writeback errors: ext4 on a loop device whose backing file (sparse, on a
# 3 MiB tmpfs) has no room left: write() succeeds into the page cache, the
# error comes at fsync (as on a thin-provisioned or network disk).
if command -v mkfs.ext4 >/dev/null && [ -e /dev/loop-control ]; then
	rm -rf "$U"; mkdir -p "$U" "$T/back"
	unshare -m sh -c "mount -t tmpfs -o size=3m hr-back '$T/back' &&
		truncate -s 64m '$T/back/disk' &&
		mkfs.ext4 -q -F -O ^has_journal -m 0 '$T/back/disk' &&
		mount -o loop '$T/back/disk' '$U' && chmod 700 '$U' || exit 1
		dd if=/dev/zero of='$U/filler' bs=64k count=48 conv=fsync 2>/dev/null
		FAULT_SLEEP=0 '$HR_CLI' precompile -f pctest --progress never --user -t gfx90a -t gfx1030 > '$T/wb.out' 2>&1
		echo \$? > '$T/wb.rc'; rm -f '$U/filler'
		'$PC_HELPER' verify '$U' > '$T/wb.v' 2>&1
		find '$U' -name '.*.hrco.*' | wc -l > '$T/wb.tmp'
		umount '$U'" 2>"$T/wb.err"
	if [ -s "$T/wb.rc" ]; then
		rc=$(cat "$T/wb.rc"); tmpf=$(cat "$T/wb.tmp")
		[ "$rc" -eq 1 ]; ok $? "writeback error: precompile fails ($rc)"
		sed 's/^/#   /' "$T/wb.out" | grep -v '^#   TARGET' | head -4
		grep -q " 0 bad" "$T/wb.v" && ! grep -q "^ok " "$T/wb.v" && [ "$tmpf" -eq 0 ]
		ok $? "writeback error: no entry published, nothing partial ($(tail -1 "$T/wb.v"), $tmpf temp files)"
		echo "# FIGURE writeback: exit=$rc $(tail -1 "$T/wb.v") temp=$tmpf"
	else
		skip 2 "no loop device here: $(head -1 "$T/wb.err")"
	fi
else
	skip 2 "no mkfs.ext4 or loop devices"
fi

# Read-only while compiles run (bind-mounted read-only after the first starts).
rm -rf "$U"; mkdir -p "$U"; : > "$PC_LOG"
unshare -m sh -c "
	FAULT_SLEEP=1 '$HR_CLI' precompile -f pctest --progress never --user -t gfx90a -t gfx1030 -j1 > '$T/ro.out' 2>&1 &
	p=\$!
	while ! grep -q offload-arch '$PC_LOG'; do sleep 0.05; done
	mount --bind '$U' '$U' && mount -o remount,ro,bind '$U'
	wait \$p; echo \$? > '$T/ro.rc'
	'$PC_HELPER' verify '$U' > '$T/ro.v' 2>&1"
rc=$(cat "$T/ro.rc")
[ "$rc" -eq 1 ] && grep -q " 0 bad" "$T/ro.v"
ok $? "read-only mid-run: precompile fails ($rc), nothing corrupt ($(tail -1 "$T/ro.v"))"
exit_is 0 "read-only mid-run: writable again, a rerun completes" PCU
echo "# FIGURE read-only: exit=$rc $(tail -1 "$T/ro.v") temp=$(fault_tempfiles "$U")"

# Vanished while compiles run.
rm -rf "$U"; : > "$PC_LOG"
FAULT_SLEEP=1 PCU -j1 > "$T/gone.out" 2>&1 &
p=$!
while ! grep -q offload-arch "$PC_LOG"; do sleep 0.05; done
rm -rf "$U"
wait $p; rc=$?
set -- $(verify_counts "$U")
[ "${2:-0}" -eq 0 ] && [ "${3:-0}" -eq 0 ]
ok $? "vanished mid-run: exit $rc, ${1:-0} good, ${2:-0} bad, ${3:-0} temp files"
echo "# FIGURE vanished: exit=$rc good=${1:-0} bad=${2:-0} temp=${3:-0} tmpdirs=$(fault_tmpdirs)"
done_testing
