# t/contract/local.mk: the library as a client that has only the installed
# files sees it (headers, man pages, pkg-config, `kernels --json`).
EXTRA_DIST += t/contract/installed.sh t/contract/client.c
TESTS += t/contract/installed.sh
