#!/bin/sh
# Build the hanzo-rocm images (container/Containerfile) for a set of GPU
# targets from the project's .debs: NAME:TAG-builder, NAME:TAG (runtime) and
# NAME:TAG-framework (framework base).  See doc/CONTAINERS.md.
#
# usage: container/build.sh --debs DIR [--archive DIR] [--targets "T ..."]
#            [--base IMAGE] [--name NAME] [--tag TAG] [--engine podman|docker]
#            [--work DIR] [-- BUILD-OPTION...]
#   --debs     the .debs of dpkg-buildpackage (debug symbols are left out)
#   --archive  Debian .debs (hipcc and its dependencies, libinih1, pkgconf;
#              container/make-base.sh collects them): an offline build
#   --targets  GPU targets to bake (default gfx90a)
#   --base     BASE_IMAGE (default localhost/hanzo-rocm-base:bookworm, made
#              by container/make-base.sh; or debian:bookworm from a registry)
#   --name     image name (default localhost/hanzo-rocm)
#   --tag      tag (default VERSION-TARGETS, e.g. 0.1.0-gfx90a-gfx942)
#   --work     where the build context is assembled (default: a temp dir)
#   after --   passed to every build command (e.g. --isolation=chroot)
# Two passes: the builder stage first, then its compiler identity becomes
# the runtime image's toolchain label (the runtime build checks all labels).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
debs='' archive='' targets=gfx90a base=localhost/hanzo-rocm-base:bookworm
name=localhost/hanzo-rocm tag='' engine='' work=''
usage() { sed -n '/^# usage/,/^# Two/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--debs) debs=$2; shift 2 ;;
	--archive) archive=$2; shift 2 ;;
	--targets) targets=$2; shift 2 ;;
	--base) base=$2; shift 2 ;;
	--name) name=$2; shift 2 ;;
	--tag) tag=$2; shift 2 ;;
	--engine) engine=$2; shift 2 ;;
	--work) work=$2; shift 2 ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
[ -n "$debs" ] || usage
targets=$(echo "$targets" | tr -s ' \t,' '   ' | sed 's/^ //; s/ $//')
[ -n "$targets" ] || usage
if [ -z "$engine" ]; then
	if command -v podman >/dev/null; then engine=podman; else engine=docker; fi
fi
command -v dpkg-scanpackages >/dev/null || {
	echo "build.sh: dpkg-scanpackages is missing: apt-get install dpkg-dev" >&2
	exit 1
}
cli=$(find "$debs" -maxdepth 1 -name "hanzo-rocm_*.deb" | head -n 1)
[ -n "$cli" ] || { echo "build.sh: no hanzo-rocm_*.deb in $debs" >&2; exit 1; }
# The upstream version (no epoch, no Debian revision), as `hanzo-rocm --version`.
version=$(dpkg-deb -f "$cli" Version | sed 's/^[0-9]*://; s/-[^-]*$//')
[ -n "$tag" ] || tag=$version-$(echo "$targets" | tr ' ' '-' | tr -c 'A-Za-z0-9_.\n-' '_')

if [ -z "$work" ]; then
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
fi
ctx=$work/context
rm -rf "$ctx"
mkdir -p "$ctx/repo"
cp "$here/Containerfile" "$here/apt-local.sh" "$here/bake.sh" "$here/50-container.conf" "$ctx/"
link() { ln "$@" "$ctx/repo/" 2>/dev/null || cp "$@" "$ctx/repo/"; }
for f in "$debs"/*.deb; do
	case $f in *-dbgsym_*) ;; *) link "$f" ;; esac
done
if [ -n "$archive" ]; then
	for f in "$archive"/*.deb; do link "$f"; done
	: >"$ctx/repo/offline"
fi
(cd "$ctx/repo" && dpkg-scanpackages --multiversion . 2>/dev/null >Packages)

# "$@" holds the options given after --.
build() { # STAGE IMAGE [--build-arg NAME=VALUE]...
	stage=$1 img=$2
	shift 2
	echo "build.sh: $engine build --target $stage -t $img" >&2
	# shellcheck disable=SC2086 # the options after --, one word each
	"$engine" build $extra -f "$ctx/Containerfile" --target "$stage" -t "$img" \
		--build-arg BASE_IMAGE="$base" --build-arg TARGETS="$targets" "$@" "$ctx"
}
extra="$*"
start=$(date +%s)
build builder "$name:$tag-builder"

# The builder's manifest, read without running anything in the image.
cid=$("$engine" create "$name:$tag-builder" true)
"$engine" cp "$cid:/usr/share/hanzo-rocm/image/toolchain" "$work/toolchain"
"$engine" rm "$cid" >/dev/null
toolchain=$(cat "$work/toolchain")

build runtime "$name:$tag" --build-arg VERSION="$version" --build-arg TOOLCHAIN="$toolchain"
build framework-base "$name:$tag-framework" --build-arg VERSION="$version" \
	--build-arg TOOLCHAIN="$toolchain"
for img in "$name:$tag" "$name:$tag-framework" "$name:$tag-builder" "$base"; do
	size=$("$engine" image inspect --format '{{.Size}}' "$img")
	printf 'build.sh: %-50s %6s MiB\n' "$img" "$((size / 1048576))"
done
echo "build.sh: built $name:$tag (targets: $targets; toolchain: $toolchain; version $version) in $(($(date +%s) - start)) s"
