#!/usr/bin/env python3
"""Does origami_nv.matmul (model pick) run the same work as matmul(config=pick)? (dev diagnostic)

    python tools/probe_op_path.py [M,N,K ...]

For each shape: the kernels each path launches (torch.profiler), and both paths timed in alternating
order over rotated cold inputs (the A/BF harness's method) so that clock ramps and ordering favour neither.
Written for the llm-suite observation that 1x2048x8192 ran at 0.85 TFLOP/s as the pick but 1.09-1.13 with
the same kernel given explicitly.
"""
import statistics
import sys

import torch

import origami_nv
from origami_nv.bench.suites import Size
from origami_nv.bench.timing import CudaHarness, HarnessOptions


def main(argv):
    shapes = [tuple(int(v) for v in s.split(",")) for s in argv] or [(1, 2048, 8192), (1, 2048, 4096)]
    ops = origami_nv.ops.load_op()
    h = CudaHarness(HarnessOptions(b_layout="col"))
    for (M, N, K) in shapes:
        size = Size(M, N, K, "float16")
        ctx = h.prepare(size)
        cfg = list(ops.select_config(M, N, K, "float16"))
        paths = {"pick": origami_nv.matmul,
                 "config": lambda a, b, cfg=cfg: origami_nv.matmul(a, b, config=cfg),
                 "cublas": torch.matmul}
        for name, fn in paths.items():
            a, b = ctx.sets[0]
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
                fn(a, b)
                torch.cuda.synchronize()
            kernels = [e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
            print(f"{M}x{N}x{K} {name:7s} err {h.check(ctx, fn):.2e} kernels {kernels}")
        times = {k: [] for k in paths}
        for r in range(6):
            order = list(paths) if r % 2 == 0 else list(reversed(paths))
            for name in order:
                times[name].append(h.time(ctx, paths[name]).time_s)
        print(f"{M}x{N}x{K} config {cfg}: " + ", ".join(
            f"{k} {size.flops / statistics.median(v) / 1e12:.3f} TF" for k, v in times.items()), flush=True)
        h.release(ctx)


if __name__ == "__main__":
    main(sys.argv[1:])
