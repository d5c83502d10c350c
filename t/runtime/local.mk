# t/runtime/local.mk: the runtime (lib/backend/cuda.c, lib/backend/hip.c, lib/runtime/runtime.c, lib/kernel/kernel.c).
check_PROGRAMS += t/runtime/test-runtime
t_runtime_test_runtime_LDADD = lib/libhanzo-rocm-internal.la
TESTS += t/runtime/test-runtime

# Stand-in libcuda.so.1 (full, and lacking cuLaunchKernel) for CI without a GPU.
check_LTLIBRARIES += t/fakecuda/libcuda.la t/fakecuda-partial/libcuda.la
t_fakecuda_libcuda_la_SOURCES = t/fakecuda/fake-cuda.c
t_fakecuda_libcuda_la_LDFLAGS = -shared -version-info 1:0:0 -rpath /nowhere
t_fakecuda_partial_libcuda_la_SOURCES = t/fakecuda/fake-cuda.c
t_fakecuda_partial_libcuda_la_CPPFLAGS = $(AM_CPPFLAGS) -DHR_FAKE_PARTIAL
t_fakecuda_partial_libcuda_la_LDFLAGS = -shared -version-info 1:0:0 -rpath /nowhere
check_PROGRAMS += t/runtime/test-driver
t_runtime_test_driver_SOURCES = t/runtime/test-driver.c t/fake-cuda-test.h t/log-capture.h
t_runtime_test_driver_LDADD = lib/libhanzo-rocm-internal.la
EXTRA_DIST += t/runtime/driver.sh
TESTS += t/runtime/driver.sh

# GPU tests: skipped (1..0 # SKIP no GPU) without one; `make check-gpu` runs only these.
check_PROGRAMS += t/runtime/test-gpu-cuda t/runtime/test-gpu-launch
t_runtime_test_gpu_cuda_SOURCES = t/runtime/test-gpu-cuda.c t/gpu-test.h
t_runtime_test_gpu_launch_SOURCES = t/runtime/test-gpu-launch.c t/gpu-test.h
t_runtime_test_gpu_launch_LDADD = lib/libhanzo-rocm-internal.la -lm
t_runtime_test_gpu_cuda_LDADD = lib/libhanzo-rocm-internal.la
TESTS += t/runtime/test-gpu-cuda t/runtime/test-gpu-launch
GPU_TESTS += t/runtime/test-gpu-cuda t/runtime/test-gpu-launch

# The C example, using only <hanzo-rocm.h> and the public library.
check_PROGRAMS += examples/vector-add examples/attention-decode examples/rows
examples_vector_add_LDADD = lib/libhanzo-rocm.la -lm
examples_attention_decode_LDADD = lib/libhanzo-rocm.la -lm
examples_rows_LDADD = lib/libhanzo-rocm.la -lm

# GPU runtime benchmark (built with everything so it never rots; run by hand
# on the GPU machine, see doc/BENCHMARKS.md).
noinst_PROGRAMS += bench/gpu-runtime
bench_gpu_runtime_LDADD = lib/libhanzo-rocm-internal.la
EXTRA_DIST += bench/gpu-torch.py
