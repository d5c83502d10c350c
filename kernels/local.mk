# kernels: see Makefile.am
