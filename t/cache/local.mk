# t/cache/local.mk: the code-object cache (lib/shared/elf.c, lib/cache/entry.c, lib/cache/cache.c,
# hanzo-rocm cache, info's cache section).  Real code objects come from
# t/cache/fixtures.sh, built once per tree into t/cache-fixtures/.
EXTRA_DIST += t/fixtures/cache/kernels.cu
EXTRA_DIST += t/cache/fixtures.sh

check_PROGRAMS += t/cache/test-elf
t_cache_test_elf_SOURCES = t/cache/test-elf.c t/cache/elf-fixture.h
t_cache_test_elf_LDADD = lib/libhanzo-rocm-internal.la
TESTS += t/cache/test-elf

clean-local: clean-local-cache
clean-local-cache:
	-rm -rf t/cache-fixtures
.PHONY: clean-local-cache

check_PROGRAMS += t/cache/test-cache
t_cache_test_cache_LDADD = lib/libhanzo-rocm-internal.la
TESTS += t/cache/test-cache

check_PROGRAMS += t/cache/mkentry
t_cache_mkentry_LDADD = lib/libhanzo-rocm-internal.la
EXTRA_DIST += t/cache/cli.sh
TESTS += t/cache/cli.sh

# Needs the fixture plugin t/fixtures/plugins/alpha.la (t/plugin/local.mk).
check_PROGRAMS += t/cache/test-code-object
t_cache_test_code_object_SOURCES = t/cache/test-code-object.c t/cache/elf-fixture.h
t_cache_test_code_object_LDADD = lib/libhanzo-rocm-internal.la
TESTS += t/cache/test-code-object

# A full disk under the user tier: one warning, bytes still returned.
check_PROGRAMS += t/cache/test-full
t_cache_test_full_LDADD = lib/libhanzo-rocm-internal.la
EXTRA_DIST += t/cache/full.sh
TESTS += t/cache/full.sh

# Root-level temp files of interrupted atomic writes: gc and clear remove them.
EXTRA_DIST += t/cache/debris.sh
TESTS += t/cache/debris.sh

# A symlinked target directory: refused by lookups and writes, reported by
# verify, removed (the link only) by --repair and clear.
EXTRA_DIST += t/cache/symlink-target.sh
TESTS += t/cache/symlink-target.sh

# Check-then-swap of a tier's target directory, by an LD_PRELOAD interposer
# (a separate object, as kmod's testsuite does): served = checked.
check_LTLIBRARIES += t/cache/swap-preload.la
t_cache_swap_preload_la_SOURCES = t/cache/swap-preload.c t/open-interpose.h
t_cache_swap_preload_la_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version -shared -rpath /nowhere
t_cache_swap_preload_la_LIBADD = -ldl
EXTRA_DIST += t/cache/swap.sh
TESTS += t/cache/swap.sh
