#!/usr/bin/env python3
"""Compare vs_cublas runs of the three PDL arms of probe_pdl_fill_rule.sh (all: PDL for every launch; rule: the
launcher's rule; none: no PDL): per wgmma pick, ours / cuBLAS of "rule" and of "none" over "all" (each a
same-process ratio, so clock drift between the processes cancels), grouped by the pick's grid (CTAs), its
K-iterations per CTA and its consumer warpgroups; then every pick whose grid takes 67-112 of the 132 SMs, each run's
ratio. An arm with no runs (the forty-fourth session's validation ran "all" and "rule" only) is left out.
    python benchmarks/results/probes/pdl_fill_rule_compare.py DIR   (DIR holds pdl_{all,rule,none}_*.json)"""
import glob
import json
import math
import sys
from collections import defaultdict


def grid_and_k_iters(r, sms=132):
    p = r["pick"]
    tiles = math.ceil(r["M"] / p["block_m"]) * math.ceil(r["N"] / p["block_n"]) * r["batch"]
    grid = min(tiles * p["split_k"], sms)
    return grid, math.ceil(tiles * math.ceil(r["K"] / p["block_k"]) / grid)


def main(d):
    arms = tuple(a for a in ("all", "rule", "none") if glob.glob(f"{d}/pdl_{a}_*.json"))
    key = lambda r: (r["set"], r["label"], r["M"], r["N"], r["K"], r["batch"], r["layout"], r["dtype"])  # noqa: E731
    ratio = {a: defaultdict(list) for a in arms}
    rows = {}
    for a in arms:
        for f in sorted(glob.glob(f"{d}/pdl_{a}_*.json")):
            for r in json.load(open(f))["rows"]:
                ratio[a][key(r)].append(r["ratio"])
                rows[key(r)] = r
    gm = lambda v: math.exp(sum(map(math.log, v)) / len(v))  # noqa: E731
    groups = defaultdict(list)
    for k, r in rows.items():
        if any(not ratio[a][k] for a in arms) or r["pick"]["family"] != "wgmma":
            continue
        grid, kit = grid_and_k_iters(r)
        band = "67-112" if 66 < grid <= 112 else "113-131" if 112 < grid < 132 else "<=66 or >=132"
        g = (band, "K-it >= 96" if kit >= 96 else "K-it 32-95" if kit >= 32 else "K-it < 32",
             "2 consumers" if r["pick"]["warps"] == 12 else "1 consumer")
        base = gm(ratio["all"][k])
        groups[g].append([gm(ratio[a][k]) / base for a in arms[1:]])
    print("(ours / cuBLAS) of each arm over PDL-for-all, per pick; geomean (min .. max)")
    for g in sorted(groups):
        v = groups[g]
        print(f"{' / '.join(g):40s} {len(v):4d} picks  " + "  ".join(
            f"{a} {gm([x[i] for x in v]):.3f} ({min(x[i] for x in v):.3f} .. {max(x[i] for x in v):.3f})"
            for i, a in enumerate(arms[1:])))
    print("\nPicks on 67-112 CTAs: ours / cuBLAS of each run")
    for k, r in rows.items():
        grid, kit = grid_and_k_iters(r)
        if r["pick"]["family"] != "wgmma" or not 66 < grid <= 112:
            continue
        p = r["pick"]
        print(f"{r['M']:6d} {r['N']:6d} {r['K']:6d} b{r['batch']:<3d} {p['block_m']}x{p['block_n']}x{p['block_k']} "
              f"sk{p['split_k']} w{p['warps']:<3d} grid {grid:3d} K-iterations {kit:4d}  "
              + "  ".join(f"{a} " + ",".join(f"{x:.3f}" for x in ratio[a][k]) for a in arms))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
