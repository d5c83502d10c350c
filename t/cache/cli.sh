#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# hanzo-rocm cache list / verify / gc / clear and info's cache section, on
# tiers filled with entries of real hipcc code objects.
. "$top_srcdir/t/tap.sh"

fix=$(sh "$top_srcdir/t/cache/fixtures.sh") || skip_all "no hipcc to build test code objects"
mk="$top_builddir/t/cache/mkentry"
root="$T/root"
sys="$root/sys"
site="$root/site"
user="$T/user"
mkdir -p "$root"
printf '[cache]\nsystem_dir = /sys\nsite_dirs = /site\n' >"$root/hanzo-rocm.conf"
export HANZO_ROCM_CACHE_DIR="$user"
hr() { "$HR_CLI" --root "$root" --config "$root/hanzo-rocm.conf" "$@"; }

"$mk" "$sys" famA gfx90a "$fix/k-gfx90a.co" &&
"$mk" "$sys" famB gfx1030 "$fix/k-gfx1030.co" &&
"$mk" "$site" famE gfx90a "$fix/k-gfx90a.co" &&
"$mk" "$user" famC gfx90a "$fix/k-gfx90a.co" &&
"$mk" "$user" famD gfx1030 "$fix/k-gfx1030.co"
ok $? "fixture entries published"
[ "$(stat -c %a "$user")" = 700 ]
ok $? "user tier created 0700"

exit_is 0 "cache list --json" hr cache list --json
cp "$T/out" "$T/list.json"
"$PYTHON3" - "$T/list.json" >"$T/py" 2>&1 <<'PY'
import json, sys
entries = json.load(open(sys.argv[1]))
got = sorted((e["tier"], e["target"], e["family"], e["status"]) for e in entries)
want = sorted([("system", "gfx90a", "famA", "ok"), ("system", "gfx1030", "famB", "ok"),
               ("site", "gfx90a", "famE", "ok"), ("user", "gfx90a", "famC", "ok"),
               ("user", "gfx1030", "famD", "ok")])
assert got == want, got
for e in entries:
    assert e["compiler"] == "test-compiler 1.0" and e["size"] > 384 and e["created"] > 0, e
PY
ok $? "list --json parses and shows every entry of every tier"
[ $? -eq 0 ] || sed 's/^/# /' "$T/py"
exit_is 0 "cache list --target gfx1030" hr cache list --target gfx1030
grep -q famB "$T/out" && ! grep -q famA "$T/out"
ok $? "--target filters"
exit_is 0 "cache verify: clean tiers" hr cache verify
grep_ok "verify counts 5 entries" "5 entries checked, 0 corrupt" "$T/out"
exit_is 0 "info" hr info
grep_ok "info lists the user tier with its entries" "user +$user \(writable, 2 entries" "$T/out"
exit_is 0 "info --json" hr info --json
"$PYTHON3" -c 'import json,sys; t=json.load(open(sys.argv[1]))["cache_tiers"]; assert [x["tier"] for x in t]==["system","site","package","user"] and t[3]["entries"]==2 and t[0]["entries"]==2, t' "$T/out"
ok $? "info --json cache_tiers"

# An entry whose key does not match the installed plugin's is listed as stale.
if [ -f "$top_builddir/t/fixtures/plugins/.libs/alpha.so" ]; then
	mkdir -m 755 "$T/plugins"
	cp "$top_builddir/t/fixtures/plugins/.libs/alpha.so" "$T/plugins/"
	"$mk" "$user" alpha gfx90a "$fix/k-gfx90a.co"
	exit_is 0 "cache list with a plugin installed" env HANZO_ROCM_PLUGIN_PATH="$T/plugins" "$HR_CLI" --root "$root" --config "$root/hanzo-rocm.conf" cache list --target gfx90a
	grep_ok "entry of another build of alpha is stale" "^user +gfx90a +alpha .* stale" "$T/out"
	grep_ok "entries of unknown families stay ok" "^user +gfx90a +famC .* ok" "$T/out"
	rm "$user/gfx90a/alpha.hrco"
else
	skip 3 "fixture plugin alpha not built"
fi

# Damage: truncated, payload bit flip, garbage, entry under the wrong target.
size=$(stat -c %s "$user/gfx90a/famC.hrco")
truncate -s $((size - 7)) "$user/gfx90a/famC.hrco"
printf '\377' | dd of="$user/gfx1030/famD.hrco" bs=1 seek=600 conv=notrunc 2>/dev/null
echo "not a cache entry" >"$user/gfx90a/junk.hrco"
cp "$sys/gfx1030/famB.hrco" "$user/gfx90a/famB.hrco"
cp "$sys/gfx90a/famA.hrco" "$site/gfx90a/famZ.hrco"
site_sum=$(cd "$site" && find . -type f | sort | xargs sha256sum)
exit_is 1 "cache verify finds corruption" hr cache verify
grep_ok "truncation reported" "famC.hrco: .*(mismatch|truncated)" "$T/out"
grep_ok "payload flip reported" "famD.hrco: payload checksum mismatch" "$T/out"
grep_ok "garbage reported" "junk.hrco: " "$T/out"
grep_ok "misplaced entry reported" "gfx90a/famB.hrco: .*wrong name" "$T/out"
grep_ok "site-tier corruption reported" "site/gfx90a/famZ.hrco" "$T/out"
exit_is 1 "cache verify --json finds corruption" hr cache verify --json
"$PYTHON3" -c 'import json,sys; v=json.load(open(sys.argv[1])); bad=v["bad"]; assert v["corrupt"]==5 and len(bad)==5 and v["checked"]>=5 and v["removed"]==0 and all(x["reason"] and x["tier"] and x["action"]=="kept" for x in bad) and any(x["tier"]=="site" for x in bad), v' "$T/out"
ok $? "verify --json: 5 bad entries with tier, reason and action, counts" || sed 's/^/# /' "$T/out"
exit_is 0 "cache list shows corrupt entries" hr cache list --json
"$PYTHON3" -c 'import json,sys; e=json.load(open(sys.argv[1])); bad=[x for x in e if x["status"]=="corrupt"]; assert len(bad)==5 and all(x["reason"] for x in bad), bad' "$T/out"
ok $? "list --json marks 5 corrupt with reasons"
exit_is 1 "verify --repair cannot fix a read-only tier" hr cache verify --repair
grep_ok "says the site tier is read-only" "famZ.hrco: .*not repaired: the site tier is read-only" "$T/out"
[ "$(cd "$site" && find . -type f | sort | xargs sha256sum)" = "$site_sum" ]
ok $? "read-only tier untouched"
[ ! -e "$user/gfx90a/famC.hrco" ] && [ ! -e "$user/gfx1030/famD.hrco" ] && [ ! -e "$user/gfx90a/junk.hrco" ] && [ -e "$sys/gfx90a/famA.hrco" ]
ok $? "corrupt user entries removed, good ones kept"
rm "$site/gfx90a/famZ.hrco"
exit_is 0 "verify after repair" hr cache verify
exit_is 0 "verify --json after repair" hr cache verify --json
"$PYTHON3" -c 'import json,sys; v=json.load(open(sys.argv[1])); assert v["bad"]==[] and v["corrupt"]==0 and v["checked"]>0, v' "$T/out"
ok $? "verify --json: clean, nothing bad" || sed 's/^/# /' "$T/out"

# A tier's plugins.index is checked too: the library ignores a corrupt one.
printf 'not an index\n' >"$user/plugins.index"
exit_is 1 "cache verify reports a corrupt plugins.index" hr cache verify
grep_ok "naming it and why" "user/plugins.index: malformed at line 1" "$T/out"
exit_is 0 "verify --repair removes it" hr cache verify --repair
[ ! -e "$user/plugins.index" ]; ok $? "corrupt plugins.index removed"

# gc: oldest first, stale temp and lock files, fresh ones kept.
for f in a b c; do "$mk" "$user" gc$f gfx90a "$fix/k-gfx90a.co"; done
touch -d '3 days ago' "$user/gfx90a/gca.hrco"
touch -d '2 days ago' "$user/gfx90a/gcb.hrco"
touch -d '1 day ago' "$user/gfx90a/gcc.hrco"
touch -d '2 hours ago' "$user/gfx90a/.old.hrco.Ab12Cd" "$user/gfx90a/.old.lock"
touch "$user/gfx90a/.new.hrco.Xy34Zw"
esize=$(stat -c %s "$user/gfx90a/gca.hrco")
exit_is 0 "cache gc --max-size" hr cache gc --max-size $((esize * 2 + esize / 2))
[ ! -e "$user/gfx90a/gca.hrco" ] && [ -e "$user/gfx90a/gcb.hrco" ] && [ -e "$user/gfx90a/gcc.hrco" ]
ok $? "gc evicted the least recently used entry only"
[ ! -e "$user/gfx90a/.old.hrco.Ab12Cd" ] && [ ! -e "$user/gfx90a/.old.lock" ] && [ -e "$user/gfx90a/.new.hrco.Xy34Zw" ]
ok $? "gc removed stale temp/lock files, kept a fresh one"
exit_is 2 "gc --max-size junk is a usage error" hr cache gc --max-size 12Q

# Another user may not write the system tier: verify --repair leaves it alone.
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent "$@"; }
chmod 755 "$T" "$root"
# The build tree may be closed to other users (a checkout under /root, mode
# 0700, as the README's flow puts it): run a copy of the CLI (a plain binary:
# it links the library statically) from the scratch directory instead.
mkdir -p "$T/bin" && cp "$HR_CLI" "$T/bin/hanzo-rocm" && chmod 755 "$T/bin" "$T/bin/hanzo-rocm"
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1 &&
   nobody "$T/bin/hanzo-rocm" --version >/dev/null 2>&1; then
	chmod -R go+rX "$sys"
	cp "$sys/gfx90a/famA.hrco" "$sys/gfx1030/famA.hrco"
	sys_sum=$(find "$sys" -type f | sort | xargs sha256sum)
	exit_is 1 "verify --repair as an unprivileged user" \
		nobody "$T/bin/hanzo-rocm" --root "$root" --config "$root/hanzo-rocm.conf" cache verify --repair
	grep_ok "reports the system tier read-only" "gfx1030/famA.hrco: .*not repaired: the system tier is read-only" "$T/out"
	[ "$(find "$sys" -type f | sort | xargs sha256sum)" = "$sys_sum" ]
	ok $? "system tier untouched"
	rm "$sys/gfx1030/famA.hrco"
else
	skip 3 "needs root and setpriv"
fi

# clear
exit_is 0 "cache clear --target gfx1030" hr cache clear --user --target gfx1030
[ -e "$user/gfx90a/gcb.hrco" ] && [ ! -e "$user/gfx1030" ] && [ -e "$sys/gfx1030/famB.hrco" ]
ok $? "only the user tier's gfx1030 entries went"
exit_is 0 "cache clear" hr cache clear
[ ! -e "$user" ] && [ -e "$sys/gfx90a/famA.hrco" ]
ok $? "user tier emptied and removed, system tier kept"
exit_is 2 "unknown cache command" hr cache frobnicate
exit_is 0 "cache verify --help" hr cache verify --help

# No usable HOME: one warning, everything still works, nothing created.
unset HANZO_ROCM_CACHE_DIR
exit_is 0 "cache list with HOME=/nonexistent" env HOME=/nonexistent "$HR_CLI" --root "$root" --config "$root/hanzo-rocm.conf" cache list
[ "$(grep -c warning "$T/err")" -eq 1 ] && grep -q "/nonexistent" "$T/err"
ok $? "exactly one warning naming the home directory"
[ $? -eq 0 ] || sed 's/^/# /' "$T/err"
[ ! -e /nonexistent ]
ok $? "nothing created under the missing home"
exit_is 0 "cache list with HOME unset" env -u HOME "$HR_CLI" --root "$root" --config "$root/hanzo-rocm.conf" cache list
[ "$(grep -c warning "$T/err")" -eq 1 ]
ok $? "exactly one warning without HOME"

done_testing
