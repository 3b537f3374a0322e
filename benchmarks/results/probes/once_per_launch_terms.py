#!/usr/bin/env python3
"""Forty-sixth session, offline (no GPU): would a cost paid once per launch (not once per wave) explain why the model
predicts one-wave wgmma launches too fast (benchmarks/results/model_scan_session46_not_adopted.md)? Each unsplit
wgmma launch's prediction gets c x one of its own terms (its tile's cycles, its K-loop, its pipeline fill = stages x
the K-iteration's memory time, its epilogue; tile_sw: the tile's cycles on one-wave launches only); the pick is the
fastest-predicted launch among those the selector ranks (mma.sync dominated kernels left out, as the op does), over the
timed launches. Cells: A/BF geomean / min / mean tau (every timed launch) / mean per-size variance of the log error of
the launches within 2x the best.
    python benchmarks/results/probes/once_per_launch_terms.py GPUDIR:SUITE:ROW[,...]"""
import math
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "benchmarks"))
import fit_model as fm  # noqa: E402
from origami_nv import _core  # noqa: E402
from origami_nv.bench import stats  # noqa: E402
from origami_nv.bench import configs as C  # noqa: E402
from origami_nv.bench.repredict import load_kernel_table  # noqa: E402

fm.KERNEL_TABLE = load_kernel_table(str(REPO / "reports" / "kernel_resources_sm90.json"))
TERMS = {"tile": lambda b, st: b["tile_cycles"], "loop": lambda b, st: b["steady_cycles"] * b["num_iter"],
         "fill": lambda b, st: b["memory_cycles"] * st, "epi": lambda b, st: b["epilogue_cycles"],
         "tile_sw": lambda b, st: b["tile_cycles"] * (b["num_waves"] == 1)}
SCAN = [(None, 0.0)] + [(t, c) for t, cs in [("tile", [0.05, 0.1, 0.15, 0.2]), ("loop", [0.1, 0.15, 0.2]),
                                              ("fill", [0.25, 0.5, 1.0]), ("epi", [0.5, 1.0]), ("tile_sw", [0.1, 0.2])]
                        for c in cs]


def load(item):
    """[(size's launches: {kid: (measured s, breakdown, stages, ranked by the selector)})] of one set."""
    label, s, hw, kernels = fm.load_set(item, "rotate")
    every = _core.Selector(hw, kernels, fm.make_options(None, split_k=s.has_split, every_kernel=True))
    pickable = _core.Selector(hw, kernels, fm.make_options(None, split_k=s.has_split))
    out = []
    for sz in s.sizes.values():
        layout = C.launched_layout(sz["layout"], s.b_layout)
        args = (sz["M"], sz["N"], sz["K"], sz["dtype"])
        al = C.operand_alignment(*args[:3], layout, sz["dtype"], sz["batch"])
        ranked = {fm.kid(c) for c, _ in pickable.rank(*args, batch=sz["batch"], layout=layout, **al)}
        bd = {}
        for cfg, b in every.selection(*args, top=None, batch=sz["batch"], layout=layout, **al)["ranking"]:
            bd.setdefault(fm.kid(cfg), (b, cfg.stages))
        launches = {k: (v[0],) + bd[k] + (k in ranked,) for k, v in sz["kernels"].items() if k in bd}
        if len(launches) >= 5:
            out.append(launches)
    return label, out


def judge(sizes, term, c):
    ratios, taus, var = [], [], []
    for L in sizes:
        pred = {k: b["total_cycles"] + (c * TERMS[term](b, st) if term and k[0].startswith("wgmma") and len(k) <= 6
                                          else 0.0) for k, (m, b, st, ok) in L.items()}
        best = min(v[0] for v in L.values())
        pick = min((k for k in L if L[k][3]), key=lambda k: pred[k])
        ratios.append(best / L[pick][0])
        ks = list(L)
        taus.append(stats.kendall_tau_b([pred[k] for k in ks], [L[k][0] for k in ks]))
        e = [math.log(L[k][0] / pred[k]) for k in ks if L[k][0] < 2 * best]
        mu = sum(e) / len(e)
        var.append(sum((x - mu) ** 2 for x in e) / len(e))
    return (math.exp(sum(math.log(r) for r in ratios) / len(ratios)), min(ratios), sum(taus) / len(taus),
            sum(var) / len(var))


sets = [load(item) for item in sys.argv[1].split(",")]
print("| term | c | " + " | ".join(label for label, _ in sets) + " |")
print("|---|---|" + "---|" * len(sets))
for term, c in SCAN:
    print(f"| {term or 'none'} | {c} | " + " | ".join("%.4f / %.3f / %.3f / %.4f" % judge(sz, term, c) for _, sz in sets)
          + " |", flush=True)
