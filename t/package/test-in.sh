#!/bin/sh
# README command 2 (`sh tools/test.sh`) on a fresh minimal Debian root, as a
# new user would run it, with HANZO_ROCM_NO_PACKAGING=1: install-deps.sh
# installs that release's build and test dependencies, then the build,
# `make check`, `make lint`, `make check-readme` and the ASan+UBSan build and
# check run in the root.  Not run there: `make check-package`, `check-rocm`
# and `check-container` (they debootstrap roots and run podman/buildah of
# their own, nested in this one; `make check-package` proves the packages on
# Debian 13 from the host).  Passes when test.sh exits 0.  Not part of
# `make check-package` (it builds and tests the whole tree twice more); run
# it by hand before a release, e.g. for Debian 13:
#   sh t/package/test-in.sh "$(sh t/package/chroot-base.sh CACHE trixie)" SRC.tar WORKDIR
# (SRC.tar: the tree, e.g. build-debs.sh's WORKDIR/source.tar).  Root.
set -eu
base=$1 srctar=$2
mkdir -p "$3" && work=$(cd "$3" && pwd)
root=$work/root
# Never rm -rf through a mount that is still there (/dev/pts is the host's).
unmount_all() {
	for m in dev/pts dev/shm proc ''; do umount "$root/$m" 2>/dev/null || :; done
	! grep -q " $root[/ ]" /proc/mounts
}
cleanup() {
	unmount_all || { echo "test-in: $root still has mounts: not removed" >&2; return; }
	[ -n "${HR_KEEP_CHROOT:-}" ] || rm -rf "$root"
}
trap cleanup EXIT
unmount_all
rm -rf "$root" && mkdir -p "$root"
# The root is a mount point, as / is on a machine (unshare -m refuses a
# chroot that is not: the tests' private mount namespaces need it), with
# /proc, /dev/shm and pseudo-terminals (script(1) in t/cli/usage.sh).
mount --bind "$root" "$root"
tar -C "$root" -xf "$base"
mkdir -p "$root/src"
mount -t proc proc "$root/proc"
mkdir -p "$root/dev/shm" "$root/dev/pts"
mount -t tmpfs tmpfs "$root/dev/shm"
mount --bind /dev/pts "$root/dev/pts"
tar -C "$root/src" -xf "$srctar"
start=$(date +%s)
rc=0
chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
	HANZO_ROCM_NO_PACKAGING=1 sh -c 'cd /src && sh tools/test.sh' >"$work/test.log" 2>&1 || rc=$?
# The phase lines and the closing "N passed, N failed".
grep -E '^tools/test\.sh: |^    [0-9]+ tests: |^[0-9]+ passed, [0-9]+ failed' "$work/test.log" || :
rm -rf "$work/test-logs" && cp -r "$root/src/_build/test-logs" "$work/" 2>/dev/null || :
echo "test-in: $(cat "$root/etc/debian_version"): tools/test.sh exit $rc ($(($(date +%s) - start)) s; logs in $work)"
exit "$rc"
