# t/package/local.mk: OS packaging (debian/, rpm/).
#
# `make check` runs t/package/static.sh: the packaging files agree with the
# tree (families, symbols, generated control, unit, scripts).
#
# `make check-package` (as root; needs debhelper, lintian, debootstrap, rpm,
# rpmlint and the Debian mirror) is the full proof: build the .debs from a
# clean copy of the tree, lintian them, build an upgrade (a later version
# with one family's source changed), run t/package/proof.sh in a debootstrap
# root, then rpmbuild -bb and rpmlint, and rpm -i the rpms into a Debian
# root that has rpm (t/package/rpm-install.sh).  The debootstrap root is cached in
# HR_CHROOT_CACHE between runs.
EXTRA_DIST += t/package/static.sh
TESTS += t/package/static.sh

# debian/control is generated from plugins/families (debian/gen-control) and
# must be in the source package: make keeps it current, so adding a family
# is one line in plugins/families.  Written only when it changes (a
# read-only source tree, as in distcheck, is left alone when up to date).
all-local: all-local-debian-control
all-local-debian-control: debian/control.stamp
debian/control.stamp: $(srcdir)/plugins/families $(srcdir)/debian/gen-control \
		$(srcdir)/debian/control.in $(srcdir)/debian/control.plugin.in \
		$(srcdir)/debian/control.cache.in $(srcdir)/debian/cache-targets \
		$(srcdir)/bindings/rust/hanzo-rocm-sys/Cargo.toml $(srcdir)/bindings/rust/hanzo-rocm/Cargo.toml
	$(AM_V_GEN)$(MKDIR_P) debian && \
	$(SHELL) $(srcdir)/debian/gen-control >debian/control.tmp && \
	{ cmp -s debian/control.tmp $(srcdir)/debian/control || \
	  cp debian/control.tmp $(srcdir)/debian/control; } && \
	rm -f debian/control.tmp && touch $@
CLEANFILES += debian/control.stamp
.PHONY: all-local-debian-control

HR_PKG_WORK = $(abs_top_builddir)/_build/package-check
HR_CHROOT_CACHE = $(abs_top_builddir)/_build/package-chroot
HR_PKG_CHANGED_FAMILY = fill
# The cache package the Debian proof installs (t/package/proof.sh step 4):
# the upgrade build makes only this one of debian/cache-targets (each other
# target's package left out by its pkg.hanzo-rocm.nocache-TARGET profile),
# which spares it 2 of every 3 hipcc compiles.  Every package the proof
# installs is still upgraded to the rebuild.
HR_PKG_PROOF_CACHE = gfx906
# The cache packages of the first .deb build: all of debian/cache-targets,
# or (HR_PKG_CACHES=proof) only HR_PKG_PROOF_CACHE, the one the proof
# installs.  CI (tools/test.sh) asks for proof: the others are the same
# template, and the Debian 12 proof below compiles every family for their
# targets with the same hipcc (its trigger step), so building them there
# would be the same 28 compiles twice (3 of the first build's 5 minutes).
HR_PKG_CACHES = all
HR_RPM_CACHE_TARGETS = gfx90a
# Where the proof runs, and the target list it configures there:
# SUITE=TARGET[,TARGET...] (Debian 12 and 13: the .debs built here install
# on both).  Two targets show one trigger compiling for several; CI
# (tools/test.sh) keeps them in Debian 12 and takes one in Debian 13, where
# each family for a target is one more ROCm 5.7 compile of 13.
HR_PROOF_MATRIX = bookworm=gfx90a,gfx1030 trixie=gfx90a,gfx1030
# Also built (tests on) and linted in these releases' roots.
HR_BUILD_SUITES = trixie
# The first .deb build runs the suite as Debian's builders do (dh_auto_test,
# the distribution's flags).  HR_PKG_TESTS=no builds it with nocheck: CI
# (tools/test.sh) has run the same suite twice on the same tree by then
# (plain and ASan+UBSan), and leaves this third run to a pre-release
# `make check-package`, as it does the HR_BUILD_SUITES builds.
HR_PKG_TESTS = yes

# A proof's TAP decides after the remaining steps ran (failed= collects
# them): not `! grep` mid-recipe, whose status set -e ignores - that hid two
# rpm-install failures from 814e0fa to 507bbe5.
check-package:
	@set -e; start=$$(date +%s); src='$(abs_top_srcdir)'; w='$(HR_PKG_WORK)'; failed=; \
	step() { echo "check-package: $$1 ($$(( $$(date +%s) - start )) s)"; }; \
	nocache() { sed -e 's/#.*//' "$$src/debian/cache-targets" | \
		awk -v keep='$(HR_PKG_PROOF_CACHE)' 'NF && $$1 != keep { printf "%spkg.hanzo-rocm.nocache-%s", s, $$1; s = " " }'; }; \
	case '$(HR_PKG_CACHES)' in all) profiles= ;; proof) profiles=$$(nocache) ;; \
	*) echo "check-package: HR_PKG_CACHES is all or proof, not '$(HR_PKG_CACHES)'" >&2; exit 2 ;; esac; \
	step "building the .debs (cache packages: $(HR_PKG_CACHES))"; \
	HR_PKG_PROFILES="$$profiles" HR_PKG_TESTS='$(HR_PKG_TESTS)' \
		sh "$$src/t/package/build-debs.sh" "$$src" "$$w/v1"; \
	step "lintian"; \
	sh "$$src/t/package/lintian.sh" "$$w/v1/debs"; \
	for suite in $(HR_BUILD_SUITES); do \
		base=$$(sh "$$src/t/package/chroot-base.sh" '$(HR_CHROOT_CACHE)' $$suite); \
		step "dpkg-buildpackage -b (tests on) in $$suite"; \
		sh "$$src/t/package/build-in.sh" "$$base" "$$w/v1/source.tar" "$$w/build-$$suite"; \
		step "lintian of $$suite on its .debs"; \
		sh "$$src/t/package/lintian-in.sh" "$$base" "$$w/build-$$suite/debs" "$$w/lintian-$$suite"; \
	done; \
	v=$$(cd "$$src" && dpkg-parsechangelog -SVersion)+rebuild1; \
	step "building the upgrade $$v ($(HR_PKG_CHANGED_FAMILY) source changed)"; \
	HR_PKG_PROFILES="$$(nocache)" \
	sh "$$src/t/package/build-debs.sh" "$$w/v1/source.tar" "$$w/v2" "$$v" $(HR_PKG_CHANGED_FAMILY); \
	for st in $(HR_PROOF_MATRIX); do \
		suite=$${st%%=*}; targets=$$(echo "$${st#*=}" | tr , ' '); \
		step "debootstrap root ($$suite)"; \
		base=$$(sh "$$src/t/package/chroot-base.sh" '$(HR_CHROOT_CACHE)' $$suite); \
		step "proof in $$base (targets $$targets)"; \
		HR_PROOF_TARGETS="$$targets" top_srcdir="$$src" \
		sh "$$src/t/package/proof.sh" "$$base" "$$w/v1/debs" "$$w/v2/debs" \
			$(HR_PKG_CHANGED_FAMILY) "$$w/proof-$$suite" | tee "$$w/proof-$$suite.tap"; \
		if grep -qE '^(not ok|Bail out)' "$$w/proof-$$suite.tap" || \
			! grep -q '^1\.\.' "$$w/proof-$$suite.tap"; then failed="$$failed proof-$$suite"; fi; \
	done; \
	step "rpmbuild and rpmlint"; \
	sh "$$src/t/package/rpm.sh" "$$src" "$$w/rpm" '$(HR_RPM_CACHE_TARGETS)'; \
	step "rpm -i --nodeps into a Debian root with rpm"; \
	base=$$(sh "$$src/t/rocm/root.sh" '$(HR_CHROOT_CACHE)' bookworm); \
	top_srcdir="$$src" sh "$$src/t/package/rpm-install.sh" "$$base" "$$w/rpm/rpmbuild/RPMS" \
		"$$w/rpm-install" | tee "$$w/rpm-install.tap"; \
	if grep -qE '^(not ok|Bail out)' "$$w/rpm-install.tap" || \
		! grep -q '^1\.\.' "$$w/rpm-install.tap"; then failed="$$failed rpm-install"; fi; \
	step "done"; \
	if [ -n "$$failed" ]; then echo "check-package: FAILED:$$failed (see $$w/*.tap)"; exit 1; fi
.PHONY: check-package

clean-local: clean-local-package
clean-local-package:
	-rm -rf '$(HR_PKG_WORK)'
.PHONY: clean-local-package

EXTRA_DIST += \
	debian/changelog debian/control debian/control.in debian/control.plugin.in \
	debian/control.cache.in debian/copyright debian/rules debian/source/format \
	debian/cache-targets debian/gen-control \
	debian/hanzo-rocm.install.in debian/hanzo-rocm.postinst debian/hanzo-rocm.postrm \
	debian/hanzo-rocm.triggers.in debian/hanzo-rocm.lintian-overrides \
	debian/libhanzo-rocm1.install debian/libhanzo-rocm1.symbols \
	debian/libhanzo-rocm-dev.install \
	debian/librust-hanzo-rocm-sys-dev.install debian/librust-hanzo-rocm-dev.install \
	debian/python3-hanzo-rocm.docs debian/python3-hanzo-rocm.examples debian/hanzo-rocm-remote.install \
	debian/watch debian/upstream/metadata debian/tests/control \
	debian/tests/cli-precompile debian/tests/dev-build \
	rpm/hanzo-rocm.spec rpm/rpmlintrc t/package/rpm-host.macros \
	t/package/build-debs.sh t/package/chroot-base.sh t/package/lintian.sh \
	t/package/proof.sh t/package/rpm.sh t/package/rpm-install.sh t/package/lintian-in.sh t/package/build-in.sh t/package/readme-in.sh t/package/test-in.sh
