# t/plugin/local.mk: the plugin loader (lib/plugin/plugin.c, tools/cmd-plugins.c).
#
# Fixture plugins: one tiny module per accept/reject case, built for the
# tests only (-rpath makes libtool build a shared object for a check library).
PLUGIN_FIXTURE_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version -shared -rpath /nowhere

check_LTLIBRARIES += \
	t/fixtures/plugins/alpha.la t/fixtures/plugins/beta.la \
	t/fixtures/plugins/dup.la t/fixtures/plugins/badabi.la \
	t/fixtures/plugins/badname.la t/fixtures/plugins/small.la \
	t/fixtures/plugins/nullsrc.la t/fixtures/plugins/noentry.la
EXTRA_DIST += t/fixtures/plugins/fixture.h

t_fixtures_plugins_alpha_la_SOURCES = t/fixtures/plugins/alpha.c
t_fixtures_plugins_alpha_la_LDFLAGS = $(PLUGIN_FIXTURE_LDFLAGS)
t_fixtures_plugins_beta_la_SOURCES = t/fixtures/plugins/beta.c
t_fixtures_plugins_beta_la_LDFLAGS = $(PLUGIN_FIXTURE_LDFLAGS)
t_fixtures_plugins_dup_la_SOURCES = t/fixtures/plugins/dup.c
t_fixtures_plugins_dup_la_LDFLAGS = $(PLUGIN_FIXTURE_LDFLAGS)
t_fixtures_plugins_badabi_la_SOURCES = t/fixtures/plugins/badabi.c
t_fixtures_plugins_badabi_la_LDFLAGS = $(PLUGIN_FIXTURE_LDFLAGS)
t_fixtures_plugins_badname_la_SOURCES = t/fixtures/plugins/badname.c
t_fixtures_plugins_badname_la_LDFLAGS = $(PLUGIN_FIXTURE_LDFLAGS)
t_fixtures_plugins_small_la_SOURCES = t/fixtures/plugins/small.c
t_fixtures_plugins_small_la_LDFLAGS = $(PLUGIN_FIXTURE_LDFLAGS)
t_fixtures_plugins_nullsrc_la_SOURCES = t/fixtures/plugins/nullsrc.c
t_fixtures_plugins_nullsrc_la_LDFLAGS = $(PLUGIN_FIXTURE_LDFLAGS)
t_fixtures_plugins_noentry_la_SOURCES = t/fixtures/plugins/noentry.c
t_fixtures_plugins_noentry_la_LDFLAGS = $(PLUGIN_FIXTURE_LDFLAGS)

# Index, lazy loading (a family not asked for is never mapped), staleness.
check_PROGRAMS += t/plugin/test-plugin
t_plugin_test_plugin_LDADD = lib/libhanzo-rocm-internal.la
TESTS += t/plugin/test-plugin

# Every rejection case through `hanzo-rocm plugins [--json]` and `info`.
EXTRA_DIST += t/plugin/cli.sh
TESTS += t/plugin/cli.sh

# Truncated, 32-bit, foreign-machine and entry-less plugins; untrusted ancestors.
EXTRA_DIST += t/plugin/hostile.sh
TESTS += t/plugin/hostile.sh

# An ordinary user's umask-002 checkout: its private group is trusted, a
# shared group is refused with the fix (root only).
EXTRA_DIST += t/plugin/umask002-user.sh
TESTS += t/plugin/umask002-user.sh

# The plugin SDK end to end: this tree installed with DESTDIR, the
# out-of-tree family examples/plugin built against it through pkg-config,
# precompiled by the installed CLI and run on the host backend.
EXTRA_DIST += t/plugin/sdk.sh examples/plugin/Makefile examples/plugin/biasgelu.hip \
	examples/plugin/biasgelu.list examples/plugin/run-biasgelu.c \
	examples/plugin/hanzo-rocm-plugin-biasgelu.spec examples/plugin/debian/control \
	examples/plugin/debian/rules examples/plugin/debian/changelog \
	examples/plugin/debian/copyright examples/plugin/debian/source/format
TESTS += t/plugin/sdk.sh
