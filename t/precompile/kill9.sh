#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# kill -9 of a process compiling (precompile, or any library caller on a
# cache miss) runs no cleanup, yet its compilers must die with it: the
# whole process group (a compiler forks: hipcc runs clang, clang runs lld),
# and `cache gc` then removes the temp dirs they left.
. "$top_srcdir/t/tap.sh"
command -v ps >/dev/null 2>&1 || skip_all "no ps (procps): the compiler's processes cannot be counted"
. "$top_srcdir/t/precompile/setup.sh"
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"

# A slow compiler that forks two levels of children, all in its group; it
# logs its process group.
cat > "$T/bin/slowcc" <<EOF
#!/bin/sh
echo "\$(ps -o pgid= -p \$\$ | tr -d ' ') \$*" >> "\$PC_LOG"
case "\$1" in --version|-print-resource-dir) exec "$HIPCC" "\$@" ;; esac
sh -c 'sleep 300 & sleep 300; wait' &
sleep 300
EOF
chmod 755 "$T/bin/slowcc"
sed "s|^hipcc = .*|hipcc = $T/bin/slowcc|" "$T/hr.conf" > "$T/slow.conf"
export HANZO_ROCM_CONF="$T/slow.conf"

compiles() { grep -c offload-arch "$PC_LOG"; }
wait_for_compiles() { # until $1 compiles are logged (60 s at most)
	i=0
	while [ "$(compiles)" -lt "$1" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
}
# processes (not zombies) of the compilers' groups
alive() {
	ps -eo pgid=,stat= | awk -v g="$groups" '
		BEGIN { n = split(g, a, " "); for (i = 1; i <= n; i++) want[a[i]] = 1 }
		($1 in want) && $2 !~ /^Z/' | wc -l
}

# Two compiles at once (-j2), then SIGKILL.
"$HR_CLI" precompile -f pctest --progress never --output "$T/o" -t gfx90a -t gfx1030 -j2 \
	> "$T/out" 2>&1 &
pid=$!
wait_for_compiles 2
sleep 0.5
groups=$(awk '/offload-arch/ { printf "%s ", $1 }' "$PC_LOG")
before=$(alive)
[ "$before" -ge 8 ]; ok $? "two compiles running, each with its children ($before processes)"
kill -9 "$pid"
wait "$pid" 2>/dev/null
i=0
while [ "$(alive)" -gt 0 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
left=$(alive)
[ "$left" -eq 0 ]; ok $? "after kill -9 of precompile no process of the compilers' groups is left ($left)"
[ "$left" -eq 0 ] || ps -eo pid,pgid,stat,args | grep -F "$T" | sed 's/^/# /'
for g in $groups; do perl -e "kill 9, -$g"; done
n=$(ls "$T/tmp" | wc -l)
[ "$n" -eq 2 ]; ok $? "the killed compiles left their 2 temp dirs ($n)"

# A compile in progress (its lock held) is kept by gc; the dead ones go.
mkdir "$T/tmp/hanzo-rocm-Live01" && : > "$T/tmp/hanzo-rocm-Live01/.lock"
perl -e 'use Fcntl ":flock"; open(my $d, "<", $ARGV[0]) or die; flock($d, LOCK_EX | LOCK_NB) or die; sleep 30' "$T/tmp/hanzo-rocm-Live01/.lock" &
lockpid=$!
sleep 0.3
exit_is 0 "cache gc" "$HR_CLI" cache gc
grep_ok "gc says what it removed" "^removed 2 stale compile temp dirs$" "$T/out"
n=$(ls "$T/tmp" | wc -l)
[ "$n" -eq 1 ] && [ -d "$T/tmp/hanzo-rocm-Live01" ]
ok $? "gc removed both dead compiles' dirs and kept the live one ($n left)"
kill "$lockpid" 2>/dev/null; wait "$lockpid" 2>/dev/null
exit_is 0 "cache gc once its lock is free" "$HR_CLI" cache gc
[ ! -e "$T/tmp/hanzo-rocm-Live01" ]; ok $? "then it goes too"

# gc (and clear) while compiles run: each still succeeds (the lead saw a
# compile lose its temp dir to a concurrent gc in a shared /tmp).
sed "s|^hipcc = .*|hipcc = $T/bin/hipcc|" "$T/hr.conf" > "$T/real.conf"
: > "$PC_LOG"
PC_SLOW=2 HANZO_ROCM_CONF="$T/real.conf" "$HR_CLI" precompile -f pctest --progress never \
	--output "$T/g" -t gfx90a -t gfx1030 -j2 > "$T/g.out" 2>&1 &
pid=$!
wait_for_compiles 2
for i in 1 2 3 4 5 6 7 8 9 10; do "$HR_CLI" cache gc >/dev/null 2>&1; sleep 0.2; done
"$HR_CLI" cache clear >/dev/null 2>&1
wait "$pid"
ok $? "precompile with gc and clear running alongside succeeds"
grep -q "^2 built" "$T/g.out"; ok $? "both built"
sed 's/^/#   /' "$T/g.out" | tail -3

# The same for an application: a lookup that compiles on a miss.
: > "$PC_LOG"
"$PC_HELPER" lookup gfx90a pctest > "$T/lookup.out" 2>&1 &
pid=$!
wait_for_compiles 1
sleep 0.5
groups=$(awk '/offload-arch/ { printf "%s ", $1 }' "$PC_LOG")
[ -n "$groups" ] && [ "$(alive)" -ge 4 ]; ok $? "a library lookup is compiling on a miss"
kill -9 "$pid"
wait "$pid" 2>/dev/null
i=0
while [ "$(alive)" -gt 0 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
left=$(alive)
[ "$left" -eq 0 ]; ok $? "after kill -9 of the application its compiler's group is gone ($left)"
for g in $groups; do perl -e "kill 9, -$g"; done
exit_is 0 "cache gc" "$HR_CLI" cache gc
n=$(ls "$T/tmp" | wc -l)
[ "$n" -eq 0 ]; ok $? "and gc removed its temp dir ($n left)"
done_testing
