# SPDX-License-Identifier: LGPL-2.1-or-later
# A minimal TAP producer for the shell tests.  Source it; it makes a private
# scratch directory ($T) that is removed on exit.
tap_n=0
tap_failed=0
T=$(mktemp -d "${TMPDIR:-/tmp}/hanzo-rocm-test.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT
# Compiles and `cache gc` of a test stay in its own scratch: the machine's
# /tmp may hold other users' (or other test runs') compile temp dirs.
mkdir "$T/tmp" && TMPDIR="$T/tmp" && export TMPDIR || exit 99

plan() { echo "1..$1"; }
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
ok() { # ok COND_STATUS DESCRIPTION
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $tap_n - $2"; else echo "not ok $tap_n - $2"; tap_failed=$((tap_failed + 1)); fi
	# the check's status, so "ok $? TEXT || show-why" shows why
	return "$1"
}
# run_ok DESCRIPTION CMD... : passes when CMD exits 0
run_ok() { d=$1; shift; "$@" >"$T/out" 2>"$T/err"; s=$?; ok $s "$d"; [ $s -eq 0 ] || { sed 's/^/# /' "$T/err" | head -20; }; }
# exit_is WANT DESCRIPTION CMD... : passes when CMD exits WANT (stdout/stderr in $T/out, $T/err)
exit_is() { want=$1; d=$2; shift 2; "$@" >"$T/out" 2>"$T/err"; got=$?; [ "$got" -eq "$want" ]; ok $? "$d"; [ "$got" -eq "$want" ] || { echo "# exit $got, want $want"; sed 's/^/# /' "$T/err" | head -20; }; }
# grep_ok DESCRIPTION PATTERN FILE
grep_ok() { grep -qE -- "$2" "$3"; s=$?; ok $s "$1"; [ $s -eq 0 ] || { echo "# no /$2/ in $3:"; sed 's/^/#   /' "$3" | head -20; }; }
skip() { n=$1; shift; i=0; while [ $i -lt "$n" ]; do tap_n=$((tap_n + 1)); echo "ok $tap_n # SKIP $*"; i=$((i + 1)); done; }
done_testing() { echo "1..$tap_n"; [ $tap_failed -eq 0 ]; exit $?; }
# A group whose members are not only root and us (the trust rule refuses a
# directory or file it can write), that we may chgrp to: nogroup, as root
# (no user has it as primary group but nobody); "" otherwise.
shared_group() {
	[ "$(id -u)" -eq 0 ] && getent group 65534 >/dev/null && echo 65534
}
