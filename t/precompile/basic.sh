#!/bin/sh
# hanzo-rocm precompile: build, no-op (no compiler spawned), skip, force,
# another compiler's entries, failures with diagnostics, provided tiers, usage.
. "$top_srcdir/t/tap.sh"
. "$top_srcdir/t/precompile/setup.sh"
PC() { "$HR_CLI" precompile -f pctest --progress never "$@"; }

exit_is 0 "cold precompile of 2 targets succeeds" PC --output "$T/o" -t gfx90a -t gfx1030 -j2
grep_ok "summary counts both built" '^2 built, 0 up to date, 0 skipped, 0 failed' "$T/out"
grep_ok "gfx90a row says built, with a size" '^gfx90a +pctest +[0-9.]+s +[0-9.]+[BKM]? +built$' "$T/out"
[ "$(pc_compiles gfx90a)" -eq 1 ] && [ "$(pc_compiles gfx1030)" -eq 1 ]
ok $? "one real compile per target"
"$PC_HELPER" verify "$T/o" > "$T/verify" 2>&1
ok $? "every published entry reads back valid, no stray files"
grep_ok "both entries present" '^2 good, 0 bad' "$T/verify"
if [ -n "$LLVM_READELF" ]; then
	"$PC_HELPER" payload "$T/o/gfx1030/pctest.hrco" > "$T/k.o"
	"$LLVM_READELF" -h --notes "$T/k.o" > "$T/elf" 2>&1
	grep_ok "payload is an AMDGPU ELF" 'Machine: +EM_AMDGPU' "$T/elf"
	grep_ok "built for gfx1030" 'amdhsa.target: +amdgcn-amd-amdhsa--gfx1030' "$T/elf"
	"$LLVM_READELF" --syms "$T/k.o" > "$T/syms" 2>&1
	grep_ok "both kernels built (plugin flags applied)" 'pctest_scale' "$T/syms"
else
	skip 3 "llvm-readelf not found"
fi

# Nothing changed: nothing spawned, not even `hipcc --version`.
: > "$PC_LOG"
"$HR_CLI" precompile -f pctest --output "$T/o" -t gfx90a -t gfx1030 --progress always > "$T/out" 2> "$T/err"
ok $? "no-op run succeeds"
grep_ok "no-op run: all up to date" '^0 built, 2 up to date, 0 skipped, 0 failed' "$T/out"
[ ! -s "$PC_LOG" ]
ok $? "no-op run spawned no compiler"
[ -s "$PC_LOG" ] && sed 's/^/#   /' "$PC_LOG"
grep_ok "--progress always draws a bar on stderr" '\[#+\] 2/2' "$T/err"
# A newer target this compiler cannot build (gfx942 for Debian 12's ROCm 5.2,
# gfx950 for Debian 13's 5.7, ...), from the buildable list info reports.
new=$("$HR_CLI" info --json 2>/dev/null | "$PYTHON3" -c '
import json, sys
b = [t for t in json.load(sys.stdin)["toolchains"] if t["kind"] == "hipcc"][0]["buildable"]
print(next(t for t in ("gfx942", "gfx950", "gfx1201", "gfx1250") if t not in b))' 2>/dev/null)
new=${new:-gfx942}
exit_is 0 "precompile --json" PC --output "$T/o" -t gfx90a -t "$new" --json
"$PYTHON3" -c '
import json, sys
v = json.load(open(sys.argv[1]))
r = {x["target"]: x for x in v["results"]}
new = sys.argv[2]
assert v["up_to_date"] == 1 and v["skipped"] == 1 and v["failed"] == 0 and v["dir"], v
assert r["gfx90a"]["status"] == "up-to-date" and r["gfx90a"]["size"] > 0, r
assert r[new]["status"] == "skipped" and "ROCm" in r[new]["reason"], r
' "$T/out" "$new"
ok $? "--json: one object per pair with status, reason, size; counts and dir" || sed 's/^/# /' "$T/out"

exit_is 0 "a target the compiler cannot build is skipped, not failed" PC --output "$T/o" -t gfx90a -t "$new"
grep_ok "$new skipped with the ROCm version that adds it" "^$new .*skipped \\(.*ROCm" "$T/out"
[ ! -s "$T/err" ]
ok $? "--progress never: nothing on stderr"
[ "$(pc_compiles "$new")" -eq 0 ]
ok $? "nothing compiled for $new"

# NVIDIA targets go to nvcc: missing -> skipped; present -> a real cubin.
exit_is 0 "a missing compiler is not a failure" PC --output "$T/o" -t sm_90
grep_ok "sm_90 skipped: nvcc not found" '^sm_90 .*skipped \(.*no-nvcc not found\)' "$T/out"
if [ -n "$NVCC" ] && [ -x "$NVCC" ]; then
	sed "s#^nvcc = .*#nvcc = $NVCC#" "$T/hr.conf" > "$T/nv.conf"
	HANZO_ROCM_CONF="$T/nv.conf" exit_is 0 "sm_90 built with nvcc" PC --output "$T/nv" -t sm_90
	"$PC_HELPER" verify "$T/nv" > "$T/verify" 2>&1
	grep_ok "the cubin entry reads back valid (EM_CUDA, sm_90)" '^ok sm_90/pctest.hrco nvcc' "$T/verify"
else
	skip 2 "nvcc not found"
fi

exit_is 0 "--force rebuilds" PC --output "$T/o" -t gfx90a --force
grep_ok "forced entry built" '^1 built, 0 up to date' "$T/out"
[ "$(pc_compiles gfx90a)" -eq 1 ]
ok $? "--force spawned one compile"

# An entry from another compiler identity is rebuilt, the others are kept.
id_before=$("$PC_HELPER" compiler "$T/o/gfx90a/pctest.hrco")
"$PC_HELPER" reidentify "$T/o/gfx1030/pctest.hrco" "othercc 0.1"
: > "$PC_LOG"
exit_is 0 "entries of another compiler: precompile succeeds" PC --output "$T/o" -t gfx90a -t gfx1030
grep_ok "the foreign entry is rebuilt" '^gfx1030 .* built$' "$T/out"
grep_ok "ours is up to date" '^gfx90a .* up-to-date$' "$T/out"
[ "$(pc_compiles gfx1030)" -eq 1 ] && [ "$(pc_compiles gfx90a)" -eq 0 ]
ok $? "only the foreign entry was compiled"
[ "$("$PC_HELPER" compiler "$T/o/gfx1030/pctest.hrco")" = "$id_before" ]
ok $? "rebuilt entry carries this compiler's identity ($id_before)"

# Compile failure: exit 1, diagnostics shown indented, nothing published.
PC_FAIL=1 exit_is 1 "a failing compile exits 1" PC --output "$T/fail" -t gfx90a
grep_ok "row says failed" '^gfx90a .*failed' "$T/out"
grep_ok "compiler diagnostics are shown, indented" '^    .*error: injected failure' "$T/out"
grep_ok "summary counts the failure" '0 built, 0 up to date, 0 skipped, 1 failed' "$T/out"
[ ! -e "$T/fail/gfx90a/pctest.hrco" ]
ok $? "no entry published for a failed compile"
n=$(find "$T/fail" -name '*.lock' | wc -l)
[ "$n" -eq 0 ]; ok $? "nor its lock file left behind ($n)"
PC_FAIL=1 exit_is 1 "a failing compile into the system tier exits 1" PC --system -t gfx90a -t gfx1030
n=$(find "$T/system" -name '*.lock' -o -name '*.hrco*' | wc -l)
[ "$n" -eq 0 ]; ok $? "and leaves no entry and no lock file in it ($n)"

# A read-only tier that already has the entries: --system builds nothing.
mkdir -p "$T/site" && cp -R "$T/o/gfx90a" "$T/o/gfx1030" "$T/site/"
: > "$PC_LOG"
exit_is 0 "--system with a site tier holding the entries" PC --system -t gfx90a -t gfx1030
grep_ok "reported as provided by the site tier" "^gfx90a .*provided by $T/site\$" "$T/out"
[ ! -s "$PC_LOG" ] && [ ! -e "$T/system/gfx90a/pctest.hrco" ]
ok $? "nothing compiled, nothing written to the system tier"

# Usage and configuration errors exit 2.
exit_is 2 "two destinations" PC --system --output "$T/x"
exit_is 2 "invalid target" PC --output "$T/x" -t 'gfx90a/../x'
exit_is 2 "unknown family" "$HR_CLI" precompile --output "$T/x" -f nosuchfamily -t gfx90a
grep_ok "unknown family is named" 'nosuchfamily' "$T/err"
exit_is 2 "bad -j" PC --output "$T/x" -j many
exit_is 2 "bad --progress" PC --output "$T/x" --progress sometimes
: > "$T/afile"
exit_is 1 "destination that is a file" PC --output "$T/afile" -t gfx90a
grep_ok "error names the destination" "$T/afile" "$T/err"

# --user under a HOME that does not exist grows no tree there.
HOME="$T/no-such-home" HANZO_ROCM_CACHE_DIR= exit_is 2 "--user with a missing HOME is refused" PC --user -t gfx90a
[ ! -e "$T/no-such-home" ]
ok $? "nothing was created under the missing HOME"
done_testing
