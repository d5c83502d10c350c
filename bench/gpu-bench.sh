#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Everything GPU in one go (the GPU machine is lent by the minute):
#   1. hanzo-rocm selftest --json: every kernel of every family vs the CPU
#      reference, with GB/s at 2^24 elements;
#   2. bench/gpu-vs-torch.py: our element-wise kernels and PyTorch side by
#      side at 2^28, and bench/gpu-timed.py: copy bandwidth, reduce and norm
#      (one- and two-pass), quantized (mat-vec, dequantize, get_rows) and
#      indexing, launches queued behind a GPU spin (HR_BENCH_SECTIONS:
#      its sections, default all);
#   3. first kernel in a new process: library (warm cache) vs the CUDA driver
#      loading the same cubin vs the driver JIT-loading PTX (cold, then from
#      its compute cache), medians of HR_COLD_N (15) fresh processes each,
#      the modes alternating (7 gave +9.0% on a fresh machine where 15 give
#      +1.0%: the first processes' disk cache skews a short median).
# usage: bench/gpu-bench.sh BUILDDIR OUTDIR [CACHEDIR]
# CACHEDIR: a precompiled user cache to start from (copied), else compile on miss.
set -u
B=$(cd "$1" && pwd); OUT=$2; SEED=${3:-}
S=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT"
tmp=$(mktemp -d /tmp/hr-bench.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -n "$SEED" ] && [ -d "$SEED" ] && cp -r "$SEED" "$tmp/cache"
printf '[cache]\nuser_dir = %s/cache\nsystem_dir = %s/system\n[compiler]\nnvcc = %s\n' \
	"$tmp" "$tmp" "$NVCC" >"$tmp/hanzo-rocm.conf"
export HANZO_ROCM_CONF="$tmp/hanzo-rocm.conf" HANZO_ROCM_PLUGIN_PATH="$B/plugins/.libs"
PY=${PYTHON3:-python3}
rc=0

{ date -u '+%Y-%m-%d %H:%M UTC'; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1; } \
	| tee "$OUT/device.txt"

echo "== selftest"
"$B/tools/hanzo-rocm" selftest --json --bench-size 24 >"$OUT/selftest.json" 2>"$OUT/selftest.err"
st=$?
echo "selftest exit $st"
[ $st -eq 0 ] || rc=1
"$PY" - "$OUT/selftest.json" >"$OUT/selftest.txt" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
print(f"{'kernel':22s} {'case':8s} {'max_err':>10s} {'tol':>8s} {'GB/s':>8s} status")
for r in rows:
    e = "-" if r["max_error"] is None else f"{r['max_error']:.3g}"
    g = "-" if r["gbps"] is None else f"{r['gbps']:.0f}"
    t = "exact" if not r["tolerance"] else f"{r['tolerance']:g}"
    print(f"{r['kernel']:22s} {r['case']:8s} {e:>10s} {t:>8s} {g:>8s} "
          f"{'ok' if r['ok'] else 'FAIL: ' + (r['error'] or '')}")
bad = sum(not r["ok"] for r in rows)
print(f"# {len(rows)} cases, {len({r['kernel'] for r in rows})} kernels, {bad} failed")
PY
tail -1 "$OUT/selftest.txt"; grep FAIL "$OUT/selftest.txt" | head -30

echo "== vs torch"
"$PY" "$S/bench/gpu-vs-torch.py" "$B/lib/.libs/libhanzo-rocm.so.1" 28 --json "$OUT/vs-torch.json" \
	2>&1 | tee "$OUT/vs-torch.txt" || rc=1

echo "== timed on the GPU"
# shellcheck disable=SC2086
PYTHONUNBUFFERED=1 "$PY" "$S/bench/gpu-timed.py" "$B/lib/.libs/libhanzo-rocm.so.1" --json "$OUT/timed.json" \
	${HR_BENCH_SECTIONS:-} 2>&1 | tee "$OUT/timed.txt" || rc=1

# HR_BENCH_NO_COLDSTART=1: kernel timings only (the cold start does not
# depend on the kernels' code; it costs a minute of lent GPU time).
[ -n "${HR_BENCH_NO_COLDSTART:-}" ] && exit $rc

echo "== first kernel in a new process"
cs="$B/bench/gpu-coldstart"
"$cs" extract unary "$tmp/unary.cubin" || rc=1
"$NVCC" -ptx -arch=sm_90 -O3 -std=c++17 -x cu -I"$S/kernels" "$S/kernels/unary.hip" \
	-o "$tmp/unary.ptx" || rc=1
export CUDA_CACHE_PATH="$tmp/nvjit"        # a fresh driver JIT cache: first run is cold
{
	for i in $(seq 1 "${HR_COLD_N:-15}"); do
		"$cs" driver "$tmp/unary.ptx" uexp_f32 | sed "s/^driver/ptx_jit_$i/"
		"$cs" lib unary uexp_f32
		"$cs" driver "$tmp/unary.cubin" uexp_f32
	done
} >"$tmp/cold.txt" 2>&1 || rc=1
"$PY" - "$tmp/cold.txt" <<'PY' | tee "$OUT/coldstart.txt"
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) != 7:
        print("#", line.strip()); continue
    mode = "ptx (JIT cache cold)" if f[0] == "ptx_jit_1" else "ptx (JIT cache warm)" if f[0].startswith("ptx") else f[0]
    runs.setdefault(mode, []).append((float(f[2]), float(f[4]), float(f[6])))
print(f"{'mode':22s} {'n':>2s} {'init ms':>8s} {'load ms':>8s} {'total ms':>9s}  (medians)")
for mode, v in runs.items():
    med = [statistics.median(x[i] for x in v) for i in range(3)]
    print(f"{mode:22s} {len(v):2d} {med[0]:8.2f} {med[1]:8.2f} {med[2]:9.2f}")
if "lib" in runs and "driver" in runs:
    lib = statistics.median(x[2] for x in runs["lib"]); drv = statistics.median(x[2] for x in runs["driver"])
    print(f"library / driver, total: {lib / drv:.3f}  (overhead {100 * (lib / drv - 1):+.1f}%)")
PY
exit $rc
