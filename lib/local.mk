# libhanzo-rocm: a convenience library holding every object (the CLI and the
# unit tests link it, as kmod's tools do), wrapped into the versioned
# shared library with a linker script so only the public API is exported.
noinst_LTLIBRARIES += lib/libhanzo-rocm-internal.la
lib_LTLIBRARIES += lib/libhanzo-rocm.la
include_HEADERS += lib/hanzo-rocm.h lib/hanzo-rocm-plugin.h

lib_libhanzo_rocm_internal_la_SOURCES = \
	lib/libhanzo-rocm-private.h lib/context.c lib/libhanzo-rocm.c \
	lib/hanzo-rocm-tools.h \
	lib/util.h lib/util.c \
	lib/conf.h lib/config-private.h lib/config.c lib/config-keys.c \
	lib/target.h lib/target.c lib/target-known.c \
	lib/devices.h lib/devices.c \
	lib/hr-spawn.h lib/spawn.c \
	lib/toolchain.h lib/toolchain.c lib/toolchain-compile.c \
	lib/hr-elf.h lib/elf.c \
	lib/cache.h lib/cache.c lib/cache-lock.c lib/cache-gc.c \
	lib/cache-memory.c lib/cache-tiers.c \
	lib/code-object.h lib/code-object.c \
	lib/precompile.h lib/precompile.c lib/precompile-targets.c \
	lib/precompile-stamp.c lib/precompile-dest.c \
	lib/plugin.h lib/plugin-private.h lib/plugin.c lib/plugin-index.c \
	lib/plugin-index-write.c \
	lib/hr-cuda.h lib/cuda.c \
	lib/hr-hip.h lib/hip.c \
	lib/backend-ops.h lib/backend.h lib/backend.c \
	lib/runtime.h lib/runtime.c \
	lib/launch-meta.h lib/launch-meta.c lib/launch.h lib/launch.c lib/layout.c \
	lib/host-target.h lib/host-target.c \
	lib/host.h lib/host-backend.c lib/host-exec.c
lib_libhanzo_rocm_internal_la_CFLAGS = $(AM_CFLAGS) $(INIH_CFLAGS) $(NETTLE_CFLAGS)
lib_libhanzo_rocm_internal_la_LIBADD = $(INIH_LIBS) $(NETTLE_LIBS)
if ENABLE_SANITIZERS
# A sanitized library builds sanitized host code objects (lib/host-backend.c).
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
