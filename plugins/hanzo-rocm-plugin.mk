# hanzo-rocm-plugin.mk - build and install a kernel-family plugin against
# the installed hanzo-rocm SDK (GNU make; hanzo-rocm-plugin(7)).
#
#   FAMILY = biasgelu                 # the family: FAMILY.hip + FAMILY.list -> FAMILY.so
#   PLUGIN_VERSION = 1.0
#   include $(shell pkg-config --variable=pluginmk hanzo-rocm)
#
# Targets: all (FAMILY.so), install (into $(DESTDIR)$(HANZO_ROCM_PLUGINDIR)),
# clean; abi (writes FAMILY.abi, the family's kernel contracts: name, typed
# arguments in order, launch kind, forms, workspace rule - commit it with a
# release) and abi-check (fails when a line of FAMILY.abi changed or went:
# a released kernel's contract changes only under a new name; new kernels
# pass).  Both run the hanzo-rocm CLI (HANZO_ROCM_CLI, default from PATH).  Everything comes from pkg-config (set PKG_CONFIG, or
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

HANZO_ROCM_CLI ?= hanzo-rocm
PLUGIN_ABI ?= $(FAMILY).abi
# The plugin alone in a private directory (mode 0755/0644: the loader's trust rule).
$(FAMILY).abi.new: $(FAMILY).so
	rm -rf .abi-plugins && $(INSTALL) -d -m 0755 .abi-plugins && \
	$(INSTALL) -m 0644 $(FAMILY).so .abi-plugins/$(FAMILY).so && \
	printf '[plugins]\npath = %s\n' "$(CURDIR)/.abi-plugins" >.abi-plugins/conf && \
	HANZO_ROCM_CONF="$(CURDIR)/.abi-plugins/conf" HANZO_ROCM_PLUGIN_PATH="$(CURDIR)/.abi-plugins" \
		$(HANZO_ROCM_CLI) kernels --abi --family $(FAMILY) >$@.tmp && mv $@.tmp $@

abi: $(FAMILY).abi.new
	mv $(FAMILY).abi.new $(PLUGIN_ABI)

abi-check: $(FAMILY).abi.new
	@test -f $(PLUGIN_ABI) || { echo "abi-check: no $(PLUGIN_ABI) (make abi, then commit it)" >&2; exit 1; }
	@if grep -v -x -F -f $(FAMILY).abi.new $(PLUGIN_ABI) >$(FAMILY).abi.gone; then \
		echo "abi-check: kernel contracts changed or gone (a changed contract needs a new kernel name):" >&2; \
		cat $(FAMILY).abi.gone >&2; exit 1; fi
	@rm -f $(FAMILY).abi.gone; echo "abi-check: every contract of $(PLUGIN_ABI) holds"

clean:
	rm -f $(FAMILY).c $(FAMILY).c.tmp $(FAMILY).so $(FAMILY).abi.new $(FAMILY).abi.gone
	rm -rf .abi-plugins

.PHONY: all install clean abi abi-check
