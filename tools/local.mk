# The hanzo-rocm CLI links the internal convenience library, as kmod's tools do.
bin_PROGRAMS += tools/hanzo-rocm
tools_hanzo_rocm_SOURCES = \
	tools/tools.h tools/hanzo-rocm.c tools/json.c \
	tools/cmd-info.c tools/info-config.c tools/info-targets.c \
	tools/info-cache.c tools/info-plugins.c \
	tools/cmd-config.c tools/cmd-precompile.c tools/cmd-cache.c \
	tools/cmd-plugins.c tools/cmd-selftest.c \
	tools/selftest.h tools/selftest-dtype.c tools/selftest-run.c \
	tools/selftest-unary.c tools/selftest-binary.c tools/selftest-affine.c \
	tools/selftest-cast.c tools/selftest-fill.c tools/selftest-ternary.c \
	tools/selftest-rows.c tools/selftest-reduce.c tools/selftest-norm.c tools/selftest-rope.c tools/selftest-indexing.c tools/selftest-sort.c tools/selftest-quantized.c
tools_hanzo_rocm_LDADD = lib/libhanzo-rocm-internal.la -lm

# ---- make lint: static analysis -------------------------------------------
# cppcheck, then clang-tidy (checks in $(top_srcdir)/.clang-tidy) over
# lib/*.c and tools/*.c with the real compile flags; any finding fails.
# LINT_JOBS clang-tidy processes run at once (the analyzer is the slow part).
CPPCHECK = cppcheck
CLANG_TIDY = clang-tidy
LINT_JOBS = 2
EXTRA_DIST += .clang-tidy

lint: $(top_builddir)/config.h
	$(AM_V_GEN)cd $(top_srcdir) && $(CPPCHECK) --quiet --error-exitcode=1 \
	    --enable=warning,performance,portability --std=c11 --inline-suppr \
	    -I lib -D__GNUC__ --suppress=missingIncludeSystem lib tools
	$(AM_V_at)ls $(top_srcdir)/lib/*.c $(top_srcdir)/tools/*.c | \
	    xargs -I{} -P $(LINT_JOBS) $(CLANG_TIDY) --quiet {} -- -std=gnu11 \
	    $(DEFS) $(DEFAULT_INCLUDES) $(AM_CPPFLAGS) $(CPPFLAGS)
.PHONY: lint

# Regression tests for the defects clang-tidy found.
check_PROGRAMS += t/test-lint-fixes
t_test_lint_fixes_LDADD = lib/libhanzo-rocm-internal.la
TESTS += t/test-lint-fixes
