#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The binary, cast and ternary tables are complete per KERNELS.md: every op
# for every dtype, the full 7x7 cast matrix, where_<I>_<T> for every ids
# dtype, each with the fixed kernel ABI (numel, num_dims, hr_layout by
# value, inputs, output) - the table is what precompile, the selftest and
# callers go by, so a dropped line would silently drop a kernel.
. "$top_srcdir/t/tap.sh"

K="$top_srcdir/kernels"
DT="f32 f64 f16 bf16 u8 u32 i64"
ctype() {
	case $1 in
	f32) echo float ;; f64) echo double ;; f16) echo hr_f16 ;; bf16) echo hr_bf16 ;;
	u8) echo uint8_t ;; u32) echo uint32_t ;; i64) echo int64_t ;;
	esac
}
L='size_t numel, size_t num_dims, hr_layout info'

# expected FAMILY: the table as it must be, name<TAB>signature, sorted
expected() {
	case $1 in
	binary)
		for t in $DT; do
			c=$(ctype $t)
			for op in badd bsub bmul bdiv bmaximum bminimum; do
				printf '%s_%s\t%s, const %s *lhs, const %s *rhs, %s *out\n' $op $t "$L" $c $c $c
			done
			for op in eq ne lt le gt ge; do
				printf '%s_%s\t%s, const %s *lhs, const %s *rhs, uint8_t *out\n' $op $t "$L" $c $c
			done
		done
		for t in f32 f64 f16 bf16; do
			c=$(ctype $t)
			printf 'silu_mul_%s\t%s, const %s *lhs, const %s *rhs, %s *out\n' $t "$L" $c $c $c
		done ;;
	cast)
		for s in $DT; do
			for d in $DT; do
				printf 'cast_%s_%s\t%s, const %s *inp, %s *out\n' $s $d "$L" $(ctype $s) $(ctype $d)
			done
		done ;;
	ternary)
		for i in u8 u32 i64; do
			for t in $DT; do
				c=$(ctype $t)
				printf 'where_%s_%s\t%s, const %s *ids, const %s *t, const %s *f, %s *out\n' \
					$i $t "$L" $(ctype $i) $c $c $c
			done
		done ;;
	esac | LC_ALL=C sort
}

for fam in binary cast ternary; do
	expected $fam >"$T/$fam.want"
	grep -v -e '^#' -e '^@' -e '^[[:space:]]*$' "$K/$fam.list" | LC_ALL=C sort >"$T/$fam.got"
	cmp -s "$T/$fam.want" "$T/$fam.got"
	ok $? "$fam.list: $(wc -l <"$T/$fam.want") kernels, names and signatures as specified"
	diff "$T/$fam.want" "$T/$fam.got" | grep '^[<>]' | head -5 | sed 's/^/# /'
done

done_testing
