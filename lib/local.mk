# libhanzo-rocm: a convenience library holding every object (the CLI and the
# unit tests link it, as kmod's tools do), wrapped into the versioned
# shared library with a linker script so only the public API is exported.
noinst_LTLIBRARIES += lib/libhanzo-rocm-internal.la
lib_LTLIBRARIES += lib/libhanzo-rocm.la
include_HEADERS += lib/hanzo-rocm.h lib/hanzo-rocm-plugin.h

lib_libhanzo_rocm_internal_la_SOURCES = \
	lib/context.h lib/context.c lib/top-new.c \
	lib/hanzo-rocm-tools.h \
	lib/util.h lib/util.c lib/util-targets.h lib/util-targets.c \
	lib/config-api.h lib/config-private.h lib/config.c lib/config-keys.c lib/config-show.c \
	lib/target.h lib/target.c lib/target-known.c \
	lib/devices.h lib/devices.c lib/devices-visible.h lib/devices-visible.c \
	lib/util-spawn.h lib/util-spawn.c \
	lib/build-toolchain.h lib/build-toolchain.c lib/build-toolchain-compile.c \
	lib/util-elf.h lib/util-elf.c \
	lib/util-trust.h lib/util-trust.c \
	lib/util-name.h lib/util-name.c \
	lib/cache.h lib/cache.c lib/cache-entry.c lib/cache-lock.c lib/cache-gc.c lib/cache-publish.c \
	lib/top-precompile.h lib/top-precompile.c lib/top-precompile-targets.c \
	lib/top-precompile-stamp.c lib/top-precompile-dest.c lib/top-precompile-source.c \
	lib/top-precompile-prune.c \
	lib/build-plugin.h lib/build-plugin-private.h lib/build-plugin.c lib/build-plugin-index.c \
	lib/build-plugin-index-write.c lib/build-plugin-check.c \
	lib/backend-cuda.h lib/backend-cuda.c \
	lib/backend-hip.h lib/backend-hip.c lib/backend-hip-kfd.c \
	lib/backend-ops.h lib/backend.h lib/backend.c \
	lib/runtime.h lib/runtime.c \
	lib/util-launch-meta.h lib/util-launch-meta.c lib/kernel.h lib/kernel.c lib/kernel-geometry.c lib/kernel-compile.c lib/context-layout.c \
	lib/util-catalogue-meta.h lib/util-catalogue-meta.c lib/kernel-catalogue.h lib/kernel-catalogue.c lib/kernel-op.c \
	lib/util-platform.h lib/util-platform.c lib/util-platform-amd.c \
	lib/util-platform-nvidia.c lib/util-platform-host.c \
	lib/backend-host.h lib/backend-host.c lib/backend-host-exec.c \
	lib/backend-host-internal.h lib/backend-host-pool.c \
	lib/build-source.h lib/build-source.c lib/build-hiprtc.c \
	lib/cache-source.h lib/cache-source.c lib/kernel-module.c
# The host execution header for caller source, generated from kernels/.
nodist_lib_libhanzo_rocm_internal_la_SOURCES = kernels/source-prelude.c
CLEANFILES += kernels/source-prelude.c
EXTRA_DIST += kernels/gen-source-prelude.sh
kernels/source-prelude.c: $(HR_KERNEL_INCLUDES) $(srcdir)/kernels/gen-source-prelude.sh
	$(AM_V_GEN)$(MKDIR_P) kernels && $(SHELL) $(srcdir)/kernels/gen-source-prelude.sh $(srcdir)/kernels >$@.tmp && mv $@.tmp $@
lib_libhanzo_rocm_internal_la_CFLAGS = $(AM_CFLAGS) $(INIH_CFLAGS) $(NETTLE_CFLAGS)
lib_libhanzo_rocm_internal_la_LIBADD = $(INIH_LIBS) $(NETTLE_LIBS)
if ENABLE_SANITIZERS
# A sanitized library builds sanitized host code objects (lib/backend-host.c).
lib_libhanzo_rocm_internal_la_CFLAGS += -DHR_HOST_SANITIZE=1
endif

lib_libhanzo_rocm_la_SOURCES =
lib_libhanzo_rocm_la_LIBADD = lib/libhanzo-rocm-internal.la
lib_libhanzo_rocm_la_LDFLAGS = $(AM_LDFLAGS) \
	-version-info $(LIBHANZO_ROCM_CURRENT):$(LIBHANZO_ROCM_REVISION):$(LIBHANZO_ROCM_AGE) \
	-Wl,--version-script=$(top_srcdir)/lib/libhanzo-rocm.sym
EXTRA_lib_libhanzo_rocm_la_DEPENDENCIES = lib/libhanzo-rocm.sym
EXTRA_DIST += lib/libhanzo-rocm.sym

pkgconfigdir = $(libdir)/pkgconfig
pkgconfig_DATA = lib/hanzo-rocm.pc
