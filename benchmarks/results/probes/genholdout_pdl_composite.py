#!/usr/bin/env python3
"""Forty-third session: the `gen-holdout` figures of the launcher's PDL rule (cpp/kernels/pdl.hpp,
pdl_suits_sm_filling_grid) from the two runs of the set: `vs_cublas_genholdout_h200.json` (PDL on every launch, the
build of ffc44a2: the set's only pure held-out run) and `vs_cublas_genholdout_band_pdl_off_h200.json` (PDL off for every
wgmma grid of 67-131 CTAs: the first form of the rule, commit 7c152bf). Per shape the ratio (cuBLAS time / ours, one
run) of the run whose PDL setting the rule as that session left it gives that pick: off for 67-112 CTAs with >= 32
K-iterations per CTA, on otherwise (the forty-fourth session raised the threshold to 96 on the training sets:
pdl_fill_rule_h200_session44.md). Offline: python benchmarks/results/probes/genholdout_pdl_composite.py"""
import json
import math
import sys
from collections import defaultdict
from pathlib import Path

from origami_nv.bench.suites import Size, size_class
from pdl_fill_rule_compare import grid_and_k_iters

HERE = Path(__file__).resolve().parent.parent


def pdl_off_by_the_rule(r, sms=132, min_k_iters=32):
    if r["pick"]["family"] != "wgmma":
        return False
    grid, k_iters = grid_and_k_iters(r, sms)
    return 2 * grid > sms and 20 * grid <= 17 * sms and k_iters >= min_k_iters


def main():
    on = json.load(open(HERE / "vs_cublas_genholdout_h200.json"))["rows"]
    off = {json.dumps([r[k] for k in ("label", "M", "N", "K", "batch", "layout", "dtype")]): r
           for r in json.load(open(HERE / "vs_cublas_genholdout_band_pdl_off_h200.json"))["rows"]}
    g = lambda v: math.exp(sum(map(math.log, v)) / len(v))  # noqa: E731
    rows, by_class, moved = [], defaultdict(list), []
    for r in on:
        o = off[json.dumps([r[k] for k in ("label", "M", "N", "K", "batch", "layout", "dtype")])]
        use = pdl_off_by_the_rule(r)
        x = o if use else r
        rows.append((x["ratio"], x["best_of_top"]["pick_over_best"], r["ratio"]))
        by_class[size_class(Size(r["M"], r["N"], r["K"], r["dtype"], "", r["batch"], r["layout"]))].append(rows[-1])
        if use:
            moved.append(f"  {r['M']}x{r['N']}x{r['K']} {r['dtype']}: {r['origami_us']:.1f} -> {o['origami_us']:.1f} us, "
                         f"ours/cuBLAS {r['ratio']:.3f} -> {o['ratio']:.3f}")
    print(f"{len(rows)} shapes; the rule turns PDL off for {len(moved)} picks:")
    print("\n".join(moved))
    print(f"ours / cuBLAS geomean {g([x[2] for x in rows]):.3f} -> {g([x[0] for x in rows]):.3f}, min "
          f"{min(x[2] for x in rows):.3f} -> {min(x[0] for x in rows):.3f}; pick / best of the top 4 "
          f"{g([x[1] for x in rows]):.3f} (min {min(x[1] for x in rows):.3f})")
    for c, v in by_class.items():
        print(f"  {c:8s} {len(v):3d}  {g([x[2] for x in v]):.3f} -> {g([x[0] for x in v]):.3f}  (min {min(x[0] for x in v):.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
