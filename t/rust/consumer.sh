#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# A crate that names `hanzo-rocm = "0.1"` and nothing else, built offline
# against a Debian-style directory registry (what librust-*-dev installs,
# or bindings/rust/install-registry.sh), as a packager or a user of the
# packages would: crates.io replaced by the registry directory, no lock file
# carried over.  Used by t/rust/rust.sh (the build tree's registry) and by
# t/package/proof.sh (the one the packages installed).
#   sh t/rust/consumer.sh REGISTRY DIR <main.rs
# Writes DIR/{Cargo.toml,.cargo/config.toml,src/main.rs}; the package is
# named registry-consumer.  Build it with cargo --offline in DIR.
set -eu
reg=$1 consumer=$2
rm -rf "$consumer"
mkdir -p "$consumer/src" "$consumer/.cargo"
cat >"$consumer/.cargo/config.toml" <<EOC
[source.debian-packages]
directory = "$reg"
[source.crates-io]
replace-with = "debian-packages"
EOC
cat >"$consumer/Cargo.toml" <<'EOC'
[package]
name = "registry-consumer"
version = "0.0.0"
edition = "2021"
[dependencies]
hanzo-rocm = "0.1"
[workspace]
EOC
cat >"$consumer/src/main.rs"
