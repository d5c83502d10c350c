#!/bin/sh
# README command 2: the full test suite on a fresh machine.  Installs what it
# needs, builds, runs `make check` (plain, then under ASan+UBSan in a second
# build tree) and prints the closing line "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
top=$PWD
jobs=$(nproc)
status=0

sh tools/install-deps.sh || exit 1
[ -x configure ] || autoreconf -fi || exit 1
[ -f Makefile ] || ./configure || exit 1
make -j"$jobs" || exit 1

make -j"$jobs" check || status=1

# Static analysis counts as one more check.
lint=0
make lint || { lint=1; status=1; }

mkdir -p _build/asan
(cd _build/asan && { [ -f Makefile ] || "$top/configure" -q --enable-sanitizers; } &&
	make -j"$jobs" && make -j"$jobs" check) || status=1

pass=0 fail=0
for log in test-suite.log _build/asan/test-suite.log; do
	[ -f "$log" ] || { fail=$((fail + 1)); continue; }
	p=$(sed -n 's/^# PASS: *\([0-9]*\)$/\1/p' "$log" | head -n1)
	f=$(sed -n 's/^# FAIL: *\([0-9]*\)$/\1/p' "$log" | head -n1)
	e=$(sed -n 's/^# ERROR: *\([0-9]*\)$/\1/p' "$log" | head -n1)
	pass=$((pass + ${p:-0}))
	fail=$((fail + ${f:-0} + ${e:-0}))
done
if [ "$lint" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
[ "$fail" -eq 0 ] || status=1
echo "$pass passed, $fail failed"
exit $status
