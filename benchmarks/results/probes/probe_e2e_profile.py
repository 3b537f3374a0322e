#!/usr/bin/env python3
"""One-off probe (fourteenth session, issue 14): where the end-to-end Llama gap lies. Llama-3.2-1B (bf16, random
weights, benchmarks/e2e_llama.py's Runner), batch 1: the decode step replayed from a CUDA graph and the eager prefill
of 512 tokens, per variant (cublas, nn, switch), under torch.profiler: the GPU time per kernel name summed over the
profiled steps, the kernel count, and the wall time per step. Prints one table per (phase, variant).
    python benchmarks/results/probes/probe_e2e_profile.py [--steps 32] [--prefill 512] [--batch 1]
"""
import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import e2e_llama as E  # noqa: E402
import origami_nv  # noqa: E402


def profile(fn, steps):
    from torch.profiler import ProfilerActivity, profile as prof
    fn()
    torch.cuda.synchronize()
    with prof(activities=[ProfilerActivity.CUDA, ProfilerActivity.CPU]) as p:
        t0 = time.perf_counter()
        for _ in range(steps):
            fn()
        torch.cuda.synchronize()
        wall = (time.perf_counter() - t0) / steps
    per = defaultdict(lambda: [0.0, 0])
    for e in p.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            per[e.name][0] += e.device_time_total if hasattr(e, "device_time_total") else e.cuda_time_total
            per[e.name][1] += 1
    return wall, per


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=32)
    ap.add_argument("--prefill", type=int, default=512)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--variants", default="cublas,nn,switch")
    args = ap.parse_args()
    r = E.Runner("llama-3.2-1b", torch.bfloat16, "cuda")
    ids = torch.randint(0, r.config.vocab_size, (args.batch, args.prefill), device="cuda")
    r.new_cache(args.batch, args.prefill + args.steps + 8)
    with torch.inference_mode():
        r.prefill(ids)
    for v in args.variants.split(","):
        if v == "nn":
            origami_nv.nn.convert(r.model)
        else:
            origami_nv.nn.revert(r.model)
        scope = origami_nv.enabled() if v == "switch" else origami_nv.disabled()
        with torch.inference_mode(), scope:
            g = E.GraphDecoder(r, args.batch, args.prefill)
            for phase, fn, n in (("decode (graph replay)", g.graph.replay, args.steps),
                                 (f"prefill {args.prefill} (eager)", lambda: r.prefill(ids), max(4, args.steps // 8))):
                wall, per = profile(fn, n)
                tot = sum(t for t, _ in per.values()) / n
                cnt = sum(c for _, c in per.values()) / n
                print(f"\n== {v} / {phase}: wall {wall * 1e3:.3f} ms per step, GPU kernel time {tot / 1e3:.3f} ms, "
                      f"{cnt:.0f} kernels per step")
                for name, (t, c) in sorted(per.items(), key=lambda kv: -kv[1][0])[:14]:
                    print(f"  {t / n:9.1f} us {c / n:5.1f}x  {name[:110]}")
        origami_nv.nn.revert(r.model)


if __name__ == "__main__":
    main()
