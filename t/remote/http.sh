#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The remote tier's HTTP module (remote.so, libcurl) against a real server:
# Debian's nginx with WebDAV PUT, started here on 127.0.0.1 (ephemeral
# ports) as this user and stopped by the PID started.  Bazel's layout
# (/cas/, /ac/) round trip, 404, a read-only server's 405, a killed server
# (connect error at once), a SIGSTOPped one (each wait bounded by the
# request timeout and the budget, the breaker opens, recovery after the
# back-off), and a node that only reads never PUTs (the access log).
. "$top_srcdir/t/tap.sh"

mod="$top_builddir/lib/remote/.libs/remote.so"
cli="$top_builddir/t/remote/http-client"
[ -f "$mod" ] || skip_all "remote.so not built (configure found no libcurl)"

. "$top_srcdir/t/remote/nginx.sh"

start_nginx rw yes || skip_all "nginx did not start"
rw=$port rw_pid=$pid
start_nginx ro no
ok $? "a read-only nginx started too" || exit 1
ro=$port

head -c 5000 /dev/urandom >"$T/blob"
sum=$(sha256sum "$T/blob" | cut -d' ' -f1)
base="http://127.0.0.1:$rw"
run_ok "PUT cas/<sha256>" "$cli" "$mod" put "$base/cache/cas/$sum" "$T/blob"
grep_ok "PUT answered 201" '^ok 20[14]' "$T/out"
run_ok "GET cas/<sha256>" "$cli" "$mod" get "$base/cache/cas/$sum" "$T/got"
grep_ok "GET answered 200" '^ok 200' "$T/out"
cmp -s "$T/blob" "$T/got"
ok $? "round trip: the bytes back are the bytes put"
run_ok "GET of an absent key" "$cli" "$mod" get "$base/cache/ac/absent" "$T/none"
grep_ok "absent is not_found (404), not a failure" '^not_found 404' "$T/out"
[ ! -e "$T/none" ]
ok $? "nothing written for a 404"
head -c 2000000 /dev/zero >"$T/big"
cp "$T/big" "$T/www/cache/cas/big"
run_ok "GET of more than the cap (1 MiB)" "$cli" "$mod" get "$base/cache/cas/big" "$T/bigout"
grep_ok "over the size cap is refused" '^(bad_size|http_4xx) ' "$T/out"

cp "$T/rw/access.log" "$T/before-ro.log"
run_ok "PUT to the read-only server" "$cli" "$mod" put "http://127.0.0.1:$ro/cache/cas/$sum" "$T/blob"
grep_ok "read-only server: http_4xx (405)" '^http_4xx 405' "$T/out"
run_ok "GET from the read-only server" "$cli" "$mod" get "http://127.0.0.1:$ro/cache/cas/$sum" "$T/got2"
cmp -s "$T/blob" "$T/got2"
ok $? "the read-only server serves the same tree"
# A reading node: GETs only, as the server's access log shows.
run_ok "a reading node's sequence of GETs" "$cli" "$mod" seq "$base/cache/cas/$sum" 5
grep -c "\"PUT " "$T/rw/access.log" >"$T/puts"
[ "$(cat "$T/puts")" -eq 1 ]
ok $? "the server saw exactly the one PUT this test made ($(cat "$T/puts"))"

# A server throttled to 1 KiB/s: 200 KB would take minutes; the request
# ends at its timeout (1 s here) as a timeout, nothing returned.
head -c 200000 /dev/urandom >"$T/www/cache/cas/slow"
run_ok "GET from a server throttled to 1 KiB/s" "$cli" -r 1000 "$mod" get "$base/slow/cache/cas/slow" "$T/slow"
grep_ok "throttled: timeout" '^timeout 200' "$T/out"
grep_ok "within the request timeout (+1 s)" '^total (1[0-9]{3}|[0-9]{1,3})$' "$T/out"
[ ! -e "$T/slow" ]
ok $? "nothing written for the throttled request"

# 32 processes racing to PUT the same blob (generous timeouts: a loaded
# 2-core machine runs them): each is answered, and the
# object is whole afterwards (nginx's PUT is a temp file and a rename).
head -c 300000 /dev/urandom >"$T/race"
rsum=$(sha256sum "$T/race" | cut -d' ' -f1)
i=0
while [ $i -lt 32 ]; do
	"$cli" -r 30000 -k 10000 "$mod" put "$base/cache/cas/$rsum" "$T/race" >"$T/race.$i" 2>&1 &
	rpids="${rpids-} $!"
	i=$((i + 1))
done
wait_ok=0
for j in $rpids; do wait "$j" || wait_ok=1; done
[ $wait_ok -eq 0 ] && [ "$(cat "$T"/race.* | grep -c '^ok 20[14]')" -eq 32 ]
ok $? "32 racing PUTs all answered 201/204" || { cat "$T"/race.* | grep -v '^total' | sort | uniq -c | sed 's/^/# /'; grep -i put "$T/rw/error.log" | tail -3 | sed 's/^/# /'; }
[ "$(sha256sum "$T/www/cache/cas/$rsum" | cut -d' ' -f1)" = "$rsum" ]
ok $? "the raced object is whole"

# Stopped server: each request ends at the request timeout (500 ms); after
# two failures the breaker opens and requests are skipped at once; once the
# server runs again and the back-off (at most 8 x 200 ms) has passed, a
# request succeeds.
kill -STOP "$rw_pid"
run_ok "requests to a stopped server" "$cli" -r 500 -t 2 -B 200 -c "$rw_pid" "$mod" seq "$base/cache/cas/$sum" 4
cp "$T/out" "$T/seq"
awk '$1 == 1 && $2 == "timeout" && $3 < 1500' "$T/seq" | grep -q .
ok $? "first request: timeout, within the request timeout (+1 s)" || sed 's/^/# /' "$T/seq"
awk '$1 == 3 && $2 == "breaker_open" && $3 < 50' "$T/seq" | grep -q .
ok $? "after two failures the breaker skips the server at once" || sed 's/^/# /' "$T/seq"
awk '$1 == 5 && $2 == "ok"' "$T/seq" | grep -q .
ok $? "after SIGCONT and the back-off the server is used again" || sed 's/^/# /' "$T/seq"

kill -STOP "$rw_pid"
run_ok "many requests, a 1.2 s budget" "$cli" -r 500 -t 100 -b 1200 "$mod" seq "$base/cache/cas/$sum" 6
cp "$T/out" "$T/budget"
kill -CONT "$rw_pid"
awk '$2 == "budget"' "$T/budget" | grep -q .
ok $? "the budget stops further requests" || sed 's/^/# /' "$T/budget"
awk '$1 == "total" && $2 < 2200' "$T/budget" | grep -q .
ok $? "time spent stays within the budget (+1 s)" || sed 's/^/# /' "$T/budget"

# Killed server: refused at once, well within the connect timeout.
kill "$rw_pid"; wait "$rw_pid" 2>/dev/null
run_ok "GET from a killed server" "$cli" "$mod" get "$base/cache/cas/$sum" "$T/dead"
grep_ok "killed server: connect" '^connect 0' "$T/out"
grep_ok "and fast" '^total ([0-9]|[0-9][0-9]|[0-4][0-9][0-9])$' "$T/out"

# The module loader applies the trust rule.
cp "$mod" "$T/remote.so"; chmod 666 "$T/remote.so"
exit_is 1 "a world-writable module is refused" "$cli" "$T/remote.so" get "$base/x" "$T/x"
grep_ok "naming the file and why" 'remote.so is .*writable' "$T/err"
done_testing
