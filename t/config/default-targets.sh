#!/bin/sh
# The default target list (precompiled when no GPU is detected and no extra
# is set) has one source: configure.ac's default of --with-default-targets,
# which becomes HR_DEFAULT_TARGETS, the key table's built-in default.  Every
# other place that spells it must say the same: the key table's documented
# value (lib/config/keys.c; t/config/test-keys holds
# etc/hanzo-rocm.conf to it), etc/hanzo-rocm.conf, hanzo-rocm.conf(5), the
# README, doc/DESIGN.md and bench/host.sh.  Each target is a processor of
# lib/shared/targets.def.  (debian/cache-targets is another list: the targets
# with a cache package, which the Build-Depends hipcc must build.)
. "$top_srcdir/t/tap.sh"
S=$top_srcdir

src=$(sed -n 's/.*\[with_default_targets="\([^"]*\)"\].*/\1/p' "$S/configure.ac")
[ -n "$src" ]; ok $? "configure.ac gives the default list ($src)"
missing=
for t in $src; do
	grep -q "^HR_AMD_TARGET(\"$t\"" "$S/lib/shared/targets.def" || missing="$missing $t"
done
[ -n "$src" ] && [ -z "$missing" ]
ok $? "every default target is a row of lib/shared/targets.def${missing:+ (not:$missing)}"

same() { # DESCRIPTION VALUE
	[ "$2" = "$src" ]; ok $? "$1 says '$src'${2:+ (it says '$2')}"
}
same "the key table's documented default" \
	"$(sed -n '/{ { "targets", "default",/{n;s/^[[:space:]]*"\([^"]*\)",.*/\1/p;}' "$S/lib/config/keys.c")"
same "etc/hanzo-rocm.conf" "$(sed -n 's/^#default = //p' "$S/etc/hanzo-rocm.conf")"
same "hanzo-rocm.conf(5)" \
	"$(sed -n '/^\.BI default /,/^\.TP/{/^Default:/{n;s/^\.B //p;};}' "$S/doc/hanzo-rocm.conf.5")"
same "the README" "$(sed -n 's/.*(or the default list \(.*\) without one).*/\1/p' "$S/README.md")"
same "doc/DESIGN.md" "$(sed -n 's/^default = \([^;]*[^ ;]\) *;.*/\1/p' "$S/doc/DESIGN.md")"
same "bench/host.sh" "$(sed -n 's/^TARGETS=\${BENCH_TARGETS:-\(.*\)}$/\1/p' "$S/bench/host.sh")"
done_testing
