#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# `hanzo-rocm info` with the visible-devices variables (lib/devices/visible.c)
# on a KFD tree of three mixed GPUs: the devices HIP would see, in HIP's
# order, each with its KFD node, and the variables applied.
. "$top_srcdir/t/tap.sh"

root="$T/root"
node() { # node ID GFX_TARGET_VERSION UNIQUE_ID NAME
	d="$root/sys/class/kfd/kfd/topology/nodes/$1"
	mkdir -p "$d"
	printf 'simd_count %s\ngfx_target_version %s\nunique_id %s\n' \
		"$([ "$2" = 0 ] && echo 0 || echo 416)" "$2" "$3" >"$d/properties"
	echo "$4" >"$d/name"
}
node 0 0 0 cpu
node 1 90010 4369 mi210      # unique_id 0x1111
node 2 90402 8738 mi300x     # 0x2222
node 3 110000 13107 w7900    # 0x3333
unset ROCR_VISIBLE_DEVICES GPU_DEVICE_ORDINAL HIP_VISIBLE_DEVICES CUDA_VISIBLE_DEVICES

exit_is 0 "info, no variable" "$HR_CLI" --root "$root" info
grep_ok "device 0 is KFD node 1" "^ *0 +amd +gfx90a.* mi210 +\[KFD node 1\]" "$T/out"
! grep -q "AMD devices visible" "$T/out"
ok $? "no variable: no visible-devices lines"

ROCR_VISIBLE_DEVICES=GPU-3333,1,0 HIP_VISIBLE_DEVICES=1,0 \
	exit_is 0 "info, ROCR_VISIBLE_DEVICES=GPU-3333,1,0 HIP_VISIBLE_DEVICES=1,0" \
	"$HR_CLI" --root "$root" info
grep_ok "device 0 is HIP's 0: node 2 (gfx942)" "^ *0 +amd +gfx942.* mi300x +\[KFD node 2\]" "$T/out"
grep_ok "device 1 is node 3 (gfx1100)" "^ *1 +amd +gfx1100 +w7900 +\[KFD node 3\]" "$T/out"
grep_ok "the summary" "AMD devices visible: 2 of 3 KFD GPUs" "$T/out"
grep_ok "the ROCr level" "ROCR_VISIBLE_DEVICES=GPU-3333,1,0: 3 of 3 kept$" "$T/out"
grep_ok "the HIP level" "HIP_VISIBLE_DEVICES=1,0: 2 of 3 kept$" "$T/out"
[ "$(grep -cE '^ *[0-9] +amd' "$T/out")" = 2 ]
ok $? "two AMD devices: node 1 hidden"

CUDA_VISIBLE_DEVICES=2,junk exit_is 0 "info --json, CUDA_VISIBLE_DEVICES=2,junk" \
	"$HR_CLI" --root "$root" info --json
if [ -z "$PYTHON3" ]; then
	skip 1 "no python3 to read JSON"
else
	cp "$T/out" "$T/info.json"
	"$PYTHON3" - "$T/info.json" >"$T/py" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
amd = [x for x in d["devices"] if x["platform"] == "amd"]
assert [(x["index"], x["kfd_node"], x["hip_ordinal"]) for x in amd] == [(0, 3, 0)], amd
v = d["visible_devices"]
assert v == [{"variable": "CUDA_VISIBLE_DEVICES", "value": "2,junk", "before": 3,
              "after": 1, "ended": True}], v
PY
	ok $? "JSON: kfd_node and hip_ordinal per AMD device, visible_devices record"
	[ -s "$T/py" ] && sed 's/^/# /' "$T/py"
fi
done_testing
