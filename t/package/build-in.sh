#!/bin/sh
# dpkg-buildpackage -b, tests on, inside a minimal root of another Debian
# release (e.g. 13): its compiler, debhelper, systemd.pc (the unit goes to
# /usr/lib there) and ROCm, the build dependencies installed from
# debian/control with apt-get build-dep, as a Debian builder would.
# usage: build-in.sh BASE_TARBALL SOURCE_TAR WORKDIR   (root; the mirror)
# The .debs land in WORKDIR/debs.
set -eu
base=$1 srctar=$2
mkdir -p "$3" && work=$(cd "$3" && pwd)
root=$work/root
trap 'umount "$root/proc" 2>/dev/null; rm -rf "$root"' EXIT
rm -rf "$root" "$work/debs" && mkdir -p "$root/build/src" "$work/debs"
tar -C "$root" -xf "$base"
mount -t proc proc "$root/proc"
tar -C "$root/build/src" -xf "$srctar"
in_root() {
	chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive "$@"
}
in_root apt-get -q -y --no-install-recommends install build-essential fakeroot \
	>"$work/deps.log" 2>&1 &&
	in_root apt-get -q -y --no-install-recommends build-dep /build/src >>"$work/deps.log" 2>&1 || {
	tail -n 30 "$work/deps.log" >&2
	exit 1
}
echo "build-in: $(cat "$root/etc/debian_version"): building with tests on" >&2
in_root sh -c "cd /build/src && DEB_BUILD_OPTIONS='parallel=$(nproc)' dpkg-buildpackage -us -uc -b" \
	>"$work/build.log" 2>&1 || {
	tail -n 60 "$work/build.log" >&2
	echo "dpkg-buildpackage failed: see $work/build.log" >&2
	exit 1
}
mv "$root"/build/*.deb "$work/debs/"
echo "build-in: $(ls "$work/debs"/*.deb | wc -l) packages in $work/debs" >&2
