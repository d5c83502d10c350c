#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# examples/rows (the operation calls only: hanzo_rocm_op_workspace and
# hanzo_rocm_op_run) on both host targets: softmax, rmsnorm, layernorm and
# a row sum match float64 at 37 x 5125 (the one-pass form, no workspace)
# and 1 x 40000 (few long rows: the split form and its workspace, one byte
# short refused before anything runs).
. "$top_srcdir/t/tap.sh"

command -v c++ >/dev/null 2>&1 || skip_all "no C++ compiler"
ex="$top_builddir/examples/rows"
[ -x "$ex" ] || skip_all "examples/rows not built"
export HANZO_ROCM_PLUGIN_PATH="$HR_PLUGINS"
export HANZO_ROCM_CONF="$T/hanzo-rocm.conf"
# The suite's host cache (t/backend/local.mk) as a read-only site tier.
printf '[cache]\nuser_dir = %s/cache\nsystem_dir = %s/system\nsite_dirs = %s\n' "$T" "$T" "$HR_HOST_CACHE" \
	>"$HANZO_ROCM_CONF"

for host in host-w64 host-w32; do
	exit_is 0 "examples/rows on $host" env HANZO_ROCM_HOST=$host "$ex"
	for k in softmax_f32 rmsnorm_f32 layernorm_f32 fast_sum_f32; do
		grep_ok "  ... $k 37 x 5125: one-pass, matches float64" "^$k 37 x 5125: workspace 0 bytes, max error .*: OK$" "$T/out"
		grep_ok "  ... $k 1 x 40000: split, matches float64" "^$k 1 x 40000: workspace [1-9][0-9]* bytes, max error .*: OK$" "$T/out"
		grep_ok "  ... $k: a workspace one byte short is refused" "^$k 1 x 40000: workspace of [0-9]+ - 1 bytes: refused$" "$T/out"
	done
done
done_testing
