#!/bin/sh
# README command 1: install what building and precompiling need (not the
# test and packaging tools: command 2 installs those), build, and run the
# main job: precompile every family for the detected GPU targets (or the
# shipped default list when there is no GPU) into the user cache, then show
# it.  The build tree's uninstalled environment (_build/main/hanzo-rocm, the
# CLI with the plugins built here; _build/main/hanzo-rocm-uninstalled.pc) is
# what the README then shows how to use.
set -eu
cd "$(dirname "$0")/.."
sh tools/install-deps.sh --main
[ -x configure ] || autoreconf -fi
mkdir -p _build/main
cd _build/main
[ -f Makefile ] || ../../configure -q
make -j"$(nproc)"
./hanzo-rocm info
./hanzo-rocm precompile --user
./hanzo-rocm cache list
