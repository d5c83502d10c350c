#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# `make check-rust`: the Rust bindings (bindings/rust) with Debian's
# toolchain only - /usr/bin/cargo, /usr/bin/rustc, /usr/bin/rustdoc and
# /usr/bin/bindgen named explicitly, so a rustup toolchain on PATH does not
# count - offline, no registry.  One cargo invocation (`cargo test`: the -sys
# crate against <hanzo-rocm.h> through bindgen, the safe crate's tests on the
# host backend, the doc tests, and the examples built), then the example run
# on host-w64, and a crate built against the two as a Debian directory
# registry (what librust-*-dev packages install).  Linked through the build tree's hanzo-rocm-uninstalled.pc;
# cargo's target dir is cached in $top_builddir/rust.
# Environment: top_srcdir, top_builddir (the make target sets them).
set -eu
: "${top_srcdir:?}" "${top_builddir:?}"
for tool in /usr/bin/cargo /usr/bin/rustc /usr/bin/rustdoc /usr/bin/bindgen; do
	if [ ! -x "$tool" ]; then
		echo "check-rust: $tool missing: sh tools/install-deps.sh installs Debian's cargo, rustc and bindgen" >&2
		exit 1
	fi
done
if ldd "$top_builddir/lib/.libs/libhanzo-rocm.so" 2>/dev/null | grep -q libasan; then
	echo "check-rust: $top_builddir is a sanitized build; run it in the plain build tree" >&2
	exit 1
fi
rt=$top_builddir/rust
scratch=$rt/run
rm -rf "$scratch"
mkdir -p "$scratch/home" "$scratch/cargo-home"
# The library under test, its plugins and a scratch cache; nothing of the
# caller's environment (as t/test-env.sh does for make check).
for v in $(env | sed -n 's/^\(HANZO_ROCM_[A-Z_]*\)=.*/\1/p; s/^\(CANDLE_ROCM_[A-Z_]*\)=.*/\1/p'); do
	unset "$v"
done
unset HSA_OVERRIDE_GFX_VERSION XDG_CACHE_HOME RUSTFLAGS CARGO_BUILD_TARGET
printf '[cache]\nuser_dir = %s/cache\nsystem_dir = %s/system\n' "$scratch" "$scratch" >"$scratch/hanzo-rocm.conf"
export HANZO_ROCM_CONF="$scratch/hanzo-rocm.conf"
export HANZO_ROCM_PLUGIN_PATH="$top_builddir/plugins/.libs"
export LD_LIBRARY_PATH="$top_builddir/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PKG_CONFIG_PATH="$top_builddir"
unset PKG_CONFIG_DISABLE_UNINSTALLED PKG_CONFIG_LIBDIR
export HOME="$scratch/home" CARGO_HOME="$scratch/cargo-home"
export RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc HANZO_ROCM_BINDGEN=/usr/bin/bindgen
# The source-text calls (default feature srcapi) when this library has them.
features=
grep -q 'hanzo_rocm_module_get' "$top_srcdir/lib/hanzo-rocm.h" || features="--no-default-features"
echo "check-rust: $(/usr/bin/cargo --version), $(/usr/bin/rustc --version)${features:+, $features}"

# shellcheck disable=SC2086
/usr/bin/cargo test --offline --locked $features \
	--manifest-path "$top_srcdir/bindings/rust/Cargo.toml" --target-dir "$rt/target"

# The crates as a librust-*-dev package installs them (a directory registry,
# bindings/rust/install-registry.sh), used by a crate that names
# `hanzo-rocm = "0.1"` and nothing else: Debian's way, offline.
reg=$scratch/registry consumer=$scratch/consumer
sh "$top_srcdir/bindings/rust/install-registry.sh" "$top_srcdir/bindings/rust" "$reg"
sh "$top_srcdir/t/rust/consumer.sh" "$reg" "$consumer" <<'EOC'
fn main() {
    let ctx = hanzo_rocm::Context::with_options(&hanzo_rocm::Options { host: Some("host-w64".into()), ..Default::default() }).unwrap();
    let dev = ctx.device(ctx.device_count().unwrap() - 1).unwrap();
    let km = hanzo_rocm::KernelManager::new(&dev).unwrap();
    let m = km.get_or_compile_module(hanzo_rocm::Source::Binary).unwrap();
    println!("registry crate: {} on {}", m.get_function("bmaximum_f32").unwrap().name(), km.arch());
}
EOC
(cd "$consumer" && /usr/bin/cargo run --offline -q --target-dir "$rt/consumer-target") | tee "$scratch/consumer.out"
grep -q '^registry crate: bmaximum_f32 on host-w64$' "$scratch/consumer.out"

ex=$rt/target/debug/examples/source_and_family
if [ -n "$features" ]; then
	# Built, but it needs the source-text API to run.
	HANZO_ROCM_HOST=host-w64 "$ex" 0 1001 && rc=0 || rc=$?
	[ "$rc" -eq 3 ] || { echo "check-rust: example: exit $rc, not 3 (no source-text API)" >&2; exit 1; }
	echo "check-rust: example built; not run (this library has no source-text API)"
	exit 0
fi
HANZO_ROCM_HOST=host-w64 "$ex" 0 100003 | tee "$scratch/example.out"
grep -q '^OK$' "$scratch/example.out"
# Run again: the source's code object now comes from the user tier.
HANZO_ROCM_HOST=host-w64 "$ex" 0 1001 >"$scratch/example2.out"
grep -q '^OK$' "$scratch/example2.out"
echo "check-rust: ok"
