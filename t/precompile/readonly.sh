#!/bin/sh
# A read-only user cache that already holds every pair: precompile --user
# succeeds (everything up to date); a pair that needs building fails with
# the reason, and nothing is compiled.  Read-only for root
# too: a read-only bind mount in a private mount namespace; for another
# user, the modes.
. "$top_srcdir/t/tap.sh"
. "$top_srcdir/t/precompile/setup.sh"
u="$HANZO_ROCM_CACHE_DIR"
mkdir -p "$u"; chmod 0700 "$u"
if [ "$(id -u)" -eq 0 ]; then
	command -v unshare >/dev/null || skip_all "no unshare"
	unshare -m sh -c "mount --bind '$u' '$u' && mount -o remount,ro,bind '$u' '$u'" 2>/dev/null ||
		skip_all "cannot make a read-only bind mount in a private namespace here"
	RO() { unshare -m sh -c 'mount --bind "$0" "$0" && mount -o remount,ro,bind "$0" "$0" && exec "$@"' "$u" "$@"; }
else
	# Not as root in a user namespace (unshare -r): there the real root's
	# directories are owned by the overflow uid, so every plugin directory
	# is (rightly) refused.  The modes bind an ordinary user.
	RO() { chmod -R a-w "$u" && "$@"; s=$?; chmod -R u+w "$u"; return $s; }
fi
PC() { "$HR_CLI" precompile -f pctest --progress never "$@"; }

exit_is 0 "fill the user cache" PC --user -t gfx90a
: > "$PC_LOG"
exit_is 0 "read-only user cache, every pair up to date: success" RO "$HR_CLI" precompile -f pctest --progress never --user -t gfx90a
grep_ok "reports it up to date" '^0 built, 1 up to date, 0 skipped, 0 failed' "$T/out"
exit_is 1 "a pair that needs building fails" RO "$HR_CLI" precompile -f pctest --progress never --user -t gfx90a -t gfx1030
grep_ok "with the reason" "needs building, but $u is not writable" "$T/out"
[ "$(pc_compiles gfx1030)" -eq 0 ]; ok $? "and nothing was compiled in vain"
done_testing
