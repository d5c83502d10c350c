# Kernel sources: one kernels/F.hip + kernels/F.list per family, and the
# portability header they all include.  Nothing is compiled here: the plugin
# build (plugins/local.mk) embeds each family's source into plugins/F.la,
# and the library compiles it for the GPU at precompile/run time.
HR_KERNEL_INCLUDES = kernels/hr-kernel.h kernels/hr-rows.h kernels/hr-host.h kernels/hr-host-abi.h
EXTRA_DIST += $(HR_KERNEL_INCLUDES)
# GPU check and bandwidth comparison with torch of unary/affine/fill
# (NVIDIA, run by hand on the lent machine; see the script's header).
EXTRA_DIST += bench/kernels-gpu.py
