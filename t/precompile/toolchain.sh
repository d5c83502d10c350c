#!/bin/sh
# hanzo-rocm precompile with a broken toolchain: a failure, not a skip.
#  - a hipcc that is installed but cannot run fails every pair (exit 1);
#  - a hipcc whose AMD device libraries cannot be found fails (exit 1),
#    where it used to report "skipped" and exit 0 with nothing built;
#  - that negative answer is not remembered: once the libraries appear (the
#    package installed), the next run finds them and builds, even though
#    the compiler binary and dpkg's status are unchanged.
. "$top_srcdir/t/tap.sh"
. "$top_srcdir/t/precompile/setup.sh"
PC() { "$HR_CLI" precompile -f pctest --progress never "$@"; }

# Installed, but cannot run.
mkdir -p "$T/dead/bin"
printf '#!/bin/sh\necho "hipcc: cannot execute clang" >&2\nexit 1\n' >"$T/dead/bin/hipcc"
chmod 755 "$T/dead/bin/hipcc"
sed "s|^hipcc = .*|hipcc = $T/dead/bin/hipcc|" "$T/hr.conf" >"$T/dead.conf"
HANZO_ROCM_CONF="$T/dead.conf" exit_is 1 "a compiler that cannot run: exit 1" PC --output "$T/o1" -t gfx90a
grep_ok "its pair is failed, not skipped" '^gfx90a .*failed \(.*unusable' "$T/out"
grep_ok "summary: 0 skipped, 1 failed" '^0 built, 0 up to date, 0 skipped, 1 failed' "$T/out"

# The real hipcc behind a prefix with no device libraries, whose clang
# answers -print-resource-dir with an empty resource directory.
mkdir -p "$T/nolib/bin" "$T/nolib/res"
cat >"$T/nolib/bin/hipcc" <<EOS
#!/bin/sh
[ "\$1" = -print-resource-dir ] && { echo "$T/nolib/res"; exit 0; }
exec "$HIPCC" "\$@"
EOS
chmod 755 "$T/nolib/bin/hipcc"
sed "s|^hipcc = .*|hipcc = $T/nolib/bin/hipcc|" "$T/hr.conf" >"$T/nolib.conf"
HANZO_ROCM_CONF="$T/nolib.conf" exit_is 1 "no device libraries: exit 1" PC --output "$T/o2" -t gfx90a
grep_ok "failed with the reason, not skipped" '^gfx90a .*failed \(AMD device libraries .*not found' "$T/out"
grep_ok "summary: 0 built, 0 skipped, 1 failed" '^0 built, 0 up to date, 0 skipped, 1 failed' "$T/out"

# The libraries appear where the compiler says it looks (its resource dir).
real=$(ls -d /usr/lib/*/amdgcn/bitcode /usr/lib/llvm-*/lib/clang/*/amdgcn/bitcode \
	/opt/rocm/amdgcn/bitcode 2>/dev/null | head -n 1)
if [ -n "$real" ]; then
	mkdir -p "$T/nolib/res/amdgcn" && ln -s "$real" "$T/nolib/res/amdgcn/bitcode"
	HANZO_ROCM_CONF="$T/nolib.conf" exit_is 0 "libraries installed: the next run builds" \
		PC --output "$T/o2" -t gfx90a
	grep_ok "no stale 'not found' remembered: built" '^1 built, 0 up to date, 0 skipped, 0 failed' "$T/out"
	grep_ok "the stamp records the resource dir's libraries" "^devlib=$real\$" "$T/o2/.toolchain-hipcc"
else
	skip 3 "no AMD device libraries on this machine"
fi
done_testing
