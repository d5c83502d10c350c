#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Several devices in one process on the stand-in CUDA driver (t/fakecuda):
# three devices of which CUDA_VISIBLE_DEVICES=2,0,1 reorders all
# (t/devices/test-multi-driver.c says what is checked).
. "$top_srcdir/t/tap.sh"

drv="$top_builddir/t/devices/test-multi-driver"
full="$top_builddir/t/fakecuda/.libs"
[ -e "$full/libcuda.so.1" ] || skip_all "stand-in driver not built"
HR_FAKE_CUDA=1 HR_FAKE_CUDA_DEVICES=3 HR_FAKE_CUDA_CC=80,90,90 CUDA_VISIBLE_DEVICES=2,0,1 \
	LD_LIBRARY_PATH="$full${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$drv" >"$T/tap" 2>"$T/err"
s=$?
sed 's/^/#   /' "$T/tap"
! grep -q '^not ok' "$T/tap" && [ $s -eq 0 ] && grep -q '^ok' "$T/tap"
ok $? "stand-in driver, three devices reordered by CUDA_VISIBLE_DEVICES"
[ -s "$T/err" ] && sed 's/^/# stderr: /' "$T/err" | head -20
done_testing
