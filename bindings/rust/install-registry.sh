#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs the two crates as Debian's librust-*-dev packages lay crates out
# (what dh-cargo installs): DIR/<crate>-<version>/ holding the crate's files,
# its Cargo.toml with path dependencies reduced to versions (as `cargo
# package` normalizes them) and a .cargo-checksum.json, so that cargo with
#   [source.debian-packages] directory = "DIR"
#   [source.crates-io] replace-with = "debian-packages"
# builds `hanzo-rocm = "0.1"` offline.  DIR: $(datadir)/cargo/registry in a
# package (`make install-rust-registry DESTDIR=...`).
#   sh install-registry.sh SRCDIR DIR
set -eu
src=$1 dir=$2
for crate in hanzo-rocm-sys hanzo-rocm; do
	version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$src/$crate/Cargo.toml" | head -n1)
	[ -n "$version" ] || { echo "install-registry: no version in $src/$crate/Cargo.toml" >&2; exit 1; }
	d=$dir/$crate-$version
	rm -rf "$d"
	mkdir -p "$d"
	(cd "$src/$crate" && find . -name target -prune -o -type f \( -name '*.rs' -o -name '*.md' \) -print) |
	while read -r f; do
		mkdir -p "$d/$(dirname "$f")"
		cp "$src/$crate/$f" "$d/$f"
	done
	cp "$src/README.md" "$d/README.md"
	cp "$src/$crate/Cargo.toml" "$d/Cargo.toml.orig"
	sed 's/{ *path = "[^"]*", */{ /' "$src/$crate/Cargo.toml" >"$d/Cargo.toml"
	if grep -q 'path = "\.\.' "$d/Cargo.toml"; then
		echo "install-registry: a path dependency is left in $d/Cargo.toml" >&2
		exit 1
	fi
	printf '{"package":null,"files":{}}\n' >"$d/.cargo-checksum.json"
	chmod -R u=rwX,go=rX "$d"
done
