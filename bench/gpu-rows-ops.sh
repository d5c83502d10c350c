#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The row-wise, indexing, argsort/conv/pool/upsample and decode tables
# of doc/BENCHMARKS.md in one call on the lent NVIDIA machine, from a build
# made elsewhere and carried (doc/HACKING.md, "GPU tests"):
#
#   sh bench/gpu-rows-ops.sh BUILDDIR OUTDIR [CACHEDIR] [PART...]
#   PART: selftest exdev rows index ops decode decode-sweep (default: all
#   but decode-sweep, the split count forced over a range)
#
# CACHEDIR: a cache tier made by `hanzo-rocm precompile --output CACHEDIR
# --target sm_90` where the build is (so no device time goes to nvcc); it is
# copied to a scratch user tier (owned by whoever runs this); "" for none
# (then the families compile on the first miss with
# /usr/local/cuda/bin/nvcc).  Each selftest runs one family (--family F).
# HR_ROW_BLOCKS (default "256 512"): raw block sizes timed beside the
# library's geometry in the rows part.  Outputs: OUTDIR/*.txt and *.json.
B=$(cd "${1:?BUILDDIR}" && pwd) O=${2:?OUTDIR} C=${3:-}
S=$(cd "$(dirname "$0")" && pwd)
shift 2; [ $# -gt 0 ] && shift
mkdir -p "$O"
export LD_LIBRARY_PATH="$PWD/.devlibs:$B/lib/.libs:/usr/local/cuda/lib64" PATH="$PATH:/usr/local/cuda/bin"
tmp=$(mktemp -d)
if [ -n "$C" ]; then cp -r "$C" "$tmp/cache"; else mkdir -p "$tmp/cache"; fi
mkdir -p "$tmp/system"
printf '[cache]\nuser_dir = %s/cache\nsystem_dir = %s/system\n[compiler]\nnvcc = /usr/local/cuda/bin/nvcc\n' \
	"$tmp" "$tmp" >"$tmp/conf"
export HANZO_ROCM_CONF="$tmp/conf" HANZO_ROCM_PLUGIN_PATH="$B/plugins/.libs" PYTHONUNBUFFERED=1
L="$B/lib/.libs/libhanzo-rocm.so.1"
{ date -u '+%Y-%m-%d %H:%M UTC'; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__)'; } | tee "$O/device.txt"
[ $# -gt 0 ] || set -- selftest exdev rows index ops decode
for s in "$@"; do
	echo "== $s"
	case $s in
	selftest)
		for f in reduce norm indexing sort conv attention; do
			timeout 120 "$B/tools/hanzo-rocm" selftest --family $f --bench-size 0 \
				>"$O/selftest-$f.txt" 2>&1
			echo "selftest $f: exit $?, $(tail -1 "$O/selftest-$f.txt")"
		done;;
	exdev) timeout 60 "$B/bench/launch-exdev" 2>&1 | tee "$O/exdev.txt";;
	rows|index) HR_ROW_BLOCKS="${HR_ROW_BLOCKS-256 512}" timeout 400 python3 "$S/gpu-timed.py" "$L" \
		--json "$O/timed-$s.json" "$s" 2>&1 | tee "$O/timed-$s.txt";;
	ops|decode|decode-sweep) timeout 300 python3 "$S/gpu-ops.py" "$L" --json "$O/ops-$s.json" "$s" 2>&1 |
		tee "$O/ops-$s.txt";;
	*) echo "unknown part $s" >&2; exit 2;;
	esac
done
rm -rf "$tmp"
