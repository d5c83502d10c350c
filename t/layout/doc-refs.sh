#!/bin/sh
# The tree stands alone: no file points at a design document outside the
# repository (../shared, a bare DESIGN.md or KERNELS.md, "DESIGN §N") or at
# an issue tracker's numbers ("issue 23"); the design is doc/DESIGN.md, the
# kernel rules doc/KERNELS.md, and both are there (make dist carries them).
. "$top_srcdir/t/tap.sh"
S=$top_srcdir

for d in DESIGN KERNELS; do
	[ -s "$S/doc/$d.md" ]; ok $? "doc/$d.md is in the tree"
done
# The source directories only (a build tree may sit inside the source tree).
files=$(cd "$S" && find README.md configure.ac Makefile.am .clang-tidy bench bindings common \
	container debian doc etc examples kernels lib plugins rpm t tools \
	-name target -prune -o -type f \( -name '*.[ch]' -o -name '*.hip' -o -name '*.md' \
	-o -name '*.sh' -o -name '*.py' -o -name '*.mk' -o -name '*.am' -o -name '*.ac' \
	-o -name '*.list' -o -name '*.rs' -o -name '*.toml' -o -name '*.[1-8]' -o -name layers \
	-o -name README -o -name '.clang-tidy' -o -name '*.in' \) -print 2>/dev/null |
	grep -v '^t/layout/doc-refs\.sh$')
[ -n "$files" ]; ok $? "found the tree's text files"
(cd "$S" && grep -nE '\.\./shared|/work/shared|DESIGN §|(^|[^/])(DESIGN|KERNELS)\.md|[Ii]ssues? [0-9]+' $files) >"$T/hits"
[ ! -s "$T/hits" ]; ok $? "no reference outside the repository"
[ -s "$T/hits" ] && sed 's/^/# /' "$T/hits" | head -20
done_testing
