# t/package.mk
