# hanzo-rocm-plugin.mk - build and install a kernel-family plugin against
# the installed hanzo-rocm SDK (GNU make; hanzo-rocm-plugin(7)).
#
#   FAMILY = biasgelu                 # the family: FAMILY.hip + FAMILY.list -> FAMILY.so
#   PLUGIN_VERSION = 1.0
#   include $(shell pkg-config --variable=pluginmk hanzo-rocm)
#
# Targets: all (FAMILY.so), install (into $(DESTDIR)$(HANZO_ROCM_PLUGINDIR)),
# clean.  Everything comes from pkg-config (set PKG_CONFIG, or
# PKG_CONFIG_PATH, to build against another install): the embed tool, the
# kernel headers, the plugin directory and the cflags.  The source is
# checked with $(CXX) for the host backend as it is embedded, so a list
# the source disagrees with is refused here, not at the first launch.

ifeq ($(FAMILY),)
$(error hanzo-rocm-plugin.mk: set FAMILY before including it)
endif
PKG_CONFIG ?= pkg-config
HANZO_ROCM_PC ?= hanzo-rocm
HANZO_ROCM_EMBED ?= $(shell $(PKG_CONFIG) --variable=embed $(HANZO_ROCM_PC))
HANZO_ROCM_KERNEL_INCLUDEDIR ?= $(shell $(PKG_CONFIG) --variable=kernelincludedir $(HANZO_ROCM_PC))
HANZO_ROCM_PLUGINDIR ?= $(shell $(PKG_CONFIG) --variable=plugindir $(HANZO_ROCM_PC))
HANZO_ROCM_CFLAGS ?= $(shell $(PKG_CONFIG) --cflags $(HANZO_ROCM_PC))
ifeq ($(HANZO_ROCM_EMBED),)
$(error hanzo-rocm-plugin.mk: pkg-config finds no hanzo-rocm SDK (install libhanzo-rocm-dev))
endif
PLUGIN_VERSION ?= 0
PLUGIN_HIP ?= $(FAMILY).hip
PLUGIN_LIST ?= $(FAMILY).list
PLUGIN_CFLAGS ?= -O2 -Wall
INSTALL ?= install

all: $(FAMILY).so

# A family may be a folder: FAMILY.hip including files of FAMILY/.
$(FAMILY).c: $(PLUGIN_HIP) $(PLUGIN_LIST) $(wildcard $(FAMILY)/*)
	$(HANZO_ROCM_EMBED) -I $(HANZO_ROCM_KERNEL_INCLUDEDIR) \
		--plugin-version '$(PLUGIN_VERSION)' --check-cxx '$(CXX)' \
		-o $@ $(FAMILY) $(PLUGIN_HIP) $(PLUGIN_LIST)

# Data and one entry function: no library to link.
$(FAMILY).so: $(FAMILY).c
	$(CC) $(PLUGIN_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(HANZO_ROCM_CFLAGS) -fPIC -shared \
		-fvisibility=hidden $(LDFLAGS) -o $@ $<

# Mode 0644 under a root- or user-owned directory: the loader's trust rule.
install: $(FAMILY).so
	$(INSTALL) -d -m 0755 $(DESTDIR)$(HANZO_ROCM_PLUGINDIR)
	$(INSTALL) -m 0644 $(FAMILY).so $(DESTDIR)$(HANZO_ROCM_PLUGINDIR)/$(FAMILY).so

clean:
	rm -f $(FAMILY).c $(FAMILY).c.tmp $(FAMILY).so

.PHONY: all install clean
