"""Why does the model rank a two-consumer wgmma tile with a high K-split above a one-consumer tile with a lower split
at mid-size M and long K, where the measurements say the opposite (issue 11)?

Twenty-ninth session. Offline, on both GPUs' gen-train and gen-valid, the best two-consumer launch of a long-K size runs
+0.08..+0.19 log slower, relative to the best one-consumer launch, than the model predicts
(`probes/consumers_residual.py`); the misses it costs are all of this kind (H100 gen-valid 576x384x9792: 128x128 split 8
picked at 17.6 us, 64x128 split 4 runs 15.7). This times a crossed design at training-set sizes of that class: each
size's one-consumer and two-consumer tiles at the split counts of both (so tile and split count separate), CUDA graphs
over rotated cold operands (the harness of the reports), every launch checked against the fp32 reference first, two
rounds in alternating order. ORIGAMI_NV_CLUSTER_SPLIT=0 in the environment runs every split through the reduction kernel
instead of the thread-block cluster.

    python benchmarks/results/probes/probe_split_consumers.py [--rounds 2] [--out X.jsonl]
    ncu --clock-control none --section SpeedOfLight -k regex:origami \
        python benchmarks/results/probes/probe_split_consumers.py --once 0 "128x128 s6 w12 sk6"
"""
import argparse
import json
import statistics

import torch

import origami_nv
from origami_nv.bench.suites import Size
from origami_nv.bench.timing import CudaHarness, HarnessOptions

# (M, N, K, dtype, layout) from reports/nvidia-h*/raw/gen-train (sizes of the long_k class where the two-consumer
# residual is largest), and the launches: the best one- and two-consumer launches the brute force measured there plus
# the same tiles at each other's split count.
CASES = [
    ((832, 384, 12288, "float16", "nn"), ["64x128 s8 w8 sk3", "64x128 s8 w8 sk6", "128x128 s6 w12 sk3",
                                          "128x128 s6 w12 sk6", "64x128 s8 w8 sk1", "128x128 s6 w12 sk1"]),
    ((1088, 320, 14848, "bfloat16", "nn"), ["64x64 s8 w8 sk3", "64x64 s8 w8 sk7", "128x192 s5 w12 sk3",
                                            "128x192 s5 w12 sk7", "128x64 s8 w12 sk3", "128x64 s8 w12 sk7"]),
    ((1536, 128, 10176, "bfloat16", "nt"), ["64x128 s8 w8 sk4", "128x128 s6 w12 sk4", "128x128 s6 w12 sk8",
                                            "64x128 s8 w8 sk8"]),
    ((1024, 1024, 32704, "bfloat16", "nt"), ["64x256 s4 w8 sk2", "128x128 s6 w12 sk2", "128x256 s4 w12 sk4",
                                             "128x256 s4 w12 sk2", "64x256 s4 w8 sk1", "128x128 s6 w12 sk1"]),
]


def config(text: str) -> origami_nv.Config:
    tile, s, w, sk = text.split()
    bm, bn = (int(v) for v in tile.split("x"))
    return origami_nv.Config(block_m=bm, block_n=bn, block_k=64, group_size_m=12, stages=int(s[1:]), warps=int(w[1:]),
                             family="wgmma", split_k=int(sk[2:]))


def operands(M, N, K, dtype, layout):
    dt = getattr(torch, dtype)
    a = torch.randn(M, K, device="cuda", dtype=dt)
    b = torch.randn(N, K, device="cuda", dtype=dt).t() if layout == "nt" else torch.randn(K, N, device="cuda", dtype=dt)
    return a, b


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--once", nargs=2, default=None, metavar=("CASE", "LAUNCH"),
                    help="launch this config at CASES[CASE] twice (for ncu)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    if args.once:
        (M, N, K, dtype, layout), _ = CASES[int(args.once[0])]
        a, b = operands(M, N, K, dtype, layout)
        cfg = config(args.once[1])
        for _ in range(2):
            origami_nv.matmul(a, b, config=cfg)
        torch.cuda.synchronize()
        return 0
    h = CudaHarness(HarnessOptions())
    print(h.device_info())
    out = open(args.out, "a") if args.out else None
    for (M, N, K, dtype, layout), launches in CASES:
        size = Size(M, N, K, dtype, "probe", 1, layout)
        ctx = h.prepare(size)
        fns = {"cublas": h.cublas_fn()}
        for text in launches:
            fns[text] = (lambda a, b, _c=config(text): origami_nv.matmul(a, b, config=_c))
        for name, fn in fns.items():
            err = h.check(ctx, fn)
            if not err <= ctx.tolerance:
                raise SystemExit(f"{name} {M}x{N}x{K}: relative error {err:.3g}")
        times = {n: [] for n in fns}
        order = list(fns)
        for r in range(args.rounds):
            for n in (order if r % 2 == 0 else order[::-1]):
                times[n].append(h.time(ctx, fns[n]).time_s * 1e6)
        pred = {}
        for r in origami_nv.rank(M, N, K, top=400, dtype=dtype, layout=layout):
            c = r.config
            key = f"{c.block_m}x{c.block_n} s{c.stages} w{c.warps} sk{c.split_k}"
            if c.family == "wgmma" and not getattr(c, "swap_ab", False):
                pred.setdefault(key, r.predicted_us)
        cub = statistics.median(times["cublas"])
        print(f"\n{M}x{N}x{K} {dtype} {layout}: cuBLAS {cub:.1f} us")
        for n in fns:
            t = statistics.median(times[n])
            print(f"  {n:22s} {t:9.1f} us  cuBLAS/x {cub / t:.3f}  rounds {[round(v, 1) for v in times[n]]}  "
                  f"predicted {pred.get(n, float('nan')):.1f}", flush=True)
            if out:
                out.write(json.dumps({"device": torch.cuda.get_device_name(), "M": M, "N": N, "K": K, "dtype": dtype,
                                      "layout": layout, "launch": n, "times_us": times[n],
                                      "predicted": pred.get(n)}) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
