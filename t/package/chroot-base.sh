#!/bin/sh
# Make (once) and cache a minimal Debian root for t/package/proof.sh and
# t/rocm/check-rocm.sh:
# debootstrap --variant=minbase, with the packages the proof installs later
# (hipcc and its dependencies) downloaded into apt's archive cache but NOT
# installed, so that the proof still shows our Depends are enough on a
# minimal system.  Prints the path of the cached tarball.
#
# usage: chroot-base.sh CACHEDIR [SUITE]
# SUITE is bookworm (Debian 12, the default), trixie (Debian 13) or sid.
# The mirror is the one this machine's apt uses (the Debian archive is the
# only network resource the proof needs).  Delete CACHEDIR to refresh.
set -eu
cache=$1
suite=${2:-bookworm}
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
log=$cache/debootstrap-$suite.log
root=$cache/root-$suite.tmp
rm -rf "$root"
echo "chroot-base: debootstrap $suite from $url" >&2
debootstrap --variant=minbase "$suite" "$root" "$url" >"$log" 2>&1 || {
	tail -n 30 "$log" >&2
	exit 1
}
# apt in the root: same mirror, updates too; keep downloaded .debs.
# (sid has no -updates suite.)
if [ "$suite" = sid ]; then
	printf 'deb %s %s main\n' "$url" "$suite"
else
	printf 'deb %s %s main\ndeb %s %s-updates main\n' "$url" "$suite" "$url" "$suite"
fi >"$root/etc/apt/sources.list"
rm -f "$root/etc/apt/apt.conf.d/docker-clean"
echo 'Binary::apt::APT::Keep-Downloaded-Packages "true";' \
	>"$root/etc/apt/apt.conf.d/01keep-debs"
# The mirror may be a frozen snapshot of the archive: sid's Release then
# carries an expired Valid-Until (debootstrap itself does not check it).
echo 'Acquire::Check-Valid-Until "false";' >"$root/etc/apt/apt.conf.d/01snapshot"
chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin apt-get -q update >>"$log" 2>&1
chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
	apt-get -q -y --download-only install hipcc libinih1 >>"$log" 2>&1
tar -C "$root" --numeric-owner -cf "$tarball.tmp" .
mv "$tarball.tmp" "$tarball"
rm -rf "$root"
echo "$tarball"
