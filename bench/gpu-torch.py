# SPDX-License-Identifier: LGPL-2.1-or-later
# The torch side of bench/gpu-runtime.c: same ops, sizes and timing method.
import sys
import torch

n = 1 << (int(sys.argv[1]) if len(sys.argv) > 1 else 28)
a = torch.rand(n, device="cuda") + 0.5
b = torch.rand(n, device="cuda") + 0.5
c = torch.empty_like(a)
ops = {
    "copy": (lambda: c.copy_(a), 2),
    "exp": (lambda: torch.exp(a, out=c), 2),
    "add": (lambda: torch.add(a, b, out=c), 3),
}
print(f"torch {torch.__version__} on {torch.cuda.get_device_name(0)}")
for name, (fn, nbuf) in ops.items():
    for _ in range(3):
        fn()
    ms = []
    for _ in range(20):
        e0 = torch.cuda.Event(enable_timing=True)
        e1 = torch.cuda.Event(enable_timing=True)
        e0.record()
        fn()
        e1.record()
        e1.synchronize()
        ms.append(e0.elapsed_time(e1))
    ms.sort()
    print(f"torch {name:8s} {n:12d} {ms[10]:10.3f} {n * 4 * nbuf / (ms[10] * 1e-3) / 1e9:10.1f}")
