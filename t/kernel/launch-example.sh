#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# examples/vector-add (the public API only: layout helper, geometry,
# launch by work) on the host backend: it must compute c = a + b right,
# for an odd size and one larger than a grid's worth of blocks.
. "$top_srcdir/t/tap.sh"

command -v c++ >/dev/null 2>&1 || skip_all "no C++ compiler"
ex="$top_builddir/examples/vector-add"
[ -x "$ex" ] || skip_all "examples/vector-add not built"
export HANZO_ROCM_PLUGIN_PATH="$HR_PLUGINS" HANZO_ROCM_HOST=host-w64
export HANZO_ROCM_CONF="$T/hanzo-rocm.conf"
# The suite's host cache (t/backend/local.mk) as a read-only site tier.
printf '[cache]\nuser_dir = %s/cache\nsystem_dir = %s/system\nsite_dirs = %s\n' "$T" "$T" "$HR_HOST_CACHE" \
	>"$HANZO_ROCM_CONF"

# No device at all (a fake empty KFD root, no host device): not a success.
mkdir -p "$T/empty"
HANZO_ROCM_ROOT="$T/empty" HANZO_ROCM_HOST= exit_is 2 "vector-add with no device: exit 2" "$ex" 1001
grep_ok "  ... pointing at the host devices" "HANZO_ROCM_HOST=host-w64 runs it on the CPU" "$T/err"
exit_is 0 "vector-add on host-w64, 1001 floats" "$ex" 1001
grep_ok "  ... right" "1001 floats: max relative error .*: OK" "$T/out"
grep_ok "  ... the library's geometry: 1 block of 256 for 1001 elements (vec 4)" "grid 1 x block 256 for 1001" "$T/out"
exit_is 0 "vector-add on host-w64, 300007 floats" "$ex" 300007
grep_ok "  ... right" "300007 floats: max relative error .*: OK" "$T/out"

# examples/attention-decode: a GQA decode step (32/8 heads, head 128, f16)
# over a paged cache of 4096 tokens, against its float64 reference.
ex2="$top_builddir/examples/attention-decode"
if [ -x "$ex2" ]; then
	exit_is 0 "attention-decode on host-w64" "$ex2"
	grep_ok "  ... right" "4096 cached tokens: max error .*: OK" "$T/out"
	grep_ok "  ... the operation call: the same output" "^operation call: workspace [0-9]+ bytes, the same output: OK$" "$T/out"
else
	skip 3 "examples/attention-decode not built"
fi

# The EXAMPLE of libhanzo-rocm(3), as printed, against this build.
sed -n '/^\.EX$/,/^\.EE$/p' "$top_srcdir/doc/libhanzo-rocm.3" | sed '1d;$d' |
	sed 's/\\e/\\/g' >"$T/man-example.c"
san=
ldd "$top_builddir/lib/.libs/libhanzo-rocm.so" 2>/dev/null | grep -q libasan &&
	san=-fsanitize=address,undefined        # the sanitized build's library
${CC:-cc} $san -Wall -Werror -I"$top_srcdir/lib" -o "$T/man-example" "$T/man-example.c" \
	-L"$top_builddir/lib/.libs" -lhanzo-rocm -Wl,-rpath,"$top_builddir/lib/.libs" 2>"$T/cc.err"
ok $? "the libhanzo-rocm(3) example compiles"
[ -s "$T/cc.err" ] && sed 's/^/# /' "$T/cc.err" | head
exit_is 0 "  ... and runs on host-w64" "$T/man-example"
grep_ok "  ... printing the geometry and c[999] = 1000" "grid 1, block 256" "$T/out"
grep_ok "  ... and c[999] = 1000" "c\[999\] = 1000" "$T/out"
done_testing
