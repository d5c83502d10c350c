#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The catalogue (hanzo-rocm kernels, hanzo_rocm_catalogue_*): every kernel of
# the installed plugins, as their lists declare them; hr-embed refuses
# malformed catalogue lines; the man page hanzo-rocm-kernels(7) was made from
# the same lists.
. "$top_srcdir/t/tap.sh"

export HANZO_ROCM_PLUGIN_PATH="$HR_PLUGINS"
export HANZO_ROCM_CONF="$T/hanzo-rocm.conf"
printf '[cache]\nuser_dir = %s/cache\nsystem_dir = %s/system\n' "$T" "$T" >"$HANZO_ROCM_CONF"

# The kernel names of a list, in order.
names() { grep -v '^[#@]' "$1" | awk 'NF { print $1 }'; }

exit_is 0 "kernels --family norm" "$HR_CLI" kernels --family norm
grep -E '^norm/' "$T/out" | sed 's|^norm/\([a-z0-9_]*\)(.*|\1|' >"$T/got"
names "$top_srcdir/kernels/norm.list" >"$T/want"
cmp -s "$T/got" "$T/want"
ok $? "  ... every kernel of norm.list, in order"
grep_ok "  ... with its signature" '^norm/rmsnorm_f32\(const float \*x, float \*dst, const float \*alpha, int ncols, int block_size, float eps\)$' "$T/out"
grep_ok "  ... its forms" 'forms: one-pass, split rmsnorm_split_f32 \+ rmsnorm_apply_f32' "$T/out"
grep_ok "  ... block_size told as advisory" 'block_size is advisory and ignored' "$T/out"
grep_ok "  ... the split pass's workspace per partial (softmax f64: 16)" 'form: split pass of softmax_f64; workspace 16 bytes' "$T/out"
exit_is 0 "kernels --family sort" "$HR_CLI" kernels --family sort
grep_ok "  ... the shared-memory sort names its wide form (multi-block)" 'forms: shared memory, wide asort_desc_multi_bf16 for longer rows' "$T/out"
grep_ok "  ... whose workspace is 16 bytes a padded column" 'form: wide form of asort_asc_u8; workspace 16 bytes x rows x padded cols' "$T/out"
grep_ok "  ... and its launches (#@passes)" 'note: .*hanzo_rocm_op_run launches it 8 times, pass 0 \.\. 7' "$T/out"
grep_ok "  ... f64 keeps the one-block wide form" 'forms: shared memory, wide asort_asc_wide_f64 for longer rows' "$T/out"
grep_ok "  ... a one-block wide kernel no op takes still tells its workspace" '^  workspace: 12 bytes x rows x padded cols' "$T/out"

exit_is 0 "kernels --family attention" "$HR_CLI" kernels --family attention
grep_ok "  ... documents the varlen LSE layout (#@arg)" '^  arg lse: \(may be NULL\) f32 \[total_q, num_heads\] \(token-major' "$T/out"
grep_ok "  ... and bottom-right causal alignment" '^  arg causal: .*aligned bottom-right' "$T/out"
grep_ok "  ... the combine serves every head dim" '^  note: the second pass of every paged_attention_dD_T split-K decode, any head dim' "$T/out"
grep_ok "  ... and negative slots" '^  arg slot_mapping: .*a negative slot \(padding\).* is skipped' "$T/out"
exit_is 0 "kernels --json" "$HR_CLI" kernels --json
cp "$T/out" "$T/all.json"
grep_ok "  ... carries the kernel ABI version" '^\{"abi":2,"kernels":' "$T/all.json"
grep_ok "  ... and each argument's doc and may_be_null" '"name":"alibi_slopes","bytes":8,"doc":"f32 \[num_heads\] or NULL[^"]*","may_be_null":true' "$T/all.json"
n=$(grep -o '"name":"[A-Za-z0-9_]*","signature"' "$T/all.json" | wc -l)
want=0
for f in $(sed -e "s/#.*//" "$top_srcdir/plugins/families"); do
	want=$((want + $(names "$top_srcdir/kernels/$f.list" | wc -l)))
done
[ "$n" -eq "$want" ]
ok $? "  ... every kernel of every family ($n of $want)"
grep_ok "  ... typed arguments, with what the op call binds to them" '"args":\[\{"type":"size_t","name":"src_numel","bytes":8,"doc":null,"may_be_null":false,"bind":"rows\*cols"\},\{"type":"size_t","name":"el_to_sum_per_block","bytes":8,"doc":null,"may_be_null":false,"bind":"cols"\},\{"type":"size_t","name":"num_dims","bytes":8,"doc":null,"may_be_null":false,"bind":"zero"\},\{"type":"hr_layout","name":"info","bytes":256,"doc":null,"may_be_null":false,"bind":"zero"\}' "$T/all.json"
grep_ok "  ... the finish pass of a reduction, work rows x 1" '"name":"fast_argmax_finish_bf16".*"launch":"elementwise","rows":"rows \(one thread a row\)","cols":"1","form":"second","op":"fast_argmax_bf16"' "$T/all.json"
grep_ok "  ... argmax's workspace per partial (bf16: 8)" '"name":"fast_argmax_split_bf16".*"form":"split","op":"fast_argmax_bf16","split":null,"second":null,"ws_per_partial":8' "$T/all.json"
if command -v python3 >/dev/null 2>&1; then
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$T/all.json"
	ok $? "  ... valid JSON"
else
	skip 1 "no python3 to parse the JSON"
fi
exit_is 2 "an unknown family is a usage error" "$HR_CLI" kernels --family nope
grep_ok "  ... naming it" "no family 'nope'" "$T/err"
[ ! -s "$T/out" ]
ok $? "  ... nothing on stdout"

# hr-embed validates the catalogue lines as it does #@launch.
EMBED="$top_builddir/plugins/hanzo-rocm-embed"
mkdir -p "$T/e" && cd "$T/e" || exit 99
printf 'extern "C" __global__ void k_f32(float *o) { }\n' >a.hip
base='#@launch k_split_* rows-split block=256\n#@launch k_fin_* elementwise\n#@launch * rows block=256\nk_f32\tfloat *o\nk_split_f32\tfloat *o, void *ws\nk_fin_f32\tfloat *o, const void *ws, int splits\n'
printf "$base"'#@forms k_* k_split_* k_fin_*\n#@ws k_split_* per_partial=4\n#@work k_* rows | cols\n#@note k_f32 a note\n' >good.list
exit_is 0 "hr-embed takes well-formed catalogue lines" "$EMBED" -o good.c fam a.hip good.list
grep_ok "  ... and embeds them" '\.catalogue = hr_catalogue,' good.c
bad() { # bad DESCRIPTION LINES WHY
	printf "$base$2" >bad.list
	exit_is 1 "hr-embed refuses $1" "$EMBED" -o bad.c fam a.hip bad.list
	grep_ok "  ... saying why" "$3" "$T/err"
}
bad "a #@ws line on a kernel that is not rows-split" '#@ws k_f32 per_partial=4\n' 'not rows-split'
bad "a #@ws size out of range" '#@ws k_split_* per_partial=0\n' 'per_partial: want 1'
bad "a split form without a #@ws line" '#@forms k_* k_split_* k_fin_*\n' 'needs a rows-split #@launch and a #@ws line'
bad "a #@forms line no kernel has both forms of" '#@forms x_* x_split_* x_fin_*\n#@ws k_split_* per_partial=4\n' 'matches no kernel that has both forms'
bad "a #@forms pattern with two stars" '#@forms k_*_* k_split_* k_fin_*\n' 'bad.list:7: want .#@forms PATTERN SPLIT SECOND'
bad "a #@work line without two texts" '#@work k_f32 rows only\n' 'want .#@work PATTERN ROWS \| COLS'
bad "a wide form without a per_col #@ws line" '#@wide k_* k_split_*\n' "wide form k_split_f32 of k_f32 needs a '#@ws ... per_col=' line"
bad "a #@note that matches no kernel" '#@note zz_* text\n' 'matches no kernel'

# A plugin's catalogue is read with real line numbers: a hand-made plugin
# (the embed tool refuses it) whose third metadata line is over-long.
if command -v "${CC:-cc}" >/dev/null 2>&1; then
	long=$(head -c 700 /dev/zero | tr '\0' x)
	awk -v long="$long" '
	/^static const char hr_catalogue\[\] = \{/ {
		print "static const char hr_catalogue[] = \"#@note * one\\n#@note * two\\n#@note * " long "\\n\";"
		skip = 1; next
	}
	skip && /^};/ { skip = 0; next }
	!skip' good.c >long.c
	mkdir -p "$T/e/long" && chmod 0755 "$T/e/long"
	${CC:-cc} -shared -fPIC -I"$top_srcdir/lib" -I"$top_builddir" -o "$T/e/long/fam.so" long.c \
		2>"$T/err" && chmod 0644 "$T/e/long/fam.so"
	ok $? "a plugin with an over-long third catalogue line builds" || sed 's/^/# /' "$T/err" | tail -3
	exit_is 1 "  ... kernels refuses its catalogue" env HANZO_ROCM_PLUGIN_PATH="$T/e/long" \
		"$HR_CLI" kernels --family fam
	grep_ok "  ... naming the line" "catalogue metadata line 3: line longer than 512 bytes" "$T/err"
else
	skip 3 "no C compiler"
fi

# The catalogue of a family of 4000 kernels is read once per family, not
# once per kernel (that took 10.8 s): under a limit of 5 CPU seconds
# (it takes about 0.1), every kernel is listed.
if command -v "${CC:-cc}" >/dev/null 2>&1; then
	{
		echo '#include "hr-kernel.h"'
		i=0
		while [ $i -lt 4000 ]; do
			i=$((i + 1))
			printf 'HR_KERNEL void scale_%d_f32(const float *src, float *dst, size_t n, float gain)\n{ (void)src; (void)dst; (void)n; (void)gain; }\n' $i
		done
	} >big.hip
	{
		printf '#@launch * rows grid=exact block=64\n#@work * rows | n, the row length\n'
		printf '#@bind * src=src dst=dst n=cols\n#@arg * gain the factor\n'
		i=0
		while [ $i -lt 4000 ]; do
			i=$((i + 1))
			printf 'scale_%d_f32\tconst float *src, float *dst, size_t n, float gain\n' $i
		done
	} >big.list
	cp "$top_srcdir"/kernels/*.h .
	mkdir -p "$T/e/big" && chmod 0755 "$T/e/big"
	"$EMBED" -o big.c big big.hip big.list 2>"$T/err" &&
		${CC:-cc} -shared -fPIC -I"$top_srcdir/lib" -I"$top_builddir" -o "$T/e/big/big.so" big.c \
			2>>"$T/err" && chmod 0644 "$T/e/big/big.so"
	ok $? "a family of 4000 kernels builds" || sed 's/^/# /' "$T/err" | tail -3
	(ulimit -t 5 && HANZO_ROCM_PLUGIN_PATH="$T/e/big" "$HR_CLI" kernels --family big --json) \
		>big.json 2>"$T/err"
	ok $? "  ... kernels --json lists it within 5 CPU seconds" || sed 's/^/# /' "$T/err" | tail -3
	n=$(grep -o '"name":"scale_[0-9]*_f32"' big.json | wc -l)
	[ "$n" -eq 4000 ]
	ok $? "  ... all 4000 ($n)"
else
	skip 3 "no C compiler"
fi

# The man page was generated from these lists.
man="$top_builddir/doc/hanzo-rocm-kernels.7"
if [ -f "$man" ]; then
	grep_ok "hanzo-rocm-kernels(7) describes rmsnorm_f32's forms" 'rmsnorm_split_f32' "$man"
	grep_ok "  ... and a kernel of every family (conv's im2col)" 'im2col_f32' "$man"
else
	skip 2 "doc/hanzo-rocm-kernels.7 not built"
fi
done_testing
