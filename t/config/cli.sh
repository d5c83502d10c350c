#!/bin/sh
# `hanzo-rocm config check` and the `info` configuration section (doc/DESIGN.md §3, §4).
. "$top_srcdir/t/tap.sh"
F="$top_srcdir/t/fixtures/config"

exit_is 0 "config --help exits 0" "$HR_CLI" config --help
grep_ok "config --help shows the usage" "config check" "$T/out"
exit_is 2 "config with no subcommand is a usage error" "$HR_CLI" config
exit_is 2 "an unknown subcommand is a usage error" "$HR_CLI" config frobnicate

# The done-when check: line 7 holds max_size = lots.
exit_is 2 "config check: an invalid file exits 2" "$HR_CLI" config check "$F/bad-size.conf"
grep_ok "the error names FILE:7:" "^$F/bad-size.conf:7: invalid value 'lots' for max_size" "$T/err"
exit_is 2 "errors show even with -q" "$HR_CLI" -q config check "$F/bad-size.conf"
grep_ok "the error is there with -q" "bad-size.conf:7:" "$T/err"

exit_is 2 "every kind of mistake exits 2" "$HR_CLI" config check "$F/bad-many.conf"
grep_ok "a syntax error with its line" "bad-many.conf:12: syntax error" "$T/err"
grep_ok "a too-long line with its line" "bad-many.conf:16: line too long" "$T/err"
grep_ok "a bad target with its line" "bad-many.conf:5: invalid value 'gfxzz' for extra" "$T/err"
grep_ok "an unknown key warns, compiler style" "bad-many.conf:10: warning: unknown key 'frobnicate' in \[cache\]" "$T/err"

# A well-formed target whose processor lib/shared/targets.def does not know.
exit_is 2 "an unknown processor is a configuration error" "$HR_CLI" config check "$F/unknown-target.conf"
grep_ok "naming FILE:LINE and the target" "unknown-target.conf:6: unknown processor 'gfx9999' for extra" "$T/err"
exit_is 2 "in HANZO_ROCM_TARGETS too" env HANZO_ROCM_TARGETS=gfx90a,gfx9999 "$HR_CLI" --root "$T/empty" config check
grep_ok "naming the variable" "HANZO_ROCM_TARGETS: unknown processor 'gfx9999'" "$T/err"
exit_is 0 "at run time it only warns" env HANZO_ROCM_TARGETS=gfx90a,gfx9999 "$HR_CLI" --root "$T/empty" info
grep_ok "the warning names the variable" "warning: HANZO_ROCM_TARGETS: unknown processor 'gfx9999', left out" "$T/err"

exit_is 0 "a valid file exits 0" "$HR_CLI" config check "$F/good.conf"
grep_ok "and says FILE: ok" "good.conf: ok$" "$T/out"
exit_is 0 "unknown keys only warn" "$HR_CLI" config check "$F/warn.conf"
grep_ok "the warning has its line" "warn.conf:3: warning: unknown key 'colour' in \[cache\]" "$T/err"
exit_is 0 "config check -q" "$HR_CLI" config check -q "$F/good.conf"
[ ! -s "$T/out" ]; ok $? "-q prints nothing when valid"
exit_is 2 "a missing file exits 2" "$HR_CLI" config check "$T/nope.conf"
grep_ok "naming it" "$T/nope.conf: No such file" "$T/err"
mkdir "$T/dir.conf"
exit_is 2 "an unreadable file exits 2" "$HR_CLI" config check "$T/dir.conf"
grep_ok "as FILE: message" "$T/dir.conf: not a regular file" "$T/err"
exit_is 0 "the shipped etc/hanzo-rocm.conf is valid" "$HR_CLI" config check "$top_srcdir/etc/hanzo-rocm.conf"
[ ! -s "$T/err" ]; ok $? "without warnings"

# The effective set: --config, --root, conf.d, environment.
exit_is 2 "config check with --config checks that file" "$HR_CLI" --config "$F/bad-size.conf" config check
grep_ok "and reports its line" "bad-size.conf:7:" "$T/err"
sysconfdir=$("$HR_CLI" --help | sed -n 's|.*(default \(.*\)/hanzo-rocm\.conf).*|\1|p')
[ -n "$sysconfdir" ]; ok $? "sysconfdir from --help ($sysconfdir)"
R="$T/root"
mkdir -p "$R$sysconfdir/hanzo-rocm.conf.d"
cp "$F/root-a/etc/hanzo-rocm.conf" "$R$sysconfdir/"
cp "$F/root-a/etc/hanzo-rocm.conf.d/"* "$R$sysconfdir/hanzo-rocm.conf.d/"
exit_is 0 "config check of a --root tree" "$HR_CLI" --root "$R" config check
grep_ok "main file ok" "^$R$sysconfdir/hanzo-rocm.conf: ok" "$T/out"
tail -n 1 "$T/out" >"$T/last"
grep_ok "conf.d/20-b.conf read last" "20-b.conf: ok" "$T/last"
[ "$(wc -l <"$T/out")" -eq 3 ]; ok $? "README and *.disabled are not read"
exit_is 2 "a bad HANZO_ROCM_ARCH is a configuration error" \
	env HANZO_ROCM_ROOT="$R" HANZO_ROCM_ARCH=radeon "$HR_CLI" config check
grep_ok "naming variable and value" "HANZO_ROCM_ARCH: invalid value 'radeon'" "$T/err"
exit_is 0 "no file at all: defaults" "$HR_CLI" --root "$T/empty" config check
grep_ok "says so" "built-in defaults" "$T/out"

# info: text and JSON.
exit_is 0 "info --root" "$HR_CLI" --root "$R" info
grep_ok "info has a Configuration block" "^Configuration:" "$T/out"
grep_ok "showing the effective max_size" "cache.max_size +4.0G" "$T/out"
# Every key of the key table (lib/config/keys.c), as SECTION.KEY.
missing=
for k in $(sed -n 's/^	{ { "\([a-z_]*\)", "\([a-z_]*\)", HR_CONFIG_.*/\1.\2/p' "$top_srcdir/lib/config/keys.c"); do
	grep -qE "^  $k " "$T/out" || missing="$missing $k"
done
[ -z "$missing" ] && [ "$(sed -n 's/^	{ { "\([a-z_]*\)", "\([a-z_]*\)", HR_CONFIG_.*/x/p' "$top_srcdir/lib/config/keys.c" | wc -l)" -gt 15 ]
ok $? "info shows every configuration key${missing:+ (missing:$missing)}"
grep_ok "  ... the compile timeout, the default when unset" "compiler.timeout +600 s \(the default\)" "$T/out"
exit_is 0 "info --json --root" env HANZO_ROCM_CACHE_DIR=/env/cache "$HR_CLI" --root "$R" info --json
cp "$T/out" "$T/info.json"
if [ -n "$PYTHON3" ]; then
	run_ok "info --json is valid JSON" "$PYTHON3" -c 'import json,sys; json.load(sys.stdin)' <"$T/info.json"
	cat >"$T/check.py" <<'PY'
import json, sys
root, sysconf = sys.argv[1], sys.argv[2]
c = json.load(sys.stdin)["config"]
assert c["root"] == root, c["root"]
assert [f.rsplit("/", 1)[1] for f in c["files"]] == ["hanzo-rocm.conf", "10-a.conf", "20-b.conf"], c["files"]
assert c["files"][0] == root + sysconf + "/hanzo-rocm.conf", c["files"][0]
assert c["cache"]["max_size"] == 4 << 30, c["cache"]
assert c["cache"]["policy"] == "off", c["cache"]
assert c["cache"]["site_dirs"] == [root + "/srv/hr-site"], c["cache"]
assert c["cache"]["user_dir"] == "/env/cache", c["cache"]
assert c["targets"]["extra"] == ["gfx90a"], c["targets"]
assert c["plugins"]["path"] == [root + "/opt/hr/plugins"], c["plugins"]
assert c["compiler"]["flags"] == ["-O3"], c["compiler"]
assert c["compiler"]["timeout"] == 600 and c["compiler"]["cxx"] == "c++", c["compiler"]
assert c["targets"]["host"] in ([], None), c["targets"]
PY
	"$PYTHON3" "$T/check.py" "$R" "$sysconfdir" <"$T/info.json" >"$T/py" 2>&1
	ok $? "info --json config values (root, files, conf.d order, env)"
	[ -s "$T/py" ] && sed 's/^/# /' "$T/py"
else
	skip 2 "no python3"
fi
# A path that is not UTF-8 still gives valid (UTF-8) JSON.
if [ -n "$PYTHON3" ]; then
	bad=$(printf '/tmp/caf\351')
	HANZO_ROCM_CACHE_DIR="$bad" "$HR_CLI" --root "$T/empty" info --json >"$T/bad.json" 2>"$T/err"
	"$PYTHON3" -c 'import json,sys; d=json.loads(open(sys.argv[1],"rb").read().decode("utf-8","strict")); assert d["config"]["cache"]["user_dir"] == "/tmp/caf\ufffd", d["config"]["cache"]' "$T/bad.json" >"$T/py" 2>&1
	ok $? "info --json with a non-UTF-8 path is valid UTF-8 JSON (U+FFFD)"
	[ -s "$T/py" ] && sed 's/^/# /' "$T/py"
else
	skip 1 "no python3"
fi

# At run time a bad setting warns and is left out; config check stays strict.
exit_is 0 "info with an invalid configuration still runs" "$HR_CLI" --config "$F/bad-size.conf" info
grep_ok "warning of the bad value with FILE:LINE" "warning: .*bad-size.conf:7: invalid value 'lots' for max_size" "$T/err"
grep_ok "using the default for it" "cache.max_size +1.0G \(1073741824 bytes\)" "$T/out"
exit_is 0 "a bad HANZO_ROCM_ARCH at run time warns" \
	env HANZO_ROCM_ROOT="$R" HANZO_ROCM_ARCH=radeon "$HR_CLI" info
grep_ok "naming variable and value" "warning: HANZO_ROCM_ARCH: invalid value 'radeon'" "$T/err"

# Every key (good.conf sets them all) is documented and shipped.
keys=$(sed -n 's/^\([a-z_]*\) *=.*/\1/p' "$F/good.conf")
missing=
for k in $keys; do
	grep -q "^\.B[IR] $k " "$top_srcdir/doc/hanzo-rocm.conf.5" || missing="$missing man:$k"
	grep -q "^#$k =" "$top_srcdir/etc/hanzo-rocm.conf" || missing="$missing etc:$k"
done
[ -z "$missing" ]; ok $? "every key is in hanzo-rocm.conf(5) and etc/hanzo-rocm.conf${missing:+ (missing:$missing)}"
if command -v groff >/dev/null 2>&1; then
	for m in hanzo-rocm.1 hanzo-rocm.conf.5 libhanzo-rocm.3; do
		LC_ALL=C groff -man -Tutf8 -ww -z "$top_srcdir/doc/$m" >"$T/groff" 2>&1 && [ ! -s "$T/groff" ]
		ok $? "$m renders without groff warnings"
	done
else
	skip 3 "no groff"
fi
# A FIFO (or a symlink) where the configuration is expected: an error, never
# a hang (timeout exits 124) nor a read through the link.
mkfifo "$T/fifo.conf"
exit_is 2 "config check on a FIFO fails at once" timeout 20 "$HR_CLI" config check "$T/fifo.conf"
grep_ok "and says it is not a regular file" "fifo\.conf: not a regular file" "$T/err"
exit_is 0 "info with HANZO_ROCM_CONF naming a FIFO does not hang" \
	env HANZO_ROCM_CONF="$T/fifo.conf" timeout 20 "$HR_CLI" info
ln -s "$F/bad-size.conf" "$T/link.conf"
exit_is 2 "config check refuses a symlink" "$HR_CLI" config check "$T/link.conf"
grep_ok "as not a regular file" "link\.conf: not a regular file" "$T/err"
done_testing
