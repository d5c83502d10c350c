# precompile: the CLI end to end with a fixture plugin, real hipcc behind a
# logging wrapper (to count compiler spawns), and a helper that checks entries.
check_LTLIBRARIES += t/fixtures/precompile/pctest.la
t_fixtures_precompile_pctest_la_SOURCES = t/fixtures/precompile/pctest.c
t_fixtures_precompile_pctest_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere

check_PROGRAMS += t/precompile/pc-helper
t_precompile_pc_helper_LDADD = lib/libhanzo-rocm-internal.la

EXTRA_DIST += t/precompile/setup.sh
EXTRA_DIST += t/precompile/basic.sh t/precompile/robust.sh t/precompile/toolchain.sh
TESTS += t/precompile/basic.sh t/precompile/robust.sh t/precompile/toolchain.sh

# SIGTERM/SIGINT to precompile kill the compiler's process group and its temp dir.
EXTRA_DIST += t/precompile/interrupt.sh
TESTS += t/precompile/interrupt.sh

# A read-only user cache: up to date is success, a needed build a clear failure.
EXTRA_DIST += t/precompile/readonly.sh
TESTS += t/precompile/readonly.sh

# kill -9 of precompile or of an application compiling on a miss: its
# compilers' process groups die too, and cache gc removes their temp dirs.
EXTRA_DIST += t/precompile/kill9.sh
TESTS += t/precompile/kill9.sh

# "Already provided" by a read-only tier only where lookups would use it.
EXTRA_DIST += t/precompile/provided.sh
TESTS += t/precompile/provided.sh

# Fault injection: a compiler that hangs, crashes or writes garbage (cheap:
# in make check); the heavy runs (ENOSPC, read-only and vanished cache, 50
# random kill -9, 64 processes on a cold cache) are `make check-faults`.
EXTRA_DIST += t/precompile/faults-setup.sh t/precompile/faults.sh t/precompile/fault-runs.sh
TESTS += t/precompile/faults.sh
check-faults: all
	$(MAKE) $(AM_MAKEFLAGS) check TESTS=t/precompile/fault-runs.sh
.PHONY: check-faults
