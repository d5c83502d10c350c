#!/bin/sh
# lintian of another Debian release (e.g. 13) on the .debs built here: its
# checks and tags are that release's, stricter than the build host's.
# usage: lintian-in.sh BASE_TARBALL DEBS WORKDIR  (root; the Debian mirror)
set -eu
base=$1 debs=$2
mkdir -p "$3" && work=$(cd "$3" && pwd)
root=$work/root
here=$(cd "$(dirname "$0")" && pwd)
trap 'umount "$root/proc" 2>/dev/null; rm -rf "$root"' EXIT
rm -rf "$root" && mkdir -p "$root/debs"
tar -C "$root" -xf "$base"
mount -t proc proc "$root/proc"
in_root() {
	chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive "$@"
}
in_root apt-get -q -y --no-install-recommends install lintian >"$work/apt.log" 2>&1 || {
	tail -n 20 "$work/apt.log" >&2
	exit 1
}
cp "$debs"/*.deb "$root/debs/"
cp "$here/lintian.sh" "$root/lintian.sh"
echo "lintian $(in_root dpkg-query -W -f '${Version}' lintian) ($(cat "$root/etc/debian_version")):"
in_root sh /lintian.sh /debs
