#!/bin/sh
# Install packages inside an image build from the build context's flat apt
# repository (the project's .debs; for an offline build also the Debian .debs
# of the toolchain), leaving no apt lists, no .debs and no extra source in
# the layer.  A repository marked "offline" (container/build.sh --archive)
# is the only source: the build then needs no network at all.  Otherwise
# the image's own sources (its Debian mirror) serve what the repo lacks.
#
# usage: apt-local.sh REPO PACKAGE...
set -eu
repo=$1
shift
export DEBIAN_FRONTEND=noninteractive
list=/etc/apt/sources.list.d/hanzo-rocm-build.list
echo "deb [trusted=yes] file:$repo ./" >"$list"
trap 'rm -f "$list"' EXIT
# The bind-mounted repo need not be readable by apt's _apt user.
opts="-q -o APT::Sandbox::User=root -o Dpkg::Use-Pty=0"
if [ -e "$repo/offline" ]; then
	echo "apt-local: offline build: packages from the build context only"
	opts="$opts -o Dir::Etc::SourceList=$list -o Dir::Etc::SourceParts=/nonexistent"
fi
# shellcheck disable=SC2086
apt-get $opts update
# shellcheck disable=SC2086
apt-get $opts install -y --no-install-recommends "$@"
rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/cache/apt/archives/*.deb
