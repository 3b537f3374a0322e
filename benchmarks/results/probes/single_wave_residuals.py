#!/usr/bin/env python3
"""Forty-fifth session, offline (no GPU): the centred log residual of the installed model's wgmma predictions (launches
within 2x the best of their size) by the launch's grid (CTAs against the SMs) and K-iterations per CTA
(benchmarks/results/model_scan_session45_issue_efficiency_not_adopted.md, where the table is).
    python benchmarks/results/probes/single_wave_residuals.py GPUDIR:SUITE:ROW[,...]"""
import math
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "benchmarks"))
import fit_model as fm  # noqa: E402
from origami_nv.bench.repredict import load_kernel_table  # noqa: E402
from origami_nv import _core  # noqa: E402

fm.KERNEL_TABLE = load_kernel_table(str(REPO / "reports" / "kernel_resources_sm90.json"))
for item in sys.argv[1].split(","):
    label, s, hw, kernels = fm.load_set(item, "rotate")
    sel = _core.Selector(hw, kernels, fm.make_options(None, split_k=s.has_split, every_kernel=True))
    nsm = int(hw.get("n_sm"))
    acc = defaultdict(list)
    for size, sz in s.sizes.items():
        _, pred = fm.predicted_cycles(sel, s, sz)
        meas = {k: v[0] for k, v in sz["kernels"].items() if k in pred}
        if len(meas) < 5: continue
        best = min(meas.values())
        errs = {k: math.log(meas[k] / pred[k]) for k in meas if meas[k] < 2 * best}
        mid = sorted(errs.values())[len(errs) // 2]
        for k, e in errs.items():
            if not k[0].startswith("wgmma"): continue
            sk = k[6] if len(k) > 6 else 1
            bm, bn = (k[2], k[1]) if k[0].endswith("ab") else (k[1], k[2])
            tiles = math.ceil(sz["M"] / bm) * math.ceil(sz["N"] / bn) * sz["batch"]
            grid = tiles * sk
            kit = math.ceil(math.ceil(sz["K"] / k[3]) / sk) * math.ceil(tiles * sk / min(grid, nsm)) if grid > 0 else 0
            gb = "grid<=44" if grid <= nsm / 3 else "grid<=88" if grid <= 2 * nsm / 3 else "grid<=132" if grid <= nsm else "grid>132"
            kb = "kit<32" if kit < 32 else "kit<128" if kit < 128 else "kit<512" if kit < 512 else "kit>=512"
            acc[(gb, kb)].append(e - mid)
    print(label, "(wgmma launches within 2x best; centred log residual, n; K-iterations per CTA)")
    kbs = ["kit<32", "kit<128", "kit<512", "kit>=512"]
    print("".ljust(11) + "".join(x.ljust(16) for x in kbs))
    for gb in ["grid<=44", "grid<=88", "grid<=132", "grid>132"]:
        print(gb.ljust(11) + "".join((f"{sum(acc[(gb,kb)])/len(acc[(gb,kb)]):+.3f} ({len(acc[(gb,kb)])})" if acc[(gb,kb)] else "-").ljust(16) for kb in kbs))
