# etc: see Makefile.am
