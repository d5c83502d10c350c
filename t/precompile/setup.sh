# Shared setup for t/precompile-*.sh (sourced after tap.sh): a logging
# wrapper in front of the real hipcc, a private config, the fixture plugin.
[ -n "$HIPCC" ] && [ -x "$HIPCC" ] || skip_all "hipcc not found"
PC_PLUGINS="$top_builddir/t/fixtures/precompile/.libs"
PC_HELPER="$top_builddir/t/precompile/pc-helper"
PC_LOG="$T/hipcc.log"
export PC_LOG
: > "$PC_LOG"
mkdir -p "$T/bin"
# Each call is logged as "PID ARGS"; PC_FAIL makes compiles fail with a
# diagnostic, PC_SLOW delays them (for kill tests); queries (--version,
# -print-resource-dir) always answer.
cat > "$T/bin/hipcc" <<EOF
#!/bin/sh
echo "\$\$ \$*" >> "\$PC_LOG"
case "\$1" in
--version|-print-resource-dir) ;;
*)
	if [ -n "\$PC_FAIL" ]; then
		echo "pctest.hip:7:1: error: injected failure" >&2
		exit 1
	fi
	[ -z "\$PC_SLOW" ] || sleep "\$PC_SLOW"
esac
exec "$HIPCC" "\$@"
EOF
chmod 755 "$T/bin/hipcc"
cat > "$T/hr.conf" <<EOF
[cache]
system_dir = $T/system
site_dirs = $T/site
[compiler]
hipcc = $T/bin/hipcc
nvcc = $T/bin/no-nvcc
EOF
HANZO_ROCM_CONF="$T/hr.conf"
HANZO_ROCM_CACHE_DIR="$T/user"
HANZO_ROCM_PLUGIN_PATH="$PC_PLUGINS"
export HANZO_ROCM_CONF HANZO_ROCM_CACHE_DIR HANZO_ROCM_PLUGIN_PATH
# compiles of TARGET logged so far
pc_compiles() { grep -cE -- "offload-arch[= ]$1( |\$)" "$PC_LOG"; }
