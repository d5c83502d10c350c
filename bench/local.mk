# Host-side benchmarks: `make bench` (results go to doc/BENCHMARKS.md by hand,
# with the machine and date).  bench-host is built with everything else so
# the benchmark never rots; running it is explicit.
noinst_PROGRAMS += bench/bench-host
bench_bench_host_LDADD = lib/libhanzo-rocm-internal.la
# The host cost of hanzo_rocm_kernel_launch_work over the raw launch.
noinst_PROGRAMS += bench/launch-cost
bench_launch_cost_LDADD = lib/libhanzo-rocm-internal.la
EXTRA_DIST += bench/host.sh doc/BENCHMARKS.md
# The register/LDS tables of doc/BENCHMARKS.md (hipcc, nvcc; no GPU).
EXTRA_DIST += bench/kernel-resources.py

bench: all $(check_LTLIBRARIES)
	$(SHELL) $(top_srcdir)/bench/host.sh
.PHONY: bench
# hanzo_rocm_op_run against the one-pass and split forms by hand (GPU; run
# by hand on the GPU machine, results in doc/BENCHMARKS.md).
noinst_PROGRAMS += bench/op-forms
bench_op_forms_LDADD = lib/libhanzo-rocm-internal.la -lm
