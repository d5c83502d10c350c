#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The kernel ABI: every line of the committed kernels/abi/F.abi (a stock
# kernel's name, typed arguments in order, launch kind, forms, workspace
# rule, what the op call binds to each argument and which may be NULL, what
# each argument means) is still what the plugins built from kernels/F.list say.  A changed
# or vanished line fails - a changed contract is a new kernel name (or a new
# HANZO_ROCM_KERNEL_ABI); a new kernel passes (add it: make abi-update).
. "$top_srcdir/t/tap.sh"

mkdir -p "$T/abi"
fams=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$top_srcdir/plugins/families")
# shellcheck disable=SC2086
"$top_srcdir/kernels/gen-abi.sh" "$HR_CLI" "$HR_PLUGINS" "$T/abi" $fams 2>"$T/err"
ok $? "hanzo-rocm kernels --abi for every family" || sed 's/^/# /' "$T/err"
for f in $fams; do
	want="$top_srcdir/kernels/abi/$f.abi"
	if [ ! -f "$want" ]; then
		ok 1 "$f: no committed ABI (run make abi-update)"
		continue
	fi
	# every committed line present, byte for byte (the header names the ABI version)
	grep -v -x -F -f "$T/abi/$f.abi" "$want" >"$T/gone" || true
	[ ! -s "$T/gone" ]
	ok $? "$f: every committed contract holds ($(grep -vc '^#' "$want") kernels)" ||
		sed 's/^/# changed or gone: /' "$T/gone" | head -5
done
# The check can fail: a contract changed in a scratch copy of a list is
# caught - sort's wide workspace (12 -> 4 bytes a column, as it once
# changed), what the op call binds to an argument (#@bind) and what an
# argument means (#@arg).
EMBED="$top_builddir/plugins/hanzo-rocm-embed"
if [ -x "$EMBED" ] && command -v "${CC:-cc}" >/dev/null 2>&1; then
	for change in \
		'workspace rule|s/^#@ws asort_\*_wide_\* per_col=12$/#@ws asort_*_wide_* per_col=4/' \
		'#@bind|s/^\(#@bind \* .*\) ncols_pad=pow2(cols)$/\1 ncols_pad=cols/' \
		'#@arg|s/^#@arg asort_\* ncols the row length$/#@arg asort_* ncols the row length in bytes/'
	do
		what=${change%%|*}
		rm -rf "$T/scratch"
		mkdir -p "$T/scratch/plugins"
		sed "${change#*|}" "$top_srcdir/kernels/sort.list" >"$T/scratch/sort.list"
		if cmp -s "$T/scratch/sort.list" "$top_srcdir/kernels/sort.list"; then
			ok 1 "$what: the scratch list is changed (the sed matches nothing)"
			ok 1 "  ... so the check is not tried"
			continue
		fi
		cp "$top_srcdir"/kernels/*.h "$top_srcdir/kernels/sort.hip" "$T/scratch/"
		"$EMBED" -o "$T/scratch/sort.c" sort "$T/scratch/sort.hip" "$T/scratch/sort.list" 2>"$T/err" &&
			${CC:-cc} -shared -fPIC -I"$top_srcdir/lib" -I"$top_builddir" \
				-o "$T/scratch/plugins/sort.so" "$T/scratch/sort.c" 2>>"$T/err"
		ok $? "a sort plugin with a changed $what builds" || sed 's/^/# /' "$T/err" | tail -5
		chmod 0755 "$T/scratch/plugins"
		chmod 0644 "$T/scratch/plugins/sort.so"
		"$top_srcdir/kernels/gen-abi.sh" "$HR_CLI" "$T/scratch/plugins" "$T/scratch" sort 2>"$T/err"
		grep -v -x -F -f "$T/scratch/sort.abi" "$top_srcdir/kernels/abi/sort.abi" >"$T/gone" || true
		grep -q 'asort_asc_wide_f32' "$T/gone"
		ok $? "  ... and the ABI check catches the changed $what ($(grep -vc '^#' "$T/gone") kernels)" ||
			sed 's/^/# /' "$T/err" | tail -5
	done
else
	skip 6 "no embed tool or C compiler"
fi
done_testing
