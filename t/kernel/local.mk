# t/kernel/local.mk: the launch API (lib/kernel/geometry.c, lib/shared/launch-meta.c, lib/context-layout.c): the #@launch
# grammar, every list's coverage, the geometry on made-up devices, the
# layout helpers, and launches by work on the host backend.
check_PROGRAMS += t/kernel/test-launch
t_kernel_test_launch_SOURCES = t/kernel/test-launch.c t/host-test.h t/log-capture.h
t_kernel_test_launch_LDADD = lib/libhanzo-rocm-internal.la -lm
TESTS += t/kernel/test-launch

# The operation calls beyond the norms: attention's split-K decode, the
# named values and their checks, geometry_ex's workspace, the split floor.
check_PROGRAMS += t/kernel/test-op
t_kernel_test_op_SOURCES = t/kernel/test-op.c t/host-test.h t/log-capture.h
t_kernel_test_op_LDADD = lib/libhanzo-rocm-internal.la -lm
TESTS += t/kernel/test-op


# examples/vector-add on the host backend: the public API end to end.
EXTRA_DIST += t/kernel/launch-example.sh
TESTS += t/kernel/launch-example.sh

# examples/rows on both host targets: the operation calls (form and
# workspace chosen by the library) against float64.
EXTRA_DIST += t/kernel/ops-example.sh
TESTS += t/kernel/ops-example.sh

# Fixture family for the op call (t/kernel/test-op.c): argument names no stock
# family has, bound by its own #@bind lines only.
check_LTLIBRARIES += t/fixtures/opfam/opfam.la
nodist_t_fixtures_opfam_opfam_la_SOURCES = t/fixtures/opfam/opfam.c
t_fixtures_opfam_opfam_la_LDFLAGS = $(HR_PLUGIN_LDFLAGS) -rpath /nowhere
t/fixtures/opfam/opfam.c: $(top_srcdir)/t/fixtures/opfam/opfam.hip \
		$(top_srcdir)/t/fixtures/opfam/opfam.list $(HR_EMBED_DEPS)
	$(AM_V_GEN)$(MKDIR_P) t/fixtures/opfam/src && \
	cp $(top_srcdir)/kernels/hr-kernel.h $(top_srcdir)/kernels/hr-host.h \
		$(top_srcdir)/kernels/hr-host-abi.h $(top_srcdir)/kernels/hr-target-facts.h \
		$(top_srcdir)/kernels/hr-matrix.h \
		$(top_srcdir)/t/fixtures/opfam/opfam.hip t/fixtures/opfam/src/ && \
	plugins/hanzo-rocm-embed$(EXEEXT) -o $@ opfam t/fixtures/opfam/src/opfam.hip \
		$(top_srcdir)/t/fixtures/opfam/opfam.list
EXTRA_DIST += t/fixtures/opfam/opfam.hip t/fixtures/opfam/opfam.list
CLEANFILES += t/fixtures/opfam/opfam.c
clean-local: clean-opfam-fixture
clean-opfam-fixture:
	-rm -rf t/fixtures/opfam/src
.PHONY: clean-opfam-fixture
