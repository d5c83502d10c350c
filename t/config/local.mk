# t/config/local.mk: configuration, `config check`, `info` config section.
check_PROGRAMS += t/config/test-config
t_config_test_config_LDADD = lib/libhanzo-rocm-internal.la
TESTS += t/config/test-config

# The key table against etc/hanzo-rocm.conf and hanzo-rocm.conf(5).
check_PROGRAMS += t/config/test-keys
t_config_test_keys_CPPFLAGS = $(AM_CPPFLAGS) -DHR_SRCDIR=\""$(top_srcdir)"\"
t_config_test_keys_LDADD = lib/libhanzo-rocm-internal.la
TESTS += t/config/test-keys

EXTRA_DIST += t/config/cli.sh
TESTS += t/config/cli.sh

# The default target list: configure.ac's, and every copy says the same.
EXTRA_DIST += t/config/default-targets.sh
TESTS += t/config/default-targets.sh

EXTRA_DIST += \
	t/fixtures/config/bad-many.conf \
	t/fixtures/config/bad-size.conf \
	t/fixtures/config/good.conf \
	t/fixtures/config/warn.conf \
	t/fixtures/config/unknown-target.conf \
	t/fixtures/config/root-a/etc/hanzo-rocm.conf \
	t/fixtures/config/root-a/etc/hanzo-rocm.conf.d/10-a.conf \
	t/fixtures/config/root-a/etc/hanzo-rocm.conf.d/20-b.conf \
	t/fixtures/config/root-a/etc/hanzo-rocm.conf.d/README \
	t/fixtures/config/root-a/etc/hanzo-rocm.conf.d/30-c.conf.disabled

# The context's log function switched while other threads log.
check_PROGRAMS += t/config/test-log
t_config_test_log_LDADD = lib/libhanzo-rocm-internal.la
TESTS += t/config/test-log

# The context's lazy module state (hr_ctx_lazy) under racing threads.
check_PROGRAMS += t/config/test-context
t_config_test_context_LDADD = lib/libhanzo-rocm-internal.la
TESTS += t/config/test-context
