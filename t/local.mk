# TAP tests.  C tests link the internal library; shell tests drive the CLI.
EXTRA_DIST += t/tap.sh t/tap.h
DISTCLEANFILES += t/test-env.sh
EXTRA_DIST += t/test-env.sh.in

check_PROGRAMS += t/test-util
t_test_util_LDADD = lib/libhanzo-rocm-internal.la
TESTS += t/test-util

dist_check_SCRIPTS += t/cli-basics.sh
TESTS += t/cli-basics.sh

clean-local: clean-local-t
clean-local-t:
	-rm -rf t/home
.PHONY: clean-local-t
