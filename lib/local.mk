# libhanzo-rocm: a convenience library holding every object (the CLI and the
# unit tests link it, as kmod's tools do), wrapped into the versioned
# shared library with a linker script so only the public API is exported.
noinst_LTLIBRARIES += lib/libhanzo-rocm-internal.la
lib_LTLIBRARIES += lib/libhanzo-rocm.la
include_HEADERS += lib/hanzo-rocm.h lib/hanzo-rocm-plugin.h

# Each object is a folder of lib/ (lib/layers); the headers are
# listed with the sources so that `make dist` ships them.
lib_libhanzo_rocm_internal_la_SOURCES = \
	lib/context.h lib/context.c lib/top-new.c lib/context-layout.c \
	lib/hanzo-rocm-tools.h \
	lib/shared/util.h lib/shared/util.c lib/shared/targets.h lib/shared/targets.c \
	lib/shared/spawn.h lib/shared/spawn.c \
	lib/shared/elf.h lib/shared/elf.c \
	lib/shared/trust.h lib/shared/trust.c \
	lib/shared/name.h lib/shared/name.c \
	lib/shared/launch-meta.h lib/shared/launch-meta.c \
	lib/shared/catalogue-meta.h lib/shared/catalogue-meta.c \
	lib/platform/platform.h lib/platform/platform.c \
	lib/platform/amd.c lib/platform/nvidia.c \
	lib/platform/host.c \
	lib/target/target.h lib/target/target.c lib/target/known.c \
	lib/config/config.h lib/config/config-internal.h lib/config/config.c \
	lib/config/keys.c lib/config/show.c \
	lib/toolchain/toolchain.h lib/toolchain/toolchain.c lib/toolchain/compile.c \
	lib/source/source.h lib/source/source.c lib/source/hiprtc.c \
	lib/plugin/plugin.h lib/plugin/plugin-internal.h \
	lib/plugin/plugin.c lib/plugin/check.c \
	lib/plugin/index.c lib/plugin/index-write.c \
	lib/cache/cache.h lib/cache/cache-internal.h lib/cache/cache.c lib/cache/entry.c \
	lib/cache/publish.c lib/cache/lock.c lib/cache/gc.c \
	lib/source/key.h lib/source/key.c \
	lib/backend/ops.h lib/backend/backend.h lib/backend/backend.c \
	lib/backend/cuda.h lib/backend/cuda.c \
	lib/backend/hip.h lib/backend/hip.c lib/backend/hip-kfd.c \
	lib/backend/host/host.h lib/backend/host/host-internal.h \
	lib/backend/host/host.c lib/backend/host/exec.c lib/backend/host/pool.c \
	lib/devices/devices.h lib/devices/devices.c \
	lib/devices/visible.h lib/devices/devices-internal.h lib/devices/visible.c \
	lib/runtime/runtime.h lib/runtime/runtime.c \
	lib/kernel/kernel.h lib/kernel/kernel-internal.h lib/kernel/kernel.c lib/kernel/geometry.c \
	lib/kernel/compile.c \
	lib/source/module.c \
	lib/kernel/catalogue.h lib/kernel/catalogue.c lib/kernel/op.c \
	lib/precompile/precompile.h lib/precompile/precompile-internal.h \
	lib/precompile/precompile.c \
	lib/precompile/targets.c lib/precompile/stamp.c \
	lib/precompile/dest.c lib/precompile/prune.c \
	lib/precompile/source.c
# The host execution header for caller source, generated from kernels/.
nodist_lib_libhanzo_rocm_internal_la_SOURCES = kernels/source-prelude.c
CLEANFILES += kernels/source-prelude.c
EXTRA_DIST += kernels/gen-source-prelude.sh
kernels/source-prelude.c: $(HR_KERNEL_INCLUDES) $(srcdir)/kernels/gen-source-prelude.sh
	$(AM_V_GEN)$(MKDIR_P) kernels && $(SHELL) $(srcdir)/kernels/gen-source-prelude.sh $(srcdir)/kernels >$@.tmp && mv $@.tmp $@
lib_libhanzo_rocm_internal_la_CFLAGS = $(AM_CFLAGS) $(INIH_CFLAGS) $(NETTLE_CFLAGS)
lib_libhanzo_rocm_internal_la_LIBADD = $(INIH_LIBS) $(NETTLE_LIBS)
if ENABLE_SANITIZERS
# A sanitized library builds sanitized host code objects (lib/backend/host/host.c).
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
