# t/plugin.mk
