#!/bin/sh
# README command 1: install dependencies, build, and run the main job:
# precompile every family for the detected GPU targets (or the shipped
# default list when there is no GPU) into the user cache, then show it.
set -eu
cd "$(dirname "$0")/.."
sh tools/install-deps.sh
[ -x configure ] || autoreconf -fi
mkdir -p _build/main
cd _build/main
[ -f Makefile ] || ../../configure -q
make -j"$(nproc)"
export HANZO_ROCM_PLUGIN_PATH="$PWD/plugins/.libs"
./tools/hanzo-rocm info
./tools/hanzo-rocm precompile --user
./tools/hanzo-rocm cache list
