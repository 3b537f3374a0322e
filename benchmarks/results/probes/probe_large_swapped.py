"""Why does the swapped 112x256 wgmma tile run at 0.68-0.70 of cuBLAS at Llama-3-70B's down projection
(4096x8192x28672 bf16, x @ w.t()) on the H100 and at 0.955 on the H200 (vs_cublas_prefill_h100*.md)?

Twenty-eighth session. The model ranks 112x256 ab, 128x256, 256x128 and 192x192 split 6 within 2 % of each other
there, on both GPUs. This times each of them (and cuBLAS) at that size and at neighbours that separate the shape's
features (N = 8192 vs 3584, K = 28672 vs 8192), in alternating order, with the harness's cold-input method (CUDA graphs
over rotated operands >= 2x L2, medians), every launch checked against the fp32 reference first; nvidia-smi samples the
SM clock and board power during a 1.5 s steady run of each launch (its clock at the power limit).

    python benchmarks/results/probes/probe_large_swapped.py [--rounds 2] [--steady-s 1.5]
    ncu --metrics dram__bytes_read.sum,lts__t_sector_hit_rate.pct,gpu__time_duration.sum -k regex:wgmma \
        python benchmarks/results/probes/probe_large_swapped.py --once "wgmma 112x256 ab"
"""
import argparse
import statistics
import subprocess
import time

import torch

import origami_nv
from origami_nv.bench.suites import Size
from origami_nv.bench.timing import CudaHarness, HarnessOptions

CONFIGS = {
    "wgmma 112x256 ab": dict(block_m=112, block_n=256, block_k=64, group_size_m=12, stages=4, warps=12,
                             family="wgmma", swap_ab=True),
    "wgmma 128x256": dict(block_m=128, block_n=256, block_k=64, group_size_m=12, stages=4, warps=12, family="wgmma"),
    "wgmma 256x128": dict(block_m=256, block_n=128, block_k=64, group_size_m=12, stages=4, warps=12, family="wgmma"),
    "wgmma 192x192 sk6": dict(block_m=192, block_n=192, block_k=64, group_size_m=12, stages=4, warps=12,
                              family="wgmma", split_k=6),
    "wgmma 160x256 ab": dict(block_m=160, block_n=256, block_k=64, group_size_m=12, stages=4, warps=12,
                             family="wgmma", swap_ab=True),
}
SIZES = [(4096, 8192, 28672), (4096, 8192, 8192), (4096, 3584, 18944), (8192, 4096, 28672)]


def steady_clock(fn, a, b, seconds: float) -> tuple[float, float, float]:
    """Run fn back to back for `seconds`; median SM clock (MHz) and power (W) sampled by nvidia-smi, and the median
    event time of the last 10 calls (ms)."""
    p = subprocess.Popen(["nvidia-smi", "--query-gpu=clocks.sm,power.draw", "--format=csv,noheader,nounits",
                          "-lms", "50"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    t_end = time.time() + seconds
    while time.time() < t_end:
        for _ in range(5):
            fn(a, b)
        torch.cuda.synchronize()
    times = []
    for _ in range(10):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        fn(a, b)
        e1.record()
        torch.cuda.synchronize()
        times.append(e0.elapsed_time(e1))
    p.terminate()
    out = p.communicate()[0]
    clocks, watts = [], []
    for line in out.strip().splitlines()[2:]:  # the first samples precede the load
        try:
            c, w = line.split(",")
            clocks.append(float(c))
            watts.append(float(w))
        except ValueError:
            pass
    return (statistics.median(clocks) if clocks else float("nan"), statistics.median(watts) if watts else float("nan"),
            statistics.median(times))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--steady-s", type=float, default=1.5)
    ap.add_argument("--dtype", default="bfloat16")
    ap.add_argument("--once", default=None, help="launch only this config at --once-size, twice (for ncu)")
    ap.add_argument("--once-size", type=int, default=0, help="index into SIZES for --once")
    ap.add_argument("--groups", default=None, help="time these GROUP_SIZE_M values (comma-separated) of every config "
                    "at --once-size instead of the table")
    ap.add_argument("--group", type=int, default=None, help="--once: this GROUP_SIZE_M")
    ap.add_argument("--sweep", default=None, help="M,N,K[;M,N,K...]: every GROUP_SIZE_M of --sweep-groups for the "
                    "model's top 4 launches and its best swapped tile, 2 rounds alternated; JSON lines to --out")
    ap.add_argument("--sweep-groups", default="1,4,8,12")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    if args.sweep:
        return sweep(args)
    if args.groups:
        M, N, K = SIZES[args.once_size]
        size = Size(M, N, K, args.dtype, "probe", 1, "nt")
        h = CudaHarness(HarnessOptions())
        ctx = h.prepare(size)
        cub = h.time(ctx, h.cublas_fn()).time_s * 1e6
        print(f"{M}x{N}x{K} {args.dtype} nt: cuBLAS {cub:.1f} us")
        for name, kw in CONFIGS.items():
            for g in (int(v) for v in args.groups.split(",")):
                cfg = origami_nv.Config(**{**kw, "group_size_m": g})
                fn = (lambda a, b, _c=cfg: origami_nv.matmul(a, b, config=_c))
                err = h.check(ctx, fn)
                if not err <= ctx.tolerance:
                    raise SystemExit(f"{name} g{g}: relative error {err:.3g}")
                t = h.time(ctx, fn).time_s * 1e6
                print(f"  {name:22s} GROUP_SIZE_M {g:3d}: {t:9.1f} us  cuBLAS/x {cub / t:.3f}", flush=True)
        return 0
    if args.once:
        M, N, K = SIZES[args.once_size]
        a = torch.randn(M, K, device="cuda", dtype=getattr(torch, args.dtype))
        b = torch.randn(N, K, device="cuda", dtype=getattr(torch, args.dtype)).t()
        cfg = origami_nv.Config(**{**CONFIGS[args.once], **({"group_size_m": args.group} if args.group else {})})
        for _ in range(2):
            origami_nv.matmul(a, b, config=cfg)
        torch.cuda.synchronize()
        return 0
    h = CudaHarness(HarnessOptions())
    print(h.device_info())
    for M, N, K in SIZES:
        size = Size(M, N, K, args.dtype, "probe", 1, "nt")
        ctx = h.prepare(size)
        fns = {"cublas": h.cublas_fn()}
        for name, kw in CONFIGS.items():
            cfg = origami_nv.Config(**kw)
            fns[name] = (lambda a, b, _c=cfg: origami_nv.matmul(a, b, config=_c))
        for name, fn in fns.items():
            err = h.check(ctx, fn)
            if not err <= ctx.tolerance:
                raise SystemExit(f"{name} {M}x{N}x{K}: relative error {err:.3g}")
        times = {n: [] for n in fns}
        order = list(fns)
        for r in range(args.rounds):
            for n in (order if r % 2 == 0 else order[::-1]):
                times[n].append(h.time(ctx, fns[n]).time_s * 1e6)
        pick = origami_nv.rank(M, N, K, top=1, dtype=args.dtype, layout="nt")[0]
        print(f"\n{M}x{N}x{K} {args.dtype} nt  (the model's pick: {pick.config})")
        print(f"  {'launch':22s} {'cold us':>9s} {'TFLOP/s':>8s} {'cuBLAS/x':>8s} | steady: {'MHz':>5s} {'W':>4s} {'us':>8s}")
        cub = statistics.median(times["cublas"])
        a = torch.randn(M, K, device="cuda", dtype=getattr(torch, args.dtype))
        b = torch.randn(N, K, device="cuda", dtype=getattr(torch, args.dtype)).t()
        for n, fn in fns.items():
            t = statistics.median(times[n])
            mhz, w, ms = steady_clock(fn if n != "cublas" else torch.matmul, a, b, args.steady_s)
            print(f"  {n:22s} {t:9.1f} {2 * M * N * K / t / 1e6:8.1f} {cub / t:8.3f} | {mhz:12.0f} {w:4.0f} "
                  f"{ms * 1e3:8.1f}", flush=True)
        del a, b
        h.release(ctx)
    return 0


def sweep(args) -> int:
    import json
    h = CudaHarness(HarnessOptions())
    dev = h.device_info()
    print(dev["device_name"])
    groups = [int(v) for v in args.sweep_groups.split(",")]
    out = open(args.out, "a") if args.out else None
    for spec in args.sweep.split(";"):
        M, N, K = (int(v) for v in spec.split(","))
        size = Size(M, N, K, args.dtype, "sweep", 1, "nt")
        ranked = origami_nv.rank(M, N, K, top=40, dtype=args.dtype, layout="nt")
        cfgs = [r.config for r in ranked[:4]]
        swapped = [r.config for r in ranked if r.config.swap_ab]
        if swapped and not any(c.swap_ab for c in cfgs):
            cfgs.append(swapped[0])
        ctx = h.prepare(size)
        fns = {"cublas": (None, h.cublas_fn())}
        for c in cfgs:
            for g in groups:
                d = c.to_dict()
                d["group_size_m"] = g
                cfg = origami_nv.Config(**{k: v for k, v in d.items() if k in (
                    "block_m", "block_n", "block_k", "group_size_m", "stages", "warps", "family", "split_k", "swap_ab")})
                fns[f"{cfg} g{g}"] = (d, lambda a, b, _c=cfg: origami_nv.matmul(a, b, config=_c))
        for name, (_, fn) in fns.items():
            err = h.check(ctx, fn)
            if not err <= ctx.tolerance:
                raise SystemExit(f"{name} {spec}: relative error {err:.3g}")
        times = {n: [] for n in fns}
        order = list(fns)
        for r in range(2):
            for n in (order if r % 2 == 0 else order[::-1]):
                times[n].append(h.time(ctx, fns[n][1]).time_s)
        h.release(ctx)
        cub = statistics.median(times["cublas"])
        print(f"{M}x{N}x{K} {args.dtype} nt: cuBLAS {cub * 1e6:.1f} us (model's pick {ranked[0].config})")
        for n in order[1:]:
            t = statistics.median(times[n])
            print(f"  {n:60s} {t * 1e6:9.1f} us  cuBLAS/x {cub / t:.3f}  rounds {[round(x * 1e6, 1) for x in times[n]]}",
                  flush=True)
            if out:
                out.write(json.dumps({"device": dev["device_name"], "M": M, "N": N, "K": K, "dtype": args.dtype,
                                      "layout": "nt", "config": fns[n][0], "times_s": times[n],
                                      "cublas_s": times["cublas"]}) + "\n")
                out.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
