# Kernel-family plugins.  plugins/F.la holds only data: the self-contained
# source of kernels/F.hip (its "quoted" includes inlined by tools/hr-embed),
# the kernel table from kernels/F.list, and hanzo_rocm_plugin_entry(), its
# only exported symbol.  The C source is generated into the build tree.
#
# Adding a family F: write kernels/F.hip and kernels/F.list, then copy one
# block below and replace the family name (4 places).

# A build tool; it runs on the build machine (cross builds would need
# CC_FOR_BUILD).
noinst_PROGRAMS += tools/hr-embed
tools_hr_embed_SOURCES = tools/hr-embed.c

HR_PLUGIN_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version -shared \
	-export-symbols-regex '^hanzo_rocm_plugin_entry$$'
# Headers are found through VPATH, so the list may name several.
HR_EMBED_DEPS = tools/hr-embed$(EXEEXT) $(HR_KERNEL_INCLUDES)
# plugins/F.c from kernels/F.hip and kernels/F.list; F comes from the target.
HR_EMBED = $(AM_V_GEN)f=`basename $@ .c` && $(MKDIR_P) plugins && \
	tools/hr-embed$(EXEEXT) -o $@ $$f \
		$(top_srcdir)/kernels/$$f.hip $(top_srcdir)/kernels/$$f.list

# family unary
plugins_LTLIBRARIES += plugins/unary.la
nodist_plugins_unary_la_SOURCES = plugins/unary.c
plugins_unary_la_LDFLAGS = $(HR_PLUGIN_LDFLAGS)
plugins/unary.c: $(top_srcdir)/kernels/unary.hip $(top_srcdir)/kernels/unary.list $(HR_EMBED_DEPS)
	$(HR_EMBED)
EXTRA_DIST += kernels/unary.hip kernels/unary.list
CLEANFILES += plugins/unary.c

# family affine
plugins_LTLIBRARIES += plugins/affine.la
nodist_plugins_affine_la_SOURCES = plugins/affine.c
plugins_affine_la_LDFLAGS = $(HR_PLUGIN_LDFLAGS)
plugins/affine.c: $(top_srcdir)/kernels/affine.hip $(top_srcdir)/kernels/affine.list $(HR_EMBED_DEPS)
	$(HR_EMBED)
EXTRA_DIST += kernels/affine.hip kernels/affine.list
CLEANFILES += plugins/affine.c

# family fill
plugins_LTLIBRARIES += plugins/fill.la
nodist_plugins_fill_la_SOURCES = plugins/fill.c
plugins_fill_la_LDFLAGS = $(HR_PLUGIN_LDFLAGS)
plugins/fill.c: $(top_srcdir)/kernels/fill.hip $(top_srcdir)/kernels/fill.list $(HR_EMBED_DEPS)
	$(HR_EMBED)
EXTRA_DIST += kernels/fill.hip kernels/fill.list
CLEANFILES += plugins/fill.c

# family binary
plugins_LTLIBRARIES += plugins/binary.la
nodist_plugins_binary_la_SOURCES = plugins/binary.c
plugins_binary_la_LDFLAGS = $(HR_PLUGIN_LDFLAGS)
plugins/binary.c: $(top_srcdir)/kernels/binary.hip $(top_srcdir)/kernels/binary.list $(HR_EMBED_DEPS)
	$(HR_EMBED)
EXTRA_DIST += kernels/binary.hip kernels/binary.list
CLEANFILES += plugins/binary.c

# family cast
plugins_LTLIBRARIES += plugins/cast.la
nodist_plugins_cast_la_SOURCES = plugins/cast.c
plugins_cast_la_LDFLAGS = $(HR_PLUGIN_LDFLAGS)
plugins/cast.c: $(top_srcdir)/kernels/cast.hip $(top_srcdir)/kernels/cast.list $(HR_EMBED_DEPS)
	$(HR_EMBED)
EXTRA_DIST += kernels/cast.hip kernels/cast.list
CLEANFILES += plugins/cast.c

# family ternary
plugins_LTLIBRARIES += plugins/ternary.la
nodist_plugins_ternary_la_SOURCES = plugins/ternary.c
plugins_ternary_la_LDFLAGS = $(HR_PLUGIN_LDFLAGS)
plugins/ternary.c: $(top_srcdir)/kernels/ternary.hip $(top_srcdir)/kernels/ternary.list $(HR_EMBED_DEPS)
	$(HR_EMBED)
EXTRA_DIST += kernels/ternary.hip kernels/ternary.list
CLEANFILES += plugins/ternary.c

# family reduce
plugins_LTLIBRARIES += plugins/reduce.la
nodist_plugins_reduce_la_SOURCES = plugins/reduce.c
plugins_reduce_la_LDFLAGS = $(HR_PLUGIN_LDFLAGS)
plugins/reduce.c: $(top_srcdir)/kernels/reduce.hip $(top_srcdir)/kernels/reduce.list $(HR_EMBED_DEPS)
	$(HR_EMBED)
EXTRA_DIST += kernels/reduce.hip kernels/reduce.list
CLEANFILES += plugins/reduce.c

# family norm
plugins_LTLIBRARIES += plugins/norm.la
nodist_plugins_norm_la_SOURCES = plugins/norm.c
plugins_norm_la_LDFLAGS = $(HR_PLUGIN_LDFLAGS)
plugins/norm.c: $(top_srcdir)/kernels/norm.hip $(top_srcdir)/kernels/norm.list $(HR_EMBED_DEPS)
	$(HR_EMBED)
EXTRA_DIST += kernels/norm.hip kernels/norm.list
CLEANFILES += plugins/norm.c

# family rope
plugins_LTLIBRARIES += plugins/rope.la
nodist_plugins_rope_la_SOURCES = plugins/rope.c
plugins_rope_la_LDFLAGS = $(HR_PLUGIN_LDFLAGS)
plugins/rope.c: $(top_srcdir)/kernels/rope.hip $(top_srcdir)/kernels/rope.list $(HR_EMBED_DEPS)
	$(HR_EMBED)
EXTRA_DIST += kernels/rope.hip kernels/rope.list
CLEANFILES += plugins/rope.c

# family indexing
plugins_LTLIBRARIES += plugins/indexing.la
nodist_plugins_indexing_la_SOURCES = plugins/indexing.c
plugins_indexing_la_LDFLAGS = $(HR_PLUGIN_LDFLAGS)
plugins/indexing.c: $(top_srcdir)/kernels/indexing.hip $(top_srcdir)/kernels/indexing.list $(HR_EMBED_DEPS)
	$(HR_EMBED)
EXTRA_DIST += kernels/indexing.hip kernels/indexing.list
CLEANFILES += plugins/indexing.c

# family sort
plugins_LTLIBRARIES += plugins/sort.la
nodist_plugins_sort_la_SOURCES = plugins/sort.c
plugins_sort_la_LDFLAGS = $(HR_PLUGIN_LDFLAGS)
plugins/sort.c: $(top_srcdir)/kernels/sort.hip $(top_srcdir)/kernels/sort.list $(HR_EMBED_DEPS)
	$(HR_EMBED)
EXTRA_DIST += kernels/sort.hip kernels/sort.list
CLEANFILES += plugins/sort.c

# family quantized
plugins_LTLIBRARIES += plugins/quantized.la
nodist_plugins_quantized_la_SOURCES = plugins/quantized.c
plugins_quantized_la_LDFLAGS = $(HR_PLUGIN_LDFLAGS)
plugins/quantized.c: $(top_srcdir)/kernels/quantized.hip $(top_srcdir)/kernels/quantized.list $(HR_EMBED_DEPS)
	$(HR_EMBED)
EXTRA_DIST += kernels/quantized.hip kernels/quantized.list
CLEANFILES += plugins/quantized.c
