# Host-side benchmarks: `make bench` (results go to doc/BENCHMARKS.md by hand,
# with the machine and date).  bench-host is built with everything else so
# the benchmark never rots; running it is explicit.
noinst_PROGRAMS += bench/bench-host
bench_bench_host_LDADD = lib/libhanzo-rocm-internal.la
# One node of the remote tier's cluster bench (bench/remote-cluster.py, run
# by hand: 64 such processes against one nginx and one redis-server).
noinst_PROGRAMS += bench/remote-node
bench_remote_node_LDADD = lib/libhanzo-rocm-internal.la
EXTRA_DIST += bench/remote-cluster.py
# The host cost of hanzo_rocm_kernel_launch_work over the raw launch.
noinst_PROGRAMS += bench/launch-cost
bench_launch_cost_LDADD = lib/libhanzo-rocm-internal.la
EXTRA_DIST += bench/host.sh doc/BENCHMARKS.md bench/bench-clock.h
# What each entry point measures; the runs the headline table supersedes.
EXTRA_DIST += bench/README doc/benchmarks-history.md
# The files a cold hanzo_rocm_kernel_get walks through (doc/HACKING.md, "Call
# walk"); run by hand on a build tree of its own: bench/coldget.sh BUILDDIR.
EXTRA_DIST += bench/coldget.sh bench/coldget-trace.c bench/coldget-walk.py
# The register/LDS tables of doc/BENCHMARKS.md (hipcc, nvcc; no GPU).
EXTRA_DIST += bench/kernel-resources.py

bench: all $(check_LTLIBRARIES)
	$(SHELL) $(top_srcdir)/bench/host.sh
.PHONY: bench
# hanzo_rocm_op_run against the one-pass and split forms by hand (GPU; run
# by hand on the GPU machine, results in doc/BENCHMARKS.md).
noinst_PROGRAMS += bench/op-forms
bench_op_forms_LDADD = lib/libhanzo-rocm-internal.la -lm
# Varlen prefill against torch SDPA (flash) on an NVIDIA GPU, checked then
# timed behind a GPU spin (run by hand on the lent machine).
EXTRA_DIST += bench/attention-prefill.py bench/gpu_spin.py
# The sampling family (sample_f32, topk_f32) against torch's sort-based
# sampler and torch.topk, checked then timed behind a GPU spin (run by hand
# on the lent machine, results in doc/BENCHMARKS.md).
EXTRA_DIST += bench/gpu-sampling.py
# The cost of the CUDA backend's -EXDEV stream check (one cuStreamGetCtx a
# launch on a caller's stream): launches a second with and without it (run
# by hand on the NVIDIA machine, results in doc/BENCHMARKS.md).
noinst_PROGRAMS += bench/launch-exdev
bench_launch_exdev_LDADD = lib/libhanzo-rocm-internal.la -ldl
# The vs-torch tables (rows, index, ops, decode, the stream check) on the lent
# NVIDIA machine: bench/gpu-rows-ops.sh BUILDDIR OUTDIR [CACHEDIR].
EXTRA_DIST += bench/gpu-ops.py bench/gpu-rows-ops.sh
# conv2d f16/bf16/f32 against torch's F.conv2d on the lent NVIDIA machine
# (by hand: python3 bench/gpu-conv.py LIBHANZO [--json OUT]).
EXTRA_DIST += bench/gpu-conv.py
