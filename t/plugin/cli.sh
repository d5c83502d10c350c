#!/bin/sh
# `hanzo-rocm plugins [--json]` and the info section: every rejection case
# is listed with its reason and file, the listing itself always succeeds.
. "$top_srcdir/t/tap.sh"

FIX="$top_builddir/t/fixtures/plugins/.libs"
[ -f "$FIX/alpha.so" ] || skip_all "fixture plugins not built ($FIX)"

# Trusted copies: the build tree's modes depend on the builder's umask.
P="$T/p"; W="$T/ww"; Q="$T/q"
mkdir -p "$P" "$W" "$Q" "$T/root"
chmod 0755 "$P" "$Q"
for f in alpha beta dup badabi badname small nullsrc noentry; do
	cp "$FIX/$f.so" "$P/$f.so"
done
# Family alpha under a name that sorts first must not displace alpha.so
# (doc/DESIGN.md §6); alpha.so again in a later directory is a duplicate.
cp "$FIX/dup.so" "$P/aaa.so"
cp "$FIX/alpha.so" "$Q/alpha.so"
echo "this is not a shared object" > "$P/x.so"
G=$(shared_group)
[ -z "$G" ] || cp "$FIX/beta.so" "$P/gw.so"
cp "$FIX/alpha.so" "$W/ww.so"
ln -s "$W/ww.so" "$P/link.so"
chmod 0644 "$P"/*.so "$Q"/*.so
if [ -n "$G" ]; then chgrp "$G" "$P/gw.so"; chmod 0664 "$P/gw.so"; fi
chmod 0777 "$W"
is_root=no
if [ "$(id -u)" = 0 ]; then
	is_root=yes
	cp "$FIX/alpha.so" "$P/other.so"
	chmod 0644 "$P/other.so"
	chown 65534 "$P/other.so"
fi

export HANZO_ROCM_ROOT="$T/root" HANZO_ROCM_PLUGIN_PATH="$P:$W:$Q"

exit_is 0 "plugins exits 0 although most plugins are rejected" "$HR_CLI" plugins
cp "$T/out" "$T/list"
grep_ok "alpha is ok" "^alpha +1\.0 +1 +ok +$P/alpha\.so$" "$T/list"
grep_ok "beta is ok" "^beta +2\.1 +1 +ok +$P/beta\.so$" "$T/list"
# Each rejection: the file's line, then the reason on the next.
rejected() { # rejected FILE REGEX DESCRIPTION
	awk -v f="$1" 'found { print; exit } index($0, f) && / rejected / { found = 1 }' \
		"$T/list" > "$T/why"
	grep_ok "$3" "rejected: (.*: )?$2" "$T/why"
}
rejected "$Q/alpha.so" "duplicate family 'alpha' \(already provided by $P/alpha\.so\)" "duplicate family"
rejected "$P/dup.so" "file name 'dup\.so' does not match its family 'alpha' \(a plugin must be named alpha\.so\)" "a file not named after its family"
rejected "$P/aaa.so" "file name 'aaa\.so' does not match its family 'alpha'" "a misnamed file sorting first does not take the family"
rejected "$P/badabi.so" "unsupported plugin ABI 99" "wrong ABI"
rejected "$P/badname.so" "invalid family name '\.\./x'" "bad family name"
rejected "$P/small.so" "descriptor too small \(struct_size 8" "struct_size too small"
rejected "$P/nullsrc.so" "no kernel source" "NULL source"
rejected "$P/noentry.so" "no entry symbol 'hanzo_rocm_plugin_entry'" "missing entry symbol"
rejected "$P/x.so" "not an ELF file" "non-ELF file"
if [ -n "$G" ]; then
	rejected "$P/gw.so" "file is group-writable \(mode 0664\) by group $G, which has members other than root and the current user; fix: chmod g-w $P/gw.so" "group-writable file (a shared group): says how to fix it"
else
	skip 1 "no shared group to give a file to"
fi
rejected "$W/ww.so" "directory $W is world-writable" "world-writable directory"
rejected "$P/link.so" "symlink target directory $W is world-writable" "symlink into an untrusted directory"
if [ $is_root = yes ]; then
	rejected "$P/other.so" "file is owned by uid 65534 \(not root or the current user\)" "file owned by another user"
else
	skip 1 "not root: cannot chown a file to another user"
fi
grep_ok "without an index, lookups scan" "^index: none used \(no plugin index\)" "$T/list"
grep -c ' rejected ' "$T/list" > "$T/n"
grep_ok "no other plugin is rejected" "^$(( 11 + $( [ $is_root = yes ] && echo 1 || echo 0 ) + $( [ -n "$G" ] && echo 1 || echo 0 ) ))\$" "$T/n"

exit_is 0 "plugins --json exits 0" "$HR_CLI" plugins --json
cp "$T/out" "$T/json"
if [ -n "$PYTHON3" ]; then
	"$PYTHON3" - "$T/json" "$P" "$W" "$Q" > "$T/py" 2>&1 <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
p, w, q = sys.argv[2], sys.argv[3], sys.argv[4]
by = {e["path"]: e for e in doc["plugins"]}
for e in doc["plugins"]:
    assert set(e) == {"family", "version", "abi", "path", "status", "reason"}, e
a = by[p + "/alpha.so"]
assert a == {"family": "alpha", "version": "1.0", "abi": 1, "path": p + "/alpha.so",
             "status": "ok", "reason": None}, a
assert by[p + "/beta.so"]["status"] == "ok"
assert by[p + "/badabi.so"]["status"] == "rejected" and by[p + "/badabi.so"]["abi"] == 99
assert "ABI 99" in by[p + "/badabi.so"]["reason"]
assert by[p + "/x.so"]["abi"] is None and "not an ELF" in by[p + "/x.so"]["reason"]
assert by[q + "/alpha.so"]["family"] == "alpha" and "duplicate" in by[q + "/alpha.so"]["reason"]
assert by[p + "/aaa.so"]["family"] == "alpha" and "does not match" in by[p + "/aaa.so"]["reason"]
assert "world-writable" in by[w + "/ww.so"]["reason"]
assert [e["status"] for e in doc["plugins"]].count("ok") == 2
assert doc["plugin_path"] == [p, w, q], doc["plugin_path"]
assert doc["index"] == {"path": None, "fresh": False, "reason": "no plugin index"}, doc["index"]
print("ok")
PY
	ok $? "plugins --json is valid JSON with family, version, abi, path, status, reason"
	sed 's/^/# /' "$T/py" | grep -v '^# ok$'
else
	skip 1 "no python3"
fi

exit_is 2 "plugins with an unknown option is a usage error" "$HR_CLI" plugins --frob
exit_is 2 "plugins with an argument is a usage error" "$HR_CLI" plugins extra

# The info section lists the same plugins.
exit_is 0 "info exits 0" "$HR_CLI" info
grep_ok "info has a Plugins: block" "^Plugins:" "$T/out"
grep_ok "info lists alpha as ok" "^  alpha +1\.0 +$P/alpha\.so: ok$" "$T/out"
grep_ok "info gives the reason for x.so" "$P/x\.so: rejected: not an ELF file" "$T/out"
# info --json prints the same "plugins" member as plugins --json (checked above);
# info itself is slow (toolchain probing), so it runs once here.

# An empty or missing plugin directory is not an error.
HANZO_ROCM_PLUGIN_PATH="$T/none" exit_is 0 "a missing plugin directory lists nothing" "$HR_CLI" plugins
grep_ok "says none were found" "no plugins found" "$T/out"

# Families the selftest has no reference for (the fixtures alpha and beta,
# as any third-party family) are skipped, not failed (doc/DESIGN.md §6).
HANZO_ROCM_PLUGIN_PATH="$P" exit_is 0 "selftest with only third-party families exits 0" \
	"$HR_CLI" selftest --device host-w64 --bench-size 0
grep_ok "reports alpha as skipped" "^family alpha +skipped: no CPU reference for this family" "$T/out"
grep_ok "and counts the skipped families" "^0 cases, 0 failed, 2 families skipped$" "$T/out"

# [plugins] disable (needs the real config loader).
if grep -q PLACEHOLDER "$top_srcdir/lib/config/config.c"; then
	skip 2 "config loader not built yet"
else
	printf '[plugins]\ndisable = beta\n' > "$T/c.conf"
	HANZO_ROCM_PLUGIN_PATH="$P" exit_is 0 "plugins with a disabled family exits 0" \
		"$HR_CLI" --config "$T/c.conf" plugins
	grep_ok "beta is listed as disabled" "^beta +.* disabled +$P/beta\.so$" "$T/out"
fi
done_testing
