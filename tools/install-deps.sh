#!/bin/sh
# Install every build, test and packaging dependency of hanzo-rocm from
# Debian 12 packages.  Idempotent: apt-get skips what is already there.
set -eu

BUILD="build-essential autoconf automake libtool pkg-config libinih-dev nettle-dev"
GPU="hipcc libamdhip64-dev rocm-device-libs llvm-15 clang-15"
TEST="python3 valgrind file cppcheck clang-tidy"
PACKAGE="debhelper devscripts fakeroot lintian debootstrap rpm rpmlint podman buildah"

if [ "$(id -u)" -ne 0 ]; then
    SUDO=sudo
else
    SUDO=
fi

export DEBIAN_FRONTEND=noninteractive
# A fresh machine may be running unattended-upgrades: wait for dpkg's lock.
$SUDO apt-get -o DPkg::Lock::Timeout=600 update -q
# HANZO_ROCM_NO_PACKAGING=1 leaves out what only `make check-package` needs.
pkgs="$BUILD $GPU $TEST"
[ -n "${HANZO_ROCM_NO_PACKAGING:-}" ] || pkgs="$pkgs $PACKAGE"
# shellcheck disable=SC2086
$SUDO apt-get -o DPkg::Lock::Timeout=600 install -q -y --no-install-recommends $pkgs
