# bench: see Makefile.am
