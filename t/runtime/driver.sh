#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The CUDA backend against stand-in drivers (t/fakecuda): a driver lacking a
# symbol, a driver with no device, and one with two fake sm_90 devices (with
# and without the shared-memory opt-in).
. "$top_srcdir/t/tap.sh"

drv="$top_builddir/t/runtime/test-driver"
full="$top_builddir/t/fakecuda/.libs"
partial="$top_builddir/t/fakecuda-partial/.libs"
[ -e "$full/libcuda.so.1" ] && [ -e "$partial/libcuda.so.1" ] || skip_all "stand-in drivers not built"

mode() { # mode NAME LIBDIR DEVICES [VAR=VALUE...]: test-driver's mode NAME up to a "-"
	n=$1 lib=$2 nd=$3
	shift 3
	env "$@" HR_FAKE_CUDA=1 HR_FAKE_CUDA_DEVICES="$nd" LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		"$drv" "${n%%-*}" >"$T/$n.tap" 2>"$T/$n.err"
	s=$?
	sed 's/^/#   /' "$T/$n.tap"
	! grep -q '^not ok' "$T/$n.tap" && [ $s -eq 0 ] && grep -q '^ok' "$T/$n.tap"
	ok $? "stand-in driver: $n"
	[ -s "$T/$n.err" ] && sed 's/^/# stderr: /' "$T/$n.err" | head -20
}

mode partial "$partial" 1
mode nodev "$full" 0
mode fake "$full" 2
# a driver that refuses the shared-memory opt-in
mode fake-no-optin "$full" 2 HR_FAKE_CUDA_NO_OPTIN=1
done_testing
