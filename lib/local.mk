# libhanzo-rocm: a convenience library holding every object (the CLI and the
# unit tests link it, as kmod's tools do), wrapped into the versioned
# shared library with a linker script so only the public API is exported.
noinst_LTLIBRARIES += lib/libhanzo-rocm-internal.la
lib_LTLIBRARIES += lib/libhanzo-rocm.la
include_HEADERS += lib/hanzo-rocm.h lib/hanzo-rocm-plugin.h

# A unit of more than three files is a folder (lib/layers); the headers are
# listed with the sources so that `make dist` ships them.
lib_libhanzo_rocm_internal_la_SOURCES = \
	lib/context.h lib/context.c lib/top-new.c lib/context-layout.c \
	lib/hanzo-rocm-tools.h \
	lib/util.h lib/util.c lib/util-targets.h lib/util-targets.c \
	lib/util-spawn.h lib/util-spawn.c \
	lib/util-elf.h lib/util-elf.c \
	lib/util-trust.h lib/util-trust.c \
	lib/util-name.h lib/util-name.c \
	lib/util-launch-meta.h lib/util-launch-meta.c \
	lib/util-catalogue-meta.h lib/util-catalogue-meta.c \
	lib/platform/util-platform.h lib/platform/util-platform.c \
	lib/platform/util-platform-amd.c lib/platform/util-platform-nvidia.c \
	lib/platform/util-platform-host.c \
	lib/target.h lib/target.c lib/target-known.c \
	lib/config/config-api.h lib/config/config-internal.h lib/config/config.c \
	lib/config/config-keys.c lib/config/config-show.c \
	lib/build-toolchain.h lib/build-toolchain.c lib/build-toolchain-compile.c \
	lib/build-source.h lib/build-source.c lib/build-hiprtc.c \
	lib/plugin/build-plugin.h lib/plugin/plugin-internal.h \
	lib/plugin/build-plugin.c lib/plugin/build-plugin-check.c \
	lib/plugin/build-plugin-index.c lib/plugin/build-plugin-index-write.c \
	lib/cache/cache.h lib/cache/cache-internal.h lib/cache/cache.c lib/cache/cache-entry.c \
	lib/cache/cache-publish.c lib/cache/cache-lock.c lib/cache/cache-gc.c \
	lib/cache-source.h lib/cache-source.c \
	lib/backend-ops.h lib/backend.h lib/backend.c \
	lib/backend-cuda.h lib/backend-cuda.c \
	lib/backend-hip.h lib/backend-hip.c lib/backend-hip-kfd.c \
	lib/host/backend-host.h lib/host/host-internal.h \
	lib/host/backend-host.c lib/host/backend-host-exec.c lib/host/backend-host-pool.c \
	lib/devices/devices.h lib/devices/devices.c \
	lib/devices/devices-visible.h lib/devices/devices-internal.h lib/devices/devices-visible.c \
	lib/runtime.h lib/runtime.c \
	lib/kernel/kernel.h lib/kernel/kernel-internal.h lib/kernel/kernel.c lib/kernel/kernel-geometry.c \
	lib/kernel/kernel-compile.c \
	lib/kernel-module.c \
	lib/kernel-catalogue.h lib/kernel-catalogue.c lib/kernel-op.c \
	lib/precompile/top-precompile.h lib/precompile/precompile-internal.h \
	lib/precompile/top-precompile.c \
	lib/precompile/top-precompile-targets.c lib/precompile/top-precompile-stamp.c \
	lib/precompile/top-precompile-dest.c lib/precompile/top-precompile-prune.c \
	lib/precompile/top-precompile-source.c
# The host execution header for caller source, generated from kernels/.
nodist_lib_libhanzo_rocm_internal_la_SOURCES = kernels/source-prelude.c
CLEANFILES += kernels/source-prelude.c
EXTRA_DIST += kernels/gen-source-prelude.sh
kernels/source-prelude.c: $(HR_KERNEL_INCLUDES) $(srcdir)/kernels/gen-source-prelude.sh
	$(AM_V_GEN)$(MKDIR_P) kernels && $(SHELL) $(srcdir)/kernels/gen-source-prelude.sh $(srcdir)/kernels >$@.tmp && mv $@.tmp $@
lib_libhanzo_rocm_internal_la_CFLAGS = $(AM_CFLAGS) $(INIH_CFLAGS) $(NETTLE_CFLAGS)
lib_libhanzo_rocm_internal_la_LIBADD = $(INIH_LIBS) $(NETTLE_LIBS)
if ENABLE_SANITIZERS
# A sanitized library builds sanitized host code objects (lib/host/backend-host.c).
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
