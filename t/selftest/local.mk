# t/selftest/local.mk: `hanzo-rocm selftest` (tools/cmd-selftest.c,
# common/selftest-*.c)
# and the GPU benchmarks against PyTorch (bench/gpu-*, `make bench-gpu`).

# Host side of the selftest (conversions, references, planning every kernel
# of every family list) and the CLI without a GPU.
check_PROGRAMS += t/selftest/test-selftest
t_selftest_test_selftest_SOURCES = t/selftest/test-selftest.c $(HR_SELFTEST_COMMON)
t_selftest_test_selftest_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/common \
	-DHR_KERNELS_DIR=\""$(top_srcdir)/kernels"\" \
	-DHR_FAMILIES_LIST=\""$(top_srcdir)/plugins/families"\"
t_selftest_test_selftest_LDADD = lib/libhanzo-rocm-internal.la -lm
TESTS += t/selftest/test-selftest
EXTRA_DIST += t/selftest/cli.sh
TESTS += t/selftest/cli.sh

# On a GPU: the whole selftest, every kernel of every family (skips without one).
EXTRA_DIST += t/selftest/gpu.sh
TESTS += t/selftest/gpu.sh
GPU_TESTS += t/selftest/gpu.sh

# GPU benchmarks (bench/gpu-bench.sh: selftest, side by side with PyTorch,
# first-kernel cost); built with everything so they never rot, run by hand on
# the GPU machine: `make bench-gpu` (results to bench-gpu-out/, recorded in
# doc/BENCHMARKS.md with device and date).
noinst_PROGRAMS += bench/gpu-coldstart
bench_gpu_coldstart_LDADD = lib/libhanzo-rocm-internal.la -ldl
EXTRA_DIST += bench/gpu-vs-torch.py bench/gpu-timed.py bench/gpu-bench.sh

bench-gpu: all
	$(SHELL) $(top_srcdir)/bench/gpu-bench.sh $(abs_top_builddir) bench-gpu-out
.PHONY: bench-gpu
