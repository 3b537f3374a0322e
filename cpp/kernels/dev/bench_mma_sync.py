#!/usr/bin/env python3
"""Dev timing of the mma.sync family against torch.matmul (cuBLAS) on a few key shapes.

    python cpp/kernels/dev/bench_mma_sync.py [--dtype float16] [--shapes 4096,4096,4096 ...] [--out FILE]

For every shape: torch.matmul, origami_nv.matmul (the model's pick) and a brute force over the compiled
mma_sync configs (spilling kernels skipped; for large shapes only tiles >= 64x64). Timing: CUDA events
around each launch, inputs rotated over enough copies to exceed 2x L2 (cold operands, as the A/BF
harness does), median of the repetitions. Every timed kernel's output is checked against torch.
"""
import argparse
import json
import statistics
import sys

import torch

import origami_nv
from origami_nv import _kernels

KEY_SHAPES = [(512, 512, 512), (1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096),
              (8192, 8192, 8192), (128, 4096, 4096), (128, 8192, 8192), (8192, 128, 4096),
              (64, 16384, 4096), (128, 28672, 8192), (256, 256, 256)]


def time_fn(fn, inputs, reps):
    for i in range(3):
        fn(*inputs[i % len(inputs)])
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for i in range(reps):
        a, b = inputs[i % len(inputs)]
        starts[i].record()
        fn(a, b)
        ends[i].record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in zip(starts, ends)) * 1e-3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dtype", default="float16")
    ap.add_argument("--shapes", nargs="*", default=None)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--out", default=None)
    ap.add_argument("--no-brute", action="store_true")
    args = ap.parse_args()
    dt = getattr(torch, args.dtype)
    shapes = [tuple(int(v) for v in s.split(",")) for s in args.shapes] if args.shapes else KEY_SHAPES
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    origami_nv.ops.load_op()
    res = [r for r in _kernels.compiled_kernel_resources(args.dtype) if r["config"]["family"] == "mma_sync"
           and r["spill_store_bytes"] == 0]
    rows = []
    for (M, N, K) in shapes:
        per = (M * K + K * N) * 2
        copies = max(2, min(64, (2 * l2) // per + 1))
        inputs = [(torch.randn(M, K, device="cuda", dtype=dt), torch.randn(K, N, device="cuda", dtype=dt))
                  for _ in range(copies)]
        ref = (inputs[0][0].float() @ inputs[0][1].float())
        flops = 2.0 * M * N * K

        def check(out, what):
            err = ((out.float() - ref).norm() / ref.norm()).item()
            if not err < 1e-2:
                raise SystemExit(f"{what} {M}x{N}x{K}: relative error {err}")

        t_cublas = time_fn(torch.matmul, inputs, args.reps)
        check(torch.matmul(*inputs[0]), "torch")
        try:
            pick = torch.ops.origami_nv.select_config(M, N, K, args.dtype)
            check(origami_nv.matmul(*inputs[0]), "pick")
            t_pick = time_fn(origami_nv.matmul, inputs, args.reps)
        except Exception as e:  # selector missing: report and go on
            pick, t_pick = str(e).splitlines()[0], float("nan")
        best = (float("inf"), None)
        if not args.no_brute:
            big = M * N >= 2048 * 2048
            for r in res:
                c = r["config"]
                if big and (c["block_m"] < 64 or c["block_n"] < 64):
                    continue
                cfg = dict(c, group_size_m=8)
                fn = lambda a, b, cfg=cfg: origami_nv.matmul(a, b, config=cfg)
                check(fn(*inputs[0]), f"config {cfg}")
                t = time_fn(fn, inputs, max(3, args.reps // 2))
                if t < best[0]:
                    best = (t, cfg)
        row = dict(M=M, N=N, K=K, cublas_tflops=flops / t_cublas / 1e12, pick=pick,
                   pick_tflops=flops / t_pick / 1e12, bf_tflops=flops / best[0] / 1e12 if best[1] else None,
                   bf_config=best[1])
        rows.append(row)
        print(f"{M:6d} {N:6d} {K:6d}  cuBLAS {row['cublas_tflops']:7.1f}  pick {row['pick_tflops']:7.1f} "
              f"{pick}  BF {row['bf_tflops'] or 0:7.1f} {best[1]}", flush=True)
        del inputs
        torch.cuda.empty_cache()
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
