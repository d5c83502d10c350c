# t/target.mk: targets (IDs, KFD detection, precedence), spawn, toolchains.
check_PROGRAMS += t/test-target t/test-toolchain
t_test_target_LDADD = lib/libhanzo-rocm-internal.la
t_test_toolchain_LDADD = lib/libhanzo-rocm-internal.la
# It re-runs itself under this interposer (a separate object, as kmod's
# testsuite/path.c): no test program redefines a libc function.
t_test_toolchain_CPPFLAGS = $(AM_CPPFLAGS) -DHR_TEST_LIBS=\""$(abs_top_builddir)/t/.libs"\"
check_LTLIBRARIES += t/open-trap.la
t_open_trap_la_SOURCES = t/open-trap.c t/open-interpose.h
t_open_trap_la_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version -shared -rpath /nowhere
t_open_trap_la_LIBADD = -ldl
TESTS += t/test-target t/test-toolchain

EXTRA_DIST += t/target-cli.sh
TESTS += t/target-cli.sh

# Fake sysfs trees (two GPUs + CPU node, feature variants, garbage nodes).
EXTRA_DIST += t/fixtures/kfd
