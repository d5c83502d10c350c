# doc: see Makefile.am
