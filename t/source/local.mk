# t/source/local.mk: the source-text API (lib/source/module.c, source/key.c,
# source/source.c, source/hiprtc.c) and precompile --source.
check_PROGRAMS += t/source/test-source
t_source_test_source_LDADD = lib/libhanzo-rocm-internal.la -lpthread
TESTS += t/source/test-source
EXTRA_DIST += t/fixtures/source/binary.hip
