#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Register and LDS use per kernel, gfx90a and sm_90, as markdown tables.

Why: doc/BENCHMARKS.md records the static resources of the row families
(reduce, norm, rope, indexing, sort) and a reason for every kernel above 64
VGPRs; this makes those tables from the built plugins instead of by hand.
Each family's embedded source is dumped with t/kernels/hr-dump-plugin (the exact
text the library compiles) and compiled as t/kernels/compile.sh does:
hipcc -O3 --offload-arch=gfx90a (figures from the AMDGPU metadata note:
.vgpr_count, .sgpr_count, .group_segment_fixed_size) and nvcc -O3
-arch=sm_90 -Xptxas -v (registers, static shared memory).  Nothing runs on
a GPU.  Spills and scratch/stack are reported; the exit status is 1 when a
kernel spills or uses scratch on either target.

  bench/kernel-resources.py [--builddir DIR] FAMILY...

Families whose kernels all end in a float dtype (reduce, norm, rope) get a
table with one column per dtype, cells "VGPR/SGPR/LDS . registers/shared";
the others (indexing, sort) one row per kernel pattern with ranges.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

FLOATS = ["f32", "f64", "f16", "bf16"]
DTYPES = set(FLOATS) | {"u8", "u32", "i64"}


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, **kw)


def amd_resources(readelf, obj):
    """name -> dict(vgpr, sgpr, lds, spill, scratch) from the metadata note."""
    notes = run([readelf, "--notes", obj]).stdout
    out, cur = {}, None
    for line in notes.splitlines():
        if re.match(r"^  - ", line):
            cur = {}
            line = "    " + line[4:]
        m = re.match(r"^    \.([a-z_]+):\s*(\S*)", line)
        if cur is None or not m:
            continue
        cur[m.group(1)] = m.group(2)
        if "name" in cur and "vgpr_spill_count" in cur and "vgpr_count" in cur:
            out[cur["name"]] = {
                "vgpr": int(cur["vgpr_count"]), "sgpr": int(cur["sgpr_count"]),
                "lds": int(cur["group_segment_fixed_size"]),
                "spill": int(cur["vgpr_spill_count"]),
                "scratch": int(cur["private_segment_fixed_size"]),
            }
            cur = None
    return out


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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--builddir", default=".", help="build tree with plugins/ and t/")
    ap.add_argument("--hipcc", default=shutil.which("hipcc") or "hipcc")
    ap.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    ap.add_argument("--readelf", default=shutil.which("llvm-readelf-15") or
                    shutil.which("llvm-readelf") or "/usr/lib/llvm-15/bin/llvm-readelf")
    ap.add_argument("families", nargs="+")
    a = ap.parse_args()

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
            obj = os.path.join(tmp, fam + "-gfx90a.o")
            r = run([a.hipcc, "-std=c++17", "--cuda-device-only", "--no-gpu-bundle-output",
                     "--offload-arch=gfx90a", "-O3", "-c", "-x", "hip", src, "-o", obj])
            if r.returncode != 0:
                sys.exit("%s/gfx90a: %s" % (fam, r.stderr[-2000:]))
            amd = amd_resources(a.readelf, obj)
            r = run([a.nvcc, "-cubin", "-arch=sm_90", "-O3", "-Xptxas", "-v", "-x", "cu", src,
                     "-o", os.path.join(tmp, fam + "-sm_90.cubin")])
            if r.returncode != 0:
                sys.exit("%s/sm_90: %s" % (fam, r.stderr[-2000:]))
            nv = nv_resources(r.stdout + r.stderr)
            for k in kernels:
                if k not in amd or k not in nv:
                    sys.exit("%s: %s missing from a code object" % (fam, k))
                if amd[k]["spill"] or amd[k]["scratch"] or nv[k]["spill"] or nv[k]["stack"]:
                    bad.append(k)
                if amd[k]["vgpr"] > 64:
                    over.append((amd[k]["vgpr"], k))
            print_family(fam, kernels, amd, nv)
    print()
    if over:
        print("Above 64 VGPRs on gfx90a: " +
              ", ".join("`%s` (%d)" % (k, v) for v, k in sorted(over, reverse=True)))
    else:
        print("No kernel above 64 VGPRs on gfx90a.")
    if bad:
        print("Spills or scratch/stack: " + ", ".join("`%s`" % k for k in bad))
        return 1
    print("No spills and no scratch/stack on gfx90a or sm_90.")
    return 0


def print_family(fam, kernels, amd, nv):
    print()
    if all(k.rsplit("_", 1)[-1] in FLOATS for k in kernels):
        print("| family | kernel | " + " | ".join(FLOATS) + " |")
        print("|---|---|" + "---|" * len(FLOATS))
        bases = []
        for k in kernels:
            b = k.rsplit("_", 1)[0]
            if b not in bases:
                bases.append(b)
        for b in bases:
            cells = []
            for t in FLOATS:
                k = b + "_" + t
                if k not in amd:
                    cells.append("-")
                    continue
                x, y = amd[k], nv[k]
                cells.append("%d/%d/%d · %d/%d" % (x["vgpr"], x["sgpr"], x["lds"],
                                                   y["regs"], y["shared"]))
            print("| %s | `%s_T` | %s |" % (fam, b, " | ".join(cells)))
        return
    print("| family | kernels | gfx90a VGPR | gfx90a SGPR | gfx90a LDS (static) "
          "| sm_90 registers | sm_90 shared (static) |")
    print("|---|---|---|---|---|---|---|")
    groups = {}
    for k in kernels:
        groups.setdefault(pattern(k), []).append(k)
    for p, ks in groups.items():
        print("| %s | `%s` (%d) | %s | %s | %s | %s | %s |" % (
            fam, p, len(ks), span([amd[k]["vgpr"] for k in ks]),
            span([amd[k]["sgpr"] for k in ks]), span([amd[k]["lds"] for k in ks]),
            span([nv[k]["regs"] for k in ks]), span([nv[k]["shared"] for k in ks])))


if __name__ == "__main__":
    sys.exit(main())
