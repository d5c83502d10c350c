# doc: man pages, kept true to the code (checked with groff -man -ww).
dist_man_MANS += doc/hanzo-rocm.1 doc/hanzo-rocm.conf.5 doc/libhanzo-rocm.3 \
	doc/hanzo-rocm-embed.1 doc/hanzo-rocm-plugin.7
# The design and the kernel rules (the contract the code and tests cite).
EXTRA_DIST += doc/DESIGN.md doc/KERNELS.md
# The attention family: kernels, layouts, split-K, sizes (kernels/attention.list).
EXTRA_DIST += doc/ATTENTION.md
# The remote cache tier for administrators: servers, builder, Slurm, Kubernetes, keys.
EXTRA_DIST += doc/CLUSTER.md
# The developers' guide: t/layout/layers.sh and t/layout/platform-count.sh check it
# against the code, so `make check` from the tarball needs it.
EXTRA_DIST += doc/HACKING.md

# hanzo-rocm-kernels(7): generated from the catalogue of this build's
# plugins (the kernels/*.list lines they embed), through the CLI the user
# has - the same text `hanzo-rocm kernels` prints.
man_MANS += doc/hanzo-rocm-kernels.7
EXTRA_DIST += doc/gen-kernels-man.sh
CLEANFILES += doc/hanzo-rocm-kernels.7 doc/hanzo-rocm-kernels.7.conf
doc/hanzo-rocm-kernels.7: $(top_srcdir)/doc/gen-kernels-man.sh tools/hanzo-rocm$(EXEEXT) $(plugins_LTLIBRARIES)
	$(AM_V_GEN)$(MKDIR_P) doc && : >$@.conf && \
	HANZO_ROCM_CONF=$(abs_top_builddir)/$@.conf HANZO_ROCM_PLUGIN_PATH=$(abs_top_builddir)/plugins/.libs \
	HANZO_ROCM_HOST= tools/hanzo-rocm$(EXEEXT) kernels >$@.txt && \
	$(SHELL) $(top_srcdir)/doc/gen-kernels-man.sh $(PACKAGE_VERSION) <$@.txt >$@.tmp && \
	rm -f $@.txt && mv -f $@.tmp $@
