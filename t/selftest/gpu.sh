#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# On a GPU: `hanzo-rocm selftest --json` runs every kernel of every family
# of plugins/families (compiled on a miss into a private cache) against the
# CPU reference; exit 0, and every kernel of every family list is reported,
# with every case ok.  Without a GPU: 1..0 # SKIP no GPU.
# HR_SELFTEST_BENCH_LOG2 sets --bench-size (default 20: quick).
. "$top_srcdir/t/tap.sh"
# configure's python3 may not exist where the tests run (the GPU machine).
PY=$PYTHON3
command -v "$PY" >/dev/null 2>&1 || PY=python3

export HANZO_ROCM_PLUGIN_PATH="$HR_PLUGINS"
export HANZO_ROCM_CONF="$T/hanzo-rocm.conf"
printf '[cache]\nuser_dir = %s/cache\nsystem_dir = %s/system\n' "$T" "$T" >"$HANZO_ROCM_CONF"
# A precompiled user cache to start from (the GPU machine's time is lent by
# the minute); without one, every family compiles on its first kernel.
[ -n "${HR_SELFTEST_SEED_CACHE:-}" ] && cp -r "$HR_SELFTEST_SEED_CACHE" "$T/cache"
nvcc=$NVCC
[ -n "$nvcc" ] || nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
printf '[compiler]\nnvcc = %s\n' "$nvcc" >>"$HANZO_ROCM_CONF"
[ -n "$HIPCC" ] && printf 'hipcc = %s\n' "$HIPCC" >>"$HANZO_ROCM_CONF"

"$HR_CLI" selftest --json --bench-size ${HR_SELFTEST_BENCH_LOG2:-20} >"$T/st.json" 2>"$T/st.err"
s=$?
if [ $s -eq 2 ] && grep -q "no GPU" "$T/st.err"; then
	skip_all "no GPU"
fi
[ $s -eq 0 ]
ok $? "selftest --json exits 0 (exit $s)"
[ $s -eq 0 ] || sed 's/^/# /' "$T/st.err" | head -20
"$PY" - "$T/st.json" "$top_srcdir/kernels" "$top_srcdir/plugins/families" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
bad = [r for r in rows if not r["ok"]]
for r in bad[:20]:
    print(f"# FAIL {r['kernel']} {r['case']}: {r['error']}")
missing = []
fams = [l.strip() for l in open(sys.argv[3]) if l.strip() and not l.startswith("#")]
for fam in fams:
    names = [l.split()[0] for l in open(f"{sys.argv[2]}/{fam}.list") if l.strip() and not l.startswith("#")]
    seen = {r["kernel"] for r in rows if r["family"] == fam and r["ok"]}
    missing += [f"{fam}/{n}" for n in names if n not in seen]
for m in missing[:20]:
    print(f"# not tested ok: {m}")
print(f"# {len(rows)} rows, {len(bad)} failed, {len(missing)} kernels missing")
sys.exit(1 if bad or missing or not rows else 0)
PY
ok $? "every kernel of every family is reported, every case ok"
done_testing
