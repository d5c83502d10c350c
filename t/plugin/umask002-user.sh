#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# An ordinary user's checkout: with umask 002 and a
# private group (Debian, Ubuntu, Fedora) every directory and file of the
# build tree is group-writable.  As a scratch user with its private group,
# the plugins of such a tree and a site tier made the same way are trusted;
# the same tree writable by a group with other members is refused, and the
# reason says how to fix it.  Needs root (useradd); skips otherwise.
. "$top_srcdir/t/tap.sh"

[ "$(id -u)" -eq 0 ] || skip_all "not root: cannot make a scratch user"
for c in useradd userdel setpriv getent; do
	command -v "$c" >/dev/null 2>&1 || skip_all "no $c"
done
[ -n "$(ls "$HR_PLUGINS"/*.so 2>/dev/null)" ] || skip_all "plugins not built ($HR_PLUGINS)"
G=$(shared_group)
[ -n "$G" ] || skip_all "no shared group"
u="hrt$$"
useradd -M -U -d /nonexistent -s /bin/sh "$u" 2>"$T/err" || skip_all "useradd failed: $(head -1 "$T/err")"
trap 'userdel "$u" 2>/dev/null; getent group "$u" >/dev/null && groupdel "$u"; rm -rf "$T"' EXIT
as_user() { setpriv --reuid="$u" --regid="$u" --init-groups -- "$@"; }
as_user test -x "$HR_CLI" || skip_all "the build tree is not reachable by another user"

chmod 0755 "$T"
W="$T/w"
mkdir "$W" && chown "$u:$u" "$W"
# The tree as the user makes it: umask 002 (then g+w, as a linker's 0775).
as_user sh -c 'umask 002 && mkdir -p "$1/plugins" "$1/home" "$1/root/site/gfx90a" &&
	cp "$2"/*.so "$1/plugins/" && chmod -R g+w "$1/plugins" &&
	printf "[cache]\nsite_dirs = /site\n" > "$1/root/hanzo-rocm.conf"' sh "$W" "$HR_PLUGINS"
ok $? "a tree made with umask 002 as $u"
[ "$(stat -c %a "$W/plugins")" = 775 ] && [ "$(stat -c %G "$W/plugins")" = "$u" ]
ok $? "its directories are group-writable by the private group $u ($(stat -c '%a %G' "$W/plugins"))"

n=$(ls "$HR_PLUGINS"/*.so | wc -l)
hr() {
	as_user env HOME="$W/home" HANZO_ROCM_PLUGIN_PATH="$W/plugins" \
		"$HR_CLI" --root "$W/root" --config "$W/root/hanzo-rocm.conf" "$@"
}
exit_is 0 "plugins as $u" hr plugins
grep -c ' ok ' "$T/out" > "$T/n"
grep_ok "all $n plugins of the group-writable tree are ok" "^$n\$" "$T/n"
! grep -q ' rejected' "$T/out"
ok $? "none rejected"
as_user sh -c 'umask 002 && mkdir -p "$1/home/.cache/hanzo-rocm"' sh "$W"
exit_is 0 "info as $u" hr info
! grep -q 'not used' "$T/err"
ok $? "the group-writable site tier is used (no warning)"
grep_ok "so is a user cache made with umask 002 ($(stat -c %a "$W/home/.cache/hanzo-rocm"))" \
	"user +$W/home/.cache/hanzo-rocm +\(writable" "$T/out"

# The same tree, writable by a group with other members: refused, with the fix.
chgrp "$G" "$W/plugins" "$W/root/site"
exit_is 0 "plugins as $u, the directory of a shared group" hr plugins
grep_ok "its plugins are refused, saying how to fix it" \
	"group-writable \(mode 0775\) by group $G, .*fix: chmod g-w $W/plugins" "$T/out"
exit_is 0 "info as $u, a site tier of a shared group" hr info
grep_ok "the site tier is not used, saying how to fix it" \
	"site cache $W/root/site is group-writable .*fix: chmod g-w $W/root/site: not used" "$T/err"
done_testing
