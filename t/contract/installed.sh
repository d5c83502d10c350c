#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The library as a client with only the installed files sees it: this build
# installed with DESTDIR, t/contract/client.c (written from the installed
# header, man pages and `kernels --json` alone) compiled against that
# install through pkg-config with nothing of the source or build tree on its
# command line, then run on the host device with the installed plugins.  It
# drives the operation call of every family with a NULL, a wrong type, a
# missing argument and a short workspace, and runs the paged decode, the
# varlen prefill, the sort and the q8_0 mat-vec against its own references.
# The families come from the suite's host cache (t/host-cache.stamp) as a
# site tier: nothing is compiled, which the empty user tier proves.
. "$top_srcdir/t/tap.sh"

command -v "${CC:-cc}" >/dev/null 2>&1 || skip_all "no C compiler"
command -v pkg-config >/dev/null 2>&1 || skip_all "no pkg-config"
command -v c++ >/dev/null 2>&1 || skip_all "no C++ compiler (host device)"
# A sanitized library needs its runtime in every program that links it:
# the client is built with the same sanitizer.
san=
case $(ldd "$top_builddir/lib/.libs/libhanzo-rocm.so" 2>/dev/null) in
*libasan*) san="-fsanitize=address,undefined -fno-omit-frame-pointer" ;;
*libtsan*) san="-fsanitize=thread" ;;
esac
[ -d "$HR_HOST_CACHE" ] || skip_all "no host cache (make t/host-cache.stamp)"

D="$T/root"
make -s -C "$top_builddir" install DESTDIR="$D" >"$T/install.log" 2>&1
ok $? "make install DESTDIR= (this build)" || { sed 's/^/# /' "$T/install.log" | tail -20; done_testing; }
pc=$(find "$D" -name hanzo-rocm.pc -path '*/pkgconfig/*' | head -1)
# The install as a sysroot: absolute values move under DESTDIR.
mkdir -p "$T/pc"
sed "s|^\([a-z_]*\)=/|\1=$D/|" "$pc" >"$T/pc/hanzo-rocm.pc"
export PKG_CONFIG_PATH="$T/pc" PKG_CONFIG_LIBDIR="$T/pc"
libdir=$(pkg-config --variable=libdir hanzo-rocm)
plugindir=$(pkg-config --variable=plugindir hanzo-rocm)
for f in "$(pkg-config --variable=includedir hanzo-rocm)/hanzo-rocm.h" \
	"$(pkg-config --variable=datarootdir hanzo-rocm)/man/man3/libhanzo-rocm.3" \
	"$(pkg-config --variable=datarootdir hanzo-rocm)/man/man7/hanzo-rocm-kernels.7"; do
	[ -f "$f" ]
	ok $? "installed: ${f#$D}"
done
# What the client was written from: the installed plugins are the build
# tree's, byte for byte (so the host cache's keys are theirs).
for p in "$HR_PLUGINS"/*.so; do
	cmp -s "$p" "$plugindir/${p##*/}" || echo "${p##*/}" >>"$T/differ"
done
[ ! -s "$T/differ" ]
ok $? "the installed plugins are the build tree's" || sed 's/^/# differs: /' "$T/differ"

# Built as a package's client would: cc, pkg-config, no caller flags.
cp "$top_srcdir/t/contract/client.c" "$T/client.c"
# shellcheck disable=SC2046
(cd "$T" && env -u CPATH -u C_INCLUDE_PATH -u LIBRARY_PATH "${CC:-cc}" -std=c11 -Wall -Wextra -Werror $san \
	$(pkg-config --cflags hanzo-rocm) -o client client.c $(pkg-config --libs hanzo-rocm) -lm) \
	>"$T/cc.log" 2>&1
ok $? "t/contract/client.c builds against the install alone" || sed 's/^/# /' "$T/cc.log"
abs_src=$(cd "$top_srcdir" && pwd); abs_build=$(cd "$top_builddir" && pwd)
pkg-config --cflags --libs hanzo-rocm >"$T/flags"
! grep -F -e "$abs_src" -e "$abs_build" "$T/flags" >/dev/null
ok $? "  ... with nothing from the source or build tree on its command line"
LD_LIBRARY_PATH="$libdir" ldd "$T/client" | grep -q "$libdir/libhanzo-rocm.so"
ok $? "  ... and linked to the installed library"

export LD_LIBRARY_PATH="$libdir" HANZO_ROCM_PLUGIN_PATH="$plugindir" HANZO_ROCM_HOST=host-w64
export HANZO_ROCM_CONF="$T/hanzo-rocm.conf"
printf '[cache]\nuser_dir = %s/user\nsystem_dir = %s/system\nsite_dirs = %s\n' \
	"$T" "$T" "$HR_HOST_CACHE" >"$HANZO_ROCM_CONF"
start=$(date +%s)
"$T/client" >"$T/client.out" 2>"$T/client.err"
rc=$?
ok $rc "the client: every family refuses each defect before launching; decode, prefill, sort, q8_0 mat-vec match" ||
	sed 's/^/# stderr: /' "$T/client.err" | tail -20
sed 's/^/# client: /' "$T/client.out"
echo "# client ran in $(($(date +%s) - start)) s"
n=$(find "$T/user" -type f 2>/dev/null | wc -l)
[ "$n" -eq 0 ]
ok $? "  ... compiling nothing: every family came from the host cache (user tier: $n files)"
done_testing
