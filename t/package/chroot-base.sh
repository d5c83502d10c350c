#!/bin/sh
# Make (once) and cache a minimal Debian 12 root for t/package/proof.sh:
# debootstrap --variant=minbase, with the packages the proof installs later
# (hipcc and its dependencies) downloaded into apt's archive cache but NOT
# installed, so that the proof still shows our Depends are enough on a
# minimal system.  Prints the path of the cached tarball.
#
# usage: chroot-base.sh CACHEDIR
# The mirror is the one this machine's apt uses (the Debian archive is the
# only network resource the proof needs).  Delete CACHEDIR to refresh.
set -eu
cache=$1
suite=bookworm
tarball=$cache/$suite-minbase.tar

if [ -s "$tarball" ]; then
	echo "$tarball"
	exit 0
fi

# The first deb.debian.org-style URI of the Debian archive in apt's sources
# (deb822 .sources or one-line .list); fall back to the official name.
mirror() {
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i ~ /\/debian\/?$/) { print $i; exit } }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^https?:.*\/debian\/?$/) { print $i; exit } }' "$f"
	done
}
url=$(mirror | head -n 1)
url=${url:-http://deb.debian.org/debian}

mkdir -p "$cache"
root=$cache/root.tmp
rm -rf "$root"
echo "chroot-base: debootstrap $suite from $url" >&2
debootstrap --variant=minbase "$suite" "$root" "$url" >"$cache/debootstrap.log" 2>&1 || {
	tail -n 30 "$cache/debootstrap.log" >&2
	exit 1
}
# apt in the root: same mirror, updates too; keep downloaded .debs.
printf 'deb %s %s main\ndeb %s %s-updates main\n' "$url" "$suite" "$url" "$suite" \
	>"$root/etc/apt/sources.list"
rm -f "$root/etc/apt/apt.conf.d/docker-clean"
echo 'Binary::apt::APT::Keep-Downloaded-Packages "true";' \
	>"$root/etc/apt/apt.conf.d/01keep-debs"
chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin apt-get -q update >>"$cache/debootstrap.log" 2>&1
chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
	apt-get -q -y --download-only install hipcc libinih1 >>"$cache/debootstrap.log" 2>&1
tar -C "$root" --numeric-owner -cf "$tarball.tmp" .
mv "$tarball.tmp" "$tarball"
rm -rf "$root"
echo "$tarball"
