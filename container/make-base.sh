#!/bin/sh
# Make the Debian 12 base image from the Debian archive alone (no registry):
# the debootstrap --variant=minbase root that t/package/chroot-base.sh makes
# and caches, stripped of apt's lists and downloaded .debs, `podman import`-ed
# as IMAGE.  The .debs that chroot-base.sh downloaded into that root (hipcc
# and its dependencies, libinih1) plus pkgconf go to ARCHIVE_DIR: with them
# container/build.sh --archive builds every image offline.
#
# usage: make-base.sh CHROOT_CACHE IMAGE ARCHIVE_DIR
#   CHROOT_CACHE  directory of chroot-base.sh's cache (made when missing:
#                 that needs the Debian mirror once, as does ARCHIVE_DIR)
# Needs root (chroot) and podman.  Prints the image's ID.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cachedir=$1 image=$2 archive=$3

tarball=$(sh "$here/../t/package/chroot-base.sh" "$cachedir")
mkdir -p "$archive"
archive=$(cd "$archive" && pwd)
root=$(mktemp -d "$cachedir/image-root.XXXXXX")
trap 'rm -rf "$root"' EXIT
tar -C "$root" -xf "$tarball"

in_root() {
	chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		DEBIAN_FRONTEND=noninteractive "$@"
}
# Refreshed with the root (delete the chroot cache to refresh both).
if [ ! -e "$archive/.complete" ] || [ -n "$(find "$tarball" -newer "$archive/.complete")" ]; then
	echo "make-base: downloading pkgconf (for the framework-base image) into $archive" >&2
	in_root apt-get -q -y --download-only install pkgconf >"$archive/download.log" 2>&1 || {
		tail -n 20 "$archive/download.log" >&2
		exit 1
	}
	rm -f "$archive"/*.deb
	cp "$root"/var/cache/apt/archives/*.deb "$archive/"
	: >"$archive/.complete"
fi

# What a registry's debian:bookworm holds: no lists, no cached .debs.
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin \
	"$root"/var/cache/apt/archives/*.deb "$root/etc/apt/apt.conf.d/01keep-debs"
mkdir -p "$root/var/lib/apt/lists/partial"
tar -C "$root" --numeric-owner -cf "$cachedir/base-image.tar" .
old=$(podman image inspect --format '{{.Id}}' "$image" 2>/dev/null || :)
podman import -q \
	--change 'ENV LANG=C.UTF-8' \
	--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
	--change 'CMD ["/bin/bash"]' \
	--change "LABEL org.opencontainers.image.description=\"Debian 12 minbase from debootstrap (hanzo-rocm container/make-base.sh)\"" \
	"$cachedir/base-image.tar" "$image"
rm -f "$cachedir/base-image.tar"
# The previous import, now untagged (kept while images built on it remain).
[ -z "$old" ] || podman rmi "$old" >/dev/null 2>&1 || :
