# t/precompile.mk
