#!/bin/sh
# Install the built rpms, not only build and lint them.  No Fedora archive
# is reachable, so the proxy is a Debian root (t/rocm/root.sh: Debian 12 with
# its hipcc) with Debian's rpm in it, and rpm -i --nodeps.  Checked, as TAP:
#   1. installing -libs, the tool and one plugin runs %post: the system cache
#      holds that family for the configured target and verifies;
#   2. installing another plugin fires the %transfiletriggerin: the cache
#      grows by that family;
#   2b. rust-hanzo-rocm{,-sys}-devel put the crates in the cargo registry
#      directory and provide crate(...) for each feature;
#   2c. python3-hanzo-rocm puts the module in the site directory and its
#       examples in its doc directory, and they run on numpy arrays;
#   2d. hanzo-rocm-remote puts remote.so where the library loads it;
#   3. erasing everything runs %postun: the cache and every %ghost are gone,
#      nothing the packages owned is left.
# What this proxy cannot prove: that Fedora resolves the Requires and
# BuildRequires (--nodeps; names such as hipcc and pkgconfig(inih) are
# Fedora's); Fedora's loader path (Debian does not search /usr/lib64, so rpm
# runs with LD_LIBRARY_PATH=/usr/lib64, as Fedora's ld.so does by default);
# glibc's ldconfig file trigger; systemd presets and systemd-tmpfiles (not in
# the root: the spec's fallback macros are what run); SELinux labels; and
# Fedora's own ROCm layout (the compiler here is Debian's).
#
# usage: rpm-install.sh ROOT_TARBALL RPMS_DIR WORKDIR
set -u
base=$1 rpms=$2
mkdir -p "$3" && work=$(cd "$3" && pwd)
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$top_srcdir/t/tap.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root (chroot)"
root=$work/root
cleanup() { umount "$root/proc" 2>/dev/null; rm -rf "$root" "$T"; }
trap cleanup EXIT
rm -rf "$root" && mkdir -p "$root"
tar -C "$root" -xf "$base" || { echo "Bail out! cannot unpack $base"; exit 1; }
mount -t proc proc "$root/proc" || { echo "Bail out! cannot mount /proc"; exit 1; }
in_root() {
	chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive "$@"
}
rpm_root() { in_root env LD_LIBRARY_PATH=/usr/lib64 rpm --dbpath /var/lib/rpm "$@"; }
in_root apt-get -q -y --no-install-recommends install rpm >"$work/apt.log" 2>&1
ok $? "Debian's rpm installed in the root" || tail -n 20 "$work/apt.log" | sed 's/^/# /'
mkdir -p "$root/rpms"
find "$rpms" -name '*.rpm' ! -name '*debug*' -exec cp {} "$root/rpms/" \;
pkg() { for p; do set -- "$root"/rpms/"$p"-[0-9]*.rpm; echo "/rpms/${1##*/}"; done; }
mkdir -p "$root/etc/hanzo-rocm.conf.d"
printf '[targets]\ndefault = gfx90a\n' >"$root/etc/hanzo-rocm.conf.d/targets.conf"
cache=$root/var/cache/hanzo-rocm

# shellcheck disable=SC2046
rpm_root -i --nodeps $(pkg hanzo-rocm-libs hanzo-rocm hanzo-rocm-plugin-fill) >"$work/1.log" 2>&1
ok $? "rpm -i --nodeps hanzo-rocm-libs hanzo-rocm hanzo-rocm-plugin-fill" || sed 's/^/# /' "$work/1.log"
[ -s "$cache/gfx90a/fill.hrco" ]
ok $? "%post precompiled fill for gfx90a into /var/cache/hanzo-rocm" || sed 's/^/# /' "$work/1.log"
in_root env LD_LIBRARY_PATH=/usr/lib64 hanzo-rocm cache verify >"$work/verify.log" 2>&1
ok $? "hanzo-rocm cache verify passes" || sed 's/^/# /' "$work/verify.log"

# shellcheck disable=SC2046
rpm_root -i --nodeps $(pkg hanzo-rocm-plugin-unary) >"$work/2.log" 2>&1
ok $? "rpm -i hanzo-rocm-plugin-unary" || sed 's/^/# /' "$work/2.log"
[ -s "$cache/gfx90a/unary.hrco" ] && [ -s "$cache/plugins.index" ]
ok $? "the file trigger extended the cache (unary.hrco) and wrote the %ghost plugins.index" ||
	{ sed 's/^/# /' "$work/2.log"; ls -R "$cache" | sed 's/^/# /'; }

# The plugin ABI: -libs provides what every plugin requires.
# (rpm 4.18's --whatprovides takes a name, not "name = version": the
# version is read from the package's own Provides.)
rpm_root -q --whatprovides 'hanzo-rocm(plugin-abi)' >"$T/abi" 2>&1
rpm_root -q --provides hanzo-rocm-libs >>"$T/abi" 2>&1
grep -q '^hanzo-rocm-libs-' "$T/abi" && grep -q '^hanzo-rocm(plugin-abi) = 1$' "$T/abi"
ok $? "hanzo-rocm-libs provides hanzo-rocm(plugin-abi) = 1" || sed 's/^/# /' "$T/abi"
rpm_root -qp --requires "$(pkg hanzo-rocm-plugin-unary)" >"$T/req" 2>&1
grep_ok "a stock plugin requires hanzo-rocm(plugin-abi) = 1" '^hanzo-rocm\(plugin-abi\) = 1$' "$T/req"
# A third-party plugin (examples/plugin's spec): the file triggers
# precompile it on install and prune its entries on erase.
# shellcheck disable=SC2046
rpm_root -qp --requires $(pkg hanzo-rocm-plugin-biasgelu) >"$T/req" 2>&1
grep_ok "the third-party plugin requires hanzo-rocm(plugin-abi) = 1" '^hanzo-rocm\(plugin-abi\) = 1$' "$T/req"
# shellcheck disable=SC2046
rpm_root -i --nodeps $(pkg hanzo-rocm-plugin-biasgelu) >"$work/tp.log" 2>&1
ok $? "rpm -i --nodeps hanzo-rocm-plugin-biasgelu" ||
	sed 's/^/# /' "$work/tp.log"
[ -s "$cache/gfx90a/biasgelu.hrco" ]
ok $? "  ... the file trigger precompiled biasgelu for gfx90a" || sed 's/^/# /' "$work/tp.log"
rpm_root -e hanzo-rocm-plugin-biasgelu >"$work/tp-e.log" 2>&1
ok $? "rpm -e hanzo-rocm-plugin-biasgelu" || sed 's/^/# /' "$work/tp-e.log"
[ ! -e "$cache/gfx90a/biasgelu.hrco" ] && [ -s "$cache/gfx90a/unary.hrco" ]
ok $? "  ... the erase trigger's precompile pruned biasgelu and kept the stock families" ||
	{ sed 's/^/# /' "$work/tp-e.log"; ls -R "$cache" | sed 's/^/# /'; }

# The Rust crates (Fedora's rust-<crate>-devel, noarch): the registry
# layout under /usr/share/cargo/registry and the crate() provides.
rpm_root -i --nodeps $(pkg rust-hanzo-rocm-sys-devel rust-hanzo-rocm-devel) >"$work/rust.log" 2>&1
ok $? "rpm -i --nodeps rust-hanzo-rocm-sys-devel rust-hanzo-rocm-devel" || sed 's/^/# /' "$work/rust.log"
for c in hanzo-rocm-sys hanzo-rocm; do
	v=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$top_srcdir/bindings/rust/$c/Cargo.toml" | head -n 1)
	[ -s "$root/usr/share/cargo/registry/$c-$v/Cargo.toml" ] &&
		[ -s "$root/usr/share/cargo/registry/$c-$v/.cargo-checksum.json" ] || echo "# missing: $c-$v"
done >"$T/crates"
[ ! -s "$T/crates" ]
ok $? "  ... /usr/share/cargo/registry/<crate>-<version>/ with .cargo-checksum.json" || cat "$T/crates"
rpm_root -q --whatprovides 'crate(hanzo-rocm/srcapi)' 'crate(hanzo-rocm-sys/default)' >"$T/crate" 2>&1
grep -q '^rust-hanzo-rocm-devel-' "$T/crate" && grep -q '^rust-hanzo-rocm-sys-devel-' "$T/crate"
ok $? "  ... crate(hanzo-rocm/srcapi) and crate(hanzo-rocm-sys/default) are provided" || sed 's/^/# /' "$T/crate"
rpm_root -e rust-hanzo-rocm-devel rust-hanzo-rocm-sys-devel >"$work/rust-e.log" 2>&1 &&
	! ls -d "$root"/usr/share/cargo/registry/hanzo-rocm-* >/dev/null 2>&1
ok $? "rpm -e rust-hanzo-rocm-devel rust-hanzo-rocm-sys-devel leaves no crate" || sed 's/^/# /' "$work/rust-e.log"

# The Python package (noarch): the module in Fedora's site directory, its
# examples in its doc directory, run on numpy arrays on the host backend as
# a user would: a stock kernel, an operation with the workspace the library
# sizes and the package allocates, the caller's own source through the cache
# (numpy_ops.py; decode_step.py, which needs four more families, runs in
# make check and in the Debian proof only).  Its Requires (python3),
# Recommends (python3-numpy) and Suggests (gcc-c++: the host backend compiles
# its code objects with the C++ compiler) come from the root's Debian
# packages; Debian's python3 does not search Fedora's site directory, so the
# runs name it in PYTHONPATH.
rpm_root -i --nodeps $(pkg python3-hanzo-rocm) >"$work/py.log" 2>&1
ok $? "rpm -i --nodeps python3-hanzo-rocm" || sed 's/^/# /' "$work/py.log"
ls "$root"/usr/lib/python3.*/site-packages/hanzo_rocm/__init__.py >/dev/null 2>&1
ok $? "  ... /usr/lib/python3.X/site-packages/hanzo_rocm/" || rpm_root -ql python3-hanzo-rocm | sed 's/^/# /'
# %doc's directory is the build host's %_docdir_fmt (Fedora's is unversioned,
# rpm's default on Debian python3-hanzo-rocm-VERSION): ask the package.
ex=$(rpm_root -ql python3-hanzo-rocm 2>/dev/null | sed -n 's|/numpy_ops\.py$||p' | head -n 1)
ex=${ex:-/usr/share/doc/python3-hanzo-rocm/examples}
[ -f "$root$ex/numpy_ops.py" ] && [ -f "$root$ex/decode_step.py" ] && [ ! -x "$root$ex/numpy_ops.py" ]
ok $? "  ... its examples in $ex (numpy_ops.py, decode_step.py; not executable: %doc)" ||
	rpm_root -qlv python3-hanzo-rocm | sed 's/^/# /'
in_root apt-get -q -y --no-install-recommends install python3 python3-numpy g++ >"$work/py-apt.log" 2>&1
ok $? "  ... python3, python3-numpy and g++ (Fedora's gcc-c++) from the root's Debian packages" ||
	tail -n 20 "$work/py-apt.log" | sed 's/^/# /'
rpm_root -i --nodeps $(pkg hanzo-rocm-plugin-norm) >"$work/py-plugins.log" 2>&1
ok $? "  ... rpm -i --nodeps the family numpy_ops.py uses besides fill (norm)" ||
	sed 's/^/# /' "$work/py-plugins.log"
site=$(cd "$root" && find usr/lib -mindepth 2 -maxdepth 2 -path 'usr/lib/python3.*/site-packages' | head -n 1)
# py_ok NAME DESCRIPTION ARGS...: an example run in the root passes every check
# (no .pyc written: root's python3 would leave __pycache__ in the package's
# directory, which the package does not own and rpm -e leaves behind)
py_ok() {
	n=$1 d=$2; shift 2
	in_root env HOME=/tmp/hr-home LD_LIBRARY_PATH=/usr/lib64 PYTHONPATH="/$site" PYTHONDONTWRITEBYTECODE=1 "$@" \
		>"$work/py-$n.log" 2>&1 &&
		grep -q '^PASS: all checks$' "$work/py-$n.log" && ! grep -q '^FAIL' "$work/py-$n.log"
	ok $? "$d" || tail -n 40 "$work/py-$n.log" | sed 's/^/# /'
}
py_ok numpy-ops "  ... numpy_ops.py: a stock kernel, an operation with its workspace, its own source through the cache" \
	python3 "$ex/numpy_ops.py"
rm -rf "$root/tmp/hr-home"
rpm_root -e python3-hanzo-rocm >"$work/py-e.log" 2>&1 &&
	! ls -d "$root"/usr/lib/python3.*/site-packages/hanzo_rocm >/dev/null 2>&1
ok $? "rpm -e python3-hanzo-rocm leaves no module" || sed 's/^/# /' "$work/py-e.log"

# The remote tier's module: in the library's directory, and it loads (its
# libcurl and hiredis from the root's Debian packages, as the host's build
# linked them): info probes a url nothing listens on and says connect, with
# no "remote cache tier disabled" warning.
rpm_root -i --nodeps $(pkg hanzo-rocm-remote) >"$work/remote.log" 2>&1 &&
	[ -f "$root/usr/lib64/hanzo-rocm/remote.so" ]
ok $? "rpm -i --nodeps hanzo-rocm-remote: /usr/lib64/hanzo-rocm/remote.so" || sed 's/^/# /' "$work/remote.log"
libs=$(objdump -p "$root/usr/lib64/hanzo-rocm/remote.so" 2>/dev/null | awk '/NEEDED/ { print $2 }' |
	while read -r l; do dpkg -S "*/$l" 2>/dev/null | sed -n '1s/:.*//p'; done | sort -u)
# shellcheck disable=SC2086
in_root apt-get -q -y --no-install-recommends install $libs >"$work/remote-apt.log" 2>&1
printf '[remote]\nurl = http://127.0.0.1:9/cache\n' >"$root/tmp/remote.conf"
in_root env LD_LIBRARY_PATH=/usr/lib64 HANZO_ROCM_CONF=/tmp/remote.conf hanzo-rocm info \
	>"$work/remote-info.log" 2>&1
grep -q '^  http://127.0.0.1:9/cache: connect$' "$work/remote-info.log" &&
	! grep -q 'remote cache tier disabled' "$work/remote-info.log"
ok $? "  ... it loads: info probes the remote (connection refused), no module warning" ||
	sed 's/^/# /' "$work/remote-info.log" "$work/remote-apt.log" | tail -n 20

rpm_root -qa --qf '%{NAME}\n' | grep '^hanzo-rocm' >"$T/installed"
# shellcheck disable=SC2046
rpm_root -ql $(cat "$T/installed") | sort -u >"$T/owned"
# shellcheck disable=SC2046
rpm_root -e $(cat "$T/installed") >"$work/3.log" 2>&1
ok $? "rpm -e $(tr '\n' ' ' <"$T/installed")" || sed 's/^/# /' "$work/3.log"
[ ! -e "$cache" ]
ok $? "%postun removed /var/cache/hanzo-rocm (entries and %ghost files)" || ls -R "$cache" | sed 's/^/# /'
left=0
while read -r f; do
	case $f in /etc/hanzo-rocm.conf*) continue ;; esac
	[ -e "$root$f" ] && [ ! -d "$root$f" ] && { echo "# left: $f"; left=1; }
done <"$T/owned"
ok $left "no file the packages owned is left"
done_testing
