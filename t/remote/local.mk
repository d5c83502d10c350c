# t/remote/local.mk: the remote cache tier (lib/remote/): keys and the signed
# manifest (t/remote/test-manifest.c), `hanzo-rocm cache keygen`
# (t/remote/keygen.sh).
check_PROGRAMS += t/remote/test-manifest
t_remote_test_manifest_LDADD = lib/libhanzo-rocm-internal.la
t_remote_test_manifest_CFLAGS = $(AM_CFLAGS) $(NETTLE_CFLAGS)
TESTS += t/remote/test-manifest

EXTRA_DIST += t/remote/keygen.sh
TESTS += t/remote/keygen.sh

# The HTTP module against a real nginx (skipped without nginx or libcurl).
check_PROGRAMS += t/remote/http-client
t_remote_http_client_LDADD = lib/libhanzo-rocm-internal.la
EXTRA_DIST += t/remote/http.sh
TESTS += t/remote/http.sh

# The breaker and the budget, on a fake clock.
check_PROGRAMS += t/remote/test-guard
t_remote_test_guard_LDADD = lib/libhanzo-rocm-internal.la
TESTS += t/remote/test-guard

# End to end against nginx: push, a reading node loads without compiling,
# tampered/unsigned/untrusted/replayed/wrong-target entries refused.
EXTRA_DIST += t/remote/nginx.sh t/remote/tier.sh
TESTS += t/remote/tier.sh

# [remote] configuration: config check.
EXTRA_DIST += t/remote/config.sh
TESTS += t/remote/config.sh

# A single compile across nodes: Redis leases against nginx + redis-server.
EXTRA_DIST += t/remote/lease.sh
TESTS += t/remote/lease.sh

# Cache statistics: hanzo_rocm_cache_stat, cache stats, info's remote tier.
check_PROGRAMS += t/remote/stats-dump
t_remote_stats_dump_LDADD = lib/libhanzo-rocm.la
EXTRA_DIST += t/remote/stats.sh
TESTS += t/remote/stats.sh

# A builder's precompile --remote and cache verify --remote against nginx.
EXTRA_DIST += t/remote/builder.sh
TESTS += t/remote/builder.sh

# [remote] auth_file (nginx auth_basic), the TLS files (nginx ssl with a
# client certificate) and the environment overrides.
EXTRA_DIST += t/remote/auth.sh
TESTS += t/remote/auth.sh

# Two urls, the first hung: each url has its own breaker.
EXTRA_DIST += t/remote/mirrors.sh
TESTS += t/remote/mirrors.sh
