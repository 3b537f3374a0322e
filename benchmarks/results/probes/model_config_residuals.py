"""One compiled kernel's measured / predicted time and measured / best at every stored size that timed it
(benchmarks/results/tma_streaming.md: mma.sync 16x256x128 s3 w4 at nt and nn).
    python benchmarks/results/probes/model_config_residuals.py nvidia-h200:gen-train:H200 mma_sync:16:256:128:3:4
"""
import sys, json
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import fit_model as F
from origami_nv import _core
F.KERNEL_TABLE[:] = json.load(open(F.ROOT / 'reports' / 'kernel_resources_sm90.json'))['kernels']
want = tuple(sys.argv[2].split(':'))  # family:bm:bn:bk:st:w
for item in sys.argv[1].split(','):
    label, suite, hw, kernels = F.load_set(item, 'rotate')
    sel = _core.Selector(hw, kernels, F.make_options(None, split_k=suite.has_split))
    sel_all = _core.Selector(hw, kernels, F.make_options(None, split_k=suite.has_split, every_kernel=True))
    clk = hw.get('sustained_clock_mhz')*1e6
    print(label)
    for size, s in suite.sizes.items():
        if s['batch'] != 1: continue
        meas = s['kernels']
        ks = [k for k in meas if tuple(map(str, k[:6])) == want]
        if not ks: continue
        ranked, pred = F.predicted_cycles(sel, suite, s, sel_all)
        best = min(v[0] for v in meas.values())
        for k in ks:
            if k not in pred: continue
            t = meas[k][0]
            print(f"  {size:34s} {F.kid_str(k):30s} meas/best {t/best:5.2f}  meas/pred {t/(pred[k]/clk):5.2f}")
