#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The full selftest (every kernel of every family, every case: odd sizes,
# misaligned, transposed, broadcast, poisoned outputs and guards) on both
# host targets against the float64 references; in the sanitized build the
# host code objects are sanitized too.  The code objects are the suite's
# host cache (t/backend/local.mk precompiles it; here a site tier): listed
# with their compiler and verified.  A family compiled into this test's own
# tier: a corrupt entry is a miss and is rebuilt.  And the opt-in: no host
# device unless asked for.
. "$top_srcdir/t/tap.sh"

command -v c++ >/dev/null 2>&1 || skip_all "no C++ compiler"
export HANZO_ROCM_PLUGIN_PATH="$HR_PLUGINS"
export HANZO_ROCM_CONF="$T/hanzo-rocm.conf"
printf '[cache]\nuser_dir = %s/cache\nsystem_dir = %s/system\n' "$T" "$T" >"$HANZO_ROCM_CONF"

exit_is 2 "no host device unless asked for: selftest says no GPU" "$HR_CLI" selftest
exit_is 2 "an invalid HANZO_ROCM_HOST is a configuration error for config check" \
	env HANZO_ROCM_HOST=host-w16 "$HR_CLI" config check
grep_ok "  ... naming the value" "HANZO_ROCM_HOST: invalid value 'host-w16'" "$T/err"
# At run time a bad setting warns and is left out (as every variable).
exit_is 2 "  ... at run time a warning, and no host device: no GPU" \
	env HANZO_ROCM_HOST=host-w16 "$HR_CLI" selftest
grep_ok "  ... warning naming the value" "warning: HANZO_ROCM_HOST: invalid value 'host-w16'" "$T/err"

export HANZO_ROCM_HOST=host-w64,host-w32
exit_is 0 "info lists both host devices" "$HR_CLI" info --json
cp "$T/out" "$T/info.json"
"$PYTHON3" - "$T/info.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
devs = [(x["platform"], x["target"]) for x in d["devices"]]
assert devs == [("host", "host-w64"), ("host", "host-w32")], devs
cxx = [t for t in d["toolchains"] if t["kind"] == "cxx"]
assert cxx and cxx[0]["buildable"] == ["host-w32", "host-w64"], d["toolchains"]
PY
ok $? "  ... with platform host, and the C++ toolchain"

# The suite's host cache as a site tier, beside this test's own tiers.
own_conf=$HANZO_ROCM_CONF
export HANZO_ROCM_CONF="$T/site.conf"
printf '[cache]\nuser_dir = %s/cache\nsystem_dir = %s/system\nsite_dirs = %s\n' \
	"$T" "$T" "$HR_HOST_CACHE" >"$HANZO_ROCM_CONF"
start=$(date +%s)
"$HR_CLI" selftest --bench-size 12 >"$T/st.txt" 2>"$T/st.err"
rc=$?
end=$(date +%s)
ok $([ $rc -eq 0 ]; echo $?) "full selftest on host-w64 and host-w32 passes ($(tail -n 1 "$T/st.txt"), $((end - start)) s)"
[ $rc -eq 0 ] || { grep -v ' ok$' "$T/st.txt" | head -40 | sed 's/^/# /'; sed 's/^/# /' "$T/st.err" | head -20; }
for t in host-w64 host-w32; do
	n=$(sed -n "/^device [0-9]*: $t /,/^device\|cases/p" "$T/st.txt" | grep -c ' ok$')
	ok $([ "$n" -gt 1000 ]; echo $?) "  ... $t ran $n passing cases"
done

exit_is 0 "cache list shows host code objects" "$HR_CLI" cache list --json
cp "$T/out" "$T/list.json"
nfam=$(ls "$HR_PLUGINS"/*.so | wc -l)
"$PYTHON3" - "$T/list.json" "$nfam" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
rows = rows.get("entries", rows) if isinstance(rows, dict) else rows
host = [r for r in rows if str(r.get("target", "")).startswith("host-")]
assert len(host) == 2 * int(sys.argv[2]), host
assert all("++" in json.dumps(r) or "c++" in json.dumps(r) for r in host), host
PY
ok $? "  ... $nfam families x 2 targets, each with its compiler"
find "$T/cache" -type f >"$T/user-files" 2>/dev/null
! grep -q '\.hrco$' "$T/user-files"
ok $? "  ... all from the site tier: nothing compiled into the user tier" || sed 's/^/# /' "$T/user-files"
exit_is 0 "cache verify: host entries are valid" "$HR_CLI" cache verify

# This test's own tiers only, from here on.
export HANZO_ROCM_CONF="$own_conf"
exit_is 0 "selftest of affine compiles it into the user tier" \
	"$HR_CLI" selftest --family affine --bench-size 12
f="$T/cache/host-w64/affine.hrco"
[ -s "$f" ] && [ -s "$T/cache/host-w32/affine.hrco" ]
ok $? "  ... for both host targets"
size=$(wc -c <"$f")
printf 'X' | dd of="$f" bs=1 seek=$((size - 100)) conv=notrunc 2>/dev/null
exit_is 1 "a corrupt host code object: cache verify exits 1" "$HR_CLI" cache verify
exit_is 0 "  ... and is a miss that is rebuilt: selftest passes" \
	"$HR_CLI" selftest --device 0 --family affine --bench-size 12
exit_is 0 "  ... leaving a valid entry" "$HR_CLI" cache verify

unset HANZO_ROCM_HOST
exit_is 0 "selftest --device host-w32 asks for the host device itself" \
	"$HR_CLI" selftest --device host-w32 --family fill
grep_ok "  ... and runs only it" '^device 1: host-w32 ' "$T/out"
# The GPU's default of 2^24 took over 15 minutes on 2 CPUs.
grep_ok "  ... its bandwidth over 2^16 elements by default on a host device" \
	'^device 1: host-w32 \(bandwidth over 65536-element buffers\)$' "$T/out"
! grep -q 'host-w64' "$T/out"
ok $? "  ... not host-w64"
export HANZO_ROCM_HOST=host-w64,host-w32

exit_is 0 "precompile --target host-w32 is up to date" \
	"$HR_CLI" precompile --target host-w32 --family affine --progress never
grep_ok "  ... and says so" "up-to-date|up to date" "$T/out"

done_testing
