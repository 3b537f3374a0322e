"""Per size class: the best two-consumer wgmma launch against the best one-consumer launch of the same size, measured
log ratio minus predicted log ratio (installed model); twenty-eighth session, long_k_group_size.md.
    python benchmarks/results/probes/consumers_residual.py nvidia-h100:gen-train:H100_SXM,nvidia-h200:gen-train:H200 [CLASS]
(CLASS: also list that class's sizes.)
"""
import math, sys, collections
from pathlib import Path
ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "benchmarks"))
import fit_model as F  # noqa: E402
from origami_nv import _core  # noqa: E402
from origami_nv.bench.repredict import load_kernel_table  # noqa: E402
F.KERNEL_TABLE[:] = load_kernel_table(ROOT / "reports" / "kernel_resources_sm90.json")
for item in sys.argv[1].split(","):
    label, s, hw, kernels = F.load_set(item, "rotate")
    sel = _core.Selector(hw, kernels, F.make_options(None, split_k=s.has_split, every_kernel=True))
    by = collections.defaultdict(list)
    for size, sz in s.sizes.items():
        _, pred = F.predicted_cycles(sel, s, sz)
        meas = {k: v[0] for k, v in sz["kernels"].items() if k in pred and k not in sz.get("probe_only", ())}
        one = [k for k in meas if k[0] == "wgmma" and k[5] == 8]
        two = [k for k in meas if k[0] == "wgmma" and k[5] == 12]
        if not one or not two: continue
        b1 = min(one, key=lambda k: meas[k]); b2 = min(two, key=lambda k: meas[k])
        p1 = min(one, key=lambda k: pred[k]); p2 = min(two, key=lambda k: pred[k])
        # measured best ratio vs predicted best ratio
        r = math.log(meas[b2] / meas[b1]) - math.log(pred[p2] / pred[p1])
        by[sz["class"]].append((r, size, F.kid_str(b1), F.kid_str(b2), meas[b2]/meas[b1], pred[p2]/pred[p1]))
    print(label)
    for c, v in by.items():
        v.sort()
        rs = [x[0] for x in v]
        print(f"  {c:8s} n={len(v):3d} median {rs[len(rs)//2]:+.3f} q25 {rs[len(rs)//4]:+.3f} q75 {rs[3*len(rs)//4]:+.3f}")
        if len(sys.argv) > 2 and c == sys.argv[2]:
            for x in v: print(f"     {x[0]:+.3f} {x[1]:34s} meas2/1 {x[4]:.2f} pred2/1 {x[5]:.2f}  {x[2]} | {x[3]}")
