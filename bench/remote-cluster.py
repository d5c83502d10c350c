#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The remote tier's cluster bench: N processes (default 64), each a node
with its own empty local tiers (its own HOME, user and system cache
directories), cold-start a family set against one nginx (WebDAV PUT) and
one redis-server, both started here on 127.0.0.1 with ephemeral ports and
stopped by the PIDs started.  Every node holds the signing key (a builder:
the node that compiles an entry pushes it).  Phases, each on a fresh
server path (so the server starts empty):

  lease     N nodes at once, [remote] redis set: compiles cluster-wide
            against the distinct entries (goal <= 1.05x), bytes fetched
  nolease   the same without Redis (a jittered re-check only)
  remote    N nodes at once, empty local tiers, the server holding every
            entry: remote-hit latency p50/p99, time to first kernel
  serial    the same one node at a time (an idle server)
  local     one node again with its local tier filled: a local hit
  kill      N nodes started over --stagger seconds, nginx and redis-server
            killed (SIGKILL) halfway: processes failed, and how the nodes
            after the kill got their kernels

Usage (from anywhere; BUILDDIR a configured, built tree):
  nice python3 bench/remote-cluster.py BUILDDIR [--families fill,affine]
      [--nodes 64] [--stagger 4] [--json OUT]
Each family's first kernel (kernels/F.list) is loaded on a host-w64 device
through bench/remote-node.  Prints a Markdown report.
"""
import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def wait_port(port, proc, what):
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.1)
    sys.exit(f"remote-cluster: {what} did not start")


def start_nginx(t):
    d = os.path.join(t, "nginx")
    os.makedirs(d)
    os.makedirs(os.path.join(t, "www"))
    port = free_port()
    user = ""
    if os.getuid() == 0:
        import grp
        import pwd
        user = "user %s %s;\n" % (pwd.getpwuid(0).pw_name, grp.getgrgid(0).gr_name)
    with open(os.path.join(d, "nginx.conf"), "w") as f:
        f.write(user + f"""worker_processes 1;
daemon off;
master_process off;
pid {d}/nginx.pid;
error_log {d}/error.log;
events {{ worker_connections 1024; }}
http {{
  access_log {d}/access.log;
  client_body_temp_path {d}/body; proxy_temp_path {d}/proxy;
  fastcgi_temp_path {d}/fcgi; uwsgi_temp_path {d}/uwsgi; scgi_temp_path {d}/scgi;
  server {{
    listen 127.0.0.1:{port} backlog=1024;
    root {t}/www;
    client_max_body_size 64m;
    location / {{ dav_methods PUT; create_full_put_path on; dav_access user:rw; }}
  }}
}}
""")
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    p = subprocess.Popen([nginx, "-p", d, "-c", d + "/nginx.conf", "-e", d + "/error.log"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_port(port, p, "nginx")
    return p, port


def start_redis(t):
    d = os.path.join(t, "redis")
    os.makedirs(d)
    port = free_port()
    p = subprocess.Popen([shutil.which("redis-server") or "/usr/bin/redis-server",
                          "--bind", "127.0.0.1", "--port", str(port), "--save", "",
                          "--appendonly", "no", "--dir", d, "--daemonize", "no",
                          "--maxclients", "1000"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_port(port, p, "redis-server")
    return p, port


def first_kernel(family):
    with open(os.path.join(SRC, "kernels", family + ".list")) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                return family + "/" + line.split()[0]
    sys.exit(f"remote-cluster: no kernel in kernels/{family}.list")


def pct(v, q):
    v = sorted(v)
    if not v:
        return float("nan")
    return v[min(len(v) - 1, int(round(q / 100 * (len(v) - 1))))]


class Cluster:
    def __init__(self, a, t):
        self.a, self.t = a, t
        self.node = os.path.join(a.builddir, "bench", "remote-node")
        self.cli = os.path.join(a.builddir, "tools", "hanzo-rocm")
        self.module = os.path.join(a.builddir, "lib", "remote", ".libs", "remote.so")
        for f in (self.node, self.cli, self.module):
            if not os.access(f, os.R_OK):
                sys.exit(f"remote-cluster: {f} not built")
        self.kernels = [first_kernel(f) for f in a.families.split(",")]
        self.procs = {}
        self.nginx, self.port = start_nginx(t)
        self.procs["nginx"] = self.nginx
        self.redis, self.rport = start_redis(t)
        self.procs["redis"] = self.redis
        pub = subprocess.run([self.cli, "cache", "keygen", "builder-1"], cwd=t, check=True,
                             capture_output=True, text=True).stdout.strip()
        self.pub = pub
        self.env = dict(os.environ)
        for k in ("HANZO_ROCM_CACHE_DIR", "HANZO_ROCM_HOST", "HANZO_ROCM_STATS"):
            self.env.pop(k, None)
        self.env["HANZO_ROCM_PLUGIN_PATH"] = os.path.join(a.builddir, "plugins", ".libs")

    def stop(self):
        for p in self.procs.values():
            if p.poll() is None:
                p.kill()
            p.wait()

    def conf(self, name, base, redis):
        d = os.path.join(self.t, name)
        os.makedirs(d + "/home")
        path = d + "/hanzo-rocm.conf"
        with open(path, "w") as f:
            f.write(f"""[targets]
host = host-w64
[cache]
user_dir = {d}/user
system_dir = {d}/system
compile = auto
[remote]
url = http://127.0.0.1:{self.port}/{base}
trusted_keys = {self.pub}
signing_key = {self.t}/builder-1.secret
module = {self.module}
""" + (f"redis = redis://127.0.0.1:{self.rport}\n" if redis else ""))
        return d, path

    def spawn(self, d, path):
        env = dict(self.env, HOME=d + "/home", HANZO_ROCM_CONF=path)
        out = open(d + "/out", "w")
        err = open(d + "/err", "w")
        return subprocess.Popen([self.node] + self.kernels, env=env, stdout=out, stderr=err)

    def collect(self, d, rc):
        r = {"rc": rc, "entries": [], "first": None, "stat": {}}
        with open(d + "/out") as f:
            for line in f:
                w = line.split()
                if w[0] == "entry":
                    r["entries"].append((w[1], int(w[2]), w[3]))
                elif w[0] == "first":
                    r["first"] = int(w[1])
                elif w[0] == "stat":
                    r["stat"][w[1]] = int(w[2])
        with open(d + "/err") as f:
            r["err"] = f.read()[-400:]
        return r

    def phase(self, name, redis, nodes=None, stagger=0.0, kill_at=None, base=None, reuse=False):
        n = nodes or self.a.nodes
        base = base or name
        runs, killed_before = [], set()
        t0 = time.monotonic()
        started = []
        for i in range(n):
            nd = f"{name}-{i}"
            if reuse:
                d, path = os.path.join(self.t, nd), os.path.join(self.t, nd, "hanzo-rocm.conf")
            else:
                d, path = self.conf(nd, base, redis)
            if stagger:
                at = t0 + stagger * i / n
                if kill_at is not None and not killed_before and i >= n // 2:
                    # Halfway: the server holds every entry (the first
                    # nodes' pushes), then it dies under the second half.
                    ac = os.path.join(self.t, "www", base, "ac")
                    end = time.monotonic() + 120
                    while time.monotonic() < end and not (
                            os.path.isdir(ac) and len(os.listdir(ac)) >= len(self.kernels)):
                        time.sleep(0.05)
                    # Up to 2 s for the first half's waiters to fetch.
                    end = time.monotonic() + 2
                    while time.monotonic() < end and any(
                            p.poll() is None for _, _, p, _ in started):
                        time.sleep(0.05)
                    self.in_flight = sum(1 for _, _, p, _ in started if p.poll() is None)
                    self.kill()
                    self.killed_at = time.monotonic() - t0
                    killed_before.add(i)
                time.sleep(max(0.0, at - time.monotonic()))
            p = self.spawn(d, path)
            started.append((i, d, p, time.monotonic() - t0))
            if self.a.serial:
                p.wait()
        for i, d, p, at in started:
            rc = p.wait()
            r = self.collect(d, rc)
            if kill_at is not None:
                r["after_kill"] = i >= min(killed_before)
            runs.append(r)
        wall = time.monotonic() - t0
        ac = os.path.join(self.t, "www", base, "ac")
        distinct = len(os.listdir(ac)) if os.path.isdir(ac) else 0
        return {"name": name, "runs": runs, "wall_s": wall, "distinct": distinct}

    def kill(self):
        for k in ("nginx", "redis"):
            self.procs[k].send_signal(signal.SIGKILL)


def summary(ph, nfam):
    runs = ph["runs"]
    how = {}
    lat = {}
    for r in runs:
        for fam, ns, h in r["entries"]:
            how[h] = how.get(h, 0) + 1
            lat.setdefault(h, []).append(ns / 1e6)
    s = {
        "phase": ph["name"],
        "nodes": len(runs),
        "failed": sum(1 for r in runs if r["rc"] != 0),
        "compiles": sum(r["stat"].get("compile.count", 0) for r in runs),
        "distinct": ph["distinct"] or nfam,
        "how": how,
        "bytes_per_process": sorted(r["stat"].get("remote.bytes", 0) for r in runs),
        "first_ms": [r["first"] / 1e6 for r in runs if r["first"]],
        "remote_ms": [r["stat"].get("remote.ns", 0) / 1e6 for r in runs],
        "wall_s": round(ph["wall_s"], 2),
        "misses": {},
        "leases": sum(r["stat"].get("remote.leases", 0) for r in runs),
        "waits": sum(r["stat"].get("remote.waits", 0) for r in runs),
    }
    for r in runs:
        for k, v in r["stat"].items():
            if k.startswith("remote.miss.") and v:
                s["misses"][k[12:]] = s["misses"].get(k[12:], 0) + v
    s["lat_ms"] = {h: {"p50": round(pct(v, 50), 2), "p99": round(pct(v, 99), 2),
                       "max": round(max(v), 2), "n": len(v)} for h, v in lat.items()}
    f = s["first_ms"]
    s["first"] = {"p50": round(pct(f, 50), 2), "p99": round(pct(f, 99), 2)}
    f = s["remote_ms"]
    s["remote"] = {"p50": round(pct(f, 50), 2), "p99": round(pct(f, 99), 2)}
    if any("after_kill" in r for r in runs):
        ak = [r for r in runs if r.get("after_kill")]
        s["after_kill"] = {"nodes": len(ak), "failed": sum(1 for r in ak if r["rc"]),
                           "how": {}}
        for r in ak:
            for _, _, h in r["entries"]:
                s["after_kill"]["how"][h] = s["after_kill"]["how"].get(h, 0) + 1
    s["errors"] = [r["err"] for r in runs if r["rc"]][:3]
    return s


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("builddir")
    ap.add_argument("--families", default="fill,affine")
    ap.add_argument("--nodes", type=int, default=64)
    ap.add_argument("--stagger", type=float, default=4.0)
    ap.add_argument("--phases", default="lease,nolease,remote,serial,local,kill")
    ap.add_argument("--json")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    a = ap.parse_args()
    a.builddir = os.path.abspath(a.builddir)
    a.serial = False
    t = tempfile.mkdtemp(prefix="hr-cluster-")
    c = Cluster(a, t)
    nfam = len(c.kernels)
    out = []
    try:
        ph = a.phases.split(",")
        if "lease" in ph:
            out.append(summary(c.phase("lease", True), nfam))
        if "nolease" in ph:
            out.append(summary(c.phase("nolease", False), nfam))
        # The server now holds every entry under /lease: new empty nodes.
        if "remote" in ph:
            out.append(summary(c.phase("remote", True, base="lease"), nfam))
        if "serial" in ph:
            a.serial = True
            out.append(summary(c.phase("serial", True, nodes=min(16, a.nodes), base="lease"), nfam))
            a.serial = False
        if "local" in ph and "remote" in ph:
            a.serial = True
            out.append(summary(c.phase("remote", True, nodes=min(16, a.nodes), base="lease", reuse=True),
                               nfam))
            out[-1]["phase"] = "local"
            a.serial = False
        if "kill" in ph:
            out.append(summary(c.phase("kill", True, stagger=a.stagger,
                                       kill_at=a.stagger / 2), nfam))
    finally:
        c.stop()
        if not a.keep:
            shutil.rmtree(t, ignore_errors=True)
        else:
            print(f"scratch: {t}", file=sys.stderr)
    print(f"families {a.families} ({nfam} distinct entries for host-w64), "
          f"{a.nodes} nodes\n")
    print("| phase | nodes | failed | compiles | distinct | entries by source | "
          "kernel_get p50/p99 ms by source | first kernel p50/p99 ms | "
          "remote tier ms/process p50/p99 | "
          "remote bytes/process min-max | wall s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for s in out:
        how = ", ".join(f"{k} {v}" for k, v in sorted(s["how"].items()))
        lat = "; ".join(f"{k} {v['p50']}/{v['p99']}" for k, v in sorted(s["lat_ms"].items()))
        b = s["bytes_per_process"]
        print(f"| {s['phase']} | {s['nodes']} | {s['failed']} | {s['compiles']} | "
              f"{s['distinct']} | {how} | {lat} | {s['first']['p50']}/{s['first']['p99']} | "
              f"{s['remote']['p50']}/{s['remote']['p99']} | "
              f"{b[0]}-{b[-1]} | {s['wall_s']} |")
    for s in out:
        if s["misses"] or s.get("after_kill") or s["errors"]:
            print(f"\n{s['phase']}: misses {s['misses']}; leases {s['leases']}, "
                  f"waits {s['waits']}; after the kill {s.get('after_kill')}; "
                  f"errors {s['errors']}")
    if getattr(c, "killed_at", None) is not None:
        print(f"\nkill: nginx and redis-server killed {c.killed_at:.2f} s into the phase, "
              f"before node {a.nodes // 2} of {a.nodes} started, {c.in_flight} nodes still running")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
    return 1 if any(s["failed"] for s in out) else 0


if __name__ == "__main__":
    sys.exit(main())
