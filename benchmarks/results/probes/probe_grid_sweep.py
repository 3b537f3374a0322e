#!/usr/bin/env python3
"""The steady K-iteration of probe_grid_sweep.sh's launches against the installed model's (offline):
    python3 benchmarks/results/probes/probe_grid_sweep.py LOG [GPU_ROW]
Per tile, grid (CTAs) and shape (1 or 4 tile rows): measured ns per K-iteration = (t(K=12288) - t(K=4096)) / 128, the
same in cycles at the model's sustained clock, and the model's steady K-iteration (LatencyBreakdown::steady_cycles) with
its binding term, from origami_nv._core.predict with the reference sm_90 kernel table's resources."""
import collections
import sys

from origami_nv import _core
from origami_nv.bench.repredict import _op_kernels, load_kernel_table


def main(log: str, row: str = "H200") -> None:
    t = {}
    for line in open(log):
        f = line.split()
        if len(f) >= 10 and f[0].startswith("origami_wgmma") and f[-1] == "ok":
            t[(f[0], int(f[1]), int(f[2]), int(f[3]))] = float(f[5]) * 1e3  # ns
    hw = _core.resolve_hardware(None, row, "")
    clock = hw.get("sustained_clock_mhz") / 1e3  # cycles per ns
    o = _core.ModelOptions("nv")
    kr = _op_kernels(load_kernel_table("reports/kernel_resources_sm90.json"), {"float16"})
    print(f"| tile | M | CTAs | measured ns / k-iter | cycles @ {clock * 1e3:.0f} MHz | model cycles | meas / model "
          "| model's bound |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    rows = collections.defaultdict(dict)
    for (name, M, N, K), ns in t.items():
        rows[(name, M, N)][K] = ns
    for (name, M, N), d in sorted(rows.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2])):
        if 4096 not in d or 12288 not in d:
            continue
        tile = name.split("_")[2]  # 64x128x64
        bm, bn, bk = (int(x) for x in tile.split("x"))
        parts = name.split("_")  # origami_wgmma_64x128x64_s8_w8_fp16_kk
        st, w = int(parts[3][1:]), int(parts[4][1:])
        k = (d[12288] - d[4096]) / ((12288 - 4096) / bk)
        res = next(r for (dt, _), r in kr.items() if r.config.block_m == bm and r.config.block_n == bn
                   and r.config.family == "wgmma" and not r.config.swap_ab and r.config.stages == st)
        tc = _core.TileConfig(bm, bn, bk, group_size_m=12, stages=st, warps=w, family="wgmma")
        b = _core.predict(M, N, 12288, "float16", tc, hw, o, res, layout="nt")
        bound = b["compute_limiter"] if b["bound"] == "compute" else b["memory_bound"]
        ctas = -(-M // bm) * -(-N // bn)
        print(f"| {bm}x{bn} | {M} | {ctas} | {k:.0f} | {k * clock:.0f} | {b['steady_cycles']:.0f} | "
              f"{k * clock / b['steady_cycles']:.2f} | {bound} |")


if __name__ == "__main__":
    main(*sys.argv[1:])
