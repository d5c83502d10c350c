#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# hanzo-rocm cache keygen: the secret key in a new 0600 file, the public
# key "name:base64" on stdout, never over an existing key.
. "$top_srcdir/t/tap.sh"

cd "$T" || exit 99
umask 022
exit_is 0 "keygen NAME" "$HR_CLI" cache keygen builder-1
cp "$T/out" "$T/pub"
grep_ok "public key printed as name:base64" '^builder-1:[A-Za-z0-9+/]{43}=$' "$T/pub"
[ "$(stat -c %a "$T/builder-1.secret")" = 600 ]
ok $? "secret key builder-1.secret written 0600 under umask 022" || ls -l "$T"
grep_ok "secret key is name:base64 of 64 bytes" '^builder-1:[A-Za-z0-9+/]{86}==$' "$T/builder-1.secret"
cp "$T/builder-1.secret" "$T/before"
exit_is 1 "keygen refuses an existing key file" "$HR_CLI" cache keygen builder-1
grep_ok "the refusal says why" 'exists already' "$T/err"
cmp -s "$T/before" "$T/builder-1.secret"
ok $? "the existing key is unchanged"
exit_is 0 "keygen --output FILE" "$HR_CLI" cache keygen other --output "$T/o.key"
grep_ok "--output names the file" '^other:' "$T/o.key"
exit_is 2 "a key name with '/' is a usage error" "$HR_CLI" cache keygen ../evil
exit_is 2 "a missing name is a usage error" "$HR_CLI" cache keygen
[ -z "$(find "$T" -maxdepth 1 -name '*.secret.*')" ]
ok $? "no temp file left behind"
exit_is 0 "cache keygen --help" "$HR_CLI" cache keygen --help
done_testing
