#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# gen-abi.sh CLI PLUGIN_DIR OUT_DIR FAMILY...: each family's kernel contracts
# (`hanzo-rocm kernels --abi`: name, typed arguments in order, launch kind,
# forms, workspace rule, #@bind and #@null, #@arg texts; the file format is
# named in the first line), read from the plugins built from kernels/F.list,
# into OUT_DIR/F.abi.  `make abi-update` writes kernels/abi/ with it;
# t/kernels/abi.sh compares the committed files with a fresh run.
set -e
cli=$1 plugins=$2 out=$3
shift 3
conf=$(mktemp)
trap 'rm -f "$conf"' EXIT
printf '[plugins]\npath = %s\n' "$plugins" >"$conf"
for f in "$@"; do
	HANZO_ROCM_CONF=$conf HANZO_ROCM_PLUGIN_PATH=$plugins "$cli" kernels --abi --family "$f" \
		>"$out/$f.abi.tmp"
	mv "$out/$f.abi.tmp" "$out/$f.abi"
done
