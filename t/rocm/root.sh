#!/bin/sh
# Make (once) and cache a Debian root with that release's own ROCm compiler
# installed, for t/rocm/check-rocm.sh: the minimal root of
# t/package/chroot-base.sh plus hipcc, the LLVM, clang and device libraries
# hipcc depends on (asked of apt, as tools/install-deps.sh does) and the
# run-time libraries of the hanzo-rocm CLI.  Prints the tarball's path.
#
# usage: root.sh CACHEDIR SUITE
set -eu
cache=$1 suite=$2
here=$(cd "$(dirname "$0")" && pwd)
tarball=$cache/$suite-rocm.tar
if [ -s "$tarball" ]; then
	echo "$tarball"
	exit 0
fi
base=$(sh "$here/../package/chroot-base.sh" "$cache" "$suite")
root=$cache/rocm-$suite.tmp
log=$cache/rocm-$suite.log
rm -rf "$root"
mkdir -p "$root"
tar -C "$root" -xf "$base"
in_root() {
	chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}
in_root apt-get -q update >"$log" 2>&1
tc=$(in_root apt-cache depends --important hipcc 2>>"$log" |
	awk '$1 ~ /Depends:$/ { print $2 }' |
	grep -E '^(llvm|clang|rocm-device-libs)(-[0-9]+)?$' | sort -u | tr '\n' ' ')
echo "root.sh: $suite: hipcc with $tc" >&2
# shellcheck disable=SC2086
in_root apt-get -q -y --no-install-recommends install hipcc $tc libinih1 \
	"$(in_root apt-cache search --names-only '^libnettle8' 2>/dev/null | awk 'NR == 1 { print $1 }')" \
	>>"$log" 2>&1 || {
	tail -n 30 "$log" >&2
	exit 1
}
in_root apt-get -q clean >>"$log" 2>&1
tar -C "$root" --numeric-owner -cf "$tarball.tmp" .
mv "$tarball.tmp" "$tarball"
rm -rf "$root"
echo "$tarball"
