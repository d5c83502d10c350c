# t/kernels.mk: kernel families, the portability header and the plugin build.
# t/hr-dump-plugin writes out what a built plugin embeds (source, kernels).
check_PROGRAMS += t/hr-dump-plugin
t_hr_dump_plugin_SOURCES = t/hr-dump-plugin.c

EXTRA_DIST += t/kernels-embed.sh t/kernels-compile.sh
TESTS += t/kernels-embed.sh t/kernels-compile.sh

# Needs an NVIDIA GPU with PyTorch (skips otherwise); `make check-gpu` runs it.
EXTRA_DIST += t/kernels-gpu.sh
TESTS += t/kernels-gpu.sh
GPU_TESTS += t/kernels-gpu.sh

# The binary, cast and ternary tables hold every kernel KERNELS.md lists.
EXTRA_DIST += t/kernels-matrix.sh
TESTS += t/kernels-matrix.sh

# The catalogue: hanzo-rocm kernels against the lists, hr-embed's checks of
# the catalogue lines, hanzo-rocm-kernels(7).
EXTRA_DIST += t/kernels-catalogue.sh
TESTS += t/kernels-catalogue.sh
