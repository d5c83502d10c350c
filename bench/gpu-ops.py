#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The ops bench/gpu-timed.py does not cover, against torch, timed the same way.

    python3 bench/gpu-ops.py LIBHANZO [--json OUT] [SECTION ...]
    SECTION: copy ops decode decode-sweep (default: ops decode)

Same method and helpers as bench/gpu-timed.py (imported from it): N launches
queued behind a GPU spin between two CUDA events, median of 7 batches,
inputs rotated over copies larger than 3 x L2, ours and torch's on the same
buffers and stream, every result checked against torch BEFORE it is timed.

ops: argsort (hanzo_rocm_op_run on asort_asc_T: the shared-memory form, or
  the wide form on a workspace when the row does not fit - asort_asc_multi_T,
  a row over several blocks, 2 launches a radix digit) vs torch.argsort
  (4096 x 1024 and 32 x 151936; HR_ARGSORT_SHAPES="ROWSxCOLS ..." others);
  conv2d (conv2d_T: direct for f32, the implicit GEMM on the matrix units
  for bf16 - bench/gpu-conv.py times more shapes - and im2col_T +
  torch.matmul, candle's path) vs torch.nn.functional.conv2d;
  max/avg_pool2d, upsample nearest and bilinear (2x) vs torch.  GB/s = minimal bytes (inputs once, outputs once)
  / time, the same for both; ratio = torch time / ours.  HR_OPS_ONLY=argsort:
  the argsort lines alone.
decode: paged attention decode (hanzo_rocm_op_run on paged_attention_d128_T:
  split-K + combine when the library picks splits) over a paged KV cache
  (pages of 16 tokens - HR_DECODE_PAGE tokens when set - in a shuffled
  block table) vs torch's
  scaled_dot_product_attention (default backend choice, enable_gqa) on the
  same keys and values laid out contiguously [batch, kv_heads, tokens, D]
  (torch has no paged form: its best case).  GB/s = K and V bytes read /
  time, % of the copy bandwidth.  Shapes (32 query / 8 KV heads, d128,
  bf16): batch 8 x 4096 and 1 x 32768 tokens (134 MB of K and V), 8 x 32768
  and 64 x 4096 (1.07 GB); HR_DECODE_SHAPES="BATCHxTOKENS ..." picks others.
decode-sweep: the same shapes with the split count S forced (the
  decode launched with grid (rows, S) by hanzo_rocm_kernel_launch, then the
  combine), each S checked against SDPA first: where the library's rule
  (attention.list split_share / split_min) stands against the best S.
"""
import ctypes as C
import importlib.util
import math
import os
import sys

import torch
import torch.nn.functional as F

_spec = importlib.util.spec_from_file_location(
    "gpu_timed", os.path.join(os.path.dirname(os.path.abspath(__file__)), "gpu-timed.py"))
T = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(T)
hr, ck, kernel, launcher, gpu_time, copies, gbps, p = \
    T.hr, T.ck, T.kernel, T.launcher, T.gpu_time, T.copies, T.gbps, T.p
Layout = T.Layout
SECTIONS = [a for a in sys.argv[2:] if a in ("ops", "decode", "decode-sweep")] or ["ops", "decode"]
JSON_OUT = T.JSON_OUT


op_runner, geometry_ex = T.op_runner, T.geometry_ex


def line(section, name, shape, tg, og, extra="", **kw):
    print(f"{name:22s} {shape:>30s} {tg:7.0f} {og:7.0f} {og / tg:6.2f}  {extra}", flush=True)
    T.record(section, op=name, shape=shape, torch_gbps=tg, gbps=og, ratio=og / tg, **kw)


def timed(section, name, shape, nbytes, ours, theirs, check, extra="", **kw):
    """check() before any timing; ours/theirs: lists of callables."""
    try:
        ours[0]()
        torch.cuda.synchronize()
        msg = check()
        if msg:
            raise RuntimeError(msg)
        tg, og = gbps(nbytes, gpu_time(theirs)), gbps(nbytes, gpu_time(ours))
        line(section, name, shape, tg, og, extra, **kw)
    except Exception as ex:  # one op's failure must not hide the others
        print(f"{name:22s} {shape:>30s} FAILED: {ex}", flush=True)
        T.record(section, op=name, shape=shape, error=str(ex))


SUF = {torch.float32: "f32", torch.bfloat16: "bf16"}


packed = T.packed


def close(got, ref, tol):
    d = (got.float() - ref.float()).abs().max().item()
    s = max(1.0, ref.float().abs().max().item())
    return None if d <= tol * s else f"max|diff| {d:.3g} > {tol * s:.3g}"


# ---- ops --------------------------------------------------------------------
def sec_ops():
    g = torch.Generator(device="cuda").manual_seed(17)
    print(f"{'op':22s} {'shape':>30s} {'torch':>7s} {'ours':>7s} {'ratio':>6s}  (GB/s)", flush=True)
    # argsort: short rows (shared-memory form), vocabulary rows (wide form);
    # HR_ARGSORT_SHAPES="ROWSxCOLS ..." others (8x16384, 4x32768: the shared
    # form above 48 KiB of shared memory on CUDA, the opt-in)
    for rows, cols in [tuple(int(v) for v in x.split("x")) for x in
                       os.environ.get("HR_ARGSORT_SHAPES", "4096x1024 32x151936").split()]:
        for dt in (torch.float32, torch.bfloat16):
            xs = copies(rows * cols * 2, lambda i: torch.randn(rows, cols, device="cuda",
                                                                generator=g).to(dt))
            k = kernel("sort", f"asort_asc_{SUF[dt]}")
            outs = [torch.empty(rows, cols, dtype=torch.int32, device="cuda") for _ in xs]
            try:
                ours = [op_runner(k, rows, cols, x, o) for x, o in zip(xs, outs)]
            except Exception as ex:
                print(f"argsort {SUF[dt]} {rows}x{cols} FAILED: {ex}", flush=True)
                continue

            def chk(x=xs[0], o=outs[0]):
                if torch.any(o < 0) or torch.any(o >= cols):
                    return "index out of range"
                got = x.gather(1, o.long())
                return None if torch.equal(got, torch.sort(x, dim=-1).values) else "not sorted"
            timed("ops", f"argsort {SUF[dt]} ({ours[0].form})", f"{rows}x{cols}",
                  rows * cols * (x_esz(dt) + 4), ours,
                  [lambda x=x: torch.argsort(x, dim=-1) for x in xs], chk)
            del xs, outs, ours
    if __import__("os").environ.get("HR_OPS_ONLY") == "argsort":   # the sort family's run alone
        return
    # conv2d 3x3, pad 1: a ResNet stage (8, 64, 56, 56) -> 64 channels
    B, Ci, H, W, Co, K = 8, 64, 56, 56, 64, 3
    for dt in (torch.float32, torch.bfloat16):
        s = SUF[dt]
        x = torch.randn(B, Ci, H, W, device="cuda", generator=g).to(dt)
        w = (torch.randn(Co, Ci, K, K, device="cuda", generator=g) / 24).to(dt)
        ref = F.conv2d(x.float(), w.float(), padding=1)
        y = torch.empty(B, Co, H, W, dtype=dt, device="cuda")
        flop = 2 * B * Co * H * W * Ci * K * K
        kc = kernel("conv", f"conv2d_{s}")
        direct = launcher([(kc, y.numel(), 1, [C.c_size_t(x.numel()), C.c_size_t(W), C.c_size_t(H),
                                               C.c_size_t(1), C.c_size_t(1), C.c_size_t(1),
                                               packed(x, w), p(x), p(w), p(y)])])
        tol = 1e-3 if dt == torch.float32 else 3e-2
        try:
            y.fill_(float("nan"))
            direct()
            torch.cuda.synchronize()
            msg = close(y, ref, tol)
            if msg:
                raise RuntimeError(msg)
            tt = gpu_time([lambda: F.conv2d(x, w, padding=1)])
            to = gpu_time([direct])
            form = "direct" if dt == torch.float32 else "mma"
            print(f"{'conv2d ' + form + ' ' + s:22s} {'8x64x56x56, 64x64x3x3':>30s} "
                  f"{flop / tt / 1e9:7.1f} {flop / to / 1e9:7.1f} {tt / to:6.2f}  (TFLOP/s)", flush=True)
            T.record("ops", op=f"conv2d {form} {s}", torch_tflops=flop / tt / 1e9,
                     tflops=flop / to / 1e9, ratio=tt / to)
            # candle's path: im2col (ours) then a matmul (torch's cuBLAS)
            col = torch.empty(B, H, W, Ci, K, K, dtype=dt, device="cuda")
            ki = kernel("conv", f"im2col_{s}")
            im = launcher([(ki, col.numel(), 1, [C.c_size_t(col.numel()), C.c_size_t(H), C.c_size_t(W),
                                                 C.c_size_t(K), C.c_size_t(K), C.c_size_t(1),
                                                 C.c_size_t(1), C.c_size_t(1), packed(x), p(x),
                                                 p(col)])])
            wm = w.reshape(Co, Ci * K * K).t()

            def candle():
                im()
                return torch.matmul(col.view(B * H * W, Ci * K * K), wm)
            yc = candle().view(B, H, W, Co).permute(0, 3, 1, 2)
            torch.cuda.synchronize()
            msg = close(yc, ref, tol)
            if msg:
                raise RuntimeError("im2col + matmul: " + msg)
            ti = gpu_time([im])
            tc = gpu_time([candle])
            print(f"{'im2col+mm ' + s:22s} {'8x64x56x56, 64x64x3x3':>30s} "
                  f"{flop / tt / 1e9:7.1f} {flop / tc / 1e9:7.1f} {tt / tc:6.2f}  (TFLOP/s; im2col alone "
                  f"{gbps(x.numel() * x_esz(dt) + col.numel() * x_esz(dt), ti):.0f} GB/s, "
                  f"{100 * ti / tc:.0f}% of the time)", flush=True)
            T.record("ops", op=f"im2col+matmul {s}", torch_tflops=flop / tt / 1e9,
                     tflops=flop / tc / 1e9, ratio=tt / tc,
                     im2col_gbps=gbps(x.numel() * x_esz(dt) + col.numel() * x_esz(dt), ti))
            del col
        except Exception as ex:
            print(f"conv2d {s} FAILED: {ex}", flush=True)
            T.record("ops", op=f"conv2d {s}", error=str(ex))
        del x, w, y, ref
    # pools 2x2 stride 2 and 2x upsampling of (16, 64, 224, 224) / (16, 64, 112, 112)
    for dt in (torch.float32, torch.bfloat16):
        s, esz = SUF[dt], x_esz(dt)
        big = (16, 64, 224, 224)
        xs = copies(math.prod(big) * esz, lambda i: torch.randn(big, device="cuda", generator=g).to(dt))
        outs = [torch.empty(16, 64, 112, 112, dtype=dt, device="cuda") for _ in xs]
        n_in, n_out = math.prod(big), outs[0].numel()
        for name, tf in (("max_pool2d", lambda x: F.max_pool2d(x, 2, 2)),
                         ("avg_pool2d", lambda x: F.avg_pool2d(x, 2, 2))):
            k = kernel("conv", f"{name}_{s}")
            ours = [launcher([(k, o.numel(), 1, [C.c_size_t(x.numel()), C.c_size_t(2), C.c_size_t(2),
                                                C.c_size_t(2), C.c_size_t(2), packed(x), p(x), p(o)])])
                    for x, o in zip(xs, outs)]
            timed("ops", f"{name} {s}", "16x64x224x224, 2x2/2", (n_in + n_out) * esz, ours,
                  [lambda x=x, tf=tf: tf(x) for x in xs],
                  lambda: close(outs[0], tf(xs[0]), 1e-6 if dt == torch.float32 else 1e-2))
        del xs, outs
        small = (16, 64, 112, 112)
        xs = copies(math.prod(small) * esz * 5,
                    lambda i: torch.randn(small, device="cuda", generator=g).to(dt))
        outs = [torch.empty(16, 64, 224, 224, dtype=dt, device="cuda") for _ in xs]
        n_in, n_out = math.prod(small), outs[0].numel()
        kn, kb = kernel("conv", f"upsample_nearest2d_{s}"), kernel("conv", f"upsample_bilinear2d_{s}")
        near = [launcher([(kn, o.numel(), 1, [C.c_size_t(224), C.c_size_t(224), C.c_double(0.5),
                                              C.c_double(0.5), packed(x), p(x), p(o)])])
                for x, o in zip(xs, outs)]
        bil = [launcher([(kb, o.numel(), 1, [C.c_size_t(224), C.c_size_t(224), C.c_bool(False),
                                             C.c_bool(False), C.c_double(0), C.c_bool(False),
                                             C.c_double(0), packed(x), p(x), p(o)])])
               for x, o in zip(xs, outs)]
        timed("ops", f"upsample_nearest2d {s}", "16x64x112x112 -> 224", (n_in + n_out) * esz, near,
              [lambda x=x: F.interpolate(x, scale_factor=2, mode="nearest") for x in xs],
              lambda: close(outs[0], F.interpolate(xs[0], scale_factor=2, mode="nearest"), 0))
        timed("ops", f"upsample_bilinear2d {s}", "16x64x112x112 -> 224", (n_in + n_out) * esz, bil,
              [lambda x=x: F.interpolate(x, size=(224, 224), mode="bilinear", align_corners=False)
               for x in xs],
              lambda: close(outs[0], F.interpolate(xs[0].float(), size=(224, 224), mode="bilinear",
                                                   align_corners=False),
                            1e-5 if dt == torch.float32 else 1e-2))
        del xs, outs


def x_esz(dt):
    return torch.empty(0, dtype=dt).element_size()


# ---- decode -----------------------------------------------------------------
DECODE_SHAPES = [tuple(int(v) for v in x.split("x")) for x in
                 os.environ.get("HR_DECODE_SHAPES", "8x4096 1x32768 8x32768 64x4096").split()]


def sec_decode():
    g = torch.Generator(device="cuda").manual_seed(19)
    HQ, HKV, D = 32, 8, 128
    PAGE = int(os.environ.get("HR_DECODE_PAGE", "16"))
    print(f"{'decode':22s} {'shape':>30s} {'torch':>7s} {'ours':>7s} {'ratio':>6s}  (GB/s of K+V; "
          f"% of copy)", flush=True)
    for batch, tokens in DECODE_SHAPES:
        for dt in (torch.bfloat16,):
            s = SUF[dt]
            pages = batch * tokens // PAGE
            kvbytes = 2 * batch * tokens * HKV * D * x_esz(dt)
            scale = 1 / math.sqrt(D)

            def make(i):
                kc = torch.randn(pages, PAGE, HKV, D, device="cuda", generator=g).to(dt)
                vc = torch.randn(pages, PAGE, HKV, D, device="cuda", generator=g).to(dt)
                bt = torch.randperm(pages, device="cuda", generator=g).to(torch.int32) \
                    .view(batch, tokens // PAGE)
                q = torch.randn(batch, HQ, D, device="cuda", generator=g).to(dt)
                out = torch.empty(batch, HQ, D, dtype=dt, device="cuda")
                # torch's layout: [batch, kv_heads, tokens, D], the same values
                kt = kc[bt.long()].view(batch, tokens, HKV, D).transpose(1, 2).contiguous()
                vt = vc[bt.long()].view(batch, tokens, HKV, D).transpose(1, 2).contiguous()
                return dict(kc=kc, vc=vc, bt=bt, q=q, out=out, kt=kt, vt=vt)
            sets = copies(kvbytes, make)
            k = kernel("attention", f"paged_attention_d{D}_{s}")
            lens = torch.full((batch,), tokens, dtype=torch.int32, device="cuda")
            ours = []
            for st in sets:
                named = [("out", C.c_uint64(st["out"].data_ptr())), ("lse", C.c_uint64(0)),
                         ("q", C.c_uint64(st["q"].data_ptr())),
                         ("key_cache", C.c_uint64(st["kc"].data_ptr())),
                         ("value_cache", C.c_uint64(st["vc"].data_ptr())),
                         ("block_tables", C.c_uint64(st["bt"].data_ptr())),
                         ("seq_lens", C.c_uint64(lens.data_ptr())), ("alibi_slopes", C.c_uint64(0)),
                         ("num_seqs", C.c_size_t(batch)), ("num_heads", C.c_size_t(HQ)),
                         ("num_kv_heads", C.c_size_t(HKV)), ("block_size", C.c_size_t(PAGE)),
                         ("max_blocks_per_seq", C.c_size_t(tokens // PAGE)),
                         ("num_blocks", C.c_size_t(pages)), ("q_stride", C.c_size_t(HQ * D)),
                         ("scale", C.c_float(scale)), ("softcap", C.c_float(0)),
                         ("window_left", C.c_int(-1)), ("head_dim", C.c_size_t(D))]
                ours.append(op_runner(k, batch * HQ, tokens, named=named))

            def sdpa(st):
                return F.scaled_dot_product_attention(st["q"].view(batch, HQ, 1, D), st["kt"], st["vt"],
                                                      scale=scale, enable_gqa=True)

            def chk():
                st = sets[0]
                st["out"].fill_(float("nan"))
                ours[0]()
                torch.cuda.synchronize()
                ref = F.scaled_dot_product_attention(
                    st["q"].float().view(batch, HQ, 1, D), st["kt"].float(), st["vt"].float(),
                    scale=scale, enable_gqa=True).view(batch, HQ, D)
                return close(st["out"], ref, 2e-2)
            shape = f"{batch}x{HQ}q/{HKV}kv x {tokens}, d{D}"
            timed("decode", f"paged decode {s}", shape, kvbytes, ours,
                  [lambda st=st: sdpa(st) for st in sets], chk,
                  extra=f"form {ours[0].form}, S = {ours[0].splits}, {len(sets)} copies",
                  batch=batch, tokens=tokens, splits=ours[0].splits, form=ours[0].form)
            if T.COPY_GBPS[0] and T.RESULTS[-1].get("gbps"):
                r = T.RESULTS[-1]
                print(f"{'':22s} {'':>30s} torch {100 * r['torch_gbps'] / T.COPY_GBPS[0]:5.1f}%, "
                      f"ours {100 * r['gbps'] / T.COPY_GBPS[0]:5.1f}% of the copy", flush=True)
            del sets, ours


def sec_decode_sweep():
    g = torch.Generator(device="cuda").manual_seed(23)
    HQ, HKV, D, PAGE = 32, 8, 128, 16
    dt, s = torch.bfloat16, "bf16"
    k = kernel("attention", f"paged_attention_d{D}_{s}")
    kc_ = kernel("attention", f"paged_attention_combine_{s}")
    print(f"{'decode S sweep':22s} {'shape':>30s} {'S':>4s} {'GB/s':>7s} {'% copy':>6s}", flush=True)
    for batch, tokens in DECODE_SHAPES:
        # S such that batch x 8 KV heads x S is 1/4 .. 4 x the 132 SMs
        units = batch * 8
        slist = sorted({max(1, round(f * 132 / units)) for f in (0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4)}
                       | {1, 2, 3, 4})
        pages = batch * tokens // PAGE
        kvbytes = 2 * batch * tokens * HKV * D * 2
        rows, scale = batch * HQ, 1 / math.sqrt(D)

        def make(i):
            kc = torch.randn(pages, PAGE, HKV, D, device="cuda", generator=g).to(dt)
            vc = torch.randn(pages, PAGE, HKV, D, device="cuda", generator=g).to(dt)
            bt = torch.randperm(pages, device="cuda", generator=g).to(torch.int32) \
                .view(batch, tokens // PAGE)
            q = torch.randn(batch, HQ, D, device="cuda", generator=g).to(dt)
            return dict(kc=kc, vc=vc, bt=bt, q=q, out=torch.empty(batch, HQ, D, dtype=dt, device="cuda"))
        sets = copies(kvbytes, make)
        lens = torch.full((batch,), tokens, dtype=torch.int32, device="cuda")
        st = sets[0]
        kt = st["kc"][st["bt"].long()].view(batch, tokens, HKV, D).transpose(1, 2).float()
        vt = st["vc"][st["bt"].long()].view(batch, tokens, HKV, D).transpose(1, 2).float()
        ref = F.scaled_dot_product_attention(st["q"].float().view(batch, HQ, 1, D), kt, vt,
                                             scale=scale, enable_gqa=True).view(batch, HQ, D)
        del kt, vt
        shape = f"{batch}x{HQ}q/{HKV}kv x {tokens}, d{D}"
        for S in slist:
            ws = torch.empty(max(1, S * rows * (D + 1)), dtype=torch.float32, device="cuda")
            runs = []
            for st in sets:
                vals = [p(st["out"]), C.c_uint64(0), p(ws), p(st["q"]), p(st["kc"]), p(st["vc"]),
                        p(st["bt"]), p(lens), C.c_uint64(0), C.c_size_t(batch), C.c_size_t(HQ),
                        C.c_size_t(HKV), C.c_size_t(PAGE), C.c_size_t(tokens // PAGE),
                        C.c_size_t(pages), C.c_size_t(HQ * D), C.c_float(scale), C.c_float(0),
                        C.c_int(-1)]
                cvals = [p(st["out"]), C.c_uint64(0), p(ws), C.c_size_t(rows), C.c_size_t(D),
                         C.c_size_t(S)]
                a, ca = T.argv(vals), T.argv(cvals)
                grid, block = (C.c_uint * 3)(rows, S, 1), (C.c_uint * 3)(128, 1, 1)

                def run(a=a, ca=ca, grid=grid, block=block, keep=(vals, cvals, ws)):
                    ck(hr.hanzo_rocm_kernel_launch(k, grid, block, 0, None, a), "launch")
                    if S > 1:
                        ck(hr.hanzo_rocm_kernel_launch_work(kc_, rows, D, None, ca), "combine")
                runs.append(run)
            try:
                sets[0]["out"].fill_(float("nan"))
                runs[0]()
                torch.cuda.synchronize()
                msg = close(sets[0]["out"], ref, 2e-2)
                if msg:
                    raise RuntimeError(msg)
                og = gbps(kvbytes, gpu_time(runs))
                pc = 100 * og / T.COPY_GBPS[0] if T.COPY_GBPS[0] else 0
                print(f"{'':22s} {shape:>30s} {S:4d} {og:7.0f} {pc:6.1f}", flush=True)
                T.record("decode-sweep", shape=shape, splits=S, gbps=og, pct_copy=pc)
            except Exception as ex:
                print(f"{'':22s} {shape:>30s} {S:4d} FAILED: {ex}", flush=True)
        del sets


if __name__ == "__main__":
    T.header()
    T.sec_copy()
    for sec in SECTIONS:
        {"ops": sec_ops, "decode": sec_decode, "decode-sweep": sec_decode_sweep}[sec]()
    if JSON_OUT:
        import json
        json.dump(T.RESULTS, open(JSON_OUT, "w"), indent=1)
