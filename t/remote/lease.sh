#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# A single compile across nodes, against Debian's nginx and redis-server
# started here on 127.0.0.1: 8 processes, each a node with its own empty
# local tiers and the signing key, cold-start the fill family for
# host-w64 at once.  With [remote] redis one of them takes the lease,
# compiles and pushes; the 7 others wait and load its entry (compiled once
# cluster-wide, counted from HANZO_ROCM_STATS=1 and the entries' compiler).
# Without Redis (a jittered re-check only) most of them compile.  A lease
# left by a dead node is waited out and then taken.
. "$top_srcdir/t/tap.sh"

mod="$top_builddir/lib/remote/.libs/remote.so"
[ -f "$mod" ] || skip_all "remote.so not built (configure found no libcurl)"
command -v c++ >/dev/null 2>&1 || skip_all "no C++ compiler for host code objects"
REDIS=$(command -v redis-server || echo /usr/bin/redis-server)
[ -x "$REDIS" ] || skip_all "no redis-server (Debian: redis-server)"
. "$top_srcdir/t/remote/nginx.sh"
start_nginx srv yes || skip_all "nginx did not start"
export HANZO_ROCM_PLUGIN_PATH="$HR_PLUGINS"
unset HANZO_ROCM_CACHE_DIR HANZO_ROCM_HOST

# redis-server on an ephemeral port, this process its PID (killed by the trap).
mkdir -p "$T/redis"
for _ in 1 2 3; do
	rport=$(free_port)
	"$REDIS" --bind 127.0.0.1 --port "$rport" --save '' --appendonly no \
		--dir "$T/redis" --daemonize no >"$T/redis/out" 2>&1 &
	rpid=$!
	i=0
	while [ $i -lt 50 ]; do
		"$PYTHON3" -c "import socket; socket.create_connection(('127.0.0.1', $rport), 0.2)" 2>/dev/null && break
		kill -0 "$rpid" 2>/dev/null || break
		sleep 0.1; i=$((i + 1))
	done
	if kill -0 "$rpid" 2>/dev/null && [ $i -lt 50 ]; then pids="$pids $rpid"; break; fi
	kill "$rpid" 2>/dev/null; wait "$rpid" 2>/dev/null; rpid=
done
[ -n "$rpid" ] || { sed 's/^/# /' "$T/redis/out" | head; skip_all "redis-server did not start"; }

(cd "$T" && "$HR_CLI" cache keygen builder-1 >"$T/pub") 2>/dev/null
ok $? "a builder key"
pub=$(cat "$T/pub")

# conf FILE USER_DIR BASE REDIS
conf() {
	cat >"$1" <<-CONF
	[targets]
	host = host-w64
	[cache]
	user_dir = $2
	system_dir = $T/nosys
	compile = auto
	[remote]
	url = http://127.0.0.1:$port/$3
	trusted_keys = $pub
	signing_key = $T/builder-1.secret
	module = $(cd "$(dirname "$mod")" && pwd)/remote.so
	redis = $4
	lease = 60000
	timeout = 5000
	budget = 60000
	CONF
}
N=8
# cold_start RUN BASE REDIS: N nodes at once; $compiled: compiles cluster-wide.
cold_start() {
	i=1; waitfor=
	while [ $i -le $N ]; do
		conf "$T/$1-$i.conf" "$T/$1-$i" "$2" "$3"
		HANZO_ROCM_STATS=1 HANZO_ROCM_CONF="$T/$1-$i.conf" "$HR_CLI" selftest \
			--device host-w64 --family fill --bench-size 0 >"$T/$1-$i.out" 2>"$T/$1-$i.err" &
		waitfor="$waitfor $!"
		i=$((i + 1))
	done
	failed=0
	for p in $waitfor; do wait "$p" || failed=$((failed + 1)); done
	ok $failed "$1: all $N nodes ran fill" || cat "$T/$1"-*.err | sed 's/^/# /' | head -20
	compiled=$(cat "$T/$1"-*.err | sed -n 's/^hanzo-rocm: remote tier: \([0-9]*\) compiled here.*/\1/p' |
		awk '{ s += $1 } END { print s + 0 }')
	fromremote=$(grep -l "remote:builder-1" "$T/$1"-*/host-w64/fill.hrco 2>/dev/null | wc -l)
}

cold_start lease cache "redis://127.0.0.1:$rport"
[ "$compiled" -eq 1 ]
ok $? "with a Redis lease fill is compiled once cluster-wide (compiled: $compiled)" ||
	grep -h "remote tier" "$T"/lease-*.err | sed 's/^/# /'
[ "$fromremote" -eq $((N - 1)) ]
ok $? "the $((N - 1)) others loaded the holder's entry from the remote ($fromremote)"
grep -q "1 leases taken" "$T"/lease-*.err
ok $? "one lease was taken"
key=$(ls "$T/www/cache/ac/")
[ -n "$key" ] && [ "$(redis-cli -p "$rport" exists "hanzo-rocm:lease:$key" 2>/dev/null || echo 0)" -eq 0 ]
ok $? "the lease was released after the push"

cold_start nolease cache2 ""
[ "$compiled" -ge 2 ]
ok $? "without Redis the nodes compile it themselves ($compiled of $N; the jittered re-check found $fromremote)"
echo "# compiles cluster-wide: 1 with the lease, $compiled of $N without"

# A lease left by a dead node (1.5 s): a node waits it out, then takes it
# and compiles; it does not wait for the whole lease of 60 s.
if command -v redis-cli >/dev/null 2>&1; then
	redis-cli -p "$rport" set "hanzo-rocm:lease:$key" dead-node px 1500 >/dev/null
	conf "$T/late.conf" "$T/late" cache3 "redis://127.0.0.1:$rport"
	start=$(date +%s)
	HANZO_ROCM_STATS=1 HANZO_ROCM_CONF="$T/late.conf" "$HR_CLI" selftest \
		--device host-w64 --family fill --bench-size 0 >"$T/out" 2>"$T/err"
	s=$?
	el=$(( $(date +%s) - start ))
	[ $s -eq 0 ] && grep -q "1 compiled here, 1 leases taken, 1 waited" "$T/err"
	ok $? "a dead node's lease: waited, taken when it expired, compiled (${el} s)" || sed 's/^/# /' "$T/err"
else
	skip 1 "no redis-cli"
fi
done_testing
