# t/kernels.mk: kernel families, the portability header and the plugin build.
# t/hr-dump-plugin writes out what a built plugin embeds (source, kernels).
check_PROGRAMS += t/hr-dump-plugin
t_hr_dump_plugin_SOURCES = t/hr-dump-plugin.c

dist_check_SCRIPTS += t/kernels-embed.sh t/kernels-compile.sh
TESTS += t/kernels-embed.sh t/kernels-compile.sh
