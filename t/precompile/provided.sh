#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# precompile skips a pair a read-only tier already provides, but only where
# lookups would use that entry: the shared tiers' ownership and mode rule
# and no symlinked target directory (doc/DESIGN.md §5).  Otherwise the pair is
# built into the destination, with a warning naming what was refused.
. "$top_srcdir/t/tap.sh"
. "$top_srcdir/t/precompile/setup.sh"
PC() { "$HR_CLI" precompile -f pctest --progress never "$@" > "$T/out" 2>&1; }

exit_is 0 "an entry built for the site tier" PC --output "$T/o" -t gfx90a
site_reset() {
	rm -rf "$T/site" "$T/user"
	mkdir -p "$T/site" && chmod 755 "$T/site" && cp -R "$T/o/gfx90a" "$T/site/"
	chmod 755 "$T/site/gfx90a" && chmod 644 "$T/site/gfx90a/pctest.hrco"
	: > "$PC_LOG"
}

site_reset
exit_is 0 "a trusted site tier" PC --user -t gfx90a
grep_ok "provides the pair" "^gfx90a .*provided by $T/site\$" "$T/out"
[ "$(pc_compiles gfx90a)" -eq 0 ]; ok $? "nothing compiled"

# Each case: what lookups refuse provides nothing; precompile builds it.
refused() { # DESCRIPTION PATTERN
	exit_is 0 "$1: precompile --user" PC --user -t gfx90a
	grep_ok "$1: built, not provided" "^gfx90a .*built" "$T/out"
	grep_ok "$1: says why" "$2" "$T/out"
	n=$(pc_compiles gfx90a)
	[ "$n" -eq 1 ] && [ -s "$T/user/gfx90a/pctest.hrco" ]
	ok $? "$1: compiled once into the user tier ($n)"
}
site_reset; chmod 666 "$T/site/gfx90a/pctest.hrco"
refused "a world-writable site entry" "pctest.hrco is world-writable \(mode 0666\): not used"
G=$(shared_group)
if [ -n "$G" ]; then
	site_reset; chgrp "$G" "$T/site/gfx90a"; chmod 775 "$T/site/gfx90a"
	refused "a site target dir writable by a shared group" "site/gfx90a is group-writable \(mode 0775\) by group $G, .*fix: chmod g-w $T/site/gfx90a: not used"
else
	skip 4 "no shared group to give a directory to"
fi
site_reset; mv "$T/site/gfx90a" "$T/elsewhere"; ln -s "$T/elsewhere" "$T/site/gfx90a"
refused "a symlinked site target dir" "site/gfx90a is a symlink, not a directory: not used"
rm -rf "$T/elsewhere"
if [ "$(id -u)" -eq 0 ]; then
	site_reset; chown nobody "$T/site/gfx90a/pctest.hrco"
	refused "a site entry owned by another user" "owned by uid $(id -u nobody) \(not root or the current user\): not used"
else
	skip 4 "not root: cannot give an entry to another user"
fi
done_testing
