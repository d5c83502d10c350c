#!/bin/sh
# A full disk under the user tier degrades with one warning (doc/DESIGN.md §5): run
# t/cache/test-full on a tmpfs too small for any code object, mounted in a
# private mount namespace (unshare) so nothing outside the test sees it.
. "$top_srcdir/t/tap.sh"
[ -n "$HIPCC" ] || skip_all "no hipcc"
command -v unshare >/dev/null || skip_all "no unshare"
mnt="$T/full"
mkdir -p "$mnt"
# Only root: another user mounts in a user namespace (unshare -r), where the
# real root's directories (/ first) belong to the overflow uid, so the trust
# rule rightly refuses every plugin directory and nothing can compile.
[ "$(id -u)" -eq 0 ] || skip_all "not root: a tmpfs needs a user namespace, where / is not root's"
un="unshare -m"
$un sh -c "mount -t tmpfs -o size=8k,mode=0700 hr-full '$mnt'" 2>/dev/null ||
	skip_all "cannot mount a tmpfs in a private namespace here"
# The test prints its own TAP; the tmpfs lives as long as that namespace.
exec $un sh -c "mount -t tmpfs -o size=8k,mode=0700 hr-full '$mnt' && \
	dd if=/dev/zero of='$mnt/filler' bs=1k count=8 2>/dev/null; \
	exec '$top_builddir/t/cache/test-full' '$mnt'"
