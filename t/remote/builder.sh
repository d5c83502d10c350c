#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# A builder's commands against Debian's nginx (WebDAV PUT) started here:
# `hanzo-rocm precompile --remote` signs and pushes what it builds (and
# what is already up to date), refuses to run without a signing key, and
# fails when the server refuses the PUT (405); `hanzo-rocm cache verify
# --remote` reports every entry of the families and targets asked for:
# ok with its signer, absent, refused with the reason (a flipped blob
# byte, an untrusted signer) or unreachable (the server killed).
. "$top_srcdir/t/tap.sh"

mod="$top_builddir/lib/remote/.libs/remote.so"
[ -f "$mod" ] || skip_all "remote.so not built (configure found no libcurl)"
command -v c++ >/dev/null 2>&1 || skip_all "no C++ compiler for host code objects"
. "$top_srcdir/t/remote/nginx.sh"
start_nginx srv yes || skip_all "nginx did not start"
srv_pid=$pid
export HANZO_ROCM_PLUGIN_PATH="$HR_PLUGINS"
unset HANZO_ROCM_CACHE_DIR HANZO_ROCM_HOST HANZO_ROCM_STATS

(cd "$T" && "$HR_CLI" cache keygen builder-1 >"$T/pub" && "$HR_CLI" cache keygen other-1 >"$T/pub2") 2>/dev/null
ok $? "builder and other keys made"
pub=$(cat "$T/pub") pub2=$(cat "$T/pub2")

# conf FILE URL_PATH TRUSTED [SIGNING_KEY]
conf() {
	cat >"$1" <<-CONF
	[targets]
	host = host-w64
	[cache]
	user_dir = $T/builder
	system_dir = $T/nosys
	compile = auto
	[remote]
	url = http://127.0.0.1:$port/$2
	trusted_keys = $3
	signing_key = ${4-}
	module = $(cd "$(dirname "$mod")" && pwd)/remote.so
	connect_timeout = 250
	timeout = 2000
	CONF
}
conf "$T/b.conf" cache "$pub" "$T/builder-1.secret"
b() { HANZO_ROCM_CONF="$T/b.conf" "$HR_CLI" "$@"; }
conf "$T/nokey.conf" cache "$pub"
exit_is 2 "precompile --remote without a signing key is a usage error" \
	env HANZO_ROCM_CONF="$T/nokey.conf" "$HR_CLI" precompile --remote --target host-w64 --family fill
grep_ok "... naming what a builder needs" 'needs \[remote\] url and signing_key' "$T/err"
exit_is 2 "precompile --remote --json is a usage error" b precompile --remote --json --target host-w64 --family fill

run_ok "precompile --remote builds fill for host-w64 and pushes it" \
	b precompile --remote --target host-w64 --family fill
grep_ok "the entry was pushed" '^pushed fill for host-w64$' "$T/out"
grep_ok "the summary counts it" '^1 pushed, 0 failed to push$' "$T/out"
man=$(ls "$T/www/cache/ac/" 2>/dev/null)
blob=$(ls "$T/www/cache/cas/" 2>/dev/null)
[ -n "$man" ] && [ -n "$blob" ] && grep -q '^signer builder-1$' "$T/www/cache/ac/$man" &&
	grep -q "^blob $blob\$" "$T/www/cache/ac/$man"
ok $? "the server holds the signed manifest and its blob"
puts=$(grep -c '"PUT ' "$T/srv/access.log")
run_ok "precompile --remote again: up to date, pushed again" \
	b precompile --remote --target host-w64 --family fill
grep_ok "the up-to-date entry is pushed" '^1 pushed, 0 failed to push$' "$T/out"
[ "$(grep -c '"PUT ' "$T/srv/access.log")" -eq $((puts + 2)) ]
ok $? "one blob and one manifest PUT (access log)"

# A read-only server (no WebDAV: nginx answers PUT with 405).
bport=$port bpid=$srv_pid
if start_nginx ro no; then
	conf "$T/ro.conf" cache "$pub" "$T/builder-1.secret"
	exit_is 1 "precompile --remote fails when the server refuses the PUT (405)" \
		env HANZO_ROCM_CONF="$T/ro.conf" "$HR_CLI" precompile --remote --target host-w64 --family fill
	grep_ok "... naming the remote and the reason" ":$port/cache: http_4xx" "$T/err"
else
	skip 2 "a second nginx did not start"
fi
port=$bport srv_pid=$bpid

exit_is 2 "cache verify --remote with --repair is a usage error" b cache verify --remote --repair
exit_is 2 "cache verify --family without --remote is a usage error" b cache verify --family fill
run_ok "cache verify --remote: the pushed entry" b cache verify --remote --target host-w64 --family fill
grep_ok "ok, with its signer and size" '^  ok +host-w64 +fill +signed by builder-1, [0-9]+ bytes \(ac/[0-9a-f]{64}\)$' "$T/out"
grep_ok "... and the count" '^1 ok, 0 absent, 0 refused, 0 unreachable$' "$T/out"
run_ok "cache verify --remote: an entry never pushed is absent, not a failure" \
	b cache verify --remote --target host-w64 --family fill --family affine
grep_ok "affine is absent" '^  absent +host-w64 +affine ' "$T/out"
exit_is 1 "cache verify --remote: an unknown family fails" \
	b cache verify --remote --target host-w64 --family no-such-family
cp "$T/www/cache/cas/$blob" "$T/blob.good"
"$PYTHON3" - "$T/www/cache/cas/$blob" <<'PY'
import sys
p = sys.argv[1]; b = bytearray(open(p, 'rb').read()); b[len(b) // 2] ^= 1; open(p, 'wb').write(b)
PY
exit_is 1 "cache verify --remote: a flipped blob byte fails" b cache verify --remote --target host-w64 --family fill
grep_ok "... refused as bad_hash" '^  refused +host-w64 +fill +bad_hash ' "$T/out"
cp "$T/blob.good" "$T/www/cache/cas/$blob"
conf "$T/other.conf" cache "$pub2"
exit_is 1 "cache verify --remote: a signer not trusted here fails" \
	env HANZO_ROCM_CONF="$T/other.conf" "$HR_CLI" cache verify --remote --target host-w64 --family fill
grep_ok "... refused as untrusted_key" '^  refused +host-w64 +fill +untrusted_key ' "$T/out"
[ ! -e "$T/builder/host-w64/.fill.lock" ] || [ -f "$T/builder/host-w64/fill.hrco" ]
ok $? "verify published nothing into the user tier"

kill "$srv_pid"; wait "$srv_pid" 2>/dev/null
exit_is 1 "cache verify --remote: a killed server is unreachable" \
	b cache verify --remote --target host-w64 --family fill
grep_ok "... named as connect" '^  unreachable +host-w64 +fill +connect ' "$T/out"
done_testing
