# TAP tests.  C tests link the internal library; shell tests drive the CLI.
EXTRA_DIST += t/tap.sh t/tap.h
DISTCLEANFILES += t/test-env.sh
EXTRA_DIST += t/test-env.sh.in

check_PROGRAMS += t/shared/test-util
t_shared_test_util_LDADD = lib/libhanzo-rocm-internal.la
TESTS += t/shared/test-util

# The one name grammar, answered alike by cache, plugin index and source names.
check_PROGRAMS += t/shared/test-names
t_shared_test_names_LDADD = lib/libhanzo-rocm-internal.la
TESTS += t/shared/test-names

# The CLI's JSON writer (common/json.c): escaping and the nesting bound.
check_PROGRAMS += t/cli/test-json
t_cli_test_json_SOURCES = t/cli/test-json.c common/json.h common/json.c
t_cli_test_json_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/common
TESTS += t/cli/test-json

EXTRA_DIST += t/cli/basics.sh
TESTS += t/cli/basics.sh

# Usage errors, unknown targets, -q, TERM=dumb, cache list's table.
EXTRA_DIST += t/cli/usage.sh
TESTS += t/cli/usage.sh

clean-local: clean-local-t
clean-local-t:
	-rm -rf t/home
.PHONY: clean-local-t

# lib/'s include graph against the layers of lib/layers (no upward edge,
# no cycle) and no lib/ header shadowing a system one.
EXTRA_DIST += lib/layers
EXTRA_DIST += t/layout/layers.sh
TESTS += t/layout/layers.sh
# The files adding a backend or a target touches, as doc/HACKING.md lists them.
EXTRA_DIST += t/layout/platform-count.sh
TESTS += t/layout/platform-count.sh
# No family name, kernel name or kernel-name stem in lib/.
EXTRA_DIST += t/layout/family-names.sh
TESTS += t/layout/family-names.sh
# The files adding a family, a target or a config key touches, as doc/HACKING.md counts them.
EXTRA_DIST += t/layout/costs.sh
TESTS += t/layout/costs.sh
# No reference outside the repository; doc/DESIGN.md and doc/KERNELS.md exist.
EXTRA_DIST += t/layout/doc-refs.sh
TESTS += t/layout/doc-refs.sh
# The call graph between lib/ files, from the objects' symbol tables (nm).
EXTRA_DIST += t/layout/calls.sh
TESTS += t/layout/calls.sh

# The README's blocks run as written (t/readme.sh): the uninstalled
# environment here; "From source" (a second build and install into a
# scratch prefix) in `make check-readme`, which tools/test.sh runs.
EXTRA_DIST += t/readme.sh
TESTS += t/readme.sh
check-readme: all
	$(AM_V_GEN). $(abs_top_builddir)/t/test-env.sh && sh $(abs_top_srcdir)/t/readme.sh from-source
.PHONY: check-readme

# Every test sources t/test-env.sh (AM_TESTS_ENVIRONMENT): regenerated from
# t/test-env.sh.in before any runs, not only by the next configure.
$(TEST_LOGS): t/test-env.sh
