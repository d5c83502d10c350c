# SPDX-License-Identifier: LGPL-2.1-or-later
"""The examples (bindings/python/examples) on numpy arrays on the host
backend: numpy_ops.py (a stock kernel, the operation call with the
workspace the package allocates, the caller's source through the cache)
and decode_step.py (rmsnorm, rope, the paged KV cache, paged attention and
sampling of one decode step), each exiting 0 with every check PASS."""

import importlib.util
import os

import pytest

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")


def _load(name):
    spec = importlib.util.spec_from_file_location("hr_example_" + name,
                                                  os.path.join(EXAMPLES, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _run(capsys, name, argv):
    rc = _load(name).main(argv)
    out = capsys.readouterr().out
    lines = [ln for ln in out.splitlines() if ln.startswith(("PASS ", "FAIL "))]
    assert rc == 0 and lines and not [ln for ln in lines if ln.startswith("FAIL")], out
    return out


def test_numpy_ops(capsys, dev):
    out = _run(capsys, "numpy_ops", ["--host", dev.target])
    assert "split form" in out and "ctx.module(source)" in out


# One wave size: the families' own tests cover both, and each host target
# costs a compile of the attention, rope and sampling families.
@pytest.mark.parametrize("long", [2000, 1])
def test_decode_step(capsys, long):
    host = os.environ.get("HR_PYTEST_HOST", "host-w64 host-w32").split()[0]
    out = _run(capsys, "decode_step", ["--numpy", "--host", host, "--long", str(long)])
    assert "6 sample_f32 greedy" in out
    if long == 2000:
        assert "sequence 0 alone (op: split" in out       # the package's workspace
