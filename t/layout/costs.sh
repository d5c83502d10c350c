#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The costs doc/HACKING.md states, against the tree (the backend's is
# t/layout/platform-count.sh's): adding a family, an AMD target and a
# configuration key touches the bold number of files HACKING writes, its
# list between <!-- NAME --> and <!-- /NAME --> has that many entries, and
# the tree agrees with the list - every family has each of the list's
# files of its own and the generated files name every family, no other
# source file names a family; the target's edited file is the table;
# each listed file names every configuration key and no other file does.
. "$top_srcdir/t/tap.sh"
cd "$top_srcdir" || exit 99
doc=doc/HACKING.md

# The backticked paths of one line kind ("new:", "edited:", ...) of a section.
paths() { # paths SECTION KIND
	sed -n "/<!-- $1 -->/,/<!-- \/$1 -->/p" "$doc" | tr '\n' ' ' | sed 's/;/\n/g' |
		grep -E "(^|[ >])$2:" | grep -o '`[a-zA-Z][^`]*`' | tr -d '`'
}
# The whole section's backticked paths.
section() {
	sed -n "/<!-- $1 -->/,/<!-- \/$1 -->/p" "$doc" | grep -o '`[a-zA-Z][^`]*`' | tr -d '`'
}
count() { # count PHRASE: the N of "PHRASE **N file(s)**"
	tr '\n' ' ' <"$doc" | sed -n "s/.*$1 \*\*\([0-9][0-9]*\) files\{0,1\}\*\*.*/\1/p"
}

# --- a family
fams=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' plugins/families)
want=$(count 'A family F: adding one touches')
have=$(section family-files | wc -l)
[ -n "$want" ] && [ "$want" -eq "$have" ]
ok $? "a family: HACKING's count ($want) is its list's ($have files)" || section family-files | sed 's/^/#   /'
: >"$T/bad"
for f in $fams; do
	for p in $(paths family-files new); do
		p=$(echo "$p" | sed "s/F\([./]\)/$f\1/")
		[ -d "$(dirname "$p")" ] || continue    # a tarball without that folder
		[ -e "$p" ] || echo "family $f: no $p" >>"$T/bad"
	done
done
for g in $(paths family-files regenerated); do
	[ -d "$(dirname "$g")" ] || continue    # debian/ is not in the tarball
	for f in $fams; do
		grep -qw -- "$f" "$g" || echo "$g does not name family $f" >>"$T/bad"
	done
done
[ ! -s "$T/bad" ]; ok $? "every family has the list's files, every generated file names every family" ||
	sed 's/^/#   /' "$T/bad"
# A file naming a family in code: a C/Python string "F", st_plan_F, a
# plugin name hanzo-rocm-plugin-F; the family's own files, the list's and
# the selftest driver (fill's copy kernel) may.
pat=$(echo $fams | sed 's/ /\\|/g')
(find lib common tools plugins kernels -path '*/.*' -prune -o -type f \( -name '*.[ch]' -o -name '*.hip' -o -name '*.sh' -o -name '*.py' -o -name '*.mk' -o -name '*.am' \) -print
 ls configure.ac Makefile.am rpm/*.spec* debian/rules debian/*.install 2>/dev/null) | sort -u >"$T/files"
# shellcheck disable=SC2046
grep -lw "\"\\($pat\\)\"\\|st_plan_\\($pat\\)\\|hanzo-rocm-plugin-\\($pat\\)\\b" $(cat "$T/files") 2>/dev/null |
	sort >"$T/naming"
[ -s "$T/naming" ]; ok $? "files naming a family found ($(wc -l <"$T/naming"))"
{
	for f in $fams; do
		for p in $(paths family-files new); do echo "$p" | sed "s/F\([./]\)/$f\1/"; done
		echo "kernels/$f/"
	done
	section family-files | grep -v 'F[./]'
	echo common/selftest-run.c
} | sed -e 's/\./\\./g' -e 's/^/^/' -e 's|[^/]$|&$|' >"$T/allowed"
grep -vf "$T/allowed" "$T/naming" >"$T/outside"
[ ! -s "$T/outside" ]; ok $? "no file outside HACKING's family list names a family" ||
	sed 's/^/#   names a family: /' "$T/outside"

# --- an AMD target
want=$(count 'An AMD target: adding one touches')
have=$(paths target-files edited | wc -l)
[ -n "$want" ] && [ "$want" -eq "$have" ]
ok $? "a target: HACKING's count ($want) is its edited list's ($have)" || paths target-files edited | sed 's/^/#   /'
grep -q '^HR_AMD_TARGET(' "$(paths target-files edited | head -1)"
ok $? "  ... and that file is the target table (HR_AMD_TARGET rows)"

# --- a configuration key
want=$(count 'Adding a key touches')
section config-key-files >"$T/klist"
have=$(wc -l <"$T/klist")
[ -n "$want" ] && [ "$want" -eq "$have" ]
ok $? "a config key: HACKING's count ($want) is its list's ($have files)" || sed 's/^/#   /' "$T/klist"
sed -n 's/.*{ { "\([a-z_]*\)", "\([a-z_]*\)", HR_CONFIG_[A-Z]*, AT(\([a-z_]*\)).*/\2 \3/p' \
	lib/config/keys.c >"$T/keys"
[ "$(wc -l <"$T/keys")" -gt 10 ]; ok $? "the key table's rows read ($(wc -l <"$T/keys") keys)"
: >"$T/bad"
while read -r key field; do
	for f in $(cat "$T/klist"); do
		case $f in
		*config.h) grep -qw -- "$field" "$f" || echo "$f: no field $field (key $key)" ;;
		*) grep -qw -- "$key" "$f" || echo "$f: does not name key $key" ;;
		esac
	done
done <"$T/keys" >"$T/bad"
[ ! -s "$T/bad" ]; ok $? "each listed file names every key" || sed 's/^/#   /' "$T/bad"
cut -d' ' -f1 "$T/keys" | sort -u >"$T/names"
n=$(wc -l <"$T/names")
find . -path ./t -prune -o -path '*/.*' -prune -o -path ./_build -prune -o -type f \
	\( -name '*.[ch]' -o -name '*.md' -o -name '*.[1-9]' -o -name '*.conf' -o -name '*.rs' -o -name '*.py' -o -name '*.sh' \) -print |
	sed 's|^\./||' | grep -vxFf "$T/klist" | grep -v '^doc/benchmarks' >"$T/others"
: >"$T/bad"
while read -r f; do
	k=$(grep -owFf "$T/names" "$f" | sort -u | wc -l)
	[ "$k" -lt "$n" ] || echo "$f"
done <"$T/others" >"$T/bad"
[ ! -s "$T/bad" ]; ok $? "no file outside the list names every key (a list a new key would join)" ||
	sed 's/^/#   names every key: /' "$T/bad"
done_testing
