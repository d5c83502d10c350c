# t/config.mk
