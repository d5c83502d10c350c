#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# [remote] auth_file and the TLS files against Debian's nginx started here:
# auth_basic with an htpasswd file written here (a builder and a reader
# with the credential; a reader without it gets 401, counted as http_4xx;
# a credential file others may read turns the tier off, naming it), the
# environment overrides HANZO_ROCM_REMOTE_URL and HANZO_ROCM_REMOTE_AUTH_FILE,
# and HTTPS with a self-signed server certificate and a required client
# certificate made here with openssl (skipped when nginx has no ssl module
# or openssl is missing).
. "$top_srcdir/t/tap.sh"

mod="$top_builddir/lib/remote/.libs/remote.so"
[ -f "$mod" ] || skip_all "remote.so not built (configure found no libcurl)"
command -v c++ >/dev/null 2>&1 || skip_all "no C++ compiler for host code objects"
. "$top_srcdir/t/remote/nginx.sh"
printf 'builder:{PLAIN}b-secret\nreader:{PLAIN}r-secret\n' >"$T/htpasswd.tmp"
mkdir -p "$T/www" && mv "$T/htpasswd.tmp" "$T/htpasswd"
start_nginx auth yes "auth_basic cache; auth_basic_user_file $T/htpasswd;" ||
	skip_all "nginx did not start"
aport=$port
export HANZO_ROCM_PLUGIN_PATH="$HR_PLUGINS"
unset HANZO_ROCM_CACHE_DIR HANZO_ROCM_HOST HANZO_ROCM_REMOTE_URL HANZO_ROCM_REMOTE_AUTH_FILE
export HANZO_ROCM_STATS=1

(cd "$T" && "$HR_CLI" cache keygen builder-1 >"$T/pub") 2>/dev/null
ok $? "a builder key"
pub=$(cat "$T/pub")
printf 'Basic builder:b-secret\n' >"$T/builder.auth"
printf 'basic reader:r-secret\n' >"$T/reader.auth"
printf 'Bearer not-a-password\n' >"$T/wrong.auth"
chmod 600 "$T"/*.auth

# conf FILE USER_DIR COMPILE URL [EXTRA_LINES...]
conf() {
	f=$1 u=$2 c=$3 url=$4
	shift 4
	{
		cat <<-CONF
		[targets]
		host = host-w64
		[cache]
		user_dir = $u
		system_dir = $T/nosys
		compile = $c
		[remote]
		url = $url
		trusted_keys = $pub
		module = $(cd "$(dirname "$mod")" && pwd)/remote.so
		connect_timeout = 1000
		timeout = 3000
		CONF
		for l in "$@"; do echo "$l"; done
	} >"$f"
}
# node NAME URL [EXTRA_LINES...]: a reader with empty tiers, compile = never,
# runs fill; its stderr in $T/err.
node() {
	n=$1 url=$2
	shift 2
	conf "$T/$n.conf" "$T/$n" never "$url" "$@"
	HANZO_ROCM_CONF="$T/$n.conf" "$HR_CLI" selftest --device host-w64 --family fill \
		--bench-size 0 >"$T/out" 2>"$T/err"
}
loaded() { # loaded NAME DESCRIPTION: exit 0 and the entry came from the remote
	s=$?
	[ $s -eq 0 ] && grep -q "remote:builder-1" "$T/$1/host-w64/fill.hrco" 2>/dev/null
	ok $? "$2" || { echo "# exit $s"; sed 's/^/# /' "$T/err" | head -10; }
}
refused() { # refused NAME REGEX DESCRIPTION: failed, nothing published, stderr matches
	s=$?
	[ $s -ne 0 ] && [ ! -e "$T/$1/host-w64/fill.hrco" ] && grep -Eq "$2" "$T/err"
	ok $? "$3" || { echo "# exit $s"; sed 's/^/# /' "$T/err" | head -10; }
}
au="http://127.0.0.1:$aport/cache"

conf "$T/b.conf" "$T/builder" auto "$au" "signing_key = $T/builder-1.secret" \
	"auth_file = $T/builder.auth"
run_ok "builder with auth_file: precompile --remote through auth_basic" \
	env HANZO_ROCM_CONF="$T/b.conf" "$HR_CLI" precompile --remote --target host-w64 --family fill
grep_ok "... pushed" '^1 pushed, 0 failed to push$' "$T/out"
grep -Eq ' - builder \[[^]]*\] "PUT /cache/ac/[0-9a-f]{64} HTTP/1.1" 20[14] ' "$T/auth/access.log"
ok $? "the PUT was made as user builder (access log)" || sed 's/^/# /' "$T/auth/access.log" | tail -3

node r1 "$au" "auth_file = $T/reader.auth"
loaded r1 "reader with auth_file (basic, any case) loads fill from the remote"
node r2 "$au"
refused r2 'misses: http_4xx' "reader without a credential: 401, counted as http_4xx"
node r3 "$au" "auth_file = $T/wrong.auth"
refused r3 'misses: http_4xx' "reader with a wrong credential: refused, http_4xx"
cp "$T/reader.auth" "$T/open.auth" && chmod 644 "$T/open.auth"
node r4 "$au" "auth_file = $T/open.auth"
refused r4 "remote cache tier disabled: \[remote\] auth_file: $T/open.auth has mode 0644" \
	"an auth_file others may read turns the tier off, naming it and its mode"
printf 'token-without-scheme\n' >"$T/bad.auth" && chmod 600 "$T/bad.auth"
node r5 "$au" "auth_file = $T/bad.auth"
refused r5 "auth_file: $T/bad.auth is not a credential" "an auth_file without a scheme: refused, named"
ln -s "$T/reader.auth" "$T/link.auth"
node r6 "$au" "auth_file = $T/link.auth"
refused r6 "auth_file: $T/link.auth: " "an auth_file that is a symlink is not followed"

# The environment beats the files: a url of a dead port, no credential.
dead="http://127.0.0.1:$(free_port)/cache"
conf "$T/r7.conf" "$T/r7" never "$dead"
HANZO_ROCM_REMOTE_URL="$au" HANZO_ROCM_REMOTE_AUTH_FILE="$T/reader.auth" HANZO_ROCM_CONF="$T/r7.conf" \
	"$HR_CLI" selftest --device host-w64 --family fill --bench-size 0 >"$T/out" 2>"$T/err"
loaded r7 "HANZO_ROCM_REMOTE_URL and HANZO_ROCM_REMOTE_AUTH_FILE override url and auth_file"
exit_is 0 "info shows the overridden url" env HANZO_ROCM_REMOTE_URL="$au" HANZO_ROCM_CONF="$T/r7.conf" "$HR_CLI" info
grep_ok "... as remote.url" "remote.url +$au" "$T/out"
exit_is 0 "a bad HANZO_ROCM_REMOTE_URL at run time warns" \
	env HANZO_ROCM_REMOTE_URL="ftp://x" HANZO_ROCM_CONF="$T/r7.conf" "$HR_CLI" info
grep_ok "... naming the variable and the value" "HANZO_ROCM_REMOTE_URL: invalid value 'ftp://x'" "$T/err"
conf "$T/bad.conf" "$T/x" never "$au" "auth_file = relative/auth" "ca_file = ca.pem"
exit_is 2 "config check: relative auth_file and ca_file are errors" "$HR_CLI" config check "$T/bad.conf"
grep_ok "... naming the file, line and value" "bad.conf:[0-9]+: invalid value 'relative/auth' for auth_file" "$T/err"

# HTTPS: a self-signed server certificate for 127.0.0.1 and a client
# certificate the server requires.
if ! "$NGINX" -V 2>&1 | grep -q -- --with-http_ssl_module; then
	skip 6 "nginx without the ssl module"
elif ! command -v openssl >/dev/null 2>&1; then
	skip 6 "no openssl to make certificates (Debian: openssl)"
elif ! openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
		-addext subjectAltName=IP:127.0.0.1 -keyout "$T/srv.key" -out "$T/srv.crt" >"$T/ssl.out" 2>&1 ||
	! openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=node-1 \
		-keyout "$T/cli.key" -out "$T/cli.crt" >>"$T/ssl.out" 2>&1; then
	sed 's/^/# /' "$T/ssl.out" | head -5
	skip 6 "openssl could not make the test certificates"
elif ! start_nginx tls no "ssl_certificate $T/srv.crt; ssl_certificate_key $T/srv.key; ssl_client_certificate $T/cli.crt; ssl_verify_client on;" ssl; then
	skip 6 "nginx with TLS did not start"
else
	chmod 600 "$T/cli.key"
	tu="https://127.0.0.1:$port/cache"
	node t1 "$tu" "ca_file = $T/srv.crt" "client_cert = $T/cli.crt" "client_key = $T/cli.key"
	loaded t1 "https with ca_file and a client certificate loads fill"
	node t2 "$tu" "client_cert = $T/cli.crt" "client_key = $T/cli.key"
	refused t2 'misses: connect' "https without ca_file: the self-signed server is refused (connect)"
	node t3 "$tu" "ca_file = $T/srv.crt"
	refused t3 'misses: http_4xx' "https without the client certificate the server requires: http_4xx"
	chmod 644 "$T/cli.key"
	node t4 "$tu" "ca_file = $T/srv.crt" "client_cert = $T/cli.crt" "client_key = $T/cli.key"
	refused t4 "\[remote\] client_key: $T/cli.key has mode 0644" "a client_key others may read turns the tier off"
	chmod 600 "$T/cli.key"
	exit_is 0 "cache verify --remote over https with the TLS files" \
		env HANZO_ROCM_CONF="$T/t1.conf" "$HR_CLI" cache verify --remote --target host-w64 --family fill
	grep_ok "... ok" '^  ok +host-w64 +fill +signed by builder-1' "$T/out"
fi
done_testing
