#!/bin/sh
# Hostile plugin files (doc/RELIABILITY.md): a truncated .so (an interrupted upgrade)
# must not kill the process with SIGBUS; a .so without the entry symbol is
# never dlopen-ed (its constructor never runs); a 32-bit or another
# machine's ELF is refused with a precise reason; a plugin directory under
# a world-writable (non-sticky) ancestor is refused.
. "$top_srcdir/t/tap.sh"

FIX="$top_builddir/t/fixtures/plugins/.libs"
[ -f "$FIX/alpha.so" ] || skip_all "fixture plugins not built ($FIX)"

P="$T/p"
mkdir -p "$P" "$T/root"
chmod 0755 "$P"
cp "$FIX/alpha.so" "$P/alpha.so"
cp "$FIX/noentry.so" "$P/noentry.so"
# Half a plugin: the headers are there, the segments and sections are not.
size=$(wc -c < "$FIX/beta.so")
head -c $((size / 2)) "$FIX/beta.so" > "$P/trunc.so"
head -c 40 "$FIX/beta.so" > "$P/stub.so"
cp "$FIX/beta.so" "$P/elf32.so"
printf '\001' | dd of="$P/elf32.so" bs=1 seek=4 conv=notrunc 2>/dev/null
# e_machine 40 (ARM): no 64-bit host this library builds for.
cp "$FIX/beta.so" "$P/arm.so"
printf '\050\000' | dd of="$P/arm.so" bs=1 seek=18 conv=notrunc 2>/dev/null
chmod 0644 "$P"/*.so

export HANZO_ROCM_ROOT="$T/root" HANZO_ROCM_PLUGIN_PATH="$P"
export HR_FIXTURE_CTOR_MARK="$T/ctor-ran"

exit_is 0 "plugins survives a truncated plugin (no SIGBUS)" "$HR_CLI" plugins
cp "$T/out" "$T/list"
rejected() { # rejected FILE REGEX DESCRIPTION
	awk -v f="$1" 'found { print; exit } index($0, f) && / rejected / { found = 1 }' \
		"$T/list" > "$T/why"
	grep_ok "$3" "rejected: (.*: )?$2" "$T/why"
}
grep_ok "alpha is still ok" "^alpha +1\.0 +1 +ok +$P/alpha\.so$" "$T/list"
rejected "$P/trunc.so" "(section headers out of bounds|segment [0-9]+ extends past the end)" "truncated plugin"
rejected "$P/stub.so" "truncated ELF file \(40 bytes" "plugin shorter than an ELF header"
rejected "$P/noentry.so" "no entry symbol 'hanzo_rocm_plugin_entry' in \.dynsym" "no entry symbol"
[ ! -e "$T/ctor-ran" ]; ok $? "a plugin without the entry symbol is never dlopen-ed"
rejected "$P/elf32.so" "32-bit ELF \(class 1\)" "32-bit ELF"
rejected "$P/arm.so" "ELF machine 40 is not this host's" "another machine's ELF"
exit_is 0 "info survives a truncated plugin" "$HR_CLI" info

# The library itself, asked for one family with no index, scans them all.
exit_is 0 "info --json survives it too" "$HR_CLI" info --json

# A world-writable ancestor without the sticky bit: anyone can swap $P.
A="$T/open"; mkdir -p "$A/sub/p"; chmod 0755 "$A/sub" "$A/sub/p"
cp "$FIX/alpha.so" "$A/sub/p/alpha.so"; chmod 0644 "$A/sub/p/alpha.so"
chmod 0777 "$A"
HANZO_ROCM_PLUGIN_PATH="$A/sub/p" "$HR_CLI" plugins > "$T/list" 2>&1
rejected "$A/sub/p/alpha.so" "directory $A/sub/p is under $A, which is world-writable without the sticky bit \(mode 0777\)" "world-writable ancestor"
chmod 1777 "$A"
HANZO_ROCM_PLUGIN_PATH="$A/sub/p" "$HR_CLI" plugins > "$T/list" 2>&1
grep_ok "a sticky world-writable ancestor (as /tmp) is fine" "^alpha +1\.0 +1 +ok " "$T/list"
chmod 0755 "$A"

done_testing
