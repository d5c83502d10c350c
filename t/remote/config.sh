#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# [remote] in hanzo-rocm.conf: config check accepts a valid section (the
# credential and TLS files included) and names the file, line and value of
# each bad one.
. "$top_srcdir/t/tap.sh"

good="$T/good.conf"
cat >"$good" <<'CONF'
[remote]
url = http://127.0.0.1:8080/cache https://cache.example.org/hanzo-rocm/
trusted_keys = builder-1:fqkXD1ieE9fPMA4Ymm9Mc2LrysBSYM0ZjUZQLJPtzBE= old.key-0:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=
signing_key = /etc/hanzo-rocm/builder.secret
connect_timeout = 100
timeout = 3000
budget = 20000
auth_file = /etc/hanzo-rocm/remote.auth
ca_file = /etc/hanzo-rocm/ca.pem
client_cert = /etc/hanzo-rocm/node.pem
client_key = /etc/hanzo-rocm/node.key
CONF
exit_is 0 "config check accepts a valid [remote]" "$HR_CLI" --config "$good" config check
# bad KEY VALUE PATTERN
bad() {
	printf '[remote]\n%s = %s\n' "$1" "$2" >"$T/bad.conf"
	exit_is 2 "config check refuses $1 = $2" "$HR_CLI" --config "$T/bad.conf" config check
	grep_ok "naming the file, line and value" "bad.conf:2: invalid value '$3' for $1" "$T/err"
}
bad url "ftp://x/cache" "ftp://x/cache"
bad url "http://a http://b?q=1" "http://b\\?q=1"
bad url "http://" "http://"
bad trusted_keys "builder-1" "builder-1"
bad trusted_keys "k:not*base64" "k:not\\*base64"
bad signing_key "relative/key" "relative/key"
bad auth_file "remote.auth" "remote.auth"
bad ca_file "ca.pem" "ca.pem"
bad client_cert "~/node.pem" "~/node.pem"
bad client_key "node.key" "node.key"
bad timeout 0 0
bad budget 99999999 99999999
done_testing
