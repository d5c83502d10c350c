# t/multi.mk: several devices in one process (doc/DESIGN.md §9) - the visible-devices
# variables on fake KFD trees, per-device state on the fake CUDA driver
# (t/runtime-driver.sh), and `make check-gpu` tests needing two GPUs.
check_PROGRAMS += t/test-visible
t_test_visible_LDADD = lib/libhanzo-rocm-internal.la
TESTS += t/test-visible
EXTRA_DIST += t/multi-cli.sh
TESTS += t/multi-cli.sh
check_PROGRAMS += t/test-multi-driver
t_test_multi_driver_SOURCES = t/test-multi-driver.c t/fake-cuda-test.h t/log-capture.h
t_test_multi_driver_LDADD = lib/libhanzo-rocm-internal.la
EXTRA_DIST += t/multi-driver.sh
TESTS += t/multi-driver.sh

# Two GPUs of one platform (skipped with fewer): `make check-gpu`.
check_PROGRAMS += t/test-gpu-multi
t_test_gpu_multi_SOURCES = t/test-gpu-multi.c t/gpu-test.h
t_test_gpu_multi_LDADD = lib/libhanzo-rocm-internal.la
TESTS += t/test-gpu-multi
GPU_TESTS += t/test-gpu-multi
