#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The plugin SDK end to end (doc/DESIGN.md §6): this tree installed with
# DESTDIR, examples/plugin (a family we do not ship) built against that
# install alone through pkg-config, installed into a plugin directory,
# precompiled by the installed CLI for host-w64, host-w32 and gfx90a (sm_90
# where nvcc exists), then launched on the host backend through the public
# API with the cache told never to compile: what runs is what precompile built.
. "$top_srcdir/t/tap.sh"

command -v c++ >/dev/null 2>&1 || skip_all "no C++ compiler"
command -v pkg-config >/dev/null 2>&1 || skip_all "no pkg-config"
command -v make >/dev/null 2>&1 || skip_all "no make"
# A sanitized library needs its runtime in every program that links it.
ldd "$top_builddir/lib/.libs/libhanzo-rocm.so" 2>/dev/null | grep -q 'lib[at]san' &&
	skip_all "sanitized build (the example links without the sanitizer runtime)"

D="$T/dest"
make -s -C "$top_builddir" install DESTDIR="$D" >"$T/install.log" 2>&1
ok $? "make install DESTDIR= (this build)" || { sed 's/^/# /' "$T/install.log" | tail -20; done_testing; }
pc=$(find "$D" -name hanzo-rocm.pc -path '*/pkgconfig/*' | head -1)
[ -n "$pc" ]
ok $? "the install has hanzo-rocm.pc"
# The install as a sysroot: absolute values move under DESTDIR.
mkdir -p "$T/pc"
sed "s|^\([a-z_]*\)=/|\1=$D/|" "$pc" >"$T/pc/hanzo-rocm.pc"
export PKG_CONFIG_PATH="$T/pc" PKG_CONFIG_LIBDIR="$T/pc"
for v in plugindir kernelincludedir embed pluginmk; do
	val=$(pkg-config --variable=$v hanzo-rocm)
	case $val in "$D"/*) [ -e "$val" ] || [ $v = plugindir ] ;; *) false ;; esac
	ok $? "pkg-config variable $v is in the install: ${val#$D}"
done
[ "$(pkg-config --variable=plugin_abi hanzo-rocm)" = 1 ]
ok $? "plugin_abi is 1"
kid=$(pkg-config --variable=kernelincludedir hanzo-rocm)
for h in hr-kernel.h hr-host.h hr-host-abi.h hr-target-facts.h hr-rows.h; do
	[ -f "$kid/$h" ] || echo "$h" >>"$T/missing"
done
[ ! -s "$T/missing" ]
ok $? "the kernel headers are installed" || sed 's/^/# missing: /' "$T/missing"
"$(pkg-config --variable=embed hanzo-rocm)" --version >"$T/v" 2>&1
grep_ok "the installed hanzo-rocm-embed runs" '^hanzo-rocm-embed ' "$T/v"
libdir=$(pkg-config --variable=libdir hanzo-rocm)
bindir=$(dirname "$(find "$D" -name hanzo-rocm -type f -path '*/bin/*' | head -1)")

# The example, copied out of the tree, built by its own Makefile.
mkdir -p "$T/ex"
cp "$top_srcdir/examples/plugin/Makefile" "$top_srcdir/examples/plugin/biasgelu.hip" \
	"$top_srcdir/examples/plugin/biasgelu.list" "$top_srcdir/examples/plugin/run-biasgelu.c" "$T/ex/"
# Without the caller's flags: a package build's CFLAGS carry
# -ffile-prefix-map=<source tree>=., which is not the example's doing.
env -u CFLAGS -u CXXFLAGS -u CPPFLAGS -u LDFLAGS \
	make -C "$T/ex" CC="${CC:-cc}" CXX=c++ >"$T/build.log" 2>&1
ok $? "examples/plugin builds against the install alone" || sed 's/^/# /' "$T/build.log" | tail -20
# Absolute paths: a relative top_srcdir ("." in a package build) matches anything.
abs_src=$(cd "$top_srcdir" && pwd); abs_build=$(cd "${top_builddir:-.}" && pwd)
! grep -F -e "$abs_src/" -e "$abs_build/" "$T/build.log" >/dev/null
ok $? "  ... with nothing from the source or build tree on its command lines" ||
	grep -n -F -e "$abs_src/" -e "$abs_build/" "$T/build.log" | head -5 | sed 's/^/# /'

make -C "$T/ex" install DESTDIR="$T/pd" HANZO_ROCM_PLUGINDIR=/plugins >"$T/inst.log" 2>&1
ok $? "make install puts biasgelu.so into a plugin directory" || sed 's/^/# /' "$T/inst.log"
P="$T/pd/plugins"
chmod 0755 "$T/pd" "$P"

export HANZO_ROCM_PLUGIN_PATH="$P" LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export HANZO_ROCM_CONF="$T/hanzo-rocm.conf"
{
	printf '[cache]\nuser_dir = %s/cache\nsystem_dir = %s/system\n' "$T" "$T"
	printf '[compiler]\n'
	[ -n "$HIPCC" ] && printf 'hipcc = %s\n' "$HIPCC"
	[ -n "$NVCC" ] && printf 'nvcc = %s\n' "$NVCC"
} >"$HANZO_ROCM_CONF"
CLI="$bindir/hanzo-rocm"
exit_is 0 "the installed CLI lists the plugin" "$CLI" plugins
grep_ok "  ... as ok, version 1.0" "^biasgelu +1\.0 +1 +ok +$P/biasgelu\.so$" "$T/out"
# The fragment's ABI targets: abi writes the contracts, abi-check holds them;
# a changed argument type under the same kernel name fails it.
env -u CFLAGS -u CXXFLAGS -u CPPFLAGS -u LDFLAGS make -C "$T/ex" abi HANZO_ROCM_CLI="$CLI" >"$T/abi.log" 2>&1 &&
	grep -q '^biasgelu	biasgelu_f32	size_t rows, size_t cols, ' "$T/ex/biasgelu.abi"
ok $? "make abi writes biasgelu.abi" || sed 's/^/# /' "$T/abi.log" | tail -5
env -u CFLAGS -u CXXFLAGS -u CPPFLAGS -u LDFLAGS make -C "$T/ex" abi-check HANZO_ROCM_CLI="$CLI" >"$T/abi.log" 2>&1
ok $? "make abi-check passes on it" || sed 's/^/# /' "$T/abi.log" | tail -5
mkdir -p "$T/ex2"
cp "$T/ex/Makefile" "$T/ex/biasgelu.abi" "$T/ex2/"
sed 's/size_t cols, const float \*x/int cols, const float *x/' "$T/ex/biasgelu.hip" >"$T/ex2/biasgelu.hip"
sed 's/size_t rows, size_t cols/size_t rows, int cols/' "$T/ex/biasgelu.list" >"$T/ex2/biasgelu.list"
env -u CFLAGS -u CXXFLAGS -u CPPFLAGS -u LDFLAGS make -C "$T/ex2" abi-check HANZO_ROCM_CLI="$CLI" >"$T/abi.log" 2>&1
[ $? -ne 0 ] && grep -q 'changed or gone' "$T/abi.log"
ok $? "  ... and fails when a kernel's argument type changes under its name" || sed 's/^/# /' "$T/abi.log" | tail -5
targets="--target host-w64 --target host-w32"
[ -n "$HIPCC" ] && targets="$targets --target gfx90a"
[ -n "$NVCC" ] && targets="$targets --target sm_90"
# shellcheck disable=SC2086
exit_is 0 "precompile --user --family biasgelu $targets" "$CLI" precompile --user --family biasgelu --progress never $targets
for t in host-w64 host-w32; do
	grep_ok "  ... built for $t" "$t.*biasgelu.*built|biasgelu.*$t.*built" "$T/out"
done
if [ -n "$HIPCC" ]; then
	grep_ok "  ... built for gfx90a" "gfx90a.*biasgelu.*built|biasgelu.*gfx90a.*built" "$T/out"
else
	skip 1 "no hipcc: gfx90a not built"
fi
if [ -n "$NVCC" ]; then
	grep_ok "  ... built for sm_90" "sm_90.*biasgelu.*built|biasgelu.*sm_90.*built" "$T/out"
else
	skip 1 "no nvcc: sm_90 not built"
fi

# Launched through the public API; compile = never: the precompiled entries run.
printf '[cache]\ncompile = never\n' >>"$HANZO_ROCM_CONF"
for t in host-w64 host-w32; do
	HANZO_ROCM_HOST=$t exit_is 0 "run-biasgelu on $t" "$T/ex/run-biasgelu"
	grep_ok "  ... matches the reference" "on $t, 37 x 1003: max relative error .*: OK" "$T/out"
done

# cache clear --family: that family's entries only.
cp "$T/cache/host-w64/biasgelu.hrco" "$T/cache/host-w64/zzother.hrco"
exit_is 0 "cache clear --user --family biasgelu" "$CLI" cache clear --user --family biasgelu
[ ! -e "$T/cache/host-w64/biasgelu.hrco" ] && [ ! -e "$T/cache/host-w32/biasgelu.hrco" ]
ok $? "  ... removes the family's entries"
[ -e "$T/cache/host-w64/zzother.hrco" ]
ok $? "  ... and keeps another family's"
exit_is 2 "cache clear --family with an unsafe name is a usage error" "$CLI" cache clear --family ../x

# The package flow: precompile --system with the plugin installed, then
# with it removed: its entries leave the system tier, another tool's stay.
printf '[cache]\nuser_dir = %s/cache\nsystem_dir = %s/system\n' "$T" "$T" >"$HANZO_ROCM_CONF"
exit_is 0 "precompile --system with biasgelu installed" "$CLI" precompile --system --target host-w64 --progress never
[ -e "$T/system/host-w64/biasgelu.hrco" ]
ok $? "  ... puts its entry in the system tier"
cp "$T/system/host-w64/biasgelu.hrco" "$T/system/host-w64/notindexed.hrco"
rm "$P/biasgelu.so"
exit_is 0 "precompile --system after the plugin is removed" "$CLI" precompile --system --target host-w64 --progress never
grep_ok "  ... says it pruned the family" "^pruned family biasgelu: no longer installed$" "$T/out"
[ ! -e "$T/system/host-w64/biasgelu.hrco" ]
ok $? "  ... its entry is gone"
[ -e "$T/system/host-w64/notindexed.hrco" ]
ok $? "  ... an entry of a family the index never named stays"
exit_is 0 "a second run prunes nothing more" "$CLI" precompile --system --target host-w64 --progress never
! grep -q pruned "$T/out"
ok $? "  ... and says nothing of it"
done_testing
