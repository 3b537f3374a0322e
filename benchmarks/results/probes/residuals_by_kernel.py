"""Centred log error (measured / predicted, installed model) per wgmma kernel, unsplit, at the large and small_m sizes
of a data set (launches within 2x of their size's best); twenty-sixth session, model_scan_session26_not_adopted.md.
    python benchmarks/results/probes/residuals_by_kernel.py nvidia-h100:gen-train:H100_SXM nvidia-h200:gen-train:H200
"""
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "benchmarks"))
import fit_model as F  # noqa: E402
from origami_nv import _core  # noqa: E402
from origami_nv.bench.repredict import load_kernel_table  # noqa: E402

F.KERNEL_TABLE[:] = load_kernel_table(ROOT / "reports" / "kernel_resources_sm90.json")
for item in sys.argv[1:]:
    label, s, hw, kernels = F.load_set(item, "rotate")
    sel = _core.Selector(hw, kernels, F.make_options(None, split_k=s.has_split, every_kernel=True))
    acc = {}
    for size, sz in s.sizes.items():
        if sz["class"] not in ("large", "small_m"):
            continue
        _, pred = F.predicted_cycles(sel, s, sz)
        meas = {k: v[0] for k, v in sz["kernels"].items() if k in pred and k not in sz.get("probe_only", ())}
        if len(meas) < 3:
            continue
        best = min(meas.values())
        errs = {k: math.log(meas[k] / pred[k]) for k in meas if meas[k] < 2 * best}
        mid = sorted(errs.values())[len(errs) // 2]
        for k, e in errs.items():
            if k[0].startswith("wgmma") and len(k) == 6:  # unsplit
                acc.setdefault(F.kid_str(k), []).append(e - mid)
    print(label)
    for k, v in sorted(acc.items(), key=lambda kv: -sum(kv[1]) / len(kv[1])):
        if len(v) >= 5:
            print(f"   {k:40s} n={len(v):3d} mean {sum(v) / len(v):+.3f}")
