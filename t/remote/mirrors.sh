#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Two urls, a mirror first: each url has its own circuit breaker (the time
# budget stays the process's).  The mirror, an nginx started here and
# stopped with SIGSTOP, times out; the central server, another nginx,
# serves 4 entries (fill and affine for host-w64 and host-w32).  A reader
# with empty tiers and compile = never loads all 4 from the central server,
# asking the hung mirror only until its breaker opens (3 timeouts), and
# the central server's answers do not close the mirror's breaker.
. "$top_srcdir/t/tap.sh"

mod="$top_builddir/lib/remote/.libs/remote.so"
[ -f "$mod" ] || skip_all "remote.so not built (configure found no libcurl)"
command -v c++ >/dev/null 2>&1 || skip_all "no C++ compiler for host code objects"
. "$top_srcdir/t/remote/nginx.sh"
start_nginx central yes || skip_all "nginx did not start"
cport=$port
start_nginx mirror no || skip_all "a second nginx did not start"
mport=$port mpid=$pid
export HANZO_ROCM_PLUGIN_PATH="$HR_PLUGINS"
unset HANZO_ROCM_CACHE_DIR HANZO_ROCM_HOST HANZO_ROCM_REMOTE_URL HANZO_ROCM_REMOTE_AUTH_FILE

(cd "$T" && "$HR_CLI" cache keygen builder-1 >"$T/pub") 2>/dev/null
ok $? "a builder key"
pub=$(cat "$T/pub")
# conf FILE USER_DIR COMPILE URLS [SIGNING_KEY]
conf() {
	cat >"$1" <<-CONF
	[targets]
	host = host-w64 host-w32
	[cache]
	user_dir = $2
	system_dir = $T/nosys
	compile = $3
	[remote]
	url = $4
	trusted_keys = $pub
	signing_key = ${5-}
	module = $(cd "$(dirname "$mod")" && pwd)/remote.so
	connect_timeout = 250
	timeout = 400
	budget = 20000
	CONF
}
conf "$T/b.conf" "$T/b" auto "http://127.0.0.1:$cport/c" "$T/builder-1.secret"
run_ok "builder: precompile --remote 4 entries to the central server" \
	env HANZO_ROCM_CONF="$T/b.conf" "$HR_CLI" precompile --remote --target host-w64 \
	--target host-w32 --family fill --family affine
grep_ok "... 4 pushed" '^4 pushed, 0 failed to push$' "$T/out"

kill -STOP "$mpid"
conf "$T/r.conf" "$T/r" never "http://127.0.0.1:$mport/c http://127.0.0.1:$cport/c"
HANZO_ROCM_LOG=debug HANZO_ROCM_CONF="$T/r.conf" "$HR_CLI" selftest --device host \
	--family fill --family affine --bench-size 0 >"$T/out" 2>"$T/err"
s=$?
kill -CONT "$mpid"
[ $s -eq 0 ] && [ "$(grep -c 'remote:builder-1' "$T"/r/host-w*/*.hrco | awk -F: '{ s += $NF } END { print s }')" -eq 4 ]
ok $? "the reader loads the 4 entries from the central server past a hung mirror" ||
	{ echo "# exit $s"; grep -v '^hanzo-rocm: debug' "$T/err" | sed 's/^/# /' | head; }
timeouts=$(grep -c "remote GET http://127.0.0.1:$mport/c/ac/[0-9a-f]*: timeout" "$T/err")
skipped=$(grep -c "remote GET http://127.0.0.1:$mport/c/ac/[0-9a-f]*: skipped (breaker_open)" "$T/err")
[ "$timeouts" -eq 3 ] && [ "$skipped" -ge 1 ]
ok $? "the mirror is asked until its own breaker opens: 3 timeouts, then skipped ($timeouts timeouts, $skipped skipped)" ||
	grep "remote GET" "$T/err" | sed 's/^/# /' | head -20
[ "$(grep -c "remote GET http://127.0.0.1:$cport/c/ac/[0-9a-f]*: ok" "$T/err")" -eq 4 ]
ok $? "the central server answered each of the 4 manifests"
done_testing
