#!/bin/sh
# Install the dependencies of hanzo-rocm from the distribution's packages.
#   sh tools/install-deps.sh         build, compiler, test and packaging tools
#   sh tools/install-deps.sh --main  only what building and precompiling need
#                                    (README command 1, tools/setup.sh)
# HANZO_ROCM_NO_PACKAGING=1 leaves out only the packaging tools.  Packages come
# from the distribution: Debian 12 (bookworm), 13 (trixie) and sid; Ubuntu
# 24.04 with universe.  Idempotent: apt-get skips what is already there.
#
# No LLVM version is written here: each release packages hipcc against its
# own LLVM (Debian 12: llvm-15 and rocm-device-libs; 13: llvm-17 and
# rocm-device-libs-17; sid: -21), so we ask apt which LLVM, clang and device
# libraries this release's hipcc depends on and install exactly those (the
# tests need that LLVM's llvm-readelf; naming them keeps them installed
# should hipcc's dependencies ever move to Recommends).
set -eu

main_only=
case "${1-}" in
--main) main_only=1 ;;
"") ;;
*) echo "usage: sh tools/install-deps.sh [--main]" >&2; exit 2 ;;
esac

BUILD="build-essential autoconf automake libtool pkg-config libinih-dev nettle-dev"
GPU="hipcc libamdhip64-dev"
# clang and its compiler-rt (libFuzzer, ASan) for `make fuzz`.
TEST="python3 valgrind file cppcheck clang-tidy clang libclang-rt-dev groff-base"
# The Rust bindings (make check-rust): Debian's own toolchain and bindgen
# (the -sys crate is checked against the header with it); no crates.
TEST="$TEST cargo rustc bindgen"
# The Python package's tests (make check, t/python/pytest.sh): Debian's pytest and numpy.
TEST="$TEST python3-pytest python3-numpy"
# The remote cache tier: its module (libcurl, hiredis for leases) and the
# servers its tests start (nginx with WebDAV PUT, redis-server; openssl makes
# the certificates of its HTTPS test, t/remote/auth.sh).
BUILD="$BUILD libcurl4-openssl-dev libhiredis-dev"
TEST="$TEST nginx-light redis-server openssl"
# elfutils: eu-strip, which rpm's find-debuginfo (t/package/rpm-host.macros) needs.
PACKAGE="debhelper devscripts fakeroot lintian debootstrap rpm rpmlint elfutils podman buildah"
# python3-hanzo-rocm (debian/rules: pybuild on bindings/python/pyproject.toml).
PACKAGE="$PACKAGE dh-python python3-all python3-setuptools pybuild-plugin-pyproject"

if [ "$(id -u)" -ne 0 ]; then
    SUDO=sudo
else
    SUDO=
fi

export DEBIAN_FRONTEND=noninteractive
# A fresh machine may be running unattended-upgrades: wait for dpkg's lock.
$SUDO apt-get -o DPkg::Lock::Timeout=600 update -q

# hipcc's own dependencies named llvm-N, clang-N, rocm-device-libs[-N].
toolchain=$(apt-cache depends --important hipcc 2>/dev/null |
    awk '$1 ~ /Depends:$/ { print $2 }' |
    grep -E '^(llvm|clang|rocm-device-libs)(-[0-9]+)?$' | sort -u | tr '\n' ' ')
case "$toolchain" in
*llvm-*)
    ;;
*)
    echo "install-deps: this release's hipcc names no llvm-N dependency (apt-cache depends hipcc: '$toolchain');" >&2
    echo "install-deps: is hipcc packaged here (Debian >= 12, Ubuntu >= 24.04 with universe)?" >&2
    exit 1
    ;;
esac
echo "install-deps: hipcc's toolchain here: $toolchain"

# --main: build and compiler only; HANZO_ROCM_NO_PACKAGING=1 leaves out what
# only `make check-package` and `make check-container` need.
pkgs="$BUILD $GPU $toolchain"
# hipRTC, for in-process compiles of application source where no hipcc is
# ([compiler] backend): Debian 12 and 13 carry it in libamdhip64-5 with its
# builtins in libhiprtc-builtins5 (not pulled in by hipcc); sid in libhiprtc6.
for p in libhiprtc-builtins5 libhiprtc6; do
    if apt-cache show "$p" >/dev/null 2>&1; then
        pkgs="$pkgs $p"
        break
    fi
done
[ -n "$main_only" ] || pkgs="$pkgs $TEST"
if [ -z "$main_only" ] && [ -z "${HANZO_ROCM_NO_PACKAGING:-}" ]; then
    pkgs="$pkgs $PACKAGE"
    # systemd.pc (where the unit goes): systemd-dev from Debian 13 on.
    if apt-cache show systemd-dev >/dev/null 2>&1; then
        pkgs="$pkgs systemd-dev"
    fi
fi
# shellcheck disable=SC2086
$SUDO apt-get -o DPkg::Lock::Timeout=600 install -q -y --no-install-recommends $pkgs
