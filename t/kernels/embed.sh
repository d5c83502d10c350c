#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# plugins/hr-embed: inlines quoted includes recursively (and nothing else),
# writes the kernel table and flags, and refuses bad input with FILE:LINE.
. "$top_srcdir/t/tap.sh"

EMBED="$top_builddir/plugins/hanzo-rocm-embed"
[ -x "$EMBED" ] || skip_all "plugins/hanzo-rocm-embed not built"

mkdir -p "$T/k/sub"
cd "$T/k" || exit 99
printf '#include <stdint.h>\n#include "sub/b.h"\nextern "C" __global__ void k_f32(float *o) { *o = B + C; }\n' >a.hip
printf '#ifndef B_H\n#define B_H\n#include "c.h"\n#define B 1\n#endif\n' >sub/b.h
printf '#define C 2 /* from c.h */\n' >sub/c.h
printf '# comment\n\n@flag -DFOO=1\nk_f32\tfloat *o\n' >a.list
printf '%s\n' 'k_f64   double *o, const char *q = "a\b"' >>a.list

# The byte array of a generated file, back as text.
decode() {
	sed -n '/hr_source\[\] = {/,/^};/p' "$1" | tr -c '0-9a-fx\n' ' ' |
		tr ' ' '\n' | sed -n 's/^0x\(..\)$/\1/p' | grep -v '^00$' |
		while read -r b; do printf "\\$(printf %o "0x$b")"; done
}

exit_is 0 "embeds a family" "$EMBED" -o out.c fam a.hip a.list
decode out.c >src.hip
grep_ok "nested include (relative to its includer) is inlined" '^#define C 2 /\* from c.h \*/$' src.hip
grep_ok "system include is left alone" '^#include <stdint.h>$' src.hip
! grep -q '#include "' src.hip
ok $? "no quoted include is left"
grep_ok "#line marks the inlined header" '^#line 1 "sub/b.h"$' src.hip
grep_ok "#line resumes the includer" '^#line 3 "a.hip"$' src.hip
grep_ok "kernel table" '\{ "k_f32", "float \*o" \},' out.c
grep_ok "signature is escaped" '\{ "k_f64", "double \*o, const char \*q = \\"a\\\\b\\"" \},' out.c
grep_ok "flags come from @flag" '"-DFOO=1",' out.c
grep_ok "family name" '\.family = "fam",' out.c
grep_ok "host entry point per kernel" '^HR_HOST_ENTRY\(k_f64\)$' src.hip
grep_ok "  ... only in the host build" '^#ifdef HR_HOST$' src.hip
! grep -q '/k/' out.c
ok $? "output does not depend on the build directory"

printf '#include "b.h"\n' >cyc.hip; printf '#include "cyc.hip"\n' >b.h
exit_is 1 "include cycle is an error" "$EMBED" -o bad.c fam cyc.hip a.list
grep_ok "  ... naming the cycle" 'include cycle' "$T/err"
printf 'x\n#include "../etc/passwd"\n' >up.hip
exit_is 1 "include with .. is refused" "$EMBED" -o bad.c fam up.hip a.list
grep_ok "  ... with FILE:LINE" 'up.hip:2: refusing' "$T/err"
printf '#include "nope.h"\n' >miss.hip
exit_is 1 "missing include is an error" "$EMBED" -o bad.c fam miss.hip a.list
grep_ok "  ... naming the file" 'nope.h' "$T/err"
printf 'k_a x\nk_a y\n' >dup.list
exit_is 1 "duplicate kernel is an error" "$EMBED" -o bad.c fam a.hip dup.list
grep_ok "  ... with FILE:LINE" 'dup.list:2: duplicate kernel' "$T/err"
printf '1abc x\n' >name.list
exit_is 1 "invalid kernel name is an error" "$EMBED" -o bad.c fam a.hip name.list
printf '# nothing\n' >empty.list
exit_is 1 "a list without kernels is an error" "$EMBED" -o bad.c fam a.hip empty.list
# The op call's metadata names arguments the kernels have.
printf '#@bind k_* o=dst\n#@null k_* o\n#@arg k_f32 o the output\nk_f32\tfloat *o, int n\n' >bind.list
exit_is 0 "#@bind, #@null, #@arg naming a kernel's arguments embed" "$EMBED" -o b.c fam a.hip bind.list
printf '#@bind k_* nosuch=cols\nk_f32\tfloat *o, int n\n' >bind.list
exit_is 1 "a #@bind of an argument no kernel has is an error" "$EMBED" -o bad.c fam a.hip bind.list
grep_ok "  ... naming it" 'nosuch is not an argument' "$T/err"
printf '#@null k_* n\nk_f32\tfloat *o, int n\n' >bind.list
exit_is 1 "a #@null of a non-pointer is an error" "$EMBED" -o bad.c fam a.hip bind.list
printf '#@bind k_* o=sideways\nk_f32\tfloat *o, int n\n' >bind.list
exit_is 1 "a #@bind to an unknown source is an error" "$EMBED" -o bad.c fam a.hip bind.list
printf '#@check k_* rows=n*m\nk_f32\tfloat *o, int n\n' >bind.list
exit_is 1 "a #@check naming an argument the kernel lacks is an error" "$EMBED" -o bad.c fam a.hip bind.list
# A pre-pass (#@pre): its passes are kernels of the list with the workspace argument.
pre='#@pre k_* pre_q main_*_# arg=w batch=2 ws=36/32 elem=4 align=32 direct=64 form=p direct_form=d'
sigs='k_f32\tfloat *o, int n\npre_q\tconst float *x, void *w, int n\nmain_f32_1\tvoid *w, float *o\n'
printf "%s\n$sigs"'main_f32_2\tvoid *w, float *o\n' "$pre" >pre.list
exit_is 0 "a #@pre whose passes are kernels embeds" "$EMBED" -o b.c fam a.hip pre.list
printf "%s\n$sigs" "$pre" >pre.list
exit_is 1 "a #@pre whose main pass for 2 columns is missing is an error" "$EMBED" -o bad.c fam a.hip pre.list
grep_ok "  ... naming it" 'main pass main_f32_2 of k_f32 \(2 columns\)' "$T/err"
printf "%s\n$sigs"'main_f32_2\tfloat *o\n' "$pre" >pre.list
exit_is 1 "a #@pre whose main pass lacks the workspace argument is an error" "$EMBED" -o bad.c fam a.hip pre.list
for bad in 'main_*_ arg=w batch=2 ws=36/32 elem=4 form=p' 'main_*_# batch=2 ws=36/32 elem=4 form=p' \
	'main_*_# arg=w batch=65 ws=36/32 elem=4 form=p' 'main_*_# arg=w batch=2 ws=36 elem=4 form=p' \
	'main_*_# arg=w batch=2 ws=36/32 elem=4 form=p direct=64' 'main_*_# arg=w batch=2 ws=36/32 elem=4 form=p nosuch=1'; do
	printf '#@pre k_* pre_q %s\n'"$sigs"'main_f32_2\tvoid *w, float *o\n' "$bad" >pre.list
	exit_is 1 "a malformed #@pre is an error: $bad" "$EMBED" -o bad.c fam a.hip pre.list
done
# Several launches (#@passes): the argument is one of the kernel's, N 2..64.
printf '#@passes k_* pass 4\nk_f32\tfloat *o, int n, int pass\n' >passes.list
exit_is 0 "a #@passes naming an argument embeds" "$EMBED" -o b.c fam a.hip passes.list
for bad in 'k_* nosuch 4' 'k_* pass 1' 'k_* pass 65' 'k_* pass' 'k_* pass 4 5'; do
	printf '#@passes %s\nk_f32\tfloat *o, int n, int pass\n' "$bad" >passes.list
	exit_is 1 "a bad #@passes is an error: $bad" "$EMBED" -o bad.c fam a.hip passes.list
done
exit_is 1 "invalid family name is an error (the one name grammar: no dot)" "$EMBED" -o bad.c bad.name a.hip a.list
[ ! -e bad.c ] && [ ! -e bad.c.tmp ]
ok $? "no output is left behind on failure"

# The installed SDK tool (doc/DESIGN.md §6): --version, --help, a literal
# version (no macro the plugin's build must define), -I, and the list and
# source agreeing.
exit_is 0 "--version exits 0" "$EMBED" --version
grep_ok "  ... naming the tool and the plugin ABI" '^hanzo-rocm-embed [0-9.]+ \(plugin ABI 1\)$' "$T/out"
exit_is 0 "--help exits 0" "$EMBED" --help
grep_ok "  ... describing --check-cxx" 'check-cxx' "$T/out"
exit_is 2 "no arguments is a usage error" "$EMBED"
! grep -q PACKAGE_VERSION out.c
ok $? "the output needs no PACKAGE_VERSION"
grep_ok "the default version is 0" '\.version = "0",' out.c
exit_is 0 "--plugin-version sets it" "$EMBED" --plugin-version 2.3-x -o v.c fam a.hip a.list
grep_ok "  ... as a literal" '\.version = "2\.3-x",' v.c
mkdir -p inc
printf '#define FROM_I 7\n' >inc/only-here.h
printf '#include "only-here.h"\nextern "C" __global__ void k_f32(float *o) { *o = FROM_I; }\n' >i.hip
exit_is 1 "a quoted include found nowhere is an error" "$EMBED" -o i.c fam i.hip a.list
exit_is 0 "-I DIR is searched after the includer's directory" "$EMBED" -I inc -o i.c fam i.hip a.list
printf 'extern "C" __global__ void k_f32(float *o) { *o = 1; }\nextern "C" __global__ void\nk_extra(float *o) { *o = 2; }\n' >more.hip
exit_is 1 "a kernel the source defines and the list lacks is refused" "$EMBED" -o bad.c fam more.hip a.list
grep_ok "  ... naming it" 'kernel "k_extra" is defined by the source but not in the list' "$T/err"
printf '#define K(n) extern "C" __global__ void n(float *o) { *o = 1; }\nK(k_f32)\ntemplate <int N> __global__ void t(float *o) { }\n' >mac.hip
printf 'k_f32 float *o\n' >one.list
exit_is 0 "kernels made by a macro, and templates, are not taken for unlisted ones" "$EMBED" -o mac.c fam mac.hip one.list
CXX_=${CXX:-c++}
if command -v "$CXX_" >/dev/null 2>&1; then
	printf '#include "hr-kernel.h"\nextern "C" __global__ void k_f32(float *o) { o[threadIdx.x] = 1.0f; }\n' >h.hip
	exit_is 0 "--check-cxx accepts a list the source defines" \
		"$EMBED" -I "$top_srcdir/kernels" --check-cxx "$CXX_" -o h.c fam h.hip one.list
	printf 'k_f32 float *o\nk_missing float *o\n' >two.list
	exit_is 1 "--check-cxx refuses a listed kernel the source lacks (no host entry)" \
		"$EMBED" -I "$top_srcdir/kernels" --check-cxx "$CXX_" -o bad.c fam h.hip two.list
	grep_ok "  ... saying why" 'does not compile for the host backend' "$T/err"
	[ ! -e bad.c ]
	ok $? "  ... and writes no plugin source"
else
	skip 4 "no C++ compiler"
fi

done_testing
