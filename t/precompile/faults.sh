#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# A compiler that hangs (killed at [compiler] timeout), crashes or writes
# garbage: the pair fails with the reason, nothing is published, no process
# of the compiler's group and no temp dir survives, and the next run with a
# sane compiler builds it (fault injection, doc/RELIABILITY.md; the heavier runs are
# t/precompile/fault-runs.sh, make check-faults).
. "$top_srcdir/t/tap.sh"
. "$top_srcdir/t/precompile/setup.sh"
. "$top_srcdir/t/precompile/faults-setup.sh"
PC() { "$HR_CLI" precompile -f pctest --progress never --user -t gfx90a "$@" > "$T/out" 2>&1; }

for fault in hang crash garbage; do
	rm -rf "$T/user"; : > "$PC_LOG"
	t0=$(date +%s)
	FAULT=$fault exit_is 1 "$fault: precompile fails" PC
	dt=$(($(date +%s) - t0))
	case $fault in
	hang) why="killed after 2 s \(timeout\)"
	      [ "$dt" -lt 15 ]; ok $? "hang: killed at the configured timeout (${dt} s)" ;;
	crash) why="exit status 139" ;;
	garbage) why="not a AMDGPU code object" ;;
	esac
	grep_ok "$fault: says why" "$why" "$T/out"
	n=$(find "$T/user" -name '*.hrco*' 2>/dev/null | wc -l)
	[ "$n" -eq 0 ]; ok $? "$fault: nothing published, no temp file ($n)"
	sleep 0.3
	a=$(fault_alive); d=$(fault_tmpdirs)
	[ "$a" -eq 0 ] && [ "$d" -eq 0 ]; ok $? "$fault: no compiler process ($a), no temp dir ($d) left"
	exit_is 0 "$fault: then a sane compiler builds it" PC
	"$PC_HELPER" verify "$T/user" > "$T/v" 2>&1
	grep_ok "$fault: and the entry is good" "^1 good, 0 bad" "$T/v"
done
done_testing
