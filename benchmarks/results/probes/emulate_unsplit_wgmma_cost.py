# Offline check (thirty-first session, issue 11; no GPU): do corrections for the unsplit-wgmma residual of
# `benchmarks/fit_model.py --diagnose` (one-wave unsplit wgmma launches measured slower than predicted relative to
# their size's other launches) improve the picks? Every measured launch of the four sets is re-predicted with the
# installed model (fit_model.predicted_cycles, the sm_90 kernel table), a correction is applied to the predictions, and
# the pick is emulated as the fastest-predicted measured launch (evaluate() also falls back to that where the model's
# first choice was not timed). Cells: A/BF geomean / min / mean Kendall tau-b, as fit_model.py's scans.
#   python3 benchmarks/results/probes/emulate_unsplit_wgmma_cost.py      (~1 min)
# Output of the session: benchmarks/results/model_scan_session31_not_adopted.md.
import collections
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
import fit_model as fm  # noqa: E402
from origami_nv import _core  # noqa: E402
from origami_nv.bench import stats  # noqa: E402
from origami_nv.bench.repredict import load_kernel_table  # noqa: E402

SETS = ["nvidia-h100:gen-train:H100_SXM", "nvidia-h200:gen-train:H200", "nvidia-h100:gen-valid:H100_SXM",
        "nvidia-h200:gen-valid:H200"]
fm.KERNEL_TABLE = load_kernel_table(os.path.join(ROOT, "reports", "kernel_resources_sm90.json"))
launches = collections.defaultdict(list)  # (set, size) -> [(family, swapped, split, tiles, measured s, predicted s, BLOCK_K)]
for item in SETS:
    label, s, hw, ks = fm.load_set(item, "rotate")
    sel = _core.Selector(hw, ks, fm.make_options(None, split_k=s.has_split))
    sel_all = _core.Selector(hw, ks, fm.make_options(None, split_k=s.has_split, every_kernel=True))
    clock = hw.get("sustained_clock_mhz") * 1e6
    for size, sz in s.sizes.items():
        _, pred = fm.predicted_cycles(sel, s, sz, sel_all)
        for k, (t, *_) in sz["kernels"].items():
            if k not in pred:
                continue
            fam, swap = fm.kid_family(k)
            bm, bn = (k[2], k[1]) if swap else (k[1], k[2])
            tiles = math.ceil(sz["M"] / bm) * math.ceil(sz["N"] / bn) * sz.get("batch", 1)
            launches[(label, size)].append((fam, swap, k[6] if len(k) > 6 else 1, tiles, t, pred[k] / clock, k[3]))


def evaluate(adjust):
    res = collections.defaultdict(lambda: ([], []))
    for (label, _), ls in launches.items():
        p = [adjust(*x[:6]) for x in ls]
        m = [x[4] for x in ls]
        i = min(range(len(ls)), key=lambda j: p[j])
        res[label][0].append(min(m) / m[i])
        if len(ls) > 2:
            res[label][1].append(stats.kendall_tau_b(p, m))
    cells = []
    for item in SETS:
        gpu_dir, suite, _ = item.split(":")
        abf, taus = res[f"{gpu_dir} {suite}"]
        taus = [t for t in taus if not math.isnan(t)]
        cells.append(f"{math.exp(sum(map(math.log, abf)) / len(abf)):.3f} / {min(abf):.2f} / {sum(taus) / len(taus):.3f}")
    return "| " + " | ".join(cells) + " |"


def unsplit_wgmma(fam, split):
    return fam == "wgmma" and split == 1


def residual_table():
    """Mean log(measured / predicted) of unsplit launches within 2x of their size's best, centred per size (as
    fit_model.py --diagnose), by family, waves and k-iterations; gen-train sets, H100 / H200."""
    cells = collections.defaultdict(list)
    for (label, size), ls in launches.items():
        if "gen-train" not in label:
            continue
        best = min(x[4] for x in ls)
        near = [x for x in ls if x[4] <= 2 * best]
        mean = sum(math.log(x[4] / x[5]) for x in near) / len(near)
        K = int(size.split("-")[0].split("x")[2])
        for fam, swap, split, tiles, t, p, bk in near:
            if split != 1 or swap:
                continue
            waves = "one wave (44-132 tiles)" if 44 <= tiles <= 132 else "> 4 waves" if tiles > 528 else None
            kit = math.ceil(K / bk)
            kb = "<= 16" if kit <= 16 else "17-64" if kit <= 64 else "65-256" if kit <= 256 else "> 256"
            if waves:
                cells[(f"{fam}, {waves}", kb, label.split()[0])].append(math.log(t / p) - mean)
    print("| unsplit launches | <= 16 k-iterations | 17-64 | 65-256 | > 256 |\n|---|---:|---:|---:|---:|")
    for row in ("wgmma, one wave (44-132 tiles)", "wgmma, > 4 waves", "mma_sync, one wave (44-132 tiles)"):
        out = []
        for kb in ("<= 16", "17-64", "65-256", "> 256"):
            v = [cells[(row, kb, g)] for g in ("nvidia-h100", "nvidia-h200")]
            out.append(" / ".join(f"{sum(x) / len(x):+.3f}" if x else "-" for x in v))
        print(f"| {row} | " + " | ".join(out) + " |")
    print()


residual_table()
print("| correction | " + " | ".join(SETS) + " |\n|---|---|---|---|---|")
print("| none (installed) " + evaluate(lambda f, sw, sp, tl, t, p: p))
for us in (0.5, 1, 1.5, 2, 3):
    print(f"| + {us:g} us per unsplit wgmma launch " +
          evaluate(lambda f, sw, sp, tl, t, p, us=us: p + (us * 1e-6 if unsplit_wgmma(f, sp) else 0)))
for us in (0.5, 1, 2):
    print(f"| + {us:g} us per one-wave unsplit wgmma launch " +
          evaluate(lambda f, sw, sp, tl, t, p, us=us: p + (us * 1e-6 if unsplit_wgmma(f, sp) and tl <= 132 else 0)))
for g in (1.1, 1.2, 1.3):
    print(f"| x {g:g} on one-wave unsplit wgmma launches " +
          evaluate(lambda f, sw, sp, tl, t, p, g=g: p * (g if unsplit_wgmma(f, sp) and tl <= 132 else 1)))
