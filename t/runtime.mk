# t/runtime.mk
