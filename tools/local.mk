# Code the CLI shares with the tests (t/ never reaches into tools/): the
# JSON writer and the selftest (conversions, references, the plan of every
# family's kernels, the driver that runs them and the row-wise families'
# helpers: their plans carry run hooks, so plan and driver link together).
# Each family's file comes from plugins/families (HR_SELFTEST_FAMILIES,
# plugins/families.mk).
HR_SELFTEST_COMMON = common/selftest.h common/selftest-families.h \
	common/selftest-dtype.c common/selftest-rows.c common/selftest-run.c \
	$(HR_SELFTEST_FAMILIES)

# The hanzo-rocm CLI links the internal convenience library, as kmod's tools do.
bin_PROGRAMS += tools/hanzo-rocm
tools_hanzo_rocm_SOURCES = \
	tools/tools.h tools/hanzo-rocm.c common/json.h common/json.c \
	tools/cmd-info.c tools/info-config.c tools/info-targets.c \
	tools/info-cache.c tools/info-plugins.c \
	tools/cmd-config.c tools/cmd-precompile.c tools/cmd-cache.c tools/cmd-cache-remote.c tools/cmd-cache-stats.c \
	tools/cmd-plugins.c tools/cmd-kernels.c tools/cmd-selftest.c \
	$(HR_SELFTEST_COMMON)
tools_hanzo_rocm_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/common
tools_hanzo_rocm_LDADD = lib/libhanzo-rocm-internal.la -lm

# ---- make lint: static analysis -------------------------------------------
# cppcheck, then clang-tidy (checks in $(top_srcdir)/.clang-tidy) over
# every .c of lib/ (its folders too: lib/cache/*.c, ...), common/*.c and
# tools/*.c with the real compile flags; any finding fails.
# LINT_JOBS clang-tidy processes run at once (the analyzer is the slow part).
CPPCHECK = cppcheck
CLANG_TIDY = clang-tidy
LINT_JOBS = 2
EXTRA_DIST += .clang-tidy

# clang-tidy counts the warnings it filtered out ("12 warnings generated.")
# even with --quiet; that line is dropped, its exit status and findings kept.
export HR_TIDY_QUIET = o=$$(mktemp) || exit 1; "$$@" 2>"$$o"; s=$$?; \
	grep -vE "^[0-9]+ warnings? (and [0-9]+ errors? )?generated\.$$" "$$o" >&2; rm -f "$$o"; exit $$s

# cppcheck (2.17 on Debian 13) is given the path macros (else unknownMacro)
# and not asked to report that it limited its branch analysis (an
# "information" that --error-exitcode counts).
lint: $(top_builddir)/config.h
	$(AM_V_GEN)cd $(top_srcdir) && $(CPPCHECK) --quiet --error-exitcode=1 \
	    --enable=warning,performance,portability --std=c11 --inline-suppr \
	    -I lib -I common -D__GNUC__ --suppress=missingIncludeSystem \
	    --suppress=normalCheckLevelMaxBranches \
	    -DHR_SYSCONFDIR='"$(sysconfdir)"' -DHR_PLUGINDIR='"$(pluginsdir)"' \
	    -DHR_PLUGINCACHEDIR='"$(plugincachedir)"' -DHR_CACHEDIR='"$(cachedir)"' lib common tools
	$(AM_V_at){ find $(top_srcdir)/lib -name '*.c' | LC_ALL=C sort; ls $(top_srcdir)/common/*.c $(top_srcdir)/tools/*.c; } | \
	    xargs -I{} -P $(LINT_JOBS) sh -c "$$HR_TIDY_QUIET" hr-tidy $(CLANG_TIDY) --quiet {} -- -std=gnu11 \
	    $(DEFS) $(DEFAULT_INCLUDES) $(AM_CPPFLAGS) -I$(top_srcdir)/common $(CPPFLAGS)
.PHONY: lint

# Regression tests for the defects clang-tidy found.
check_PROGRAMS += t/test-lint-fixes
t_test_lint_fixes_LDADD = lib/libhanzo-rocm-internal.la
TESTS += t/test-lint-fixes
