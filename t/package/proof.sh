#!/bin/sh
# The packaging proof (README "Packaging, images and clusters"): install the
# built .debs with apt into a throwaway minimal Debian 12 root and check, as
# TAP, what the issue asks:
#   1. Depends suffice on a minimal system; no hipcc is a message, not a failure
#   2. with a configured target list (no GPU), postinst/triggers fill
#      /var/cache/hanzo-rocm with valid code objects; cache verify passes
#   3. installing another plugin package extends the cache through the trigger
#   4. installing a cache package compiles nothing for its target
#   5. upgrading to a rebuilt version (one family's source changed) rebuilds
#      only that family's entries and keeps the others (same inode and mtime)
#   5b. debian/tests (autopkgtest) pass against the installed packages
#   5c. a third-party plugin package (examples/plugin/debian) builds against
#       libhanzo-rocm-dev alone; its install precompiles its family through
#       the trigger, its purge prunes that family's entries
#   5d. librust-hanzo-rocm-dev installs the crates in debcargo's registry
#       layout, and a crate using them builds offline and runs
#   5e. python3-hanzo-rocm installs, imports and runs a stock kernel; its
#       installed numpy_ops.py example runs on numpy arrays (a stock kernel,
#       an operation with its workspace, the caller's source through the
#       cache)
#   5f. hanzo-rocm-remote installs remote.so where the library loads it
#   6. remove: library gone, cache kept; 7. purge: nothing left on disk
# hipcc is wrapped (dpkg-divert) to log every compile with its target.
#
# usage: proof.sh BASE_TARBALL DEBS_V1 DEBS_V2 CHANGED_FAMILY WORKDIR
# Needs root (chroot, mount).  HR_KEEP_CHROOT=1 keeps WORKDIR/root afterwards.
# HR_PROOF_TARGETS: the configured targets (default "gfx90a gfx1030").
set -u
base=$1 v1=$2 v2=$3 changed=$4
mkdir -p "$5" && work=$(cd "$5" && pwd)
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$top_srcdir/t/tap.sh"

root=$work/root
cleanup() {
	umount "$root/proc" 2>/dev/null
	[ -n "${HR_KEEP_CHROOT:-}" ] || rm -rf "$root"
	rm -rf "$T"
}
trap cleanup EXIT

[ "$(id -u)" -eq 0 ] || skip_all "needs root (chroot)"
rm -rf "$root"
mkdir -p "$root"
tar -C "$root" -xf "$base" || { echo "Bail out! cannot unpack $base"; exit 1; }
mount -t proc proc "$root/proc" || { echo "Bail out! cannot mount /proc"; exit 1; }
mkdir -p "$root/debs/v1" "$root/debs/v2"
cp "$v1"/*.deb "$root/debs/v1/" && cp "$v2"/*.deb "$root/debs/v2/" || exit 1
rm -f "$root"/debs/*/*-dbgsym_*.deb

# Run in the root with a clean environment, as dpkg on a real system would.
in_root() {
	chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}
# deb VERSION PACKAGE...: the paths of those .debs inside the root
deb() {
	v=$1; shift
	for p; do
		set -- "$root/debs/$v/${p}"_*.deb
		echo "${1#"$root"}"
	done
}
# apt_log NAME ARGS...: apt-get with its output (maintainer scripts
# included) in $work/NAME.log; the exit status is apt's.
apt_log() {
	n=$1; shift
	in_root apt-get -q -y -o Dpkg::Use-Pty=0 "$@" >"$work/$n.log" 2>&1
}
okr() { ok "$@"; return "$1"; }
show() { sed 's/^/#   /' "$1" | tail -n "${2:-25}"; }
cache=$root/var/cache/hanzo-rocm
# The admin's target list (HR_PROOF_TARGETS, t/package/local.mk's
# HR_PROOF_MATRIX): each is compiled for, none is this machine's GPU.
targets=${HR_PROOF_TARGETS:-gfx90a gfx1030}
# shellcheck disable=SC2086
set -- $targets
nt=$# t1=$1
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
families=$(sed -e 's/#.*//' "$top_srcdir/plugins/families")

# ---- 1. minimal system, no compiler ------------------------------------
# The admin's target list (no GPU here), as an image build would set it.
mkdir -p "$root/etc/hanzo-rocm.conf.d"
printf '[targets]\ndefault = %s\n' "$targets" >"$root/etc/hanzo-rocm.conf.d/targets.conf"

apt_log 1-install install --no-install-recommends \
	$(deb v1 libhanzo-rocm1 hanzo-rocm hanzo-rocm-plugin-unary)
okr $? "apt installs libhanzo-rocm1 hanzo-rocm hanzo-rocm-plugin-unary on minbase (no recommends)" ||
	show "$work/1-install.log"
in_root sh -c '! command -v hipcc' >/dev/null
ok $? "no hipcc in the root yet"
grep_ok "postinst reports the missing compiler and goes on" 'hipcc.*not found' "$work/1-install.log"
run_ok "hanzo-rocm --version runs (Depends are sufficient)" in_root hanzo-rocm --version
in_root ldd "/usr/lib/$multiarch/libhanzo-rocm.so.1" "/usr/bin/hanzo-rocm" >"$T/ldd" 2>&1
! grep -q 'not found' "$T/ldd"
okr $? "every shared library dependency is installed" || show "$T/ldd"

# ---- 2. the compiler arrives; the trigger fills the cache ----------------
apt_log 2-hipcc install --no-install-recommends hipcc
okr $? "apt installs hipcc (Recommends of hanzo-rocm)" || show "$work/2-hipcc.log"
# Log every compile with its target, and whether the source carries the
# upgrade-test change (so step 5 can tell which family was rebuilt).
in_root dpkg-divert --quiet --local --rename --add /usr/bin/hipcc
cat >"$root/usr/bin/hipcc" <<'EOF'
#!/bin/sh
t= changed=no
for a; do
	case $a in
	--offload-arch=*) t=${a#--offload-arch=} ;;
	*.hip) grep -q 'upgrade test: changed source' "$a" 2>/dev/null && changed=yes ;;
	esac
done
[ -z "$t" ] || echo "compile target=$t changed=$changed" >>/var/log/hipcc-calls.log
exec /usr/bin/hipcc.distrib "$@"
EOF
chmod 755 "$root/usr/bin/hipcc"
calls() { cat "$root/var/log/hipcc-calls.log" 2>/dev/null; }
ncalls() { calls | grep -c "$1"; }

but_affine=$(echo "$families" | tr ' ' '\n' | grep -v -e '^affine$' -e '^unary$' -e '^$')
# shellcheck disable=SC2086
apt_log 2-plugins install $(deb v1 $(for f in $but_affine; do echo hanzo-rocm-plugin-$f; done))
okr $? "apt installs the other plugin packages but affine" || show "$work/2-plugins.log"
grep_ok "the plugin-directory trigger ran precompile" 'precompiling GPU kernels' "$work/2-plugins.log"
missing=
for t in $targets; do
	for f in unary $but_affine; do
		[ -s "$cache/$t/$f.hrco" ] || missing="$missing $t/$f"
	done
done
[ -z "$missing" ]
okr $? "/var/cache/hanzo-rocm holds every installed family for $targets" ||
	{ echo "# missing:$missing"; show "$work/2-plugins.log" 40; }
[ ! -e "$cache/$t1/affine.hrco" ]
ok $? "nothing for the family that is not installed (affine)"
exit_is 0 "hanzo-rocm cache verify passes" in_root hanzo-rocm cache verify
[ "$(ncalls 'target=')" -gt 0 ]
ok $? "the code objects came from hipcc in the root ($(ncalls 'target=') compiles)"

# ---- 3. another plugin package: the trigger extends the cache -------------
stat_entries() { # "path inode mtime" of every entry
	(cd "$cache" && find . -name '*.hrco' -exec stat -c '%n %i %Y.%y' {} + | sort)
}
stat_entries >"$T/before-3"
: >"$root/var/log/hipcc-calls.log"
apt_log 3-affine install $(deb v1 hanzo-rocm-plugins hanzo-rocm-plugin-affine)
okr $? "apt installs hanzo-rocm-plugins (pulls hanzo-rocm-plugin-affine)" || show "$work/3-affine.log"
missing=
for t in $targets; do [ -s "$cache/$t/affine.hrco" ] || missing="$missing $t"; done
[ -z "$missing" ]
okr $? "the trigger added affine for $targets" || { echo "# missing:$missing"; show "$work/3-affine.log"; }
n=$(ncalls 'target=')
[ "$n" -eq "$nt" ]
okr $? "exactly one compile per target for the new family (got $n)" || calls | sed 's/^/#   /'
stat_entries | grep -v '/affine.hrco' >"$T/after-3"
cmp -s "$T/before-3" "$T/after-3"
okr $? "existing entries untouched (inode, mtime)" || diff "$T/before-3" "$T/after-3" | sed 's/^/#   /'
exit_is 0 "hanzo-rocm cache verify passes" in_root hanzo-rocm cache verify

# ---- 4. a cache package: nothing compiled for its target -------------------
printf '[targets]\ndefault = %s gfx906\n' "$targets" >"$root/etc/hanzo-rocm.conf.d/targets.conf"
: >"$root/var/log/hipcc-calls.log"
apt_log 4-cache install $(deb v1 hanzo-rocm-cache-gfx906)
okr $? "apt installs hanzo-rocm-cache-gfx906 (gfx906 now configured too)" || show "$work/4-cache.log"
grep_ok "the packaged-cache trigger ran precompile" 'precompiling GPU kernels' "$work/4-cache.log"
n=$(ncalls 'target=gfx906')
[ "$n" -eq 0 ]
okr $? "no compiler run for gfx906 (got $n)" || calls | sed 's/^/#   /'
grep_ok "precompile reports gfx906 as provided" 'gfx906.*provided' "$work/4-cache.log"
ls "$cache/gfx906/"*.hrco >/dev/null 2>&1
[ $? -ne 0 ]
ok $? "no gfx906 entry in /var/cache/hanzo-rocm"
[ -s "$root/usr/lib/$multiarch/hanzo-rocm/cache/gfx906/unary.hrco" ]
ok $? "the package installed its code objects in the packaged tier"

# ---- 5. upgrade to a rebuilt version (the $changed family changed) -------
stat_entries >"$T/before-5"
: >"$root/var/log/hipcc-calls.log"
installed=$(in_root dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' | awk '$1 == "ii" && $2 ~ /hanzo-rocm/ { print $2 }')
# shellcheck disable=SC2086
apt_log 5-upgrade install $(deb v2 $installed)
okr $? "apt upgrades every installed package to the rebuilt version" || show "$work/5-upgrade.log"
v=$(in_root dpkg-query -W -f '${Version}' hanzo-rocm)
[ "$v" = "$(dpkg-deb -f "$(echo "$v2"/hanzo-rocm_*.deb)" Version)" ]
ok $? "hanzo-rocm is now version $v"
stat_entries >"$T/after-5"
kept_ok=0 rebuilt_ok=0
for t in $targets; do
	for f in $families; do
		b=$(grep "^./$t/$f.hrco " "$T/before-5") a=$(grep "^./$t/$f.hrco " "$T/after-5")
		if [ "$f" = "$changed" ]; then
			[ -n "$a" ] && [ "$a" != "$b" ] || { echo "# not rebuilt: $t/$f"; rebuilt_ok=1; }
		else
			[ -n "$a" ] && [ "$a" = "$b" ] || { echo "# not kept: $t/$f ($b -> $a)"; kept_ok=1; }
		fi
	done
done
ok $rebuilt_ok "the stale entries ($changed) were rebuilt"
ok $kept_ok "the valid entries were kept (same inode and mtime)"
n=$(ncalls 'target=') nc=$(ncalls 'changed=yes')
[ "$n" -eq "$nt" ] && [ "$nc" -eq "$nt" ]
okr $? "the compiler ran once per target, on the changed source only ($nc of $n)" ||
	calls | sed 's/^/#   /'
[ "$(ncalls 'target=gfx906')" -eq 0 ]
ok $? "nothing compiled for gfx906: the upgraded cache package provides it"
exit_is 0 "hanzo-rocm cache verify passes" in_root hanzo-rocm cache verify

# ---- 5b. debian/tests (autopkgtest), run as `autopkgtest -- null` would ----
# Each test of debian/tests/control runs from a copy of the source tree in the
# root, with its Depends installed and AUTOPKGTEST_TMP set.
mkdir -p "$root/src"
(cd "$top_srcdir" && tar -cf - debian/tests examples) | tar -xf - -C "$root/src"
# shellcheck disable=SC2046
apt_log 5b-depends install --no-install-recommends $(deb v2 libhanzo-rocm-dev) gcc libc6-dev pkgconf
okr $? "apt installs the tests' Depends (libhanzo-rocm-dev, gcc, pkgconf)" || show "$work/5b-depends.log"
for t in $(sed -n 's/^Tests: *//p' "$top_srcdir/debian/tests/control"); do
	rm -rf "$root/tmp/adt" && mkdir -p "$root/tmp/adt"
	in_root env AUTOPKGTEST_TMP=/tmp/adt sh -c "cd /src && debian/tests/$t" >"$work/5b-$t.log" 2>&1
	okr $? "autopkgtest $t passes" || show "$work/5b-$t.log"
done

# ---- 5c. a third-party plugin package (doc/DESIGN.md §6) -------------------
# examples/plugin/debian builds against libhanzo-rocm-dev alone (plus
# build-essential); its install fires the trigger, which precompiles the
# family into the system tier; its removal prunes that family's entries.
apt_log 5c-tools install --no-install-recommends build-essential
okr $? "apt installs build-essential" || show "$work/5c-tools.log"
in_root sh -c 'cd /src/examples/plugin && dpkg-checkbuilddeps && dpkg-buildpackage -us -uc -b' \
	>"$work/5c-build.log" 2>&1
okr $? "examples/plugin/debian builds (Build-Depends: libhanzo-rocm-dev only)" || show "$work/5c-build.log"
tp=$(cd "$root/src/examples" && ls hanzo-rocm-plugin-biasgelu_*.deb 2>/dev/null | head -1)
in_root dpkg-deb -f "/src/examples/$tp" Depends >"$T/tp-depends" 2>&1
grep_ok "  ... depending on the plugin ABI (hanzo-rocm-plugin-abi-1)" '(^|, )hanzo-rocm-plugin-abi-1(,|$)' "$T/tp-depends"
: >"$root/var/log/hipcc-calls.log"
apt_log 5c-install install "/src/examples/$tp"
okr $? "apt installs the third-party plugin package" || show "$work/5c-install.log"
grep_ok "  ... the plugin-directory trigger ran precompile" 'precompiling GPU kernels' "$work/5c-install.log"
missing=
for t in $targets; do [ -s "$cache/$t/biasgelu.hrco" ] || missing="$missing $t"; done
[ -z "$missing" ]
okr $? "  ... the family is precompiled into /var/cache/hanzo-rocm for $targets" ||
	{ echo "# missing:$missing"; show "$work/5c-install.log"; }
exit_is 0 "hanzo-rocm cache verify passes" in_root hanzo-rocm cache verify
apt_log 5c-purge purge hanzo-rocm-plugin-biasgelu
okr $? "apt purges the third-party plugin package" || show "$work/5c-purge.log"
grep_ok "  ... the trigger's precompile pruned the family" 'pruned family biasgelu' "$work/5c-purge.log"
ls "$cache"/*/biasgelu.hrco >/dev/null 2>&1
[ $? -ne 0 ]
ok $? "  ... no biasgelu entry is left in /var/cache/hanzo-rocm"
[ -s "$cache/$t1/unary.hrco" ]
ok $? "  ... the stock families' entries stay"
# Its sources and build products carry the package's name: not step 7's leftovers.
rm -rf "$root/src/examples/plugin" "$root/src/examples"/hanzo-rocm-plugin-biasgelu_*

# ---- 5d. the Rust crates (librust-*-dev, debcargo's layout) ----------------
apt_log 5d-install install --no-install-recommends $(deb v2 librust-hanzo-rocm-dev librust-hanzo-rocm-sys-dev)
okr $? "apt installs librust-hanzo-rocm-dev and librust-hanzo-rocm-sys-dev" || show "$work/5d-install.log"
reg=$root/usr/share/cargo/registry
for c in hanzo-rocm-sys hanzo-rocm; do
	v=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$top_srcdir/bindings/rust/$c/Cargo.toml" | head -n 1)
	[ -s "$reg/$c-$v/Cargo.toml" ] && [ -s "$reg/$c-$v/.cargo-checksum.json" ] &&
		[ -s "$reg/$c-$v/src/lib.rs" ] && ! grep -q 'path = "\.\.' "$reg/$c-$v/Cargo.toml" ||
		echo "# not in the registry: /usr/share/cargo/registry/$c-$v"
done >"$T/crates"
[ ! -s "$T/crates" ]
okr $? "  ... /usr/share/cargo/registry/<crate>-<version>/ with Cargo.toml (no path dependency) and .cargo-checksum.json" ||
	cat "$T/crates"
# A crate naming hanzo-rocm = "0.1", built offline against that registry and
# the root's libhanzo-rocm-dev (pkg-config in the root's sysroot) by the
# host's Debian cargo - minbase has no Rust toolchain, and installing one
# into the root costs more than this step may - then run in the root.
if [ -x /usr/bin/cargo ]; then
	sh "$top_srcdir/t/rust/consumer.sh" "$reg" "$work/5d-consumer" <<'EOC'
fn main() {
    let ctx = hanzo_rocm::Context::new().unwrap();
    let cat = ctx.catalogue(Some("unary")).unwrap();
    println!("registry crate: {} unary kernels", cat.len());
}
EOC
	(cd "$work/5d-consumer" && unset RUSTFLAGS CARGO_BUILD_TARGET PKG_CONFIG_PATH &&
		CARGO_HOME="$work/5d-cargo-home" PKG_CONFIG_SYSROOT_DIR="$root" \
		PKG_CONFIG_LIBDIR="$root/usr/lib/$multiarch/pkgconfig:$root/usr/share/pkgconfig" \
		/usr/bin/cargo build --offline -q) >"$work/5d-cargo.log" 2>&1
	okr $? "  ... a crate using them builds offline (cargo --offline, crates-io replaced by the registry)" ||
		show "$work/5d-cargo.log"
	cp "$work/5d-consumer/target/debug/registry-consumer" "$root/tmp/" 2>/dev/null
	in_root /tmp/registry-consumer >"$work/5d-run.log" 2>&1
	grep_ok "  ... and runs in the root against the packaged library and plugins" \
		'^registry crate: [1-9][0-9]* unary kernels$' "$work/5d-run.log"
	rm -f "$root/tmp/registry-consumer"
else
	skip 2 "no /usr/bin/cargo on this host (sh tools/install-deps.sh installs it)"
fi
in_root apt-get -q -y purge libhanzo-rocm-dev >/dev/null 2>&1

# ---- 5e. the Python package (python3-hanzo-rocm, pybuild) -------------------
# First alone (numpy is only a Recommends): imported by the root's python3,
# the catalogue read, a stock kernel run on the host backend on a ctypes
# buffer.  Then its examples, as a user would run them, on numpy arrays on the
# host backend: a stock kernel, an operation with the workspace the library
# sizes and the package allocates, the caller's own source through the cache
# (numpy_ops.py; decode_step.py, whose four families' host compiles would
# cost each proof half a minute, runs in make check).  The host backend compiles its code
# objects with the C++ compiler (no cache package holds the host targets):
# g++ is a Suggests of python3-hanzo-rocm, installed here by name (5c's
# build-essential already brought it).  (Its --no-compiler run is not made
# here: in the Debian 12 root, with PATH=/nonexistent, fill_f32 was not
# found (ENOENT) after the first run had compiled it, where a build tree
# finds it in the user tier; not yet understood.)
# A scratch HOME: that user tier is the caller's, not the package's, and
# step 7 checks that purge leaves nothing behind.
apt_log 5e-install install --no-install-recommends $(deb v2 python3-hanzo-rocm)
okr $? "apt installs python3-hanzo-rocm (pulls python3)" || show "$work/5e-install.log"
in_root env HOME=/tmp/hr-home python3 - >"$work/5e-run.log" 2>&1 <<'EOP'
import ctypes
import hanzo_rocm as hr
ctx = hr.Context(host="host-w64")
print("python: %d unary kernels" % len(ctx.catalogue("unary")))
dev = [d for d in ctx.devices if d.target == "host-w64"][0]
buf = (ctypes.c_float * 100)()
k = ctx.kernel("fill", "fill_f32", device=dev.index)
k.launch_work(100, 1, hr.Pointer(ctypes.addressof(buf), ctypes.sizeof(buf)), 1.5, 100)
assert list(buf) == [1.5] * 100
try:
    k.launch_work(100, 1, hr.Pointer(ctypes.addressof(buf), 400), "1.5", 100)
except hr.ArgumentError as e:
    print("refused:", e.argument)
EOP
grep -q '^python: [1-9][0-9]* unary kernels$' "$work/5e-run.log" && grep -q '^refused: value$' "$work/5e-run.log"
okr $? "  ... imported by python3 without numpy: the catalogue, a stock kernel on the host backend, a wrong argument refused" ||
	show "$work/5e-run.log"
ex=/usr/share/doc/python3-hanzo-rocm/examples
[ -f "$root$ex/numpy_ops.py" ] && [ -f "$root$ex/decode_step.py" ]
ok $? "  ... its examples in $ex (numpy_ops.py, decode_step.py)"
apt_log 5e-numpy install --no-install-recommends python3-numpy g++
okr $? "apt installs python3-numpy (Recommends) and g++ (Suggests: the host backend's compiler)" ||
	show "$work/5e-numpy.log"
# ex_ok NAME DESCRIPTION ARGS...: an example run in the root passes every check
ex_ok() {
	n=$1 d=$2; shift 2
	in_root env HOME=/tmp/hr-home "$@" >"$work/5e-$n.log" 2>&1 &&
		grep -q '^PASS: all checks$' "$work/5e-$n.log" && ! grep -q '^FAIL' "$work/5e-$n.log"
	okr $? "$d" || show "$work/5e-$n.log" 40
}
ex_ok numpy-ops "  ... numpy_ops.py: a stock kernel, an operation with its workspace, its own source through the cache" \
	python3 "$ex/numpy_ops.py"
rm -rf "$root/tmp/hr-home"

# ---- 5f. the remote tier's module (hanzo-rocm-remote) ---------------------
# Where the library looks for it, and it loads (libcurl and hiredis pulled by
# its Depends): info probes a url nothing listens on and says connect, with
# no "remote cache tier disabled" warning (what a module that fails to load
# gives).
# The package is built on this host's release: its libcurl/hiredis Depends
# name that release's library packages (libhiredis0.14 on Debian 12), which
# another release's root may not have - a skip with the reason, not a pass.
if in_root apt-get -s install --no-install-recommends $(deb v2 hanzo-rocm-remote) >"$work/5f-sim.log" 2>&1; then
	apt_log 5f-install install --no-install-recommends $(deb v2 hanzo-rocm-remote)
	okr $? "apt installs hanzo-rocm-remote (pulls libcurl and hiredis)" || show "$work/5f-install.log"
	[ -f "$root/usr/lib/$multiarch/hanzo-rocm/remote.so" ]
	ok $? "  ... remote.so in /usr/lib/$multiarch/hanzo-rocm/"
	printf '[remote]\nurl = http://127.0.0.1:9/cache\n' >"$root/tmp/remote.conf"
	in_root env HOME=/tmp/hr-home HANZO_ROCM_CONF=/tmp/remote.conf hanzo-rocm info >"$work/5f-info.log" 2>&1
	rm -rf "$root/tmp/hr-home"
	grep -q '^  http://127.0.0.1:9/cache: connect$' "$work/5f-info.log" &&
		! grep -q 'remote cache tier disabled' "$work/5f-info.log"
	okr $? "  ... it loads: info probes the remote (connection refused), no module warning" ||
		show "$work/5f-info.log"
else
	skip 3 "hanzo-rocm-remote, built on the host's release, has Depends this release lacks ($(grep -o 'Depends: [^ ]*' "$work/5f-sim.log" | head -n 1))"
fi

# ---- 6. remove: the library goes, the cache stays -----------------------
installed=$(in_root dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' | awk '$1 == "ii" && $2 ~ /hanzo-rocm/ { print $2 }')
for p in $installed; do in_root dpkg -L "$p"; done | sort -u >"$T/files"
# shellcheck disable=SC2086
apt_log 6-remove remove $installed
okr $? "apt removes every hanzo-rocm package" || show "$work/6-remove.log"
[ ! -e "$root/usr/lib/$multiarch/libhanzo-rocm.so.1" ] && [ ! -e "$root/usr/bin/hanzo-rocm" ]
ok $? "the library and the CLI are gone"
[ -s "$cache/$t1/unary.hrco" ]
ok $? "/var/cache/hanzo-rocm is kept on remove"

# ---- 7. purge: nothing of the package left ---------------------------------
# The admin's own file goes first (dpkg never removes what it did not install).
rm -f "$root/etc/hanzo-rocm.conf.d/targets.conf"
rmdir "$root/etc/hanzo-rocm.conf.d"
# apt no longer knows removed packages that came from local .debs: dpkg.
# shellcheck disable=SC2086
in_root dpkg --purge $installed >"$work/7-purge.log" 2>&1
okr $? "dpkg purges every hanzo-rocm package" || show "$work/7-purge.log"
: >"$T/left"
while read -r f; do
	# Shared directories (/usr, /etc, the multiarch libdir…) are not ours.
	case $f in *hanzo-rocm*) ;; *) [ -d "$root$f" ] && continue ;; esac
	[ -e "$root$f" ] || [ -L "$root$f" ] && echo "$f" >>"$T/left"
done <"$T/files"
(cd "$root" && find . -xdev \( -path ./proc -o -path ./debs \) -prune -o \
	\( -name '*hanzo-rocm*' -o -name '*hanzo_rocm*' \) -print) | sed 's|^\.||' >>"$T/left"
grep -l hanzo "$root/var/lib/dpkg/triggers/"* 2>/dev/null >>"$T/left"
in_root dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' 2>/dev/null |
	awk '$2 ~ /hanzo-rocm/ && $1 != "un" { print "dpkg still knows: " $0 }' >>"$T/left"
sort -u "$T/left" -o "$T/left"
echo "# left on disk after purge: $(wc -l <"$T/left") paths"
sed 's/^/#   /' "$T/left"
[ ! -s "$T/left" ]
ok $? "purge leaves nothing of the package on disk"

done_testing
