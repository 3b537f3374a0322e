#!/usr/bin/env python3
"""Compare vs_cublas runs of the three PDL arms of probe_pdl_fill_rule.sh (all: PDL for every launch; rule: the
launcher's rule; none: no PDL): per wgmma pick, ours / cuBLAS of "rule" and of "none" over "all" (each a
same-process ratio, so clock drift between the processes cancels), grouped by the pick's grid (CTAs), its
K-iterations per CTA and its consumer warpgroups.
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
    arms = ("all", "rule", "none")
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
        g = (band, "long" if kit >= 32 else "short", "2 consumers" if r["pick"]["warps"] == 12 else "1 consumer")
        base = gm(ratio["all"][k])
        groups[g].append((gm(ratio["rule"][k]) / base, gm(ratio["none"][k]) / base))
    print("(ours / cuBLAS) of each arm over PDL-for-all, per pick; geomean (min .. max)")
    for g in sorted(groups):
        v = groups[g]
        print(f"{' / '.join(g):40s} {len(v):4d} picks  rule {gm([x[0] for x in v]):.3f} "
              f"({min(x[0] for x in v):.3f} .. {max(x[0] for x in v):.3f})  none {gm([x[1] for x in v]):.3f} "
              f"({min(x[1] for x in v):.3f} .. {max(x[1] for x in v):.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
