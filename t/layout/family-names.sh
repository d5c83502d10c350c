#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# No family in lib/: what the library knows of a kernel family it reads
# from the family's plugin (its kernels/F.list lines), so a family is its
# own files and one line in plugins/families.  For every family of that
# list: its name is no C string literal of lib/ (a check like
# strcmp(family, "F")); none of its kernels' names appears in lib/'s code
# or comments (the public headers excepted: their manual pages describe the
# stock families' operations by example); and no string literal of lib/
# starts with a stem of its kernels' names ("F_stem_" + a kernel's rest,
# the way a printf builds a sibling's name; the public headers' examples
# in comments excepted).
. "$top_srcdir/t/tap.sh"
cd "$top_srcdir" || exit 99
fams=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' plugins/families)
[ -n "$fams" ]; ok $? "plugins/families lists families ($(echo $fams | wc -w))"
for f in $fams; do
	sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d' "kernels/$f.list" | awk '{ print $1 }'
done | sort -u >"$T/kernels"
[ -s "$T/kernels" ]; ok $? "the families' lists name kernels ($(wc -l <"$T/kernels"))"
src=$(find lib -path '*/.*' -prune -o -type f \( -name '*.[ch]' -o -name '*.def' \) -print | sort)

# (1) a family's name as a string literal
grep -no '"[^"]*"' $src >"$T/literals"
# the public headers' literals in comments ("e.g. \"uexp_f32\"") are examples
grep -v '^lib/hanzo-rocm\(-plugin\)\?\.h:' "$T/literals" >"$T/lit-code"
[ -s "$T/literals" ]; ok $? "lib/'s string literals found ($(wc -l <"$T/literals"))"
: >"$T/bad"
for f in $fams; do
	grep -F ":\"$f\"" "$T/literals" >>"$T/bad"      # the headers too
done
[ ! -s "$T/bad" ]; ok $? "no string literal of lib/ is a family's name" || sed 's/^/#   /' "$T/bad"

# (2) a kernel's name, whole word, outside the public headers
grep -nowF -f "$T/kernels" $(echo "$src" | grep -v '^lib/hanzo-rocm\(-plugin\)\?\.h$') >"$T/bad"
[ ! -s "$T/bad" ]; ok $? "no kernel's name appears in lib/ (but for the public headers' manual)" ||
	sed 's/^/#   /' "$T/bad"

# (3) a literal opening with the stem of a kernel's name: every prefix of a
# kernel's name that ends in '_' and is at least 5 characters long
awk '{ n = split($1, p, "_"); s = p[1]; for (i = 2; i <= n; i++) { s = s "_"; if (length(s) >= 5) print s; s = s p[i] } }' \
	"$T/kernels" | sort -u >"$T/stems"
sed -n 's/^[^:]*:[0-9]*:"\([A-Za-z0-9_]*_\).*/\1/p' "$T/lit-code" | sort -u >"$T/lit-stems"
comm -12 "$T/stems" "$T/lit-stems" >"$T/both"
: >"$T/bad"
while read -r s; do
	grep -F ":\"$s" "$T/lit-code" >>"$T/bad"
done <"$T/both"
[ ! -s "$T/bad" ]; ok $? "no string literal of lib/ starts with the stem of a kernel's name" ||
	sed 's/^/#   /' "$T/bad"
done_testing
