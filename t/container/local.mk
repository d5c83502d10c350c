# t/container/local.mk: OCI images for clusters (container/, doc/CONTAINERS.md).
#
# `make check-container` (as root; podman, buildah, debootstrap, dpkg-dev
# and, once, the Debian mirror) builds the images and checks them:
#   1. the .debs: those of `make check-package` (or of an earlier run) when
#      they are newer than every source file, else built here from a clean
#      copy of the tree (without the cache packages: the images precompile);
#   2. the base image: container/make-base.sh imports the debootstrap
#      minbase root that t/package/chroot-base.sh caches (shared with
#      check-package) and keeps hipcc's .debs aside for offline builds;
#   3. builder, runtime and framework-base images for HR_CONTAINER_TARGETS
#      with container/build.sh, offline (no registry, no mirror);
#   4. t/container/check.sh (TAP) inside the runtime image.
# HR_CONTAINER_BUILD_OPTS go to every `podman build`: chroot isolation
# builds even where no OCI runtime can start a container.
HR_CONTAINER_WORK = $(abs_top_builddir)/_build/container-check
HR_CONTAINER_TARGETS = gfx90a
HR_CONTAINER_MISSING = gfx1030
HR_CONTAINER_NAME = localhost/hanzo-rocm-check
HR_CONTAINER_BASE = localhost/hanzo-rocm-base:bookworm
HR_CONTAINER_BUILD_OPTS = --isolation=chroot --pull=never

check-container: all
	@set -e; start=$$(date +%s); src='$(abs_top_srcdir)'; w='$(HR_CONTAINER_WORK)'; \
	step() { echo "check-container: $$1 ($$(( $$(date +%s) - start )) s)"; }; \
	mkdir -p "$$w"; \
	debs=; \
	for d in '$(HR_PKG_WORK)/v1/debs' "$$w/debs-src/debs"; do \
		c=$$(find "$$d" -maxdepth 1 -name 'hanzo-rocm_*.changes' 2>/dev/null | head -n 1); \
		[ -n "$$c" ] || continue; \
		[ -z "$$(cd "$$src" && find . -path ./_build -prune -o -path ./.git -prune -o \
		         -type f -newer "$$c" -print | head -n 1)" ] || continue; \
		debs=$$d; step "reusing the .debs in $$debs (newer than every source file)"; break; \
	done; \
	if [ -z "$$debs" ]; then \
		step "building the .debs (no cache packages)"; \
		DEB_BUILD_PROFILES=pkg.hanzo-rocm.nocache \
			sh "$$src/t/package/build-debs.sh" "$$src" "$$w/debs-src"; \
		debs=$$w/debs-src/debs; \
	fi; \
	podman rmi '$(HR_CONTAINER_NAME):check-framework' '$(HR_CONTAINER_NAME):check' \
		'$(HR_CONTAINER_NAME):check-builder' >/dev/null 2>&1 || :; \
	step "base image $(HR_CONTAINER_BASE) (debootstrap minbase, podman import)"; \
	sh "$$src/container/make-base.sh" '$(HR_CHROOT_CACHE)' '$(HR_CONTAINER_BASE)' "$$w/archive"; \
	step "builder, runtime, framework-base images for $(HR_CONTAINER_TARGETS), offline"; \
	sh "$$src/container/build.sh" --debs "$$debs" --archive "$$w/archive" \
		--targets '$(HR_CONTAINER_TARGETS)' --base '$(HR_CONTAINER_BASE)' \
		--name '$(HR_CONTAINER_NAME)' --tag check --work "$$w/work" \
		-- $(HR_CONTAINER_BUILD_OPTS) >"$$w/build.log" 2>&1 || \
		{ tail -n 40 "$$w/build.log"; echo "check-container: see $$w/build.log"; exit 1; }; \
	grep '^build.sh: ' "$$w/build.log"; \
	step "checks in the runtime image"; \
	$(CC) -O2 -std=gnu11 -I"$$src/lib" -o "$$w/co-lookup" "$$src/t/container/co-lookup.c" \
		lib/.libs/libhanzo-rocm.so; \
	version=$$(sed -n 's/^build.sh: built .*; version \([^)]*\)).*/\1/p' "$$w/build.log"); \
	top_srcdir="$$src" sh "$$src/t/container/check.sh" '$(HR_CONTAINER_NAME):check' \
		'$(HR_CONTAINER_NAME):check-framework' '$(HR_CONTAINER_BASE)' \
		'$(HR_CONTAINER_TARGETS)' '$(HR_CONTAINER_MISSING)' "$$version" "$$w/co-lookup" \
		"$$w/build.log" \
		| tee "$$w/check.tap"; \
	step "done"; \
	! grep -q '^not ok' "$$w/check.tap" && grep -q '^1\.\.' "$$w/check.tap"
.PHONY: check-container

clean-local: clean-local-container
clean-local-container:
	-rm -rf '$(HR_CONTAINER_WORK)'
	-podman rmi '$(HR_CONTAINER_NAME):check-framework' '$(HR_CONTAINER_NAME):check' \
		'$(HR_CONTAINER_NAME):check-builder' >/dev/null 2>&1
.PHONY: clean-local-container

EXTRA_DIST += \
	container/Containerfile container/apt-local.sh container/bake.sh \
	container/build.sh container/make-base.sh container/50-container.conf \
	doc/CONTAINERS.md t/container/check.sh t/container/co-lookup.c
