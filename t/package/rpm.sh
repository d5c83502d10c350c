#!/bin/sh
# rpmbuild -bb rpm/hanzo-rocm.spec from a clean copy of the tree, then
# rpmlint the spec and the packages: any error or warning fails, except
# those rpm/rpmlintrc filters, each with its reason (as lintian overrides);
# a filter that matches nothing is an error too (rpmlint's own check).
# usage: rpm.sh SRCDIR WORKDIR [CACHE_TARGETS]
# On a Debian host rpm has no database of the BuildRequires: --nodeps; it
# lacks Fedora's build configuration too: t/package/rpm-host.macros.
set -eu
src=$(cd "$1" && pwd)
mkdir -p "$2"; work=$(cd "$2" && pwd)
targets=${3:-gfx90a}
version=$(sed -n 's/^AC_INIT(\[hanzo-rocm\], \[\([^]]*\)\].*/\1/p' "$src/configure.ac")
specv=$(sed -n 's/^Version:[[:space:]]*//p' "$src/rpm/hanzo-rocm.spec")
[ "$version" = "$specv" ] || {
	echo "rpm/hanzo-rocm.spec Version $specv != configure.ac $version" >&2; exit 1; }

top=$work/rpmbuild
rm -rf "$top"
mkdir -p "$top/SOURCES" "$top/stage/hanzo-rocm-$version"
if [ -d "$src/.git" ] && command -v git >/dev/null; then
	(cd "$src" && git ls-files -z -c -o --exclude-standard) |
		(cd "$src" && tar --null -T - -cf -)
else
	(cd "$src" && tar --exclude=./_build --exclude=./autom4te.cache -cf - .)
fi | tar -xf - -C "$top/stage/hanzo-rocm-$version"
tar -C "$top/stage" -czf "$top/SOURCES/hanzo-rocm-$version.tar.gz" "hanzo-rocm-$version"
cp "$src/plugins/families" "$top/SOURCES/families"   # the spec's Source1
rm -rf "$top/stage"

PATH=/usr/sbin:/usr/bin:/sbin:/bin rpmbuild --load "$src/t/package/rpm-host.macros" --define "_topdir $top" --nodeps --without check \
	--define "cache_targets $targets" \
	-bb "$src/rpm/hanzo-rocm.spec" >"$work/rpmbuild.log" 2>&1 || {
	tail -n 60 "$work/rpmbuild.log" >&2
	echo "rpmbuild failed: see $work/rpmbuild.log" >&2
	exit 1
}
# The third-party example (examples/plugin), built from the SDK of the
# -devel and -libs rpms just made, unpacked into a sysroot (no rpm database
# here: --nodeps, and pkg-config pointed at the unpacked .pc).
sys=$work/sdk-root
rm -rf "$sys" && mkdir -p "$sys" "$top/SOURCES/biasgelu"
for p in "$top"/RPMS/*/hanzo-rocm-devel-"$version"-*.rpm "$top"/RPMS/*/hanzo-rocm-libs-"$version"-*.rpm; do
	rpm2cpio "$p" | (cd "$sys" && cpio -idm --quiet)
done
pc=$(find "$sys" -name hanzo-rocm.pc | head -1)
mkdir -p "$work/sdk-pc"
sed "s|^\([a-z_]*\)=/|\1=$sys/|" "$pc" >"$work/sdk-pc/hanzo-rocm.pc"
cp "$src"/examples/plugin/biasgelu.hip "$src"/examples/plugin/biasgelu.list \
	"$src"/examples/plugin/Makefile "$src"/examples/plugin/run-biasgelu.c "$top/SOURCES/biasgelu/"
PKG_CONFIG_PATH=$work/sdk-pc PKG_CONFIG_LIBDIR=$work/sdk-pc \
PATH=/usr/sbin:/usr/bin:/sbin:/bin rpmbuild --load "$src/t/package/rpm-host.macros" --define "_topdir $top" --nodeps \
	--define "_sourcedir $top/SOURCES/biasgelu" --define 'plugindir %{_libdir}/hanzo-rocm/plugins' \
	-bb "$src/examples/plugin/hanzo-rocm-plugin-biasgelu.spec" >"$work/rpmbuild-biasgelu.log" 2>&1 || {
	tail -n 40 "$work/rpmbuild-biasgelu.log" >&2
	echo "rpmbuild of examples/plugin failed: see $work/rpmbuild-biasgelu.log" >&2
	exit 1
}
echo "rpm: $(find "$top/RPMS" -name '*.rpm' | wc -l) packages in $top/RPMS"
# Not linted: the -debuginfo package, which rpm itself makes from the
# binaries (find-debuginfo); nothing in it comes from the spec, and
# rpm-install.sh does not install it either.
rpms=$(find "$top/RPMS" -name '*.rpm' ! -name '*-debuginfo-*' ! -name '*-debugsource-*' \
	! -name 'hanzo-rocm-plugin-biasgelu-*' | sort)
# rpm/rpmlintrc filters no-manual-page-for-binary (a bug of rpmlint 2.4):
# the man page must really be there.
# shellcheck disable=SC2086
rpm -qlp "$top"/RPMS/*/hanzo-rocm-"$version"-*.rpm 2>/dev/null |
	grep -qx '/usr/share/man/man1/hanzo-rocm.1.gz' || {
	echo "rpm: hanzo-rocm has no gzipped hanzo-rocm(1) man page" >&2; exit 1; }
# shellcheck disable=SC2086
rpmlint -r "$src/rpm/rpmlintrc" "$src/rpm/hanzo-rocm.spec" $rpms >"$work/rpmlint.log" 2>&1 || true
# rpmlint's summary line: "N packages and M specfiles checked; E errors, W warnings"
summary=$(grep -E 'checked; [0-9]+ errors, [0-9]+ warnings' "$work/rpmlint.log" | tail -n 1)
[ -n "$summary" ] || { tail -n 20 "$work/rpmlint.log" >&2; echo "rpmlint did not run" >&2; exit 1; }
errors=$(echo "$summary" | sed 's/.*checked; \([0-9]*\) errors.*/\1/')
warnings=$(echo "$summary" | sed 's/.* \([0-9]*\) warnings.*/\1/')
echo "rpmlint:$summary"
if [ "$errors" -ne 0 ] || [ "$warnings" -ne 0 ]; then
	grep -E ': [EW]: ' "$work/rpmlint.log" >&2
	echo "rpmlint: $errors errors, $warnings warnings not fixed nor justified in rpm/rpmlintrc" >&2
	exit 1
fi
