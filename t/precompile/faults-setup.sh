# Shared setup for t/precompile/faults.sh and t/precompile/fault-runs.sh (sourced after
# t/precompile/setup.sh): real code objects of the fixture family, built once
# by the real hipcc, and a stand-in compiler that serves them or fails the
# way $FAULT says: ok (after $FAULT_SLEEP seconds), hang (forks a child and
# never ends), crash (SIGSEGV), garbage (random bytes as its output).
# Every call logs "PGID ARGS" to $PC_LOG.
"$HR_CLI" precompile -f pctest --progress never --output "$T/real" -t gfx90a -t gfx1030 \
	> "$T/real.out" 2>&1 || { cat "$T/real.out"; echo "Bail out! cannot build the fixture code objects"; exit 1; }
for t in gfx90a gfx1030; do
	"$PC_HELPER" payload "$T/real/$t/pctest.hrco" > "$T/co-$t.o" || exit 1
done
cat > "$T/bin/fakecc" <<EOF
#!/bin/sh
echo "\$(ps -o pgid= -p \$\$ | tr -d ' ') \$*" >> "\$PC_LOG"
case "\$1" in --version|-print-resource-dir) exec "$HIPCC" "\$@" ;; esac
out= arch= prev=
for a; do
	[ "\$prev" = -o ] && out=\$a
	case \$a in --offload-arch=*) arch=\${a#--offload-arch=} ;; esac
	prev=\$a
done
case "\${FAULT:-ok}" in
ok) [ -z "\$FAULT_SLEEP" ] || sleep "\$FAULT_SLEEP"; exec cp "$T/co-\$arch.o" "\$out" ;;
hang) sh -c 'sleep 1000' & sleep 1000 ;;
crash) kill -SEGV \$\$ ;;
garbage) head -c 4096 /dev/urandom > "\$out" ;;
esac
EOF
chmod 755 "$T/bin/fakecc"
sed "s|^hipcc = .*|hipcc = $T/bin/fakecc|" "$T/hr.conf" > "$T/fault.conf"
printf 'timeout = 2\n' >> "$T/fault.conf"
HANZO_ROCM_CONF="$T/fault.conf"
export HANZO_ROCM_CONF
: > "$PC_LOG"

# processes (zombies aside) of the process groups logged in $PC_LOG
fault_alive() {
	ps -eo pgid=,stat= | awk -v g="$(awk '{ print $1 }' "$PC_LOG" | sort -u | tr '\n' ' ')" '
		BEGIN { n = split(g, a, " "); for (i = 1; i <= n; i++) want[a[i]] = 1 }
		($1 in want) && $2 !~ /^Z/' | wc -l
}
# temp dirs of compiles left in $TMPDIR, temp files of publishes left in DIR
fault_tmpdirs() { ls "$TMPDIR" | grep -c '^hanzo-rocm-'; }
fault_tempfiles() { find "$1" -name '.*.hrco.*' 2>/dev/null | wc -l; }
