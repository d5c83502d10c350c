#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# hanzo-rocm selftest with no GPU, and with a stand-in CUDA driver whose
# launches do nothing (t/fakecuda): every case must then FAIL (the poisoned
# output is still there), which proves the selftest cannot pass by accident.
. "$top_srcdir/t/tap.sh"
# configure's python3 may not exist where the tests run (the GPU machine).
PY=$PYTHON3
command -v "$PY" >/dev/null 2>&1 || PY=python3

fake="$top_builddir/t/fakecuda/.libs"
[ -e "$fake/libcuda.so.1" ] || skip_all "stand-in driver not built"
export HANZO_ROCM_PLUGIN_PATH="$HR_PLUGINS"
export HANZO_ROCM_CONF="$T/hanzo-rocm.conf"
printf '[cache]\nuser_dir = %s/cache\nsystem_dir = %s/system\n' "$T" "$T" >"$HANZO_ROCM_CONF"
[ -n "$NVCC" ] && printf '[compiler]\nnvcc = %s\n' "$NVCC" >>"$HANZO_ROCM_CONF"
export LD_LIBRARY_PATH="$fake${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" HR_FAKE_CUDA=1
export HR_FAKE_CUDA_DEVICES=0

exit_is 2 "no GPU: selftest exits 2" "$HR_CLI" selftest
grep_ok "and says so" "no GPU" "$T/err"
exit_is 2 "no GPU: selftest --json exits 2" "$HR_CLI" selftest --json
cp "$T/out" "$T/nogpu.json"
"$PY" -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])) != [])' "$T/nogpu.json"
ok $? "and prints a valid, empty JSON array"
exit_is 2 "--bench-size out of range is a usage error" "$HR_CLI" selftest --bench-size 99
grep_ok "naming the option" "bench-size" "$T/err"
exit_is 2 "an unsafe --family name is a usage error" "$HR_CLI" selftest --family ../x
exit_is 2 "an extra argument is a usage error" "$HR_CLI" selftest extra

export HR_FAKE_CUDA_DEVICES=1
# Every --family counts (it once ran only the last): one that does not exist
# stops the run before anything runs, wherever it stands.
if [ -e "$HR_PLUGINS/affine.so" ]; then
	exit_is 2 "--family nosuch --family affine: a usage error" \
		"$HR_CLI" selftest --family nosuch --family affine --bench-size 0
	grep_ok "  ... naming the first family" "family nosuch: no such family" "$T/err"
else
	skip 2 "no affine plugin"
fi
if [ -z "$NVCC" ] || [ ! -e "$HR_PLUGINS/affine.so" ]; then
	skip 6 "no nvcc or no affine plugin"
	done_testing
fi
exit_is 1 "launches that do nothing: selftest fails" \
	"$HR_CLI" selftest --family affine --bench-size 12 --json
cp "$T/out" "$T/fake.json"
"$PY" - "$T/fake.json" "$top_srcdir/kernels/affine.list" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
names = [l.split()[0] for l in open(sys.argv[2]) if l.strip() and not l.startswith("#")]
got = {r["kernel"] for r in rows}
assert got == set(names), (sorted(got), names)
assert {r["case"] for r in rows} == {"contig", "offset", "strided", "bcast", "sliced"}, rows
assert all(not r["ok"] and r["error"] for r in rows), [r for r in rows if r["ok"]]
assert all(r["gbps"] is not None for r in rows if r["case"] == "contig")
PY
ok $? "every affine kernel and case is reported as a mismatch, with GB/s"
grep_ok "the reason names the poisoned element" '"error": ?"element 0: got' "$T/fake.json"
exit_is 2 "--family that does not exist is a usage error" "$HR_CLI" selftest --family nosuch
# Both families run: the first one's kernel (its code object cached above) is
# found although fill comes last (with only the last, no kernel by that name).
exit_is 1 "--family affine --family fill --kernel affine_f32 runs affine's kernel" \
	"$HR_CLI" selftest --family affine --family fill --kernel affine_f32 --bench-size 0 --json
grep_ok "  ... and reports it" '"kernel": ?"affine_f32"' "$T/out"
done_testing
