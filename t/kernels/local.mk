# t/kernels/local.mk: kernel families, the portability header and the plugin build.
# t/kernels/hr-dump-plugin writes out what a built plugin embeds (source, kernels).
check_PROGRAMS += t/kernels/hr-dump-plugin
t_kernels_hr_dump_plugin_SOURCES = t/kernels/hr-dump-plugin.c

EXTRA_DIST += t/kernels/embed.sh t/kernels/compile.sh
TESTS += t/kernels/embed.sh
HR_FIRST_TESTS += t/kernels/compile.sh

# Needs an NVIDIA GPU with PyTorch (skips otherwise); `make check-gpu` runs it.
EXTRA_DIST += t/kernels/gpu.sh
TESTS += t/kernels/gpu.sh
GPU_TESTS += t/kernels/gpu.sh

# The binary, cast and ternary tables hold every kernel doc/KERNELS.md lists.
EXTRA_DIST += t/kernels/matrix.sh
TESTS += t/kernels/matrix.sh

# The catalogue: hanzo-rocm kernels against the lists, hr-embed's checks of
# the catalogue lines, hanzo-rocm-kernels(7).
EXTRA_DIST += t/kernels/catalogue.sh t/kernels/abi.sh
TESTS += t/kernels/catalogue.sh t/kernels/abi.sh

# The host emulation of the matrix builtins (kernels/hr-matrix.h) against a
# scalar product, and the kernel-side register maps of each host path:
# host-w64 (MFMA), host-w32 (gfx11 WMMA) and gfx12's WMMA layout.
HR_MATRIX_TESTS = t/kernels/test-matrix-w64 t/kernels/test-matrix-w32 t/kernels/test-matrix-gfx12
check_PROGRAMS += $(HR_MATRIX_TESTS)
TESTS += $(HR_MATRIX_TESTS)
HR_MATRIX_CXXFLAGS = -std=c++17 -O1 -Wall -Wextra -Wno-unknown-pragmas -Werror
HR_MATRIX_CPPFLAGS = -I$(top_srcdir)/kernels -DHR_HOST=1
t_kernels_test_matrix_w64_SOURCES = t/kernels/test-matrix.cc
t_kernels_test_matrix_w64_CXXFLAGS = $(HR_MATRIX_CXXFLAGS)
t_kernels_test_matrix_w64_CPPFLAGS = $(HR_MATRIX_CPPFLAGS) -DHR_HOST_WAVE=64
t_kernels_test_matrix_w32_SOURCES = t/kernels/test-matrix.cc
t_kernels_test_matrix_w32_CXXFLAGS = $(HR_MATRIX_CXXFLAGS)
t_kernels_test_matrix_w32_CPPFLAGS = $(HR_MATRIX_CPPFLAGS) -DHR_HOST_WAVE=32
t_kernels_test_matrix_gfx12_SOURCES = t/kernels/test-matrix.cc
t_kernels_test_matrix_gfx12_CXXFLAGS = $(HR_MATRIX_CXXFLAGS)
t_kernels_test_matrix_gfx12_CPPFLAGS = $(HR_MATRIX_CPPFLAGS) -DHR_HOST_WAVE=32 -DHR_HOST_MMA=HR_MMA_WMMA12
