# t/cache.mk
