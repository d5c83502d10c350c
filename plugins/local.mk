# plugins: see Makefile.am
