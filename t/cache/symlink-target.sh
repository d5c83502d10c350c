#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# A symlinked target directory in the user tier: lookups and writes refuse
# it, and maintenance agrees: list shows nothing through it, verify reports
# it (exit 1), --repair and clear remove the link and never what it points
# to.  What the scan cannot see is never used either (doc/DESIGN.md §5).
. "$top_srcdir/t/tap.sh"

fix=$(sh "$top_srcdir/t/cache/fixtures.sh") || skip_all "no hipcc to build test code objects"
mk="$top_builddir/t/cache/mkentry"
root="$T/root"; user="$T/user"; out="$T/outside"
mkdir -p "$root"
printf '[cache]\nsystem_dir = /nonexistent-sys\n' >"$root/hanzo-rocm.conf"
export HANZO_ROCM_CACHE_DIR="$user"
hr() { "$HR_CLI" --root "$root" --config "$root/hanzo-rocm.conf" "$@"; }

"$mk" "$user" famC gfx90a "$fix/k-gfx90a.co" && "$mk" "$out" famD gfx1030 "$fix/k-gfx1030.co"
ok $? "an entry in the tier, one outside it"
ln -s "$out/gfx1030" "$user/gfx1030"

exit_is 0 "cache list" hr cache list --json
"$PYTHON3" - "$T/out" <<'PY'
import json, sys
got = sorted((e["target"], e["family"]) for e in json.load(open(sys.argv[1])))
assert got == [("gfx90a", "famC")], got
PY
ok $? "list shows the real entry, nothing through the symlink"
exit_is 1 "cache verify reports the symlinked target dir" hr cache verify
grep_ok "naming it" "/user/gfx1030: target directory that is not a directory \(a symlink\): never used" "$T/out"
grep_ok "and only it (famC is fine)" "^2 entries checked, 1 corrupt$" "$T/out"

exit_is 0 "gc" hr cache gc
[ -L "$user/gfx1030" ] && [ -s "$out/gfx1030/famD.hrco" ]
ok $? "gc leaves a fresh symlink and never touches what it points to"

exit_is 0 "verify --repair" hr cache verify --repair
[ ! -e "$user/gfx1030" ] && [ ! -L "$user/gfx1030" ] && [ -s "$out/gfx1030/famD.hrco" ]
ok $? "--repair removed the link, not its target's entry"
exit_is 0 "then verify is clean" hr cache verify

ln -s "$out/gfx1030" "$user/gfx1030"
exit_is 0 "cache clear --target gfx1030" hr cache clear --target gfx1030
[ ! -L "$user/gfx1030" ] && [ -s "$out/gfx1030/famD.hrco" ] && [ -s "$user/gfx90a/famC.hrco" ]
ok $? "clear removed the link only (and kept the other target)"

# Any non-directory named like a target counts, FIFO included (no hang).
mkfifo "$user/gfx1100"
exit_is 1 "a FIFO target: verify reports it" timeout 20 "$HR_CLI" --root "$root" --config "$root/hanzo-rocm.conf" cache verify
grep_ok "as a FIFO" "/user/gfx1100: target directory that is not a directory \(a FIFO\)" "$T/out"
# A file whose name is no target is not ours to judge.
echo notes > "$user/README"
exit_is 0 "verify --repair" hr cache verify --repair
[ ! -e "$user/gfx1100" ] && [ -e "$user/README" ]
ok $? "the FIFO is gone, a file named like no target stays"
done_testing
