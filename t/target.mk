# t/target.mk: targets (IDs, KFD detection, precedence), spawn, toolchains.
check_PROGRAMS += t/test-target t/test-toolchain
t_test_target_LDADD = lib/libhanzo-rocm-internal.la
t_test_toolchain_LDADD = lib/libhanzo-rocm-internal.la
TESTS += t/test-target t/test-toolchain

EXTRA_DIST += t/target-cli.sh
TESTS += t/target-cli.sh

# Fake sysfs trees (two GPUs + CPU node, feature variants, garbage nodes).
EXTRA_DIST += t/fixtures/kfd
