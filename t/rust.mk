# t/rust.mk: the Rust bindings (bindings/rust), built and tested with
# Debian's cargo/rustc offline (t/rust.sh); tools/test.sh runs it as its
# own phase.  Not part of `make check`: the sanitized tree cannot link it.
EXTRA_DIST += t/rust.sh \
	bindings/rust/README.md bindings/rust/Cargo.toml bindings/rust/Cargo.lock \
	bindings/rust/hanzo-rocm-sys/Cargo.toml bindings/rust/hanzo-rocm-sys/build.rs \
	bindings/rust/hanzo-rocm-sys/src/lib.rs bindings/rust/hanzo-rocm-sys/src/srcapi.rs \
	bindings/rust/hanzo-rocm-sys/tests/header.rs \
	bindings/rust/hanzo-rocm/Cargo.toml bindings/rust/hanzo-rocm/src/lib.rs \
	bindings/rust/hanzo-rocm/src/compat.rs bindings/rust/hanzo-rocm/src/source.rs \
	bindings/rust/hanzo-rocm/tests/host.rs bindings/rust/hanzo-rocm/tests/source.rs \
	bindings/rust/hanzo-rocm/examples/source_and_family.rs

check-rust: all
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
		$(SHELL) $(top_srcdir)/t/rust.sh
.PHONY: check-rust

clean-local: clean-rust
clean-rust:
	rm -rf rust
.PHONY: clean-rust
