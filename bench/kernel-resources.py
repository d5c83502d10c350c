#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Registers, LDS, occupancy and spills per kernel, AMD targets and sm_90, as markdown.

Why: doc/BENCHMARKS.md records every family's static resources and a reason
for every kernel above 64 VGPRs; this makes those tables from the built
plugins instead of by hand.  Each family's embedded source is dumped with
t/kernels/hr-dump-plugin (the exact text the library compiles) and compiled
as t/kernels/compile.sh does: hipcc -O3 --offload-arch=TARGET for each AMD
target, the figures from the compiler's own report
(-Rpass-analysis=kernel-resource-usage: VGPRs, AGPRs, SGPRs, scratch,
occupancy in waves a SIMD for the kernel's __launch_bounds__ (1024 threads
where it has none), spills, LDS), and nvcc -O3 -arch=sm_90 -Xptxas -v
(registers, static shared memory, spill stores, stack).  Nothing runs on a
GPU.  The exit status is 1 when a kernel spills VGPRs or uses scratch or a
stack on any target (SGPR spills go to VGPR lanes, not memory: reported,
not failed).

  bench/kernel-resources.py [--builddir DIR] [--amd TARGET[=ROOT]]... [--no-nv] FAMILY...

--amd TARGET builds with this machine's hipcc (default: gfx90a alone);
TARGET=ROOT builds inside ROOT, an unpacked Debian root holding that
release's hipcc (the roots of t/rocm/root.sh: Debian 13's ROCm 5.7 builds
gfx942 and gfx1100, sid's ROCm 6.4 gfx1201), with chroot (root only; ROOT's
/proc is mounted for the run when it is not).

Each family gets one row per kernel pattern (dtype suffixes folded, ranges
over them): per AMD target "VGPRs[+AGPRs] / LDS bytes / waves a SIMD", and
sm_90 "registers / shared bytes".
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

DTYPES = {"f32", "f64", "f16", "bf16", "u8", "u32", "i64"}
REMARK = re.compile(r"remark:\s+(?:Function Name: (\S+)|([A-Za-z][A-Za-z ]*?)"
                    r"(?: \[[^\]]*\])?: (\d+|True|False)) \[-Rpass-analysis")


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, **kw)


def amd_resources(log):
    """name -> dict(vgpr, agpr, sgpr_spill, vgpr_spill, scratch, occ, lds) from the remarks."""
    out, cur = {}, None
    for line in log.splitlines():
        m = REMARK.search(line)
        if not m:
            continue
        if m.group(1):
            cur = out.setdefault(m.group(1), {})
            continue
        if cur is not None and m.group(3).isdigit():
            cur[m.group(2)] = int(m.group(3))
    res = {}
    for name, r in out.items():
        res[name] = {"vgpr": r.get("VGPRs", 0), "agpr": r.get("AGPRs", 0),
                     "occ": r.get("Occupancy", 0), "lds": r.get("LDS Size", 0),
                     "scratch": r.get("ScratchSize", 0), "vspill": r.get("VGPRs Spill", 0),
                     "sspill": r.get("SGPRs Spill", 0)}
    return res


def nv_resources(ptxas_log):
    """name -> dict(regs, shared, spill, stack) from nvcc -Xptxas -v."""
    out, name = {}, None
    for line in ptxas_log.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            name = m.group(1)
            out[name] = {"regs": 0, "shared": 0, "spill": 0, "stack": 0}
            continue
        if name is None:
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores", line)
        if m:
            out[name]["stack"], out[name]["spill"] = int(m.group(1)), int(m.group(2))
        m = re.search(r"Used (\d+) registers", line)
        if m:
            out[name]["regs"] = int(m.group(1))
            s = re.search(r"(\d+) bytes smem", line)
            out[name]["shared"] = int(s.group(1)) if s else 0
    return out


def pattern(name):
    """is_u32_f32 -> is_*, asort_asc_wide_f16 -> asort_asc_wide_*."""
    parts = name.split("_")
    while len(parts) > 1 and parts[-1] in DTYPES:
        parts.pop()
    return "_".join(parts) + "_*"


def span(values):
    lo, hi = min(values), max(values)
    return str(lo) if lo == hi else "%d–%d" % (lo, hi)


class Chroot:
    """ROOT's /proc mounted while in use (sid's hipcc reads /proc/self/exe)."""

    def __init__(self, root):
        self.root, self.mounted = root, False

    def __enter__(self):
        if self.root and not os.path.exists(os.path.join(self.root, "proc", "self")):
            r = run(["mount", "-t", "proc", "proc", os.path.join(self.root, "proc")])
            if r.returncode != 0:
                sys.exit("%s: cannot mount /proc: %s" % (self.root, r.stderr.strip()))
            self.mounted = True
        return self

    def __exit__(self, *exc):
        if self.mounted:
            run(["umount", os.path.join(self.root, "proc")])


def amd_compile(hipcc, target, root, src, fam):
    """The remarks of one family's source built for TARGET (in ROOT when given)."""
    args = ["-std=c++17", "--cuda-device-only", "--no-gpu-bundle-output",
            "--offload-arch=" + target, "-O3", "-c", "-x", "hip",
            "-Rpass-analysis=kernel-resource-usage"]
    if not root:
        r = run([hipcc] + args + [src, "-o", src + "." + target + ".o"])
    else:
        tmp = tempfile.mkdtemp(prefix="kres.", dir=os.path.join(root, "tmp"))
        try:
            shutil.copy(src, os.path.join(tmp, fam + ".hip"))
            inner = "/tmp/" + os.path.basename(tmp)
            r = run(["chroot", root, "env", "-i", "PATH=/usr/sbin:/usr/bin:/sbin:/bin",
                     "HOME=/root", "LANG=C.UTF-8", "hipcc"] + args +
                    [inner + "/" + fam + ".hip", "-o", inner + "/" + fam + ".o"])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    if r.returncode != 0:
        sys.exit("%s/%s: %s" % (fam, target, r.stderr[-2000:]))
    return amd_resources(r.stdout + r.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--builddir", default=".", help="build tree with plugins/ and t/")
    ap.add_argument("--hipcc", default=shutil.which("hipcc") or "hipcc")
    ap.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    ap.add_argument("--amd", action="append", metavar="TARGET[=ROOT]",
                    help="an AMD target, built in ROOT when given (repeatable; default gfx90a)")
    ap.add_argument("--no-nv", action="store_true", help="no sm_90 column (no nvcc)")
    ap.add_argument("families", nargs="+")
    a = ap.parse_args()
    targets = []
    for spec in a.amd or ["gfx90a"]:
        t, _, root = spec.partition("=")
        if not re.fullmatch(r"gfx[0-9a-f]+", t) or (root and not os.path.isdir(root)):
            sys.exit("--amd %s: want gfxNNN or gfxNNN=ROOT (a directory)" % spec)
        targets.append((t, os.path.abspath(root) if root else ""))

    dump = os.path.join(a.builddir, "t", "kernels", "hr-dump-plugin")
    bad, over = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for fam in a.families:
            so = os.path.join(a.builddir, "plugins", ".libs", fam + ".so")
            src, names = os.path.join(tmp, fam + ".hip"), os.path.join(tmp, fam + ".names")
            r = run([dump, so, src, names])
            if r.returncode != 0:
                sys.exit("%s: %s" % (fam, r.stderr.strip()))
            kernels = open(names).read().split()
            amd = {}
            for t, root in targets:
                with Chroot(root):
                    amd[t] = amd_compile(a.hipcc, t, root, src, fam)
            nv = None
            if not a.no_nv:
                r = run([a.nvcc, "-cubin", "-arch=sm_90", "-O3", "-Xptxas", "-v", "-x", "cu",
                         src, "-o", os.path.join(tmp, fam + "-sm_90.cubin")])
                if r.returncode != 0:
                    sys.exit("%s/sm_90: %s" % (fam, r.stderr[-2000:]))
                nv = nv_resources(r.stdout + r.stderr)
            for k in kernels:
                for t, _ in targets:
                    x = amd[t].get(k)
                    if x is None:
                        sys.exit("%s: %s missing from the %s report" % (fam, k, t))
                    if x["vspill"] or x["scratch"]:
                        bad.append("%s (%s)" % (k, t))
                    if t == targets[0][0] and x["vgpr"] + x["agpr"] > 64:
                        over.append((x["vgpr"] + x["agpr"], k))
                if nv is not None:
                    if k not in nv:
                        sys.exit("%s: %s missing from the sm_90 code object" % (fam, k))
                    if nv[k]["spill"] or nv[k]["stack"]:
                        bad.append("%s (sm_90)" % k)
            print_family(fam, kernels, targets, amd, nv)
    print()
    first = targets[0][0]
    if over:
        print("Above 64 VGPRs on %s: " % first +
              ", ".join("`%s` (%d)" % (k, v) for v, k in sorted(over, reverse=True)))
    else:
        print("No kernel above 64 VGPRs on %s." % first)
    sspill = sorted({k for t, _ in targets for k, x in amd_all(targets, amd) if x["sspill"]})
    if sspill:
        print("SGPR spills (to VGPR lanes, not memory): " + ", ".join("`%s`" % k for k in sspill))
    if bad:
        print("VGPR spills or scratch/stack: " + ", ".join("`%s`" % k for k in bad))
        return 1
    print("No VGPR spill and no scratch/stack on %s%s." %
          (", ".join(t for t, _ in targets), "" if a.no_nv else " or sm_90"))
    return 0


def amd_all(targets, amd):
    for t, _ in targets:
        for k, x in amd[t].items():
            yield "%s (%s)" % (k, t), x


def print_family(fam, kernels, targets, amd, nv):
    print()
    cols = ["%s VGPR[+AGPR] / LDS / waves a SIMD" % t for t, _ in targets]
    if nv is not None:
        cols.append("sm_90 registers / shared")
    print("| family | kernels | " + " | ".join(cols) + " |")
    print("|---|---|" + "---|" * len(cols))
    groups = {}
    for k in kernels:
        groups.setdefault(pattern(k), []).append(k)
    for p, ks in groups.items():
        cells = []
        for t, _ in targets:
            xs = [amd[t][k] for k in ks]
            v = span([x["vgpr"] for x in xs])
            if any(x["agpr"] for x in xs):
                v += "+" + span([x["agpr"] for x in xs])
            cells.append("%s / %s / %s" % (v, span([x["lds"] for x in xs]),
                                           span([x["occ"] for x in xs])))
        if nv is not None:
            cells.append("%s / %s" % (span([nv[k]["regs"] for k in ks]),
                                      span([nv[k]["shared"] for k in ks])))
        print("| %s | `%s` (%d) | %s |" % (fam, p, len(ks), " | ".join(cells)))


if __name__ == "__main__":
    sys.exit(main())
