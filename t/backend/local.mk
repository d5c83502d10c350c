# t/backend/local.mk: the host backend (lib/backend/host/*.c, kernels/hr-host.h): kernels run
# on the CPU, so `make check` proves results, not just compiles.

# Fixture family: bug kernels next to their correct twins.  Built like the
# real plugins; the header is copied next to the source because hr-embed
# only inlines includes found beside their includer.
check_LTLIBRARIES += t/fixtures/host/hostcheck.la
nodist_t_fixtures_host_hostcheck_la_SOURCES = t/fixtures/host/hostcheck.c
t_fixtures_host_hostcheck_la_LDFLAGS = $(HR_PLUGIN_LDFLAGS) -rpath /nowhere
t/fixtures/host/hostcheck.c: $(top_srcdir)/t/fixtures/host/hostcheck.hip \
		$(top_srcdir)/t/fixtures/host/hostcheck.list $(HR_EMBED_DEPS)
	$(AM_V_GEN)$(MKDIR_P) t/fixtures/host/src && \
	cp $(top_srcdir)/kernels/hr-kernel.h $(top_srcdir)/kernels/hr-host.h \
		$(top_srcdir)/kernels/hr-host-abi.h $(top_srcdir)/kernels/hr-target-facts.h \
		$(top_srcdir)/kernels/hr-matrix.h \
		$(top_srcdir)/t/fixtures/host/hostcheck.hip t/fixtures/host/src/ && \
	plugins/hanzo-rocm-embed$(EXEEXT) -o $@ hostcheck t/fixtures/host/src/hostcheck.hip \
		$(top_srcdir)/t/fixtures/host/hostcheck.list
EXTRA_DIST += t/fixtures/host/hostcheck.hip t/fixtures/host/hostcheck.list
CLEANFILES += t/fixtures/host/hostcheck.c
clean-local: clean-host-fixture
clean-host-fixture:
	-rm -rf t/fixtures/host/src
.PHONY: clean-host-fixture

check_PROGRAMS += t/backend/test-host
t_backend_test_host_LDADD = lib/libhanzo-rocm-internal.la -lm
t_backend_test_host_CPPFLAGS = $(AM_CPPFLAGS)
if ENABLE_SANITIZERS
t_backend_test_host_CPPFLAGS += -DHR_TEST_SANITIZED=1
endif
TESTS += t/backend/test-host

# The suite's host cache: every family compiled once for both host targets
# (precompile --output, a compile a CPU), a read-only site tier for the
# tests that run stock kernels (HR_HOST_CACHE in t/test-env.sh; t/host-test.h).
# Each of them compiled its own copy before: in the sanitized tree a family's
# compile costs 10-50 s of CPU, and the suite's run used to compile the big
# ones five times.  Tests of compiling, of the user tier and of cache files
# keep their own empty tiers.  A pair that fails to compile here is left out
# (the failure is printed) and the test that needs it compiles it and fails
# with its own diagnostics.
# It is check_DATA: automake's `make check` makes it with the test programs,
# before the first test starts, so the tests that read it (host-selftest.sh,
# test-op, test-launch, test-quantized, launch-example.sh, ops-example.sh,
# pytest.sh, installed.sh) need no rule naming it.  As their prerequisite,
# make -j started it, and those tests, only once every test without one had
# run: the host selftest was then the last 6 minutes of the sanitized run.
check_DATA += t/host-cache.stamp
t/host-cache.stamp: $(plugins_LTLIBRARIES) lib/libhanzo-rocm.la tools/hanzo-rocm$(EXEEXT)
	$(AM_V_GEN)rm -rf t/host-cache t/host-cache.tmp && $(MKDIR_P) t/host-cache.tmp && \
	printf '[cache]\nuser_dir = %s/u\nsystem_dir = %s/s\n' \
		"$$PWD/t/host-cache.tmp" "$$PWD/t/host-cache.tmp" >t/host-cache.tmp/hanzo-rocm.conf && \
	HOME="$$PWD/t/host-cache.tmp" HANZO_ROCM_CONF="$$PWD/t/host-cache.tmp/hanzo-rocm.conf" \
	HANZO_ROCM_PLUGIN_PATH="$$PWD/plugins/.libs" \
		tools/hanzo-rocm -q precompile --output "$$PWD/t/host-cache" \
		--target host-w64 --target host-w32 -j 0 --progress never || \
		echo "t/host-cache: precompile failed (above); the tests compile what is missing" >&2; \
	rm -rf t/host-cache.tmp && touch $@
clean-local: clean-host-cache
clean-host-cache:
	-rm -rf t/host-cache t/host-cache.tmp t/host-cache.stamp
.PHONY: clean-host-cache

# The full selftest of every family on both host targets (wave 64 and 32).
EXTRA_DIST += t/backend/host-selftest.sh
HR_FIRST_TESTS += t/backend/host-selftest.sh

