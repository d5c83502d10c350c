#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Cache statistics: hanzo_rocm_cache_stat counts each tier's lookups, hits,
# bytes and compiles (a compile, then a user-tier hit, then a remote hit on
# a node with empty tiers); `hanzo-rocm cache stats [--json]` shows the
# tiers' entries, the remote (reachable, then connect once the server is
# killed) and trusted keys; `hanzo-rocm info` shows the remote tier.
. "$top_srcdir/t/tap.sh"

mod="$top_builddir/lib/remote/.libs/remote.so"
[ -f "$mod" ] || skip_all "remote.so not built (configure found no libcurl)"
command -v c++ >/dev/null 2>&1 || skip_all "no C++ compiler for host code objects"
. "$top_srcdir/t/remote/nginx.sh"
start_nginx srv yes || skip_all "nginx did not start"
srv_pid=$pid
export HANZO_ROCM_PLUGIN_PATH="$HR_PLUGINS"
unset HANZO_ROCM_CACHE_DIR HANZO_ROCM_HOST
dump="$top_builddir/t/remote/stats-dump"

(cd "$T" && "$HR_CLI" cache keygen builder-1 >"$T/pub") 2>/dev/null
ok $? "a builder key"
pub=$(cat "$T/pub")
# conf FILE USER_DIR SIGNING_KEY
conf() {
	cat >"$1" <<-CONF
	[targets]
	host = host-w64
	[cache]
	user_dir = $2
	system_dir = $T/nosys
	compile = auto
	[remote]
	url = http://127.0.0.1:$port/cache
	trusted_keys = $pub
	signing_key = $3
	module = $(cd "$(dirname "$mod")" && pwd)/remote.so
	CONF
}
# val FILE NAME: a counter of the dump.
val() { sed -n "s/^$2 //p" "$1"; }
conf "$T/b.conf" "$T/b" "$T/builder-1.secret"
HANZO_ROCM_CONF="$T/b.conf" "$dump" fill host-w64 >"$T/c1" 2>"$T/err"
ok $? "builder: fill twice through the C API, counters listed" || sed 's/^/# /' "$T/err"
[ "$(val "$T/c1" compile.count)" = 1 ] && [ "$(val "$T/c1" memory.hits)" -ge 1 ] &&
	[ "$(val "$T/c1" user.hits)" = 0 ] && [ "$(val "$T/c1" remote.pushes)" = 1 ] &&
	[ "$(val "$T/c1" compile.ns)" -gt 0 ]
ok $? "a cold builder: 1 compile (timed), pushed, then memory hits" || sed 's/^/# /' "$T/c1"
HANZO_ROCM_CONF="$T/b.conf" "$dump" fill host-w64 >"$T/c2" 2>"$T/err"
[ "$(val "$T/c2" compile.count)" = 0 ] && [ "$(val "$T/c2" user.hits)" = 1 ] &&
	[ "$(val "$T/c2" user.bytes)" -gt 0 ] && [ "$(val "$T/c2" user.lookups)" -ge 1 ]
ok $? "the next process: a user-tier hit with its bytes, no compile" || sed 's/^/# /' "$T/c2"
conf "$T/r.conf" "$T/r" ""
HANZO_ROCM_CONF="$T/r.conf" "$dump" fill host-w64 >"$T/c3" 2>"$T/err"
[ "$(val "$T/c3" compile.count)" = 0 ] && [ "$(val "$T/c3" remote.hits)" = 1 ] &&
	[ "$(val "$T/c3" remote.bytes)" -gt 0 ] && [ "$(val "$T/c3" user.absent)" -ge 1 ]
ok $? "a reading node with empty tiers: a remote hit, no compile" || sed 's/^/# /' "$T/c3"
grep -q '^remote.miss.bad_signature 0$' "$T/c3"
ok $? "misses by reason are listed (remote.miss.bad_signature)"

run_ok "cache stats" env HANZO_ROCM_CONF="$T/r.conf" "$HR_CLI" cache stats
grep_ok "cache stats: the user tier's entry" "^user +$T/r: 1 entries, [0-9]+ bytes, oldest" "$T/out"
grep_ok "cache stats: the remote is reachable" "^remote +http://127.0.0.1:$port/cache: reachable$" "$T/out"
grep_ok "cache stats: a read-only node, its trusted key" "signing: no \(read only\), trusted keys: builder-1$" "$T/out"
run_ok "cache stats --json" env HANZO_ROCM_CONF="$T/r.conf" "$HR_CLI" cache stats --json
"$PYTHON3" - "$T/out" "$T/r" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
u = [t for t in d["tiers"] if t["tier"] == "user"][0]
assert u["path"] == sys.argv[2] and u["entries"] == 1 and u["bytes"] > 0 and u["oldest_s"] >= 0, u
assert d["remote"][0]["reachable"] is True, d["remote"]
assert d["trusted_keys"] == ["builder-1"], d["trusted_keys"]
assert "remote.miss.not_found" in d["counters"] and "compile.count" in d["counters"]
PY
ok $? "cache stats --json: the same as JSON"
run_ok "info" env HANZO_ROCM_CONF="$T/r.conf" "$HR_CLI" info
grep_ok "info shows the remote tier and its state" "^  http://127.0.0.1:$port/cache: reachable$" "$T/out"
kill "$srv_pid"; wait "$srv_pid" 2>/dev/null
run_ok "cache stats, the server killed" env HANZO_ROCM_CONF="$T/r.conf" "$HR_CLI" cache stats
grep_ok "cache stats: a dead server is named so" "^remote +http://127.0.0.1:$port/cache: connect$" "$T/out"
done_testing
