# t/rust/local.mk: the Rust bindings (bindings/rust), built and tested with
# Debian's cargo/rustc offline (t/rust/rust.sh); tools/test.sh runs it as its
# own phase.  Not part of `make check`: the sanitized tree cannot link it.
EXTRA_DIST += t/rust/rust.sh t/rust/consumer.sh

check-rust: all
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
		$(SHELL) $(top_srcdir)/t/rust/rust.sh
.PHONY: check-rust

clean-local: clean-rust
clean-rust:
	rm -rf rust
.PHONY: clean-rust
