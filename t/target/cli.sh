#!/bin/sh
# `hanzo-rocm info`: the devices and toolchains sections, on fixture KFD trees.
. "$top_srcdir/t/tap.sh"

root="$top_srcdir/t/fixtures/kfd/two-gpus"

exit_is 0 "info on two-gpus" "$HR_CLI" --root "$root" info
grep_ok "text: gfx90a device with its features and name" "^ *0 +amd +gfx90a:sramecc\+ +aldebaran" "$T/out"
grep_ok "text: gfx1030 device" "^ *1 +amd +gfx1030 +navi21" "$T/out"

exit_is 0 "info --json on two-gpus" "$HR_CLI" --root "$root" info --json
if [ -z "$PYTHON3" ]; then
	skip 2 "no python3 to read JSON"
else
	cp "$T/out" "$T/info.json"
	"$PYTHON3" - "$T/info.json" >"$T/py" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
amd = [x for x in d["devices"] if x["platform"] == "amd"]
assert [x["index"] for x in amd] == [0, 1], amd
assert amd[0]["target"] == "gfx90a:sramecc+" and amd[0]["detected"] == "gfx90a:sramecc+", amd[0]
assert amd[0]["name"] == "aldebaran", amd[0]
assert amd[1]["target"] == "gfx1030" and amd[1]["name"] == "navi21", amd[1]
for t in d["toolchains"]:
    assert set(t) >= {"kind", "path", "version", "identity", "buildable", "skipped"}, t
PY
	ok $? "JSON: devices [{index, platform, target, detected, name}] and toolchain keys"
	[ -s "$T/py" ] && sed 's/^/# /' "$T/py"

	HSA_OVERRIDE_GFX_VERSION=10.3.0 HANZO_ROCM_TARGETS=gfx942,gfx90a \
		"$HR_CLI" --root "$root" info --json >"$T/info2.json" 2>"$T/err"
	"$PYTHON3" - "$T/info2.json" "$HIPCC" >"$T/py" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
amd = [x for x in d["devices"] if x["platform"] == "amd"]
assert [x["target"] for x in amd] == ["gfx1030", "gfx1030"], amd
assert amd[0]["detected"] == "gfx90a:sramecc+", amd[0]
if sys.argv[2]:
    h = [t for t in d["toolchains"] if t["kind"] == "hipcc"]
    assert len(h) == 1, d["toolchains"]
    h = h[0]
    assert "gfx90a" in h["buildable"] and "gfx1030" in h["buildable"], h
    if "gfx942" not in h["buildable"]:
        s = {x["target"]: x["reason"] for x in h["skipped"]}
        assert "ROCm >=" in s["gfx942"], s
PY
	ok $? "JSON: HSA override applied, gfx942 skipped with the ROCm that adds it"
	[ -s "$T/py" ] && sed 's/^/# /' "$T/py"
fi

exit_is 0 "info on a garbage KFD tree still works" "$HR_CLI" --root "$top_srcdir/t/fixtures/kfd/garbage" info
grep_ok "garbage: the good node is listed" "^ *0 +amd +gfx1030" "$T/out"
done_testing
