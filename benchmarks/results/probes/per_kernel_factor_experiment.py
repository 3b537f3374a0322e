#!/usr/bin/env python3
"""Forty-fifth session, offline (no GPU), not adopted (benchmarks/results/model_scan_session45_per_kernel_not_adopted.md):
a per-kernel time multiplier learnt on training sets (centred log residual of each compiled
kernel, unsplit and split launches pooled) applied to the predictions on validation sets. Pick = the launch with the
least adjusted predicted time among the timed launches (every kernel a candidate), the same rule for the baseline.
    NEAR=1.5 python benchmarks/results/probes/per_kernel_factor_experiment.py TRAIN_SETS VALID_SETS
(sets as benchmarks/fit_model.py's --sets items, GPUDIR:SUITE:ROW, comma-separated)."""
import math
import os
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "benchmarks"))
import fit_model as fm
from origami_nv.bench.repredict import load_kernel_table
from origami_nv.bench import stats
from origami_nv import _core
NEAR = float(os.environ.get("NEAR", "1.5"))  # launches within NEAR x the best of their size
fm.KERNEL_TABLE = load_kernel_table(str(REPO / "reports" / "kernel_resources_sm90.json"))

def load(item):
    label, s, hw, kernels = fm.load_set(item, "rotate")
    sel = _core.Selector(hw, kernels, fm.make_options(None, split_k=s.has_split, every_kernel=True))
    out = []
    for size, sz in s.sizes.items():
        _, pred = fm.predicted_cycles(sel, s, sz)
        meas = {k: v[0] for k, v in sz["kernels"].items() if k in pred and k not in sz.get("probe_only", ())}
        if len(meas) >= 3:
            out.append((size, sz.get("class"), {k: (pred[k], meas[k]) for k in meas}))
    return label, out

MIN_LAUNCHES = 20  # a kernel's factor is applied only where its residual averages at least this many launches


def residuals(data, near=1.5):
    acc = defaultdict(list)
    for _, _, d in data:
        best = min(m for _, m in d.values())
        errs = {k: math.log(m / p) for k, (p, m) in d.items() if m < near * best}
        mid = sorted(errs.values())[len(errs) // 2]
        for k, e in errs.items():
            acc[k[:6]].append(e - mid)
    return {k: (sum(v) / len(v), len(v)) for k, v in acc.items()}

def evaluate(data, adj):
    abf, taus = [], []
    for _, cls, d in data:
        ks = list(d)
        p = [d[k][0] * adj.get(k[:6], 1.0) for k in ks]
        m = [d[k][1] for k in ks]
        pick = min(range(len(ks)), key=lambda i: p[i])
        abf.append(min(m) / m[pick])
        taus.append(stats.kendall_tau_b(p, m))
    g = math.exp(sum(math.log(x) for x in abf) / len(abf))
    return g, min(abf), sum(taus) / len(taus)

train_items = sys.argv[1].split(",")
valid_items = sys.argv[2].split(",")
cache = {}
for it in train_items + valid_items:
    cache[it] = load(it)
res_all = defaultdict(list)
for it in train_items:
    for k, (r, n) in residuals(cache[it][1], near=NEAR).items():
        res_all[k].append((r, n))
pooled = {k: (sum(r * n for r, n in v) / sum(n for _, n in v), sum(n for _, n in v)) for k, v in res_all.items()}
for alpha in (0.0, 0.5, 1.0):
    adj = {k: math.exp(alpha * r) for k, (r, n) in pooled.items() if n >= MIN_LAUNCHES}
    line = [f"alpha {alpha} min_n {MIN_LAUNCHES}:"]
    for it in train_items + valid_items:
        g, mn, t = evaluate(cache[it][1], adj)
        line.append(f"{cache[it][0]} {g:.3f}/{mn:.2f}/{t:.3f}")
    print("  ".join(line), flush=True)
# cross-device: learnt on one GPU's training set, judged on the other's validation set
for tr in train_items:
    r = residuals(cache[tr][1], near=NEAR)
    adj = {k: math.exp(1.0 * v) for k, (v, n) in r.items() if n >= MIN_LAUNCHES}
    print("learnt on", cache[tr][0], ":", "  ".join(f"{cache[it][0]} {'%.3f/%.2f/%.3f' % evaluate(cache[it][1], adj)}" for it in valid_items), flush=True)
