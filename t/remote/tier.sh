#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The remote cache tier end to end, against Debian's nginx (WebDAV PUT)
# started here: a builder compiles a family for the host backend and
# pushes it signed (hanzo-rocm cache push); a reading node with empty local
# tiers and [cache] compile = never runs it from the remote without
# compiling and without a single PUT; every tampered, unsigned, untrusted,
# replayed or wrong-target entry is refused by its reason and never
# loaded; a killed server fails fast.
. "$top_srcdir/t/tap.sh"

mod="$top_builddir/lib/remote/.libs/remote.so"
[ -f "$mod" ] || skip_all "remote.so not built (configure found no libcurl)"
command -v c++ >/dev/null 2>&1 || skip_all "no C++ compiler for host code objects"
. "$top_srcdir/t/remote/nginx.sh"
start_nginx srv yes || skip_all "nginx did not start"
srv_pid=$pid
url="http://127.0.0.1:$port/cache"
export HANZO_ROCM_PLUGIN_PATH="$HR_PLUGINS"
unset HANZO_ROCM_CACHE_DIR HANZO_ROCM_HOST

(cd "$T" && "$HR_CLI" cache keygen builder-1 >"$T/pub" && "$HR_CLI" cache keygen intruder-1 >"$T/pub2") 2>/dev/null
ok $? "builder and intruder keys made"
pub=$(cat "$T/pub") pub2=$(cat "$T/pub2")

# conf FILE USER_DIR COMPILE TRUSTED [SIGNING_KEY] [HOST]
conf() {
	cat >"$1" <<-CONF
	[targets]
	host = ${6:-host-w64}
	[cache]
	user_dir = $2
	system_dir = $T/nosys
	compile = $3
	[remote]
	url = $url
	trusted_keys = $4
	signing_key = ${5-}
	module = $(cd "$(dirname "$mod")" && pwd)/remote.so
	connect_timeout = 250
	timeout = 2000
	CONF
}
conf "$T/builder.conf" "$T/builder" auto "$pub" "$T/builder-1.secret"
b() { HANZO_ROCM_CONF="$T/builder.conf" "$HR_CLI" "$@"; }

run_ok "builder: precompile fill for host-w64" b precompile --user --target host-w64 --family fill
run_ok "builder: cache push" b cache push
grep_ok "the entry was pushed" '^pushed fill for host-w64' "$T/out"
man=$(ls "$T/www/cache/ac/")
blob=$(ls "$T/www/cache/cas/")
[ -n "$man" ] && [ -n "$blob" ]
ok $? "the server holds ac/<key> and cas/<sha256>"
[ "$(sha256sum "$T/www/cache/cas/$blob" | cut -d' ' -f1)" = "$blob" ]
ok $? "the blob's name is its SHA-256"
grep_ok "the manifest is signed by builder-1" '^signer builder-1$' "$T/www/cache/ac/$man"
cp "$T/www/cache/ac/$man" "$T/manifest.good"
cp "$T/www/cache/cas/$blob" "$T/blob.good"

puts_before=$(grep -c '"PUT ' "$T/srv/access.log")
# reader NAME [TRUSTED] [HOST]: a fresh node runs the family's selftest.
reader() {
	conf "$T/$1.conf" "$T/$1" never "${2:-$pub}" "" "${3:-host-w64}"
	HANZO_ROCM_CONF="$T/$1.conf" HANZO_ROCM_LOG=info "$HR_CLI" selftest \
		--device "${3:-host-w64}" --family fill --bench-size 0
}
run_ok "reader with empty tiers and compile = never runs fill" reader r1
[ -f "$T/r1/host-w64/fill.hrco" ] && grep -q "remote:builder-1" "$T/r1/host-w64/fill.hrco"
ok $? "the hit was published into the reader's user tier, from remote:builder-1"
[ "$(grep -c '"PUT ' "$T/srv/access.log")" -eq "$puts_before" ]
ok $? "the reading node issued no PUT (access log)"
HANZO_ROCM_CONF="$T/r1.conf" "$HR_CLI" selftest --device host-w64 --family fill --bench-size 0 >/dev/null 2>&1
gets=$(grep -c '"GET ' "$T/srv/access.log")
HANZO_ROCM_CONF="$T/r1.conf" "$HR_CLI" selftest --device host-w64 --family fill --bench-size 0 >/dev/null 2>&1
[ "$(grep -c '"GET ' "$T/srv/access.log")" -eq "$gets" ]
ok $? "the next process reads its user tier and asks the network nothing"
conf "$T/r2.conf" "$T/r2" never "$pub"
HANZO_ROCM_STATS=1 HANZO_ROCM_CONF="$T/r2.conf" "$HR_CLI" selftest --device host-w64 \
	--family fill --bench-size 0 >"$T/out" 2>"$T/err"
grep_ok "HANZO_ROCM_STATS=1: the remote tier's counters when the context is freed" \
	'^hanzo-rocm: remote tier: 1 lookups, 1 hits, [0-9]+ bytes, [0-9]+ ms waiting, 0 pushed; misses:$' "$T/err"

# refused NAME REASON [TRUSTED] [HOST]: the reader fails, names the reason,
# and publishes nothing.
refused() {
	reader "$1" "${3-}" "${4-}" >"$T/out" 2>"$T/err"
	s=$?
	[ $s -ne 0 ] && grep -Eq "misses:.* $2 [0-9]+" "$T/err" && [ ! -e "$T/$1/${4:-host-w64}/fill.hrco" ]
	ok $? "$1: refused as $2 (counted), nothing published" || { echo "# exit $s"; sed 's/^/# /' "$T/err" | head -10; }
}
export HANZO_ROCM_STATS=1
"$PYTHON3" - "$T/www/cache/cas/$blob" <<'PY'
import sys
p = sys.argv[1]; b = bytearray(open(p, 'rb').read()); b[len(b) // 2] ^= 1; open(p, 'wb').write(b)
PY
refused flipped bad_hash
grep_ok "a refused entry is asked for once, not once per kernel" 'lookups.*bad_hash 1$' "$T/err"
cp "$T/blob.good" "$T/www/cache/cas/$blob"
sed '/^sig /d' "$T/manifest.good" >"$T/www/cache/ac/$man"
refused unsigned bad_manifest
cp "$T/manifest.good" "$T/www/cache/ac/$man"
refused untrusted untrusted_key "$pub2"
sed 's/^size .*/size 1/' "$T/manifest.good" >"$T/www/cache/ac/$man"
refused altered bad_signature
cp "$T/manifest.good" "$T/www/cache/ac/$man"

# Another key: the cache key of fill for host-w32, named by the miss.
refused w32-missing not_found "" host-w32
key32=$(sed -n 's/.*(cache key \([0-9a-f]\{64\}\)).*/\1/p' "$T/err" | head -1)
[ -n "$key32" ]
ok $? "a miss under compile = never names the cache key" || sed 's/^/# /' "$T/err"
cp "$T/manifest.good" "$T/www/cache/ac/$key32"
refused w32-replayed wrong_target "" host-w32
sed "s/^key .*/key $key32/" "$T/manifest.good" >"$T/www/cache/ac/$key32"
refused w32-rekeyed bad_signature "" host-w32

# A killed server: a miss at once, the process fails (compile = never)
# rather than waiting.
kill "$srv_pid"; wait "$srv_pid" 2>/dev/null
start=$(date +%s)
refused dead connect
[ $(( $(date +%s) - start )) -le 3 ]
ok $? "a dead server costs at most a connect timeout (within 3 s)"
grep_ok "after 3 failed connects the breaker skips it" 'misses: connect 3 breaker_open [0-9]+$' "$T/err"
done_testing
