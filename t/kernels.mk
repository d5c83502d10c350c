# t/kernels.mk
