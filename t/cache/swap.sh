#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Check-then-swap of a shared tier's target directory (doc/RELIABILITY.md, the second probe),
# made deterministic by an interposer (t/cache/swap-preload.c): what a lookup
# serves is what it checked.
. "$top_srcdir/t/tap.sh"
pre="$top_builddir/t/cache/.libs/swap-preload.so"
[ -f "$pre" ] || skip_all "t/swap-preload.so not built"
# A sanitizer runtime must come first in the preload list.
asan=$(ldd "$top_builddir/t/cache/test-code-object" 2>/dev/null | awk '/libasan/ { print $3 }')
LD_PRELOAD="${asan:+$asan }$pre" "$top_builddir/t/cache/test-code-object" swap
