#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""One decode step of a tiny transformer over a paged KV cache, with the
stock kernels of hanzo_rocm, each step checked against a float64 reference.

For a batch of sequences, each with a context already in the paged KV cache
and one new token:

  1. rmsnorm of the hidden states (norm/rmsnorm_f32, the operation call);
  2. the q/k/v projection (a matmul of the array library), then rope on q
     and k in place at each token's position (rope/rope_pos_f32, NeoX
     pairs, launch_work with q_stride/k_stride into the projection);
  3. k and v of the new tokens written into the paged cache
     (attention/reshape_and_cache_flash_f32, at slot_mapping);
  4. paged-attention decode (attention/paged_attention_d64_f32 through the
     operation call: the library picks one pass or split-K and the combine,
     the package allocates the workspace), grouped-query heads; then the
     longest sequence alone, which the library splits over its keys;
  5. the output projection and residual, the final rmsnorm and the
     vocabulary projection (matmuls of the array library), then the
     vocabulary projection again with q8_0 weights, the sequences the batch
     of the quantized mat-vec (quantized/dequantize_mul_mat_vec_q8_0
     through the operation call), whose logits are sampled;
  6. sampling (sampling/sample_f32): greedy (top_k = 1) is the argmax
     exactly; a seeded draw with temperature and top-p is a token of the
     top-p set, and the same seed and offset draw the same token again.

Arrays: torch tensors (``--device cuda``: a GPU of the context, checked
against torch in float64 on that GPU; ``--device cpu``: CPU tensors on the
host backend) or numpy arrays on the host backend (``--numpy``; the
default when torch is not installed).  Each check prints PASS or FAIL; the
exit status is 1 when any failed (2 on a usage error).

usage: decode_step.py [--device cuda|cpu] [--numpy] [--host TARGET] [--long N]
"""

import argparse
import math
import os
import sys
import traceback

import numpy as np

import hanzo_rocm as hr

# The model: grouped-query attention (4 query heads on 2 KV heads), head
# dim 64, a small vocabulary; the cache has pages of 16 tokens.
HEADS, KV_HEADS, HEAD_DIM = 4, 2, 64
HIDDEN = HEADS * HEAD_DIM
VOCAB = 1000
BLOCK = 16
EPS = 1e-6


class NumpyArrays:
    """numpy arrays on the host backend; references in numpy float64."""
    name = "numpy"

    def __init__(self, host):
        self.host_target = host

    def array(self, a):
        """A backend array from a numpy array (a copy)."""
        return np.array(a)

    def empty(self, shape, dtype):
        """An uninitialised array of a numpy dtype name."""
        return np.empty(shape, dtype)

    def f64(self, a):
        """The array in float64 (a copy), for a reference."""
        return np.asarray(a, dtype=np.float64)

    def host(self, a):
        """The array as numpy."""
        return np.asarray(a)

    def mean_last(self, a):
        """Mean over the last axis, kept."""
        return a.mean(axis=-1, keepdims=True)

    exp = staticmethod(np.exp)          # numpy's, elementwise
    log = staticmethod(np.log)
    sqrt = staticmethod(np.sqrt)

    def argmax_last(self, a):
        """argmax of each row as numpy ints (the first on a tie)."""
        return np.argmax(a, axis=-1)

    def maxabs(self, a):
        """max |a| as a float."""
        return float(np.abs(a).max())

    def sync(self):
        """Waits for the launches (the host backend runs them in the call)."""


class TorchArrays:
    """torch tensors on a device; references in torch float64 there."""

    def __init__(self, device, host):
        import torch
        self.torch = torch
        self.device = torch.device(device)
        self.name = "torch " + str(self.device)
        self.host_target = host

    def array(self, a):
        """A tensor on the device from a numpy array (a copy)."""
        return self.torch.from_numpy(np.array(a)).to(self.device)

    def empty(self, shape, dtype):
        """An uninitialised tensor of a torch dtype name."""
        return self.torch.empty(shape, dtype=getattr(self.torch, dtype), device=self.device)

    def f64(self, a):
        """The tensor in float64 (a copy), for a reference."""
        return a.double()

    def host(self, a):
        """The tensor as numpy (a host copy)."""
        return a.detach().cpu().numpy()

    def mean_last(self, a):
        """Mean over the last dimension, kept."""
        return a.mean(-1, keepdim=True)

    def exp(self, a):
        """torch.exp."""
        return self.torch.exp(a)

    def log(self, a):
        """torch.log."""
        return self.torch.log(a)

    def sqrt(self, a):
        """torch.sqrt."""
        return self.torch.sqrt(a)

    def argmax_last(self, a):
        """argmax of each row as numpy ints (the first on a tie)."""
        return self.host(self.torch.argmax(a, dim=-1))

    def maxabs(self, a):
        """max |a| as a float."""
        return float(a.abs().max().item())

    def sync(self):
        """Waits for the device's queued work."""
        if self.device.type == "cuda":
            self.torch.cuda.synchronize(self.device)


def hr_device(ctx, arrays):
    """The context's device for the arrays: a GPU for CUDA tensors (ROCm
    torch: AMD), the host target otherwise."""
    dev = getattr(arrays, "device", None)
    if dev is not None and dev.type == "cuda":
        torch = arrays.torch
        want = hr.PLATFORM_AMD if getattr(torch.version, "hip", None) else hr.PLATFORM_NVIDIA
        ordinal = dev.index if dev.index is not None else torch.cuda.current_device()
        for d in ctx.devices:
            if d.platform == want and d.ordinal == ordinal:
                return d
        raise RuntimeError("no device of the context for %s (devices %r)" % (dev, ctx.devices))
    for d in ctx.devices:
        if d.platform == hr.PLATFORM_HOST and d.target == arrays.host_target:
            return d
    raise RuntimeError("no %s device in %r" % (arrays.host_target, ctx.devices))


class Checks:
    """PASS/FAIL lines and the count of failures."""

    def __init__(self):
        self.failed = 0

    def __call__(self, ok, what):
        print("%s %s" % ("PASS" if ok else "FAIL", what), flush=True)
        self.failed += not ok
        return ok

    def close(self, what, err, tol):
        """A max-error check: err <= tol."""
        return self(err <= tol, "%s: max error %.3g (tolerance %.1g)" % (what, err, tol))


def rope_tables(max_pos, rot_dim):
    """cos and sin [max_pos, rot_dim / 2] in float32 (base 10000)."""
    half = rot_dim // 2
    inv = 10000.0 ** (-np.arange(half, dtype=np.float64) * 2 / rot_dim)
    ang = np.arange(max_pos, dtype=np.float64)[:, None] * inv[None, :]
    return np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)


def q8_0(w):
    """ggml q8_0 blocks of a float32 [rows, cols] matrix (cols a multiple of
    32): per 32 elements an f16 scale d = amax / 127 and 32 int8 round(x / d),
    34 bytes; and the float64 values they stand for."""
    rows, cols = w.shape
    b = np.ascontiguousarray(w, np.float32).reshape(rows, cols // 32, 32)
    d = np.ascontiguousarray((np.abs(b).max(-1) / 127).astype(np.float16))
    df = d.astype(np.float32)
    inv = np.divide(1, df, out=np.zeros_like(df), where=df > 0)
    q = np.clip(np.rint(b * inv[..., None]), -127, 127).astype(np.int8)
    blocks = np.empty((rows, cols // 32, 34), np.uint8)
    blocks[..., :2] = d.view(np.uint8).reshape(rows, cols // 32, 2)
    blocks[..., 2:] = q.view(np.uint8)
    return blocks.reshape(rows, -1), (q.astype(np.float64) * df[..., None]).reshape(rows, cols)


def form(g):
    """What the operation call does, from a GeometryEx."""
    n = g.geometry.splits
    return "%s, %d split%s, %d workspace bytes" % (g.op_form, n, "" if n == 1 else "s",
                                                   g.op_workspace)


def decode_step(A, ctx, dev, check, contexts):
    """Runs and checks one decode step for sequences whose cached contexts
    have the given lengths (the new token goes at position len)."""
    rng = np.random.default_rng(2026)
    S = len(contexts)
    W = (HEADS + 2 * KV_HEADS) * HEAD_DIM         # qkv row: q | k | v
    pages = [(n + 1 + BLOCK - 1) // BLOCK for n in contexts]
    max_blocks = max(pages)
    num_blocks = sum(pages) + 3                   # a few blocks nobody uses
    # Each sequence's pages: distinct cache blocks in a shuffled order.
    perm = rng.permutation(num_blocks)
    tables = np.zeros((S, max_blocks), np.int32)
    at = 0
    for s, n in enumerate(pages):
        tables[s, :n] = perm[at:at + n]
        at += n
    positions = np.array(contexts, np.int64)     # the new token's position
    slots = np.array([tables[s, p // BLOCK] * BLOCK + p % BLOCK
                      for s, p in enumerate(contexts)], np.int64)
    seq_lens = np.array([n + 1 for n in contexts], np.int32)
    max_pos = max(contexts) + 1
    cos, sin = rope_tables(max_pos, HEAD_DIM)

    f32 = np.float32
    h = A.array(rng.standard_normal((S, HIDDEN), dtype=f32))
    w_in = A.array((1 + 0.1 * rng.standard_normal(HIDDEN)).astype(f32))
    w_qkv = A.array((rng.standard_normal((HIDDEN, W)) / math.sqrt(HIDDEN)).astype(f32))
    w_o = A.array((rng.standard_normal((HIDDEN, HIDDEN)) / math.sqrt(HIDDEN)).astype(f32))
    w_out = A.array((1 + 0.1 * rng.standard_normal(HIDDEN)).astype(f32))
    w_lm = A.array((3 * rng.standard_normal((HIDDEN, VOCAB)) / math.sqrt(HIDDEN)).astype(f32))
    cache_shape = (num_blocks, BLOCK, KV_HEADS, HEAD_DIM)
    k_cache0 = rng.standard_normal(cache_shape, dtype=f32)
    v_cache0 = rng.standard_normal(cache_shape, dtype=f32)
    k_cache, v_cache = A.array(k_cache0), A.array(v_cache0)
    cos_d, sin_d, pos_d = A.array(cos), A.array(sin), A.array(positions)
    tables_d, lens_d, slots_d = A.array(tables), A.array(seq_lens), A.array(slots)

    def kernel(family, name):
        return ctx.kernel(family, name, device=dev.index)

    def rmsnorm_checked(x, w, what):
        y = A.empty((S, HIDDEN), "float32")
        kernel("norm", "rmsnorm_f32").op(S, HIDDEN, x=x, dst=y, alpha=w, eps=EPS)
        A.sync()
        x64 = A.f64(x)
        ref = x64 / A.sqrt(A.mean_last(x64 * x64) + EPS) * A.f64(w)
        check.close(what, A.maxabs(A.f64(y) - ref), 1e-5)
        return y

    # 1. rmsnorm
    xn = rmsnorm_checked(h, w_in, "1 rmsnorm_f32 %d x %d (op)" % (S, HIDDEN))

    # 2. projection, rope on q and k in place (views of qkv)
    qkv = xn @ w_qkv
    q = qkv[:, :HEADS * HEAD_DIM]
    k = qkv[:, HEADS * HEAD_DIM:(HEADS + KV_HEADS) * HEAD_DIM]
    v = qkv[:, (HEADS + KV_HEADS) * HEAD_DIM:]
    q0, k0 = A.f64(q), A.f64(k)
    half = HEAD_DIM // 2
    kernel("rope", "rope_pos_f32").launch_work(
        S * (HEADS + KV_HEADS) * half, 1, pos=pos_d, q=q, k=k, cos=cos_d, sin=sin_d,
        ntok=S, nq_heads=HEADS, nk_heads=KV_HEADS, head_dim=HEAD_DIM, rot_dim=HEAD_DIM,
        q_stride=W, k_stride=W, max_pos=max_pos)
    A.sync()
    c = A.f64(cos_d)[list(contexts)][:, None, :]
    sn = A.f64(sin_d)[list(contexts)][:, None, :]
    err = 0.0
    for got, before, nh in ((q, q0, HEADS), (k, k0, KV_HEADS)):
        g = A.f64(got).reshape(S, nh, HEAD_DIM)
        b = before.reshape(S, nh, HEAD_DIM)
        x1, x2 = b[..., :half], b[..., half:]
        err = max(err, A.maxabs(g[..., :half] - (x1 * c - x2 * sn)),
                  A.maxabs(g[..., half:] - (x1 * sn + x2 * c)))
    check.close("2 rope_pos_f32 on q and k in place, positions %s (launch_work)"
                % list(contexts), err, 1e-5)

    # 3. the new tokens' k and v into the paged cache
    kernel("attention", "reshape_and_cache_flash_f32").launch_work(
        S, KV_HEADS * HEAD_DIM, key=k, value=v, key_cache=k_cache, value_cache=v_cache,
        slot_mapping=slots_d, num_tokens=S, num_kv_heads=KV_HEADS, head_dim=HEAD_DIM,
        block_size=BLOCK, num_blocks=num_blocks, key_stride=W, value_stride=W)
    A.sync()
    ok = True
    for got, before, new in ((k_cache, k_cache0, k), (v_cache, v_cache0, v)):
        g = A.host(got).reshape(num_blocks * BLOCK, KV_HEADS, HEAD_DIM)
        want = before.reshape(num_blocks * BLOCK, KV_HEADS, HEAD_DIM).copy()
        want[slots] = A.host(new).reshape(S, KV_HEADS, HEAD_DIM)
        ok &= bool(np.array_equal(g, want))
    check(ok, "3 reshape_and_cache_flash_f32: k and v at slots %s, nothing else written"
          % slots.tolist())

    # 4. paged attention through the operation call
    pa = kernel("attention", "paged_attention_d%d_f32" % HEAD_DIM)
    rows, longest = S * HEADS, int(seq_lens.max())
    g = pa.geometry_ex(rows, longest)
    out = A.empty((S, HEADS, HEAD_DIM), "float32")
    lse = A.empty((S, HEADS), "float32")
    scale = 1 / math.sqrt(HEAD_DIM)
    pa.op(rows, longest, out=out, lse=lse, q=q, key_cache=k_cache, value_cache=v_cache,
          block_tables=tables_d, seq_lens=lens_d, alibi_slopes=hr.NULL, num_seqs=S,
          num_heads=HEADS, num_kv_heads=KV_HEADS, block_size=BLOCK,
          max_blocks_per_seq=max_blocks, num_blocks=num_blocks, q_stride=W, scale=scale,
          softcap=0.0, window_left=-1)
    A.sync()
    kc, vc, q64 = A.f64(k_cache), A.f64(v_cache), A.f64(q).reshape(S, HEADS, HEAD_DIM)
    err_o = err_l = 0.0
    group = HEADS // KV_HEADS
    for s in range(S):
        n = int(seq_lens[s])
        blk = [int(tables[s, p // BLOCK]) for p in range(n)]
        off = [p % BLOCK for p in range(n)]
        for hd in range(HEADS):
            keys, vals = kc[blk, off, hd // group], vc[blk, off, hd // group]
            sc = (keys @ q64[s, hd]) * scale
            m = sc.max()
            p = A.exp(sc - m)
            ref = (p @ vals) / p.sum()
            err_o = max(err_o, A.maxabs(A.f64(out[s, hd]) - ref))
            err_l = max(err_l, A.maxabs(A.f64(lse[s, hd]) - (m + A.log(p.sum()))))
    check.close("4 paged_attention_d%d_f32 (op: %s), contexts %s, %d/%d heads"
                % (HEAD_DIM, form(g), seq_lens.tolist(), HEADS, KV_HEADS), err_o, 1e-5)
    check.close("  ... its log-sum-exp", err_l, 1e-5)
    # The longest sequence alone: few rows over a long context, which the
    # library splits over the keys (split-K, then the combine pass) with a
    # workspace the package allocates from the arrays' library.
    g1 = pa.geometry_ex(HEADS, int(seq_lens[0]))
    out1 = A.empty((1, HEADS, HEAD_DIM), "float32")
    pa.op(HEADS, int(seq_lens[0]), out=out1, lse=hr.NULL, q=q[:1], key_cache=k_cache,
          value_cache=v_cache, block_tables=tables_d[:1], seq_lens=lens_d[:1],
          alibi_slopes=hr.NULL, num_seqs=1, num_heads=HEADS, num_kv_heads=KV_HEADS,
          block_size=BLOCK, max_blocks_per_seq=max_blocks, num_blocks=num_blocks,
          q_stride=W, scale=scale, softcap=0.0, window_left=-1)
    A.sync()
    check.close("  ... sequence 0 alone (op: %s)" % form(g1),
                A.maxabs(A.f64(out1[0]) - A.f64(out[0])), 1e-5)

    # 5. output projection, residual, final norm, vocabulary projection
    h2 = h + out.reshape(S, HIDDEN) @ w_o
    hn = rmsnorm_checked(h2, w_out, "5 the final rmsnorm_f32 after the output projection")
    logits_f = hn @ w_lm
    # ... and the same projection with the weights in ggml's q8_0 (quantized
    # here) through the operation call: the S sequences are the mat-vec's
    # batch (quantize_q8_1 of the activations, then the q8_1 form).  Its
    # logits are the ones sampled below.
    w_q8, w_dq = q8_0(A.host(w_lm).T)
    qmv = kernel("quantized", "dequantize_mul_mat_vec_q8_0")
    logits = A.empty((S, VOCAB), "float32")
    qmv.op(VOCAB, HIDDEN, vx=A.array(w_q8), y=hn, dst=logits, batch=S)
    A.sync()
    y = A.host(hn).astype(np.float64)
    ref = y @ w_dq.T
    # the activations' q8_1 rounding: at most 0.5 (+ the f16 scale's
    # rounding) of each 32-block's amax / 127, times |w| summed
    d_y = np.repeat(np.abs(y).reshape(S, HIDDEN // 32, 32).max(-1) / 127, 32, axis=1)
    bound = (0.6 * d_y) @ np.abs(w_dq).T + 1e-5 * (np.abs(y) @ np.abs(w_dq).T) + 1e-6
    ratio = float((np.abs(A.host(logits).astype(np.float64) - ref) / bound).max())
    check(ratio <= 1.0, "5 the vocabulary projection as a q8_0 mat-vec "
          "(dequantize_mul_mat_vec_q8_0, op: batch %d): error %.3g of the q8_1 bound; "
          "%.3g from the f32 projection" % (S, ratio, float(A.maxabs(A.f64(logits) -
                                                                      A.f64(logits_f)))))

    # 6. sampling
    samp = kernel("sampling", "sample_f32")

    def sample(**kw):
        tok = A.empty((S,), "int32")
        args = dict(temperature=hr.NULL, top_k=hr.NULL, top_p=hr.NULL, min_p=hr.NULL,
                    seed=hr.NULL, offset=hr.NULL)
        args.update(kw)
        samp.op(S, VOCAB, x=logits, dst=tok, **args)
        A.sync()
        return A.host(tok).astype(np.int64)

    greedy = sample(top_k=A.array(np.ones(S, np.int32)))
    want = A.argmax_last(logits)
    check(np.array_equal(greedy, want), "6 sample_f32 greedy (top_k = 1): %s, argmax %s"
          % (greedy.tolist(), np.asarray(want).tolist()))
    temp, top_p = 0.8, 0.9
    kw = dict(temperature=A.array(np.full(S, temp, np.float32)),
              top_p=A.array(np.full(S, top_p, np.float32)),
              seed=A.array(np.arange(1234, 1234 + S, dtype=np.int64)),
              offset=A.array(np.full(S, 7, np.int64)))
    drawn = sample(**kw)
    lg = A.host(logits).astype(np.float64)
    ok, sizes = True, []
    for s in range(S):
        x = lg[s]
        order = np.lexsort((np.arange(VOCAB), -x))          # logit desc, index asc
        qs = np.exp((x[order] - x.max()) / temp)
        cum = np.cumsum(qs)
        # The shortest prefix with mass >= top_p, widened by float32's
        # rounding of the kernel's sums at the boundary.
        n = int(np.searchsorted(cum, top_p * cum[-1] * (1 - 1e-5))) + 1
        n_hi = int(np.searchsorted(cum, top_p * cum[-1] * (1 + 1e-5))) + 1
        sizes.append(n)
        ok &= int(drawn[s]) in set(order[:max(n, n_hi)].tolist())
    check(ok, "6 sample_f32 seeded, temperature %.1f, top_p %.1f: %s, each in its top-p set "
          "(sizes %s)" % (temp, top_p, drawn.tolist(), sizes))
    again = sample(**kw)
    check(np.array_equal(again, drawn), "  ... the same seeds and offsets draw the same tokens")


def main(argv=None):
    """Parses argv, runs the decode step, returns the exit status."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", choices=("cuda", "cpu"),
                    help="torch tensors on this device (default: cuda if torch has one)")
    ap.add_argument("--numpy", action="store_true",
                    help="numpy arrays on the host backend (the default without torch)")
    ap.add_argument("--host", default=os.environ.get("HANZO_ROCM_HOST") or "host-w64",
                    help="the host target for numpy and CPU tensors (default host-w64)")
    ap.add_argument("--long", type=int, default=2000, metavar="N",
                    help="the longest cached context (default 2000)")
    opt = ap.parse_args(argv)
    if opt.numpy and opt.device:
        ap.error("--numpy and --device exclude each other")
    if opt.long < 1:
        ap.error("--long must be at least 1")
    torch = None
    if not opt.numpy:
        try:
            import torch
        except ImportError:
            if opt.device:
                print("FAIL --device %s: torch is not installed" % opt.device)
                return 1
    if torch is None:
        A = NumpyArrays(opt.host)
    else:
        device = opt.device or ("cuda" if torch.cuda.is_available() else "cpu")
        if device == "cuda" and not torch.cuda.is_available():
            print("FAIL --device cuda: torch %s has no GPU" % torch.__version__)
            return 1
        A = TorchArrays(device, opt.host)
    check = Checks()
    try:
        ctx = hr.Context(host=opt.host)
        dev = hr_device(ctx, A)
        print("arrays: %s, kernels on %r" % (A.name, dev), flush=True)
        decode_step(A, ctx, dev, check, [opt.long, 5, BLOCK - 1, 2 * BLOCK])
    except Exception:                       # noqa: BLE001 - reported as a failure
        traceback.print_exc()
        check(False, "the decode step raised an exception")
    print("FAILED: %d checks" % check.failed if check.failed else "PASS: all checks")
    return 1 if check.failed else 0


if __name__ == "__main__":
    sys.exit(main())
