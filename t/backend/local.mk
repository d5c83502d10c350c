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

# The full selftest of every family on both host targets (wave 64 and 32).
EXTRA_DIST += t/backend/host-selftest.sh
TESTS += t/backend/host-selftest.sh

# The suite's host cache: every family precompiled for host-w64 by this
# build's CLI, once per build of the plugins, for tests that run kernels on
# the host without compiling them (a site tier: [cache] site_dirs =
# $HR_HOST_CACHE).  The key hashes the embedded source, not the plugin's
# path, so an installed copy of a plugin finds these entries as well.  The
# CLI is order-only: a library change does not recompile every family (a
# change of the key's format shows as a test that compiled something).
t/host-cache.stamp: $(plugins_LTLIBRARIES) | tools/hanzo-rocm$(EXEEXT)
	$(AM_V_GEN)rm -rf t/host-cache && $(MKDIR_P) t/host-cache && \
	printf '[cache]\nuser_dir = %s/t/host-cache.user\n' "$(abs_top_builddir)" >t/host-cache.conf && \
	HANZO_ROCM_CONF=t/host-cache.conf HANZO_ROCM_PLUGIN_PATH=$(abs_top_builddir)/plugins/.libs \
		tools/hanzo-rocm$(EXEEXT) precompile --output t/host-cache --target host-w64 \
		--progress never >t/host-cache.log 2>&1 || { cat t/host-cache.log; exit 1; }; \
	touch $@
HR_HOST_CACHE_TESTS = t/contract/installed.log
$(HR_HOST_CACHE_TESTS): t/host-cache.stamp
CLEANFILES += t/host-cache.stamp t/host-cache.conf t/host-cache.log
clean-local: clean-host-cache
clean-host-cache:
	-rm -rf t/host-cache t/host-cache.user
.PHONY: clean-host-cache
