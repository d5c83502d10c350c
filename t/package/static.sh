#!/bin/sh
# The packaging files agree with the tree: every plugin family has a package
# (debian/ and rpm/), debian/control is what debian/gen-control makes, the
# symbols file lists exactly the exported symbols, the generated systemd unit
# and tmpfiles entry are complete, and the maintainer scripts parse.
. "$top_srcdir/t/tap.sh"
s=$top_srcdir
okr() { ok "$@"; return "$1"; }

# Families built (plugins/families, from which plugins/families.mk comes), sorted.
sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$s/plugins/families" | sort >"$T/built"
sed -n 's|^plugins_LTLIBRARIES += plugins/\(.*\)\.la$|\1|p' "$s/plugins/families.mk" | sort >"$T/rules"
[ -s "$T/built" ] && cmp -s "$T/built" "$T/rules"
ok $? "plugins/families names the kernel families, and plugins/families.mk builds them"
# families.mk is what gen-families.sh makes now (a family folder's files included).
sh "$s/plugins/gen-families.sh" "$s/plugins/families" >"$T/families.mk" &&
	cmp -s "$T/families.mk" "$s/plugins/families.mk"
ok $? "plugins/families.mk is up to date (sh plugins/gen-families.sh plugins/families >plugins/families.mk)"
# Debian and RPM take their families from that list, nowhere else.
[ ! -e "$s/debian/families" ] &&
	grep -q '^families := .*plugins/families' "$s/debian/rules" &&
	grep -q 'plugins/families' "$s/debian/gen-control"
ok $? "debian/rules and debian/gen-control read plugins/families (no debian/families)"
! grep -q '^%global families ' "$s/rpm/hanzo-rocm.spec" &&
	grep -q '^Source1:[[:space:]]*families$' "$s/rpm/hanzo-rocm.spec"
ok $? "rpm/hanzo-rocm.spec reads the families from plugins/families (Source1), lists none itself"
if command -v rpmspec >/dev/null; then
	rpmspec -P --define "_sourcedir $s/plugins" "$s/rpm/hanzo-rocm.spec" 2>"$T/err" |
		sed -n 's/^%package plugin-//p' | sort >"$T/rpm"
	cmp -s "$T/built" "$T/rpm"
	ok $? "the RPM spec makes one plugin subpackage per built family" || diff "$T/built" "$T/rpm" | sed 's/^/# /'
else
	skip 1 "no rpmspec"
fi
sh "$s/debian/gen-control" >"$T/control" 2>"$T/err"
cmp -s "$T/control" "$s/debian/control"
ok $? "debian/control is up to date (make, or debian/rules debian/control)"
for f in $(cat "$T/built"); do grep -q "^Package: hanzo-rocm-plugin-$f\$" "$s/debian/control" || echo "$f"; done >"$T/nopkg"
[ ! -s "$T/nopkg" ]
ok $? "every family has a hanzo-rocm-plugin-<family> package"
grep -q '^Rules-Requires-Root: no$' "$s/debian/control" && grep -q 'debhelper-compat (= 13)' "$s/debian/control"
ok $? "debhelper compat 13, Rules-Requires-Root: no"

# Symbols: the version script's global names vs debian's symbols file.
sed -n '/global:/,/local:/p' "$s/lib/libhanzo-rocm.sym" | sed -n 's/^[[:space:]]*\([a-z_0-9]*\);.*/\1/p' | sort >"$T/sym"
sed -n 's/^ \(hanzo_rocm_[a-z_0-9]*\)@.*/\1/p' "$s/debian/libhanzo-rocm1.symbols" | sort >"$T/dsym"
[ -s "$T/sym" ] && cmp -s "$T/sym" "$T/dsym"
ok $? "debian/libhanzo-rocm1.symbols lists exactly lib/libhanzo-rocm.sym" || diff "$T/sym" "$T/dsym" | sed 's/^/# /'

# The generated unit and tmpfiles entry (etc/system.mk).
u=$top_builddir/etc/hanzo-rocm-precompile.service
[ -f "$u" ] && ! grep -q '@[a-z]*@' "$u"
ok $? "the systemd unit is generated with every @variable@ replaced"
grep -q '^ExecStart=/.*/hanzo-rocm precompile --system' "$u" && grep -q '^Type=oneshot$' "$u" &&
	grep -q '^ConditionPathExists=/dev/kfd$' "$u" && grep -q '^Nice=19$' "$u"
ok $? "the unit is a low-priority oneshot running precompile --system, only with /dev/kfd"
for d in ProtectKernelTunables=yes ProtectKernelModules=yes ProtectKernelLogs=yes \
	ProtectControlGroups=yes RestrictAddressFamilies=AF_UNIX RestrictNamespaces=yes \
	LockPersonality=yes SystemCallArchitectures=native CapabilityBoundingSet= \
	PrivateNetwork=yes NoNewPrivileges=yes ProtectSystem=strict; do
	grep -qx "$d" "$u" || echo "# missing: $d"
done >"$T/hard"
[ ! -s "$T/hard" ]
ok $? "the unit is hardened (kernel, cgroups, namespaces, no capabilities, AF_UNIX only)" ||
	cat "$T/hard"
if command -v systemd-analyze >/dev/null && systemd-analyze security --help 2>/dev/null | grep -q -- --offline; then
	systemd-analyze security --offline=yes "$u" >"$T/sec" 2>&1
	level=$(sed -n 's/.*Overall exposure level for .*: \([0-9.]*\) .*/\1/p' "$T/sec")
	[ -n "$level" ] && awk -v l="$level" 'BEGIN { exit !(l <= 2.0) }'
	ok $? "systemd-analyze security: exposure ${level:-?} (at most 2.0; 8.5 unhardened)" ||
		tail -n 5 "$T/sec" | sed 's/^/# /'
else
	skip 1 "systemd-analyze security --offline not available"
fi
cachedir=$(sed -n 's/^ReadWritePaths=//p' "$u")
grep -q "^d $cachedir 0755 root root -\$" "$top_builddir/etc/hanzo-rocm.tmpfiles"
ok $? "tmpfiles.d creates the cache directory the unit may write ($cachedir)"
if command -v systemd-tmpfiles >/dev/null; then
	systemd-tmpfiles --root="$T/tmpfiles" --create "$top_builddir/etc/hanzo-rocm.tmpfiles" 2>"$T/err" &&
		[ "$(stat -c '%a %U' "$T/tmpfiles$cachedir")" = "755 root" ] || [ "$(id -u)" -ne 0 ]
	okr $? "systemd-tmpfiles accepts the entry and creates the directory" || sed 's/^/# /' "$T/err"
else
	skip 1 "no systemd-tmpfiles"
fi
grep -q 'SUBSYSTEM=="kfd".*SYSTEMD_WANTS}+="hanzo-rocm-precompile.service"' "$s/etc/60-hanzo-rocm.rules"
ok $? "the udev rule pulls the unit in when /dev/kfd appears"

# Maintainer scripts: parse, never fail the installation.
for f in debian/hanzo-rocm.postinst debian/hanzo-rocm.postrm debian/gen-control \
	t/package/build-debs.sh t/package/chroot-base.sh t/package/proof.sh t/package/rpm.sh; do
	sh -n "$s/$f" || echo "$f"
done >"$T/bad" 2>&1
[ ! -s "$T/bad" ]
ok $? "maintainer and packaging scripts parse" || sed 's/^/# /' "$T/bad"
tail -n 1 "$s/debian/hanzo-rocm.postinst" | grep -q '^exit 0$'
ok $? "postinst always exits 0"
grep -q 'rm -rf /var/cache/hanzo-rocm' "$s/debian/hanzo-rocm.postrm"
ok $? "postrm purge removes the cache"
grep -q '^interest-noawait /usr/lib/@DEB_HOST_MULTIARCH@/hanzo-rocm/plugins$' "$s/debian/hanzo-rocm.triggers.in"
ok $? "interest-noawait trigger on the multiarch plugin directory"

# postinst never fails: run its precompile path with a CLI that fails.
mkdir -p "$T/bin"
printf '#!/bin/sh\necho "fake hanzo-rocm $*"; exit 1\n' >"$T/bin/hanzo-rocm"
chmod +x "$T/bin/hanzo-rocm"
sed 's/^#DEBHELPER#$//' "$s/debian/hanzo-rocm.postinst" >"$T/postinst"
# Never the real systemctl: on a GPU machine with systemd, postinst uses it.
printf '#!/bin/sh\necho "fake systemctl $*"; exit 1\n' >"$T/bin/systemctl"
chmod +x "$T/bin/systemctl"
PATH="$T/bin:$PATH" sh "$T/postinst" configure "" >"$T/out" 2>"$T/err"
ok $? "postinst configure exits 0 when precompile fails"
if [ -d /run/systemd/system ] && [ -e /dev/kfd ]; then
	grep -q 'fake systemctl --no-block start hanzo-rocm-precompile.service' "$T/out"
	ok $? "with systemd and a GPU, postinst starts the unit without blocking"
else
	grep -q 'fake hanzo-rocm precompile --system' "$T/out" && grep -q 'precompile incomplete (exit 1)' "$T/err"
	ok $? "postinst ran precompile --system and said it did not complete"
fi

grep -q '^%transfiletriggerin -- %{plugindir}' "$s/rpm/hanzo-rocm.spec" &&
	grep -q '^%transfiletriggerpostun -- %{plugindir}' "$s/rpm/hanzo-rocm.spec" &&
	grep -q '^%config(noreplace) %{_sysconfdir}/hanzo-rocm.conf$' "$s/rpm/hanzo-rocm.spec" &&
	grep -q '^%ghost ' "$s/rpm/hanzo-rocm.spec"
ok $? "rpm: file triggers on the plugin dir, noreplace config, ghost cache files"
# The Rust crates (librust-*-dev, rust-*-devel): the versions the packages
# name are the crates' own (bindings/rust/*/Cargo.toml), and both package
# builds install the registry layout through bindings/rust/install-registry.sh.
for c in hanzo-rocm-sys hanzo-rocm; do
	v=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$s/bindings/rust/$c/Cargo.toml" | head -n 1)
	m=$(echo "$c" | tr - _ | sed 's/hanzo_rocm/crate/')
	sed -n "/^Package: librust-$c-dev\$/,/^\$/p" "$s/debian/control" | grep -q "^ librust-$c-$v-dev (= " &&
		grep -q "^%global ${m}_version $v\$" "$s/rpm/hanzo-rocm.spec" &&
		grep -qx "usr/share/cargo/registry/$c-\[0-9\]\*" "$s/debian/librust-$c-dev.install" ||
		echo "# $c $v: debian/control, debian/librust-$c-dev.install or the spec's ${m}_version disagree"
done >"$T/crates"
[ ! -s "$T/crates" ]
ok $? "librust-*-dev and rust-*-devel name the crates' Cargo.toml versions" || cat "$T/crates"
grep -q 'sh bindings/rust/install-registry.sh bindings/rust debian/tmp/usr/share/cargo/registry' "$s/debian/rules" &&
	grep -q 'sh bindings/rust/install-registry.sh bindings/rust %{buildroot}%{cargo_registry}' "$s/rpm/hanzo-rocm.spec"
ok $? "debian/rules and the spec install the crates as a cargo directory registry"
done_testing
