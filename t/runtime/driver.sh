#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The CUDA backend against stand-in drivers (t/fakecuda): a driver lacking a
# symbol, a driver with no device, and one with two fake sm_90 devices.
. "$top_srcdir/t/tap.sh"

drv="$top_builddir/t/runtime/test-driver"
full="$top_builddir/t/fakecuda/.libs"
partial="$top_builddir/t/fakecuda-partial/.libs"
[ -e "$full/libcuda.so.1" ] && [ -e "$partial/libcuda.so.1" ] || skip_all "stand-in drivers not built"

mode() { # mode NAME LIBDIR DEVICES
	HR_FAKE_CUDA=1 HR_FAKE_CUDA_DEVICES=$3 LD_LIBRARY_PATH="$2${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		"$drv" "$1" >"$T/$1.tap" 2>"$T/$1.err"
	s=$?
	sed 's/^/#   /' "$T/$1.tap"
	! grep -q '^not ok' "$T/$1.tap" && [ $s -eq 0 ] && grep -q '^ok' "$T/$1.tap"
	ok $? "stand-in driver: $1"
	[ -s "$T/$1.err" ] && sed 's/^/# stderr: /' "$T/$1.err" | head -20
}

mode partial "$partial" 1
mode nodev "$full" 0
mode fake "$full" 2
done_testing
