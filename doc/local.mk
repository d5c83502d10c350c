# doc: man pages, kept true to the code (checked with groff -man -ww).
dist_man_MANS += doc/hanzo-rocm.1 doc/hanzo-rocm.conf.5 doc/libhanzo-rocm.3
