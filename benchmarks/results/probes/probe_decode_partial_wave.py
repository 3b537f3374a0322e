#!/usr/bin/env python3
"""Forty-third session probe (issue 11, decode selection): why a decode launch of the 64-row wgmma tiles whose
grid is 65-120 CTAs (a partial single wave) runs 1.1-1.5x the model's time while the same shape's launches of
<= 64 CTAs or of >= 1 full wave are on or under it (stored H200 brute force, `gen-*` and `llm`; the held-out
`gen-holdout` decode picks 0.82-0.85 of the best of the model's top 4). A pure TMA streaming kernel
(probe_tpc_pairs.cu) shows no such step at 74-100 CTAs. Is it the way launches follow each other?

Each 64-row tile of three decode shapes, unsplit, three ways: the harness's CUDA graph of back-to-back launches over
rotating cold operands with programmatic dependent launch (PDL) on (what the reports time), the same with PDL off,
and one launch at a time between CUDA events after a 256 MiB L2 flush (median of 15). Every launch checked first.
    python benchmarks/results/probes/probe_decode_partial_wave.py   (needs the package built; ~1 min)

Results (H200): `probe_decode_partial_wave_h200.txt` (the build of ffc44a2, PDL on for every grid): with PDL the
grids of 72-96 CTAs ran 1.09-1.36x their time without it, 112 CTAs 1.04x, 116-132 and <= 64 CTAs as fast or faster;
`probe_decode_partial_wave_band_off_h200.txt` (commit 7c152bf: the launcher drops PDL for grids of 67-131 CTAs): the
"graph PDL" column of those grids now equals "graph no PDL". ("one launch" is the host-timed single launch: launch
cost included, not comparable across runs.)
"""
import math
import statistics

import torch

import origami_nv
from origami_nv import ops
from origami_nv.bench.suites import Size
from origami_nv.bench.timing import CudaHarness, HarnessOptions

SHAPES = [(3, 7168, 7168, "float16"), (3, 9216, 2304, "bfloat16"), (3, 24576, 6144, "bfloat16"),
          (1, 18944, 3584, "bfloat16")]


def isolated_us(fn, a, b, flush):
    ts = []
    for _ in range(15):
        flush.zero_()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        s.record()
        fn(a, b)
        e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e) * 1e3)
    return statistics.median(ts)


def main():
    h = CudaHarness(HarnessOptions(repeats=5))
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    print(torch.cuda.get_device_name(), "sms", torch.cuda.get_device_properties(0).multi_processor_count)
    for M, N, K, dt in SHAPES:
        size = Size(M, N, K, dt, "decode", 1, "nt")
        ctx = h.prepare(size)
        a = torch.randn(M, K, device="cuda", dtype=getattr(torch, dt))
        w = torch.randn(N, K, device="cuda", dtype=getattr(torch, dt))
        cfgs = [rc for rc in origami_nv.rank(M, N, K, top=None, dtype=dt, layout="nt")
                if rc.config.family == "wgmma" and rc.config.block_m == 64 and rc.config.to_dict().get("split_k", 1) == 1
                and not rc.config.to_dict().get("swap_ab", False)]
        print(f"== {M}x{N}x{K} {dt} nt (W {2 * N * K / 1e6:.0f} MB)")
        print(f"{'tile':>8s} {'CTAs':>5s} {'pred us':>8s} {'graph PDL':>10s} {'graph no PDL':>13s} {'one launch':>11s}"
              f"  TB/s (graph PDL, one launch)")
        for rc in sorted(cfgs, key=lambda r: r.config.block_n):
            c = rc.config

            def fn(x, y, _c=c):
                return origami_nv.matmul(x, y, config=_c)
            err = h.check(ctx, fn)
            assert err <= ctx.tolerance, (c, err)
            with ops.programmatic_dependent_launch(True):
                t_on = h.time(ctx, fn).time_s * 1e6
            with ops.programmatic_dependent_launch(False):
                t_off = h.time(ctx, fn).time_s * 1e6
            t_one = isolated_us(fn, a, w.t(), flush)
            ctas = math.ceil(N / c.block_n)
            gb = 2 * N * K / 1e6
            print(f"{'64x%d' % c.block_n:>8s} {ctas:5d} {rc.predicted_us:8.1f} {t_on:10.1f} {t_off:13.1f} {t_one:11.1f}"
                  f"  {gb / t_on:.2f} {gb / t_one:.2f}", flush=True)
        h.release(ctx)
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
