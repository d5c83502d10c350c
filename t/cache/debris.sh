#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Temp files of interrupted atomic writes in the tier root (the plugin index,
# the toolchain stamps) are debris: `cache gc` removes stale ones (a fresh
# one may be a write in progress), `cache clear` removes them all (doc/RELIABILITY.md).
. "$top_srcdir/t/tap.sh"

root="$T/root"; user="$T/user"
mkdir -p "$root" "$user/gfx90a"
printf '[cache]\nsystem_dir = /nonexistent-sys\n' >"$root/hanzo-rocm.conf"
export HANZO_ROCM_CACHE_DIR="$user"
hr() { "$HR_CLI" --root "$root" --config "$root/hanzo-rocm.conf" "$@"; }

old="$user/..toolchain-hipcc.Ab12Cd $user/.plugins.index.Xy34Zw"
for f in $old; do echo partial > "$f"; done
touch -d '2 hours ago' $old
echo partial > "$user/..toolchain-nvcc.Qr56St"
# Not ours: kept by both.
echo mine > "$user/.keepme.Ab12Cd"
exit_is 0 "cache gc" hr cache gc
gone=0; for f in $old; do [ -e "$f" ] && gone=1; done
ok $gone "gc removed the stale temp files of the index and the stamps"
[ -e "$user/..toolchain-nvcc.Qr56St" ]; ok $? "gc kept a fresh one (a write in progress)"
[ -e "$user/.keepme.Ab12Cd" ]; ok $? "gc kept a file that is not a temp file of ours"

# Compile temp dirs of a precompile killed with SIGKILL (no cleanup ran):
# gc removes those whose .lock nobody holds, never one a compile holds;
# one without .lock (an older version's) only once older than any compile.
mkdir -p "$T/tmp/hanzo-rocm-Ab12Cd/sub" "$T/tmp/hanzo-rocm-Xy34Zw" "$T/tmp/hanzo-rocm-notours" \
	"$T/tmp/hanzo-rocm-Old123" "$T/tmp/hanzo-rocm-New123"
echo src > "$T/tmp/hanzo-rocm-Ab12Cd/source.hip"; echo o > "$T/tmp/hanzo-rocm-Ab12Cd/sub/code.o"
: > "$T/tmp/hanzo-rocm-Ab12Cd/.lock"; : > "$T/tmp/hanzo-rocm-Xy34Zw/.lock"
touch -d '3 hours ago' "$T/tmp/hanzo-rocm-Xy34Zw" "$T/tmp/hanzo-rocm-notours" "$T/tmp/hanzo-rocm-Old123"
perl -e 'use Fcntl ":flock"; open(my $d, "<", $ARGV[0]) or die; flock($d, LOCK_EX | LOCK_NB) or die; sleep 30' "$T/tmp/hanzo-rocm-Xy34Zw/.lock" &
lockpid=$!
sleep 0.3
TMPDIR="$T/tmp" exit_is 0 "cache gc with compile temp dirs" hr cache gc
[ ! -e "$T/tmp/hanzo-rocm-Ab12Cd" ]; ok $? "gc removed a compile temp dir of a dead compile (fresh, its lock free)"
[ ! -e "$T/tmp/hanzo-rocm-Old123" ]; ok $? "gc removed an old one without a lock"
grep_ok "and says so" "^removed 2 stale compile temp dirs$" "$T/out"
[ -d "$T/tmp/hanzo-rocm-Xy34Zw" ] && [ -d "$T/tmp/hanzo-rocm-notours" ] && [ -d "$T/tmp/hanzo-rocm-New123" ]
ok $? "gc kept one a compile holds (however old), a fresh one without a lock and one not named as ours"
kill "$lockpid"; wait "$lockpid" 2>/dev/null

touch -d '2 hours ago' "$user/.keepme.Ab12Cd"
exit_is 0 "cache clear" hr cache clear
[ ! -e "$user/..toolchain-nvcc.Qr56St" ]; ok $? "clear removed the remaining temp file"
[ -e "$user/.keepme.Ab12Cd" ]; ok $? "clear kept a file that is not ours"

# An entry name that is not a regular file: lookups refuse it, so verify
# must report it rather than skip it, and --repair removes it.
mkdir -p "$user/gfx1030"
ln -s /etc/passwd "$user/gfx1030/linked.hrco"
mkfifo "$user/gfx1030/fifo.hrco"
exit_is 1 "cache verify reports entries that are not regular files" timeout 20 "$HR_CLI" --root "$root" --config "$root/hanzo-rocm.conf" cache verify
grep_ok "a symlinked entry" "linked\.hrco: not a regular file \(a symlink\): never used" "$T/out"
grep_ok "a FIFO entry" "fifo\.hrco: not a regular file \(a FIFO\): never used" "$T/out"
exit_is 0 "verify --repair removes them" hr cache verify --repair
[ ! -e "$user/gfx1030/linked.hrco" ] && [ ! -e "$user/gfx1030/fifo.hrco" ] && [ -e /etc/passwd ]
ok $? "both gone (the symlink, not its target)"
done_testing
