# SPDX-License-Identifier: LGPL-2.1-or-later
"""The GPU-side timer of bench/gpu-timed.py and bench/attention-prefill.py.

N launches are queued behind a GPU spin (torch.cuda._sleep) that outlasts
the host's queueing - checked: the spin must still be running when the last
launch is queued, else the spin doubles and the measurement restarts -
between two CUDA events; the time per launch is (end - start) / N, the
median of 7 such batches.  Timing launch by launch from Python would
measure ctypes and the driver's launch path (~40 us a call), not the GPU.
"""
import statistics

import torch

SPIN = [2_000_000]     # GPU cycles; doubled until it outlasts the queueing


def gpu_time(fns, n=None):
    """Milliseconds per call of fns[i % len(fns)](), median of 7 batches of n
    calls queued behind a GPU spin."""
    n = n or max(20, 2 * len(fns))
    for f in fns[:2]:
        f()
    ms = []
    while len(ms) < 7:
        torch.cuda.synchronize()
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(SPIN[0])
        e0.record()
        for i in range(n):
            fns[i % len(fns)]()
        still_spinning = not e0.query()
        e1.record()
        e1.synchronize()
        if not still_spinning:
            SPIN[0] *= 2
            if SPIN[0] > 2_000_000_000:
                raise RuntimeError("host queueing outlasts a 2e9-cycle spin")
            ms = []
            continue
        ms.append(e0.elapsed_time(e1) / n)
    return statistics.median(ms)
