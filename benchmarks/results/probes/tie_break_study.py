"""How much a tie-break among near-tied predictions could recover (offline, the installed model; fifty-first session).

    python benchmarks/results/probes/tie_break_study.py nvidia-h100:gen-train:H100_SXM nvidia-h200:gen-train:H200 ...

For each size: the timed launches the model predicts within eps of its first choice, and the A/BF (geomean / min) of
picking among them by a rule: first (the model), oracle (the fastest measured: the bound), unsplit, biggest / smallest
tile, least padded area. Output: tie_break_study.txt beside this file. None of the rules beats the first choice.
"""
import math, sys
from pathlib import Path
ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "benchmarks"))
import fit_model as F
from origami_nv import _core
from origami_nv.bench.repredict import load_kernel_table
F.KERNEL_TABLE = load_kernel_table(str(ROOT / "reports" / "kernel_resources_sm90.json"))

def run(item):
    label, suite, hw, kernels = F.load_set(item, "rotate")
    sel = _core.Selector(hw, kernels, F.make_options(None, split_k=suite.has_split))
    out = {}
    for size, s in suite.sizes.items():
        ranked, pred = F.predicted_cycles(sel, suite, s)
        meas = s["kernels"]
        best = min(v[0] for v in meas.values())
        timed = [(F.kid(c), cyc, c) for c, cyc in ranked if F.kid(c) in meas and F.kid(c) not in s.get("probe_only", ())]
        if not timed: continue
        out[size] = (best, timed, meas, s)
    return label, out

def abf_rule(data, eps, rule):
    logs = []; mins = 1
    for size, (best, timed, meas, s) in data.items():
        p0 = timed[0][1]
        near = [t for t in timed if t[1] <= p0 * (1 + eps)]
        k = rule(near, meas, s)
        a = best / meas[k][0]
        logs.append(math.log(a)); mins = min(mins, a)
    return math.exp(sum(logs) / len(logs)), mins

def first(near, meas, s): return near[0][0]
def oracle(near, meas, s): return min(near, key=lambda t: meas[t[0]][0])[0]
def unsplit(near, meas, s):
    u = [t for t in near if len(t[0]) <= 6 or t[2].split_k <= 1]
    return (u or near)[0][0]
def biggest(near, meas, s): return max(near, key=lambda t: (t[2].block_m * t[2].block_n, -t[1]))[0]
def smallest(near, meas, s): return min(near, key=lambda t: (t[2].block_m * t[2].block_n, t[1]))[0]
def least_pad(near, meas, s):
    def waste(t):
        c = t[2]; M, N = s["M"], s["N"]
        bm, bn = (c.block_n, c.block_m) if c.swap_ab else (c.block_m, c.block_n)
        return (math.ceil(M / bm) * bm * math.ceil(N / bn) * bn) / (M * N)
    return min(near, key=lambda t: (round(waste(t), 2), t[1]))[0]

for item in sys.argv[1:]:
    label, data = run(item)
    print(label, len(data))
    for eps in (0.0, 0.02, 0.05, 0.10):
        print(f"  eps {eps:.2f}", " ".join(f"{r.__name__}={g:.3f}/{m:.2f}" for r in (first, oracle, unsplit, biggest, smallest, least_pad) for g, m in [abf_rule(data, eps, r)]))
