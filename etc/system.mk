# etc/system.mk
