#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/coldget.sh BUILDDIR [-v] [op]: the files one cold hanzo_rocm_kernel_get
# walks through (doc/HACKING.md, "Call walk"); with "op", those of the first
# hanzo_rocm_op_run on a handle (bench/coldget-trace.c says which).  BUILDDIR is a configured and
# built tree of its own (its plugins are used); lib/ there is rebuilt with
# -finstrument-functions for the trace and rebuilt plainly afterwards.
set -eu
b=$(cd "$1" && pwd)
v= call=get
for a in "$@"; do
	case $a in -v) v=-v ;; op) call=op ;; esac
done
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$b"
relib() {
	# lib/'s objects and its folders' (lib/cache/*.lo, lib/cache/.libs/*.o,
	# lib/backend/host/*.lo).
	rm -f lib/*.lo lib/.libs/*.o lib/*/*.lo lib/*/.libs/*.o lib/*/*/*.lo lib/*/*/.libs/*.o lib/*.la lib/.libs/*.a
	make lib/libhanzo-rocm-internal.la "$@" >/dev/null
}
relib CFLAGS='-g -O2 -finstrument-functions'
${CC:-cc} -g -O2 -I"$src/lib" -o "$T/trace" "$here/coldget-trace.c" \
	lib/.libs/libhanzo-rocm-internal.a -linih -lhogweed -lnettle -ldl -lpthread -lm
relib
: >"$T/empty.conf"
export HANZO_ROCM_PLUGIN_PATH="$b/plugins/.libs" HANZO_ROCM_HOST=host-w64 \
	HANZO_ROCM_CACHE_DIR="$T/cache" HANZO_ROCM_CONF="$T/empty.conf"
"$T/trace" /dev/null $call >/dev/null  # fills the disk cache (a compile on the miss)
"$T/trace" "$T/trace.out" $call >/dev/null
python3 "$here/coldget-walk.py" "$T/trace" "$T/trace.out" $v
