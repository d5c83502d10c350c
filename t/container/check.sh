#!/bin/sh
# The container proof (doc/CONTAINERS.md), as TAP: inside the runtime image
# made by container/build.sh, with nothing but what the image holds:
#   labels name the baked targets, the version and the toolchain that built
#   the entries; info --json; cache verify (and that it fails on a corrupt
#   entry); a code-object lookup through the image's libhanzo-rocm.so.1 that
#   succeeds for a baked target and fails fast, naming the fix, for a
#   missing one (compile = never); no compiler; the size goal; the framework
#   base's headers and pkg-config.  Times container start -> code object.
#
# usage: check.sh RUNTIME_IMAGE FRAMEWORK_IMAGE BASE_IMAGE "TARGETS" MISSING VERSION CO_LOOKUP [BUILD_LOG]
#   BUILD_LOG  container/build.sh's output: then also check that every apt
#              run of the image builds was offline (build context only)
# Commands run with `podman run` when it works, else in a buildah working
# container with chroot isolation (a fresh container per command, as
# `podman run --rm`); the first line says which.  Needs root.
set -u
img=$1 fw=$2 base=$3 targets=$4 missing=$5 version=$6 lookup=$7 buildlog=${8:-}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$top_srcdir/t/tap.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root (podman, buildah)"
command -v python3 >/dev/null || skip_all "needs python3 (JSON checks)"
mkdir -p "$T/mnt"
cp "$lookup" "$T/mnt/co-lookup" || { echo "Bail out! no $lookup"; exit 1; }

# ---- how to run a command in an image --------------------------------------
runner=
if podman run --rm --pull=never --network=none -v "$T/mnt:/hr-test:ro" "$img" true >"$T/podman" 2>&1; then
	runner=podman
elif command -v buildah >/dev/null && c=$(buildah from --pull=never "$img" 2>"$T/buildah") &&
	buildah run --isolation chroot "$c" -- true >>"$T/buildah" 2>&1; then
	runner=buildah
	buildah rm "$c" >/dev/null
fi
why_podman=$(tail -n 1 "$T/podman")
[ -n "$runner" ] || skip_all "cannot run a container: podman run: $why_podman; buildah run --isolation chroot: $(tail -n 1 "$T/buildah" 2>/dev/null)"
if [ "$runner" = podman ]; then
	echo "# running commands with: podman run"
else
	echo "# running commands with: buildah run --isolation chroot (podman run failed: $why_podman)"
fi
# in_image IMAGE CMD...: a fresh container of IMAGE; this script's files in /hr-test.
# Exit 125 is the container engine failing (podman's convention; a failed
# `buildah from` here too), never the command: that is retried, twice, and
# said on stderr.  Once, `cache list --json` once came back empty while
# the same command by hand printed the list, and neither its exit status nor
# its stderr was looked at - a podman run that failed between two others
# (storage or cleanup of the previous --rm container) fits, and is what the
# retry and the stderr shown on every failure below are for.
in_image_once() {
	i=$1; shift
	if [ "$runner" = podman ]; then
		podman run --rm --pull=never --network=none -v "$T/mnt:/hr-test:ro" "$i" "$@"
		return
	fi
	c=$(buildah from --pull=never "$i") || return 125
	buildah run --isolation chroot -v "$T/mnt:/hr-test:ro" "$c" -- "$@"
	s=$?
	buildah rm "$c" >/dev/null
	return $s
}
in_image() {
	for try in 1 2 3; do
		in_image_once "$@"
		s=$?
		[ "$s" -eq 125 ] && [ "$try" -lt 3 ] || return $s
		echo "check.sh: $runner failed (exit 125, the container engine) running $*: try $((try + 1)) of 3" >&2
		sleep 1
	done
}
label() { podman image inspect --format "{{ index .Labels \"$2\" }}" "$1" 2>>"$T/label.err"; }
json() { # FILE PYTHON-EXPRESSION-OF-d: prints its value
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}
okr() { ok "$@"; return "$1"; }
show() { sed 's/^/#   /' "$1" | tail -n "${2:-15}"; }
families=$(sed -e 's/#.*//' "$top_srcdir/plugins/families" | tr -s ' \n' '  ')
n_fam=$(echo "$families" | wc -w) n_tgt=$(echo "$targets" | wc -w)

# ---- offline builds -----------------------------------------------------------
if [ -n "$buildlog" ]; then
	n_apt=$(grep -c '^apt-local: offline build' "$buildlog")
	grep -E '^(Get|Hit|Ign|Err):[0-9]* +[a-z]+://' "$buildlog" | grep -v ' file:' >"$T/net"
	# Steps podman took from its layer cache print nothing: count what ran.
	[ "$n_apt" -ge 1 ] && [ ! -s "$T/net" ]
	okr $? "the image builds were offline: $n_apt apt run(s) from the build context only, no download" ||
		show "$T/net"
fi

# ---- labels ---------------------------------------------------------------
[ "$(label "$img" ai.hanzo.rocm.targets)" = "$targets" ]
okr $? "label ai.hanzo.rocm.targets is \"$targets\"" ||
	{ echo "# got: $(label "$img" ai.hanzo.rocm.targets)"; show "$T/label.err"; }
in_image "$img" hanzo-rocm --version >"$T/version" 2>"$T/version.err"
s=$?
[ "$(label "$img" org.opencontainers.image.version)" = "$version" ] &&
	[ "$s" -eq 0 ] && [ "$(cat "$T/version")" = "hanzo-rocm $version" ]
okr $? "label org.opencontainers.image.version is $version, as hanzo-rocm --version in the image" ||
	{ echo "# label: $(label "$img" org.opencontainers.image.version); CLI (exit $s):"; show "$T/version"
	  show "$T/version.err"; show "$T/label.err"; }
in_image "$img" hanzo-rocm cache list --json >"$T/list.json" 2>"$T/list.err"
s=$?
tc=$(label "$img" ai.hanzo.rocm.toolchain)
compilers=$(json "$T/list.json" '" | ".join(sorted({e["compiler"] for e in d}))' 2>&1)
[ "$s" -eq 0 ] && [ -n "$tc" ] && [ "$compilers" = "$tc" ]
okr $? "label ai.hanzo.rocm.toolchain ($tc) is the compiler of every cache entry" ||
	{ echo "# cache list --json: exit $s, $(wc -c <"$T/list.json") bytes; entries: $compilers"
	  echo "# its stderr:"; show "$T/list.err"; show "$T/label.err"; }

# ---- info, verify ------------------------------------------------------------
in_image "$img" hanzo-rocm info --json >"$T/info.json" 2>"$T/info.err"
okr $? "hanzo-rocm info --json runs in the image" || show "$T/info.err"
sys=$(json "$T/info.json" '[t["entries"] for t in d["cache_tiers"] if t["tier"] == "system" and t["path"] == "/var/cache/hanzo-rocm"][0]' 2>&1)
[ "$sys" = $((n_fam * n_tgt)) ]
okr $? "info: the system tier holds $n_fam families x $n_tgt target(s) = $((n_fam * n_tgt)) entries (got $sys)" ||
	show "$T/info.err"
never=$(json "$T/info.json" 'd["config"]["cache"]["compile"] + " " + " ".join(d["config"]["files"])' 2>&1)
case $never in "never "*50-container.conf*) s=0 ;; *) s=1 ;; esac
okr $s "info: compile = never from /etc/hanzo-rocm.conf.d/50-container.conf" ||
	{ echo "# got: $never"; show "$T/info.err"; }
np=$(json "$T/info.json" 'len([p for p in d["plugins"] if p["status"] == "ok"])' 2>&1)
[ "$np" = "$n_fam" ]
okr $? "info: the $n_fam plugins are accepted (got $np)" || show "$T/info.err"
exit_is 0 "hanzo-rocm cache verify exits 0" in_image "$img" hanzo-rocm cache verify
t0=${targets%% *}
# shellcheck disable=SC2016
exit_is 1 "cache verify exits 1 on a corrupt entry (fresh container, one byte changed)" \
	in_image "$img" sh -c 'printf X | dd of="$1" bs=1 seek=300 conv=notrunc 2>/dev/null && hanzo-rocm cache verify' \
	sh "/var/cache/hanzo-rocm/$t0/fill.hrco"

# ---- code-object lookups, compile = never ----------------------------------
for t in $targets; do
	for f in $families; do
		in_image "$img" /hr-test/co-lookup "$f" "$t" >"$T/co" 2>"$T/co.err" ||
			{ echo "# $f $t:"; show "$T/co.err"; echo fail >>"$T/co-fail"; }
		grep -q "^$f $t [0-9]* bytes, ELF machine 224," "$T/co" || echo "$f $t" >>"$T/co-fail"
	done
done
[ ! -s "$T/co-fail" ]
okr $? "hanzo_rocm_code_object finds an AMDGPU ELF for every family on $targets" ||
	show "$T/co-fail"
s0=$(date +%s%N)
in_image "$img" /hr-test/co-lookup unary "$missing" >"$T/miss" 2>"$T/miss.err"
rc=$? ms=$((($(date +%s%N) - s0) / 1000000))
[ "$rc" -eq 1 ]
okr $? "a lookup for a target not baked ($missing) fails (exit $rc) in $ms ms, container start included" ||
	show "$T/miss.err"
grep_ok "its message names the miss and the tiers searched" \
	"no code object for unary on $missing in any cache tier \(searched: /var/cache/hanzo-rocm" "$T/miss.err"
grep_ok "its message says how to build it" "hanzo-rocm precompile --target $missing --family unary" "$T/miss.err"

# ---- no compiler -----------------------------------------------------------
# shellcheck disable=SC2016
in_image "$img" sh -c 'for c in hipcc nvcc clang clang-15 gcc cc c++; do command -v "$c" && exit 1; done
	ls -d /opt/rocm* /usr/local/cuda* /usr/lib/llvm-* 2>/dev/null && exit 1
	dpkg-query -W -f "\${db:Status-Abbrev} \${Package}\n" |
		grep -E "^ii +(hipcc|nvidia-cuda-toolkit|clang(-[0-9]+)?|gcc(-[0-9]+)?|g\+\+(-[0-9]+)?|cpp(-[0-9]+)?)$" && exit 1
	exit 0' >"$T/cc" 2>&1
okr $? "no hipcc, nvcc or other compiler in the runtime image" || show "$T/cc"

# ---- size --------------------------------------------------------------------
size() { podman image inspect --format '{{.Size}}' "$1"; }
in_image "$img" du -sb /var/cache/hanzo-rocm >"$T/du" 2>"$T/du.err"
s=$?
cache=$(cut -f1 "$T/du") rt=$(size "$img") b=$(size "$base")
case $cache$rt$b in *[!0-9]*|"") cache=0 rt=0 b=0 s=1 ;; esac
extra=$((rt - b - cache))
echo "# sizes: base $b, runtime $rt, cache $cache bytes: runtime = base + cache + $((extra / 1024)) KiB"
[ "$s" -eq 0 ] && [ "$extra" -le $((20 * 1048576)) ]
okr $? "runtime image <= base + 20 MiB + cache (base + cache + $((extra / 1048576)) MiB)" ||
	{ echo "# du (exit $s):"; show "$T/du"; show "$T/du.err"; }

# ---- framework base ----------------------------------------------------------
in_image "$fw" sh -c 'pkg-config --modversion hanzo-rocm && pkg-config --cflags --libs hanzo-rocm &&
	test -f /usr/include/hanzo-rocm.h && test -f /usr/include/hanzo-rocm-plugin.h' >"$T/fw" 2>"$T/fw.err"
s=$?
[ $s -eq 0 ] && [ "$(head -n 1 "$T/fw")" = "$version" ] && grep -q -- '-lhanzo-rocm' "$T/fw"
okr $? "framework base: headers and pkg-config hanzo-rocm $version" || { show "$T/fw"; show "$T/fw.err"; }
exit_is 0 "framework base: cache verify exits 0 (it carries the runtime's cache)" \
	in_image "$fw" hanzo-rocm cache verify

# ---- time from container start to a loaded code object ----------------------
: >"$T/times"
for i in 1 2 3 4 5; do
	s0=$(date +%s%N)
	in_image "$img" /hr-test/co-lookup unary "$t0" >"$T/co" 2>>"$T/times.err" || { show "$T/times.err"; break; }
	echo "$((($(date +%s%N) - s0) / 1000)) $(sed 's/.*, //' "$T/co")" >>"$T/times"
done
echo "# container start -> unary code object for $t0 ($runner), 5 runs: wall us, in-process:"
sed 's/^/#   /' "$T/times"
echo "# median wall: $(sort -n "$T/times" | sed -n 3p | cut -d' ' -f1) us"

done_testing
