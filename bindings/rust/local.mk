# bindings/rust/local.mk: the Rust crates (README.md here).  Not built by
# `make`: `make check-rust` (t/rust/local.mk) tests them with Debian's cargo, and
# `make install-rust-registry` installs their sources as Debian's
# librust-*-dev packages do, under $(datadir)/cargo/registry.
EXTRA_DIST += \
	bindings/rust/README.md bindings/rust/Cargo.toml bindings/rust/Cargo.lock \
	bindings/rust/install-registry.sh \
	bindings/rust/hanzo-rocm-sys/Cargo.toml bindings/rust/hanzo-rocm-sys/build.rs \
	bindings/rust/hanzo-rocm-sys/src/lib.rs bindings/rust/hanzo-rocm-sys/src/srcapi.rs \
	bindings/rust/hanzo-rocm-sys/tests/header.rs \
	bindings/rust/hanzo-rocm/Cargo.toml bindings/rust/hanzo-rocm/src/lib.rs \
	bindings/rust/hanzo-rocm/src/compat.rs bindings/rust/hanzo-rocm/src/source.rs \
	bindings/rust/hanzo-rocm/tests/host.rs bindings/rust/hanzo-rocm/tests/source.rs \
	bindings/rust/hanzo-rocm/examples/source_and_family.rs

cargoregistrydir = $(datadir)/cargo/registry
install-rust-registry:
	$(SHELL) $(top_srcdir)/bindings/rust/install-registry.sh \
		$(top_srcdir)/bindings/rust $(DESTDIR)$(cargoregistrydir)
.PHONY: install-rust-registry
