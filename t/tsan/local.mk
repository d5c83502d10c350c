# t/tsan/local.mk: one context shared by 8 threads on the host targets
# (t/tsan/test-stress, in `make check` too), and `make check-tsan`: in a tree
# configured with --enable-tsan (tools/test.sh: _build/tsan), it builds the
# library, the threaded tests and the two plugins the stress test uses -
# nothing else - and runs those tests; any ThreadSanitizer report fails
# (halt_on_error, exit code 66).  doc/RELIABILITY.md says what it covers.
# check_DATA= : check-TESTS would make the suite's host cache first (every
# plugin built and compiled for both host targets, 100 s), which none of
# these tests reads.
check_PROGRAMS += t/tsan/test-stress
t_tsan_test_stress_LDADD = lib/libhanzo-rocm-internal.la -lm
TESTS += t/tsan/test-stress

TSAN_TESTS = t/config/test-context t/config/test-log t/tsan/test-stress t/runtime/driver.sh t/devices/multi-driver.sh
TSAN_DEPS = plugins/affine.la plugins/reduce.la t/runtime/test-driver$(EXEEXT) t/devices/test-multi-driver$(EXEEXT) \
	t/fakecuda/libcuda.la t/fakecuda-partial/libcuda.la
if ENABLE_TSAN
check-tsan:
	$(MAKE) $(AM_MAKEFLAGS) $(TSAN_DEPS)
	TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 $${TSAN_OPTIONS:-}" \
		$(MAKE) $(AM_MAKEFLAGS) check-TESTS TESTS='$(TSAN_TESTS)' check_DATA=
else
check-tsan:
	@echo "check-tsan: needs a tree configured with --enable-tsan (tools/test.sh uses _build/tsan)" >&2
	@exit 2
endif
.PHONY: check-tsan
