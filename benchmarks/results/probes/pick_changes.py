#!/usr/bin/env python3
"""Forty-sixth session, offline (no GPU): the sizes whose pick two sets of NvModelConstants disagree on (A/BF moving by
more than 2 %), with both picks and the brute force's best, re-predicting the stored measurements
(benchmarks/fit_model.py evaluate()).
    python benchmarks/results/probes/pick_changes.py GPUDIR:SUITE:ROW[,...] "NAME=V;..." "NAME=V;..."
An empty string is the installed model."""
import math
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "benchmarks"))
import fit_model as fm  # noqa: E402
from origami_nv.bench.repredict import load_kernel_table  # noqa: E402

fm.KERNEL_TABLE = load_kernel_table(str(REPO / "reports" / "kernel_resources_sm90.json"))


def constants(text):
    return dict(kv.split("=") for kv in text.split(";")) if text else None


a, b = constants(sys.argv[2]), constants(sys.argv[3])
for item in sys.argv[1].split(","):
    label, s, hw, kernels = fm.load_set(item, "rotate")
    for ra, rb in zip(fm.evaluate(s, hw, kernels, a)["rows"], fm.evaluate(s, hw, kernels, b)["rows"]):
        if ra["pick"] != rb["pick"] and abs(math.log(rb["a_bf"] / ra["a_bf"])) > 0.02:
            print(f"{label} {ra['M']}x{ra['N']}x{ra['K']}: {ra['a_bf']:.3f} -> {rb['a_bf']:.3f}  "
                  f"{fm.kid_str(ra['pick'])} -> {fm.kid_str(rb['pick'])}  (best {fm.kid_str(ra['best'])})")
