#!/bin/sh
# README command 1 (`sh tools/setup.sh`) on a fresh minimal Debian root, as
# a new user would run it: install-deps.sh picks that release's hipcc, LLVM
# and device libraries, the tree builds, precompile fills the user cache.
# Passes when setup.sh exits 0 and precompile reports no failure.  Not part
# of `make check-package` (it builds the whole tree once more); run it by
# hand before a release:
#   sh t/package/readme-in.sh "$(sh t/package/chroot-base.sh CACHE trixie)" SRC.tar WORKDIR
# (SRC.tar: the tree, e.g. build-debs.sh's WORKDIR/source.tar).  Root.
set -eu
base=$1 srctar=$2
mkdir -p "$3" && work=$(cd "$3" && pwd)
root=$work/root
trap 'umount "$root/proc" 2>/dev/null; rm -rf "$root"' EXIT
rm -rf "$root" && mkdir -p "$root/src"
tar -C "$root" -xf "$base"
mount -t proc proc "$root/proc"
tar -C "$root/src" -xf "$srctar"
start=$(date +%s)
chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
	HANZO_ROCM_NO_PACKAGING=1 sh -c 'cd /src && sh tools/setup.sh' >"$work/setup.log" 2>&1 || {
	tail -n 40 "$work/setup.log" >&2
	echo "readme-in: tools/setup.sh failed ($(cat "$root/etc/debian_version"))" >&2
	exit 1
}
summary=$(grep -E '^[0-9]+ built, [0-9]+ up to date, [0-9]+ skipped, [0-9]+ failed' "$work/setup.log" | tail -n 1)
echo "readme-in: $(cat "$root/etc/debian_version"): $summary ($(($(date +%s) - start)) s)"
grep -E '^install-deps: hipcc' "$work/setup.log" || true
case $summary in
*" 0 failed"*) ;;
*) exit 1 ;;
esac
