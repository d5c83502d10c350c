# doc: man pages, kept true to the code (checked with groff -man -ww).
dist_man_MANS += doc/hanzo-rocm.1 doc/hanzo-rocm.conf.5 doc/libhanzo-rocm.3
# The attention family: kernels, layouts, split-K, sizes (kernels/attention.list).
EXTRA_DIST += doc/ATTENTION.md
