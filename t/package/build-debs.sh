#!/bin/sh
# Build the .debs from a clean copy of the source tree (what git tracks plus
# untracked, not-ignored files: uncommitted work included, _build/ and other
# build outputs excluded), as dpkg-buildpackage -us -uc -b.
#
# usage: build-debs.sh SRC WORKDIR [VERSION [FAMILY]]
#   SRC      the source tree, or the WORKDIR/source.tar of an earlier run
#            (an upgrade build must start from the same snapshot: others
#            may be editing the tree meanwhile)
#   VERSION  Debian version for a new changelog entry (an "upgrade" build)
#   FAMILY   append a comment to kernels/FAMILY.hip, so that the cache entries
#            of that family become stale while the others stay valid
# The .debs end up in WORKDIR/debs/.  The first build runs the test suite
# (dh_auto_test) unless HR_PKG_TESTS=no; an upgrade build never does.
# HR_PKG_PROFILES: build profiles (DEB_BUILD_PROFILES) for this build, e.g.
# pkg.hanzo-rocm.nocache-gfx90a to leave that target's cache package out.
set -eu
src=$1
mkdir -p "$2"; work=$(cd "$2" && pwd)
version=${3:-}
family=${4:-}

rm -rf "$work"
mkdir -p "$work/src" "$work/debs"
if [ -f "$src" ]; then
	tar -xf "$src" -C "$work/src"
elif [ -d "$src/.git" ] && command -v git >/dev/null; then
	(cd "$src" && git ls-files -z -c -o --exclude-standard) |
		(cd "$src" && tar --null -T - -cf -) | tar -xf - -C "$work/src"
else
	# Not a checkout (e.g. a dist tarball): copy it, minus build trees.
	(cd "$src" && tar --exclude=./_build --exclude=./autom4te.cache -cf - .) |
		tar -xf - -C "$work/src"
fi
# Files the checkout may hold that a clean source must not (built in place).
rm -rf "$work/src/autom4te.cache" "$work/src/_build"
# The snapshot, before any change: what an upgrade build starts from.
tar -C "$work/src" -cf "$work/source.tar" .

cd "$work/src"
if [ -n "$version" ]; then
	{
		printf 'hanzo-rocm (%s) unstable; urgency=medium\n\n' "$version"
		printf '  * Rebuild for the upgrade test of t/package/proof.sh.\n\n'
		printf ' -- Hanzo AI <dev@hanzo.ai>  %s\n\n' "$(date -R)"
		cat debian/changelog
	} > debian/changelog.new
	mv debian/changelog.new debian/changelog
fi
if [ -n "$family" ]; then
	printf '\n// upgrade test: changed source of the %s family\n' "$family" \
		>> "kernels/$family.hip"
fi

# As Debian's builders do: tests on (dh_auto_test runs `make check`), the
# default hardening flags (_FORTIFY_SOURCE=2), no -Werror (configure's
# default).  The upgrade's rebuild, the same code, skips the tests, and so
# does a build asked to with HR_PKG_TESTS=no (t/package.mk says when).
check=
[ -z "$version" ] && [ "${HR_PKG_TESTS:-yes}" != no ] || check=nocheck
# The system's PATH only, as on Debian's builders: a python3 earlier in the
# caller's PATH (pyenv, a virtualenv) lacks the Debian modules pybuild needs
# for python3-hanzo-rocm.
DEB_BUILD_OPTIONS="$check parallel=$(nproc) ${DEB_BUILD_OPTIONS:-}" \
	DEB_BUILD_PROFILES="${HR_PKG_PROFILES:-${DEB_BUILD_PROFILES:-}}" \
	PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	dpkg-buildpackage -us -uc -b >"$work/build.log" 2>&1 || {
	tail -n 60 "$work/build.log" >&2
	echo "dpkg-buildpackage failed: see $work/build.log" >&2
	exit 1
}
mv "$work"/*.deb "$work/debs/"
mv "$work"/*.buildinfo "$work"/*.changes "$work/debs/" 2>/dev/null || true
echo "build-debs: $(ls "$work/debs"/*.deb | wc -l) packages in $work/debs"
