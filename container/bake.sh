#!/bin/sh
# Inside an image build (container/Containerfile).
#
# bake.sh TARGET...
#   builder stage: precompile every installed kernel family for TARGETS into
#   the system cache, fail unless every (target, family) pair is there and
#   verifies (a target this hipcc cannot build is reported as skipped by
#   precompile; an image silently without it would fail at run time), and
#   write the manifest /usr/share/hanzo-rocm/image/{targets,toolchain,version}
#   that the runtime stage's labels must match.
#
# bake.sh --check-labels TARGETS VERSION TOOLCHAIN
#   runtime stage: refuse to build unless the label values equal the
#   manifest and the CLI's version, and unless no compiler is installed.
set -eu
manifest=/usr/share/hanzo-rocm/image
cache=/var/cache/hanzo-rocm

words() { echo "$*" | tr -s ' \t' '  ' | sed 's/^ //; s/ $//'; }

if [ "${1:-}" = --check-labels ]; then
	status=0
	check() { # NAME GIVEN WANT
		if [ "$2" != "$3" ]; then
			echo "bake: --build-arg $1=\"$2\" does not match the image: pass $1=\"$3\"" >&2
			status=1
		fi
	}
	check TARGETS "$(words "$2")" "$(cat "$manifest/targets")"
	check VERSION "$3" "$(hanzo-rocm --version | sed 's/^hanzo-rocm //')"
	check TOOLCHAIN "$4" "$(cat "$manifest/toolchain")"
	for c in hipcc nvcc clang clang-15 gcc cc; do
		if command -v "$c" >/dev/null 2>&1; then
			echo "bake: the runtime image must hold no compiler, found $(command -v "$c")" >&2
			status=1
		fi
	done
	exit $status
fi

[ $# -gt 0 ] || { echo "bake: no TARGETS given" >&2; exit 2; }
# shellcheck disable=SC2046 # one word per target
set -- $(words "$*")
mkdir -p "$manifest"
args=
for t; do args="$args --target $t"; done
# No GPU here: the targets are given, never detected.
# shellcheck disable=SC2086
rc=0
# shellcheck disable=SC2086 # --target T pairs
hanzo-rocm precompile --system --progress never $args >"$manifest/precompile.txt" || rc=$?
cat "$manifest/precompile.txt"
[ "$rc" -eq 0 ] || { echo "bake: hanzo-rocm precompile failed (exit $rc)" >&2; exit 1; }

missing=
for t; do
	for so in /usr/lib/*/hanzo-rocm/plugins/*.so; do
		f=$(basename "$so" .so)
		[ -s "$cache/$t/$f.hrco" ] || missing="$missing $t/$f"
	done
done
if [ -n "$missing" ]; then
	echo "bake: not in the cache after precompile:$missing" >&2
	echo "bake: drop those targets from TARGETS or build with a hipcc that supports them (see the report above)" >&2
	exit 1
fi
hanzo-rocm cache verify

echo "$*" >"$manifest/targets"
hanzo-rocm --version | sed 's/^hanzo-rocm //' >"$manifest/version"
# The identity precompile stored in the entries (cache list shows the same).
hanzo-rocm info --json |
	sed -n 's/.*"kind":"hipcc","path":"[^"]*","version":"[^"]*","identity":"\([^"]*\)".*/\1/p' \
	>"$manifest/toolchain"
[ -s "$manifest/toolchain" ] || { echo "bake: cannot read hipcc's identity from hanzo-rocm info --json" >&2; exit 1; }
echo "bake: targets: $(cat "$manifest/targets"); toolchain: $(cat "$manifest/toolchain"); version: $(cat "$manifest/version")"
