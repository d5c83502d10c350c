# t/target/local.mk: targets (IDs, KFD detection, precedence), spawn, toolchains.
check_PROGRAMS += t/target/test-target t/target/test-toolchain
t_target_test_target_LDADD = lib/libhanzo-rocm-internal.la
t_target_test_toolchain_LDADD = lib/libhanzo-rocm-internal.la
# It re-runs itself under this interposer (a separate object, as kmod's
# testsuite/path.c): no test program redefines a libc function.
t_target_test_toolchain_CPPFLAGS = $(AM_CPPFLAGS) -DHR_TEST_LIBS=\""$(abs_top_builddir)/t/target/.libs"\"
check_LTLIBRARIES += t/target/open-trap.la
t_target_open_trap_la_SOURCES = t/target/open-trap.c t/open-interpose.h
t_target_open_trap_la_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version -shared -rpath /nowhere
t_target_open_trap_la_LIBADD = -ldl
TESTS += t/target/test-target t/target/test-toolchain

EXTRA_DIST += t/target/cli.sh
TESTS += t/target/cli.sh

# Fake sysfs trees (two GPUs + CPU node, feature variants, garbage nodes).
EXTRA_DIST += t/fixtures/kfd
