"""Mean log(measured / predicted) of the stored launches within 1.5x of their size's best, by size class (decode M <= 16,
mid M <= 512, big), operand layout, family and split (benchmarks/results/tma_streaming.md: the nn / nt gap).
    python benchmarks/results/probes/model_layout_residuals.py nvidia-h200:gen-train:H200,nvidia-h100:gen-train:H100_SXM
"""
import sys, math, json, collections
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import fit_model as F
from origami_nv import _core
F.KERNEL_TABLE[:] = json.load(open(F.ROOT / 'reports' / 'kernel_resources_sm90.json'))['kernels']
for item in sys.argv[1].split(','):
    label, suite, hw, kernels = F.load_set(item, 'rotate')
    sel = _core.Selector(hw, kernels, F.make_options(None, split_k=suite.has_split))
    sel_all = _core.Selector(hw, kernels, F.make_options(None, split_k=suite.has_split, every_kernel=True))
    clk = hw.get('sustained_clock_mhz')*1e6
    g = collections.defaultdict(list)
    for size, s in suite.sizes.items():
        if s['batch'] != 1: continue
        cls = 'dec' if s['M'] <= 16 else ('mid' if s['M'] <= 512 else 'big')
        ranked, pred = F.predicted_cycles(sel, suite, s, sel_all)
        meas = s['kernels']
        best = min(v[0] for v in meas.values())
        for k,(t,cfg,res) in meas.items():
            if k not in pred or t > 1.5*best: continue
            fam = k[0]
            split = 'sk' if len(k) > 6 else 'whole'
            g[(cls, s['layout'], fam, split)].append(math.log(t/(pred[k]/clk)))
    print(label)
    for key in sorted(g):
        v = g[key]
        if len(v) < 10: continue
        print(f"  {key}  n={len(v):5d}  mean log(meas/pred) {sum(v)/len(v):+.3f}")
