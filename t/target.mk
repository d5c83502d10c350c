# t/target.mk
