#!/bin/sh
# rpmbuild -bb rpm/hanzo-rocm.spec from a clean copy of the tree, then
# rpmlint the spec and the packages (errors fail; warnings are printed).
# usage: rpm.sh SRCDIR WORKDIR [CACHE_TARGETS]
# On a Debian host rpm has no database of the BuildRequires: --nodeps.
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
tar -C "$top/stage" -cJf "$top/SOURCES/hanzo-rocm-$version.tar.xz" "hanzo-rocm-$version"
cp "$src/plugins/families" "$top/SOURCES/families"   # the spec's Source1
rm -rf "$top/stage"

rpmbuild --define "_topdir $top" --nodeps --without check \
	--define "cache_targets $targets" \
	-bb "$src/rpm/hanzo-rocm.spec" >"$work/rpmbuild.log" 2>&1 || {
	tail -n 60 "$work/rpmbuild.log" >&2
	echo "rpmbuild failed: see $work/rpmbuild.log" >&2
	exit 1
}
echo "rpm: $(find "$top/RPMS" -name '*.rpm' | wc -l) packages in $top/RPMS"
rpmlint -r "$src/rpm/rpmlintrc" "$src/rpm/hanzo-rocm.spec" $(find "$top/RPMS" -name '*.rpm' | sort) \
	>"$work/rpmlint.log" 2>&1 || true
# Errors and the summary here; every warning is in rpmlint.log.
grep -E ': E: |checked;' "$work/rpmlint.log" || true
# rpmlint's summary line: "N packages and M specfiles checked; E errors, W warnings"
errors=$(sed -n 's/.*checked; \([0-9]*\) errors.*/\1/p' "$work/rpmlint.log" | tail -n 1)
[ -n "$errors" ] || { echo "rpmlint did not run" >&2; exit 1; }
[ "$errors" -eq 0 ] || { echo "rpmlint: $errors errors" >&2; exit 1; }
