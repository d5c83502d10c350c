# t/rocm/local.mk: `make check-rocm` (as root; debootstrap and the Debian mirror):
# every kernel family built for the default targets plus the newer ones by
# the ROCm compilers of Debian 12 (5.2), 13 (5.7) and sid (7.0), each in a
# cached debootstrap root (t/rocm/root.sh, cache in HR_CHROOT_CACHE), through
# this build installed into the root; static checks of every code object and
# of the "needs ROCm >= X" table (t/rocm/check-rocm.sh).  Run before a
# release; its matrix goes into doc/TARGETS.md.  tools/test.sh runs a
# reduced one: HR_ROCM_MATRIX='trixie=gfx942 sid=gfx1201'.
HR_ROCM_WORK = $(abs_top_builddir)/_build/rocm-check
HR_ROCM_TARGETS = gfx90a,gfx942,gfx1100,gfx1030,gfx1101,gfx950,gfx1200,gfx1201
HR_ROCM_MATRIX = bookworm=$(HR_ROCM_TARGETS) trixie=$(HR_ROCM_TARGETS) sid=$(HR_ROCM_TARGETS)

check-rocm: all
	@set -e; w='$(HR_ROCM_WORK)'; rm -rf "$$w/stage"; \
	$(MAKE) $(AM_MAKEFLAGS) install DESTDIR="$$w/stage" >/dev/null; \
	find "$$w/stage" -name '*.la' -delete; \
	sh '$(abs_top_srcdir)/t/rocm/check-rocm.sh' '$(abs_top_srcdir)' "$$w/stage" \
		'$(HR_CHROOT_CACHE)' "$$w" $(HR_ROCM_MATRIX) | tee "$$w.log"; \
	! grep -q '^not ok' "$$w.log"
.PHONY: check-rocm

clean-local: clean-local-rocm
clean-local-rocm:
	-rm -rf '$(HR_ROCM_WORK)' '$(HR_ROCM_WORK).log'
.PHONY: clean-local-rocm

EXTRA_DIST += t/rocm/root.sh t/rocm/check-rocm.sh
