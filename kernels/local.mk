# Kernel sources: one kernels/F.hip + kernels/F.list per family (F.hip may
# include the files of its folder kernels/F/, as attention does), and the
# portability header they all include.  Nothing is compiled here: the plugin
# build (plugins/local.mk) embeds each family's source into plugins/F.la,
# and the library compiles it for the GPU at precompile/run time.
HR_KERNEL_INCLUDES = kernels/hr-kernel.h kernels/hr-target-facts.h kernels/hr-rows.h \
	kernels/hr-host.h kernels/hr-host-abi.h kernels/hr-matrix.h
EXTRA_DIST += $(HR_KERNEL_INCLUDES) lib/shared/targets.def kernels/gen-target-facts.sh
# The plugin SDK: an out-of-tree family includes them as the stock ones do
# (hanzo-rocm-embed -I $(kernelincludedir); pkg-config --variable=kernelincludedir).
kernelincludedir = $(includedir)/hanzo-rocm
kernelinclude_HEADERS = $(HR_KERNEL_INCLUDES)
# Per-processor facts for the kernels, generated from the one target table
# into the source tree (plugins embed kernels/ as it is there).
$(srcdir)/kernels/hr-target-facts.h: $(srcdir)/lib/shared/targets.def $(srcdir)/kernels/gen-target-facts.sh
	$(AM_V_GEN)$(SHELL) $(srcdir)/kernels/gen-target-facts.sh $(srcdir)/lib/shared/targets.def >$@.tmp && mv $@.tmp $@
# GPU check and bandwidth comparison with torch of unary/affine/fill
# (NVIDIA, run by hand on the lent machine; see the script's header).
EXTRA_DIST += bench/kernels-gpu.py

# The kernel ABI: kernels/abi/F.abi, every stock kernel's contract, generated
# from the plugins built from the lists (kernels/gen-abi.sh).  t/kernels/abi.sh
# fails when a committed line changes or disappears; a new kernel is a new
# line: run `make abi-update` and commit it.
EXTRA_DIST += kernels/gen-abi.sh
abi-update: all
	$(AM_V_GEN)$(SHELL) $(srcdir)/kernels/gen-abi.sh $(abs_builddir)/tools/hanzo-rocm$(EXEEXT) \
		$(abs_builddir)/plugins/.libs $(srcdir)/kernels/abi $(HR_FAMILIES)
.PHONY: abi-update
