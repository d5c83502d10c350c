# The hanzo-rocm CLI links the internal convenience library, as kmod's tools do.
bin_PROGRAMS += tools/hanzo-rocm
tools_hanzo_rocm_SOURCES = \
	tools/tools.h tools/hanzo-rocm.c tools/json.c \
	tools/cmd-info.c tools/info-config.c tools/info-targets.c \
	tools/info-cache.c tools/info-plugins.c \
	tools/cmd-config.c tools/cmd-precompile.c tools/cmd-cache.c \
	tools/cmd-plugins.c tools/cmd-selftest.c \
	tools/selftest.h tools/selftest-dtype.c tools/selftest-run.c \
	tools/selftest-unary.c tools/selftest-binary.c tools/selftest-affine.c \
	tools/selftest-cast.c tools/selftest-fill.c tools/selftest-ternary.c
tools_hanzo_rocm_LDADD = lib/libhanzo-rocm-internal.la -lm
