#!/usr/bin/env python3
"""Dev timing of the mma.sync family against torch.matmul (cuBLAS) on a few key shapes.

    python cpp/kernels/dev/bench_mma_sync.py [--dtype float16] [--shapes 4096,4096,4096 ...] [--out FILE]
                                             [--anchors] [--max-configs N] [--time-budget S]

For every shape: torch.matmul, origami_nv.matmul (the model's pick) and a brute force over the compiled
mma_sync configs (spilling kernels skipped). Timing: origami_nv.bench's harness in `rotate` mode, the
method of /work/shared/ANCHORS.md section 2 and of the bench reports: CUDA-graph replays of launches
cycling through copies of A, B, C totalling >= 2x L2 (cold operands, no CPU launch cost), median of
the replays. Every timed kernel's output is checked against an fp32 reference (relative Frobenius
error <= 2e-3 fp16, 1e-2 bf16), before timing and on one output of the timed graph.

Brute-force pruning (what cannot win, to keep one device call short): tiles with BLOCK_M or BLOCK_N
larger than the next power of two of M or N (pure padding), BLOCK_K > K rounded up to 16, and on
shapes with M*N >= 2048^2 tiles below 64x64 (too many CTAs re-reading operands through L2). With
--anchors the table adds the seed's Triton brute force (ANCHORS section 2, H200, fp16) where listed.
"""
import argparse
import json
import math
import sys
import time

import torch

import origami_nv
from origami_nv import _kernels
from origami_nv.bench.suites import Size
from origami_nv.bench.timing import CudaHarness, HarnessOptions, LaunchError

KEY_SHAPES = [(128, 128, 128), (256, 256, 256), (512, 512, 512), (1024, 1024, 1024),
              (128, 4096, 4096), (128, 4096, 14336), (128, 14336, 4096), (64, 16384, 4096),
              (128, 8192, 4096), (8192, 128, 4096), (16384, 64, 4096), (128, 8192, 8192),
              (128, 8192, 28672), (128, 28672, 8192), (2048, 2048, 2048), (4096, 4096, 4096)]

# ANCHORS.md section 2: the seed's Triton brute force on the H200 (fp16, cold inputs), TFLOP/s.
TRITON_BF_H200 = {
    (64, 64, 64): 0.3, (128, 128, 128): 2.0, (256, 256, 256): 12.3, (512, 512, 512): 57.9,
    (1024, 1024, 1024): 214.0, (2048, 2048, 2048): 529.1, (128, 4096, 4096): 158.1,
    (128, 4096, 14336): 175.9, (128, 14336, 4096): 317.0, (64, 16384, 4096): 202.7,
    (128, 8192, 4096): 227.3, (8192, 128, 4096): 239.0, (16384, 64, 4096): 206.2,
    (128, 8192, 8192): 241.4, (128, 8192, 28672): 265.9, (128, 28672, 8192): 404.0,
    (4096, 4096, 4096): 546.3, (4096, 4096, 14336): 548.5, (4096, 14336, 4096): 530.2,
    (8192, 8192, 8192): 526.6, (8192, 14336, 4096): 516.5, (8192, 28672, 8192): 532.9,
    (8192, 53248, 16384): 525.2,
}


def _pow2_ceil(x):
    return 1 << max(0, math.ceil(math.log2(max(1, x))))


def candidates(records, M, N, K):
    big = M * N >= 2048 * 2048
    out = []
    for r in records:
        c = r["config"]
        bm, bn, bk = c["block_m"], c["block_n"], c["block_k"]
        if bm > max(16, _pow2_ceil(M)) or bn > max(16, _pow2_ceil(N)) or bk > max(16, -(-K // 16) * 16):
            continue
        if big and (bm < 64 or bn < 64):
            continue
        out.append(c)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dtype", default="float16")
    ap.add_argument("--shapes", nargs="*", default=None)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--target-sample-ms", type=float, default=0.5)
    ap.add_argument("--max-launches", type=int, default=512)
    ap.add_argument("--time-budget", type=float, default=None, help="stop the brute force after S seconds")
    ap.add_argument("--out", default=None)
    ap.add_argument("--no-brute", action="store_true")
    ap.add_argument("--anchors", action="store_true", help="add the ANCHORS Triton BF column")
    args = ap.parse_args()
    shapes = [tuple(int(v) for v in s.split(",")) for s in args.shapes] if args.shapes else KEY_SHAPES
    origami_nv.ops.load_op()
    records = [r for r in _kernels.compiled_kernel_resources(args.dtype)
               if r["config"]["family"] == "mma_sync" and r["spill_store_bytes"] == 0]
    h = CudaHarness(HarnessOptions(mode="rotate", repeats=args.repeats, warmup_s=0.005,
                                   target_sample_s=args.target_sample_ms * 1e-3,
                                   max_launches=args.max_launches))
    t_start = time.perf_counter()
    rows = []
    for (M, N, K) in shapes:
        ctx = h.prepare(Size(M, N, K, args.dtype))
        flops = 2.0 * M * N * K

        def timed(fn, what):
            err = h.check(ctx, fn)
            if not err <= ctx.tolerance:
                raise SystemExit(f"{what} {M}x{N}x{K}: relative error {err:.3e}")
            t = h.time(ctx, fn)
            if t.post_rel_err is not None and not t.post_rel_err <= ctx.tolerance:
                raise SystemExit(f"{what} {M}x{N}x{K}: timed output relative error {t.post_rel_err:.3e}")
            return t.time_s

        t_cublas = timed(torch.matmul, "torch")
        try:
            pick = torch.ops.origami_nv.select_config(M, N, K, args.dtype)
            t_pick = timed(origami_nv.matmul, "pick")
        except (LaunchError, RuntimeError) as e:  # selector missing: report and go on
            pick, t_pick = str(e).splitlines()[0], float("nan")
        best = (float("inf"), None)
        tried = 0
        if not args.no_brute:
            for c in candidates(records, M, N, K):
                if args.time_budget and time.perf_counter() - t_start > args.time_budget:
                    break
                fields = (c["block_m"], c["block_n"], c["block_k"], 8, c["stages"], c["warps"])
                cfg = dict(block_m=fields[0], block_n=fields[1], block_k=fields[2], group_size_m=8,
                           stages=fields[4], warps=fields[5], family="mma_sync")
                fn = lambda a, b, cfg=cfg: origami_nv.matmul(a, b, config=cfg)  # noqa: E731
                t = timed(fn, f"config {fields}")
                tried += 1
                if t < best[0]:
                    best = (t, fields)
        bf = flops / best[0] / 1e12 if best[1] else None
        anchor = TRITON_BF_H200.get((M, N, K)) if args.anchors else None
        row = dict(M=M, N=N, K=K, dtype=args.dtype, cublas_tflops=flops / t_cublas / 1e12, pick=str(pick),
                   pick_tflops=flops / t_pick / 1e12, bf_tflops=bf, bf_config=best[1], bf_tried=tried,
                   triton_bf_anchor_tflops=anchor)
        rows.append(row)
        cfg = "x".join(str(v) for v in best[1][:3]) + f" s{best[1][4]} w{best[1][5]}" if best[1] else "-"
        extra = f"  TritonBF(anchor) {anchor:7.1f}  ratio {bf / anchor:5.2f}" if anchor and bf else ""
        print(f"{M:6d} {N:6d} {K:6d}  cuBLAS {row['cublas_tflops']:7.1f}  pick {row['pick_tflops']:7.1f}  "
              f"mma_sync BF {bf or 0:7.1f} {cfg:18s} ({tried} configs){extra}", flush=True)
        h.release(ctx)
        if args.out:  # rewritten after every shape: a cut-off run keeps what it measured
            with open(args.out, "w") as f:
                json.dump(rows, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
