#!/usr/bin/env python3
"""Forty-sixth session, offline (no GPU): the centred log residual of the installed model's unsplit wgmma predictions
(launches within 2x the best of their size; log(measured / predicted) minus the size's median) by the launch's waves
and its last wave's fill (tiles in the last wave / tiles in flight), split by the model's bound (memory or compute),
with NvModelConstants overridden by NAME=V pairs. The tables of benchmarks/results/model_scan_session46_not_adopted.md.
    python benchmarks/results/probes/wave_fill_residuals.py GPUDIR:SUITE:ROW[,...] [NAME=V ...]
The study terms of that file are patches (model_partial_last_wave_session46.diff, model_wgmma_smem_floor_session46.diff):
apply one, rebuild, and pass its constant here."""
import math
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "benchmarks"))
import fit_model as fm  # noqa: E402
from origami_nv.bench import configs as C  # noqa: E402
from origami_nv.bench.repredict import load_kernel_table  # noqa: E402
from origami_nv import _core  # noqa: E402

fm.KERNEL_TABLE = load_kernel_table(str(REPO / "reports" / "kernel_resources_sm90.json"))
constants = dict(kv.split("=") for kv in sys.argv[2:]) or None
WAVES = [(1, "1 wave"), (2, "1-2 waves"), (3, "2-3 waves"), (5, "3-5 waves"), (10**9, "> 5 waves")]
FILLS = [(0.5, "last wave <= 1/2 full"), (1.0, "last wave > 1/2 full")]
for item in sys.argv[1].split(","):
    label, s, hw, kernels = fm.load_set(item, "rotate")
    sel = _core.Selector(hw, kernels, fm.make_options(constants, split_k=s.has_split, every_kernel=True))
    acc = defaultdict(list)
    for sz in s.sizes.values():
        layout = C.launched_layout(sz["layout"], s.b_layout)
        al = C.operand_alignment(sz["M"], sz["N"], sz["K"], layout, sz["dtype"], sz["batch"])
        ranking = sel.selection(sz["M"], sz["N"], sz["K"], sz["dtype"], top=None, batch=sz["batch"], layout=layout,
                                **al)["ranking"]
        bd = {}
        for cfg, b in ranking:
            bd.setdefault(fm.kid(cfg), b)
        meas = {k: v[0] for k, v in sz["kernels"].items() if k in bd}
        if len(meas) < 5:
            continue
        best = min(meas.values())
        errs = {k: math.log(meas[k] / bd[k]["total_cycles"]) for k in meas if meas[k] < 2 * best}
        mid = sorted(errs.values())[len(errs) // 2]
        for k, e in errs.items():
            b = bd[k]
            if not k[0].startswith("wgmma") or len(k) > 6:
                continue
            w, slots = b["num_waves"], b["concurrent_tiles"]
            fill = (b["total_tiles"] - (w - 1) * slots) / slots
            wl = next(n for top, n in WAVES if w <= top)
            fl = next(n for top, n in FILLS if fill <= top)
            bound = "memory" if b["memory_cycles"] > b["compute_cycles"] else "compute"
            acc[(bound, wl, fl)].append(e - mid)
    print(f"{label} (unsplit wgmma launches within 2x the best; centred log residual (n))")
    print("| bound | waves | " + " | ".join(n for _, n in FILLS) + " |")
    print("|---|---|" + "---:|" * len(FILLS))
    for bound in ("memory", "compute"):
        for _, wl in WAVES:
            cells = [acc[(bound, wl, fl)] for _, fl in FILLS]
            print(f"| {bound} | {wl} | " + " | ".join(f"{sum(c) / len(c):+.3f} ({len(c)})" if c else "-" for c in cells)
                  + " |")
