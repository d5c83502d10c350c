# t/devices/local.mk: several devices in one process (doc/DESIGN.md §9) - the visible-devices
# variables on fake KFD trees, per-device state on the fake CUDA driver
# (t/runtime/driver.sh), and `make check-gpu` tests needing two GPUs.
check_PROGRAMS += t/devices/test-visible
t_devices_test_visible_LDADD = lib/libhanzo-rocm-internal.la
TESTS += t/devices/test-visible
EXTRA_DIST += t/devices/multi-cli.sh
TESTS += t/devices/multi-cli.sh
check_PROGRAMS += t/devices/test-multi-driver
t_devices_test_multi_driver_SOURCES = t/devices/test-multi-driver.c t/fake-cuda-test.h t/log-capture.h
t_devices_test_multi_driver_LDADD = lib/libhanzo-rocm-internal.la
EXTRA_DIST += t/devices/multi-driver.sh
TESTS += t/devices/multi-driver.sh

# Two GPUs of one platform (skipped with fewer): `make check-gpu`.
check_PROGRAMS += t/devices/test-gpu-multi
t_devices_test_gpu_multi_SOURCES = t/devices/test-gpu-multi.c t/gpu-test.h
t_devices_test_gpu_multi_LDADD = lib/libhanzo-rocm-internal.la
TESTS += t/devices/test-gpu-multi
GPU_TESTS += t/devices/test-gpu-multi
