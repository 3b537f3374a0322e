#!/usr/bin/env python3
"""Offline (no GPU): the installed nv model's choice among the simt launches the probe timed (session 8, issue 15).

    python benchmarks/results/probes/simt/simt_select_offline.py [--with-bk32-table]

Reads simt_probe_h100.log, simt_probe_v2_h100.log and simt_probe_v3_h100.log (H100, cold inputs, medians, every
launch checked against fp64) and keeps the launches of kernels compiled today in the same form (KN layout; the
one-CTA 128x128x16 is the v3 log's s128x128x16_kn_dbl_b1_u16_s3). Per size: the model's predicted time of each
(tile, split) through the committed sm_90 kernel table, the launch it would pick among those measured, and that
launch's time against the best measured one of every kernel in the logs (A/BF), plus Kendall tau. With
--with-bk32-table it also prints the paired BLOCK_K = 32 vs 16 launches (same tile, same split) and their BLOCK_K 32
records (the kernels the family dropped in session 8 are re-predicted from the table of the build that had them:
pass --table to a copy of it).
"""
import argparse
import itertools
import math
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(ROOT / "cpp" / "kernels"))
import families.simt as F  # noqa: E402
from origami_nv import _core  # noqa: E402
from origami_nv._api import _resources_from_dict  # noqa: E402
from origami_nv._kernels import merge_kernel_records  # noqa: E402
from origami_nv.bench.repredict import load_kernel_table  # noqa: E402

HERE = Path(__file__).resolve().parent
LOGS = ["simt_probe_h100.log", "simt_probe_v2_h100.log", "simt_probe_v3_h100.log"]
SIZES = {"8192^3": (8192, 8192, 8192), "4096^3": (4096, 4096, 4096), "3000^3": (3000, 3000, 3000),
         "2048^3": (2048, 2048, 2048), "1024^3": (1024, 1024, 1024), "512^3": (512, 512, 512),
         "128x4096x4096": (128, 4096, 4096), "1x4096x4096": (1, 4096, 4096), "4096x14336x4096": (4096, 14336, 4096)}


def tau(a, b):
    c = d = 0
    for i, j in itertools.combinations(range(len(a)), 2):
        s = (a[i] - a[j]) * (b[i] - b[j])
        c, d = c + (s > 0), d + (s < 0)
    return (c - d) / max(1, c + d)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--table", default=str(ROOT / "reports" / "kernel_resources_sm90.json"))
    ap.add_argument("--with-bk32-table", action="store_true")
    args = ap.parse_args()
    res = {}
    for r in merge_kernel_records(load_kernel_table(args.table), "float32", "sm_90"):
        c = r["config"]
        if r.get("a_k_contiguous") in (None, True):
            res[(c["block_m"], c["block_n"], c["block_k"])] = (c, _resources_from_dict(r))

    def current(name):
        m = re.fullmatch(r"s(\d+)x(\d+)x(\d+)_kn(.*)", name)
        if not m:
            return None
        t, suf = tuple(map(int, m.group(1, 2, 3))), m.group(4)
        if t == (128, 128, 16):
            return t if suf == "_dbl_b1_u16_s3" else None
        return t if suf == "" else None

    meas, every = {}, {}
    for log in LOGS:
        for line in open(HERE / log):
            m = re.match(r"(\S+)\s+(s\S+)\s+sk(\d+)\s+([\d.]+) us", line)
            if not m or m.group(1) not in SIZES:
                continue
            every.setdefault(m.group(1), []).append(float(m.group(4)))
            t = current(m.group(2))
            if t is not None:
                meas.setdefault(m.group(1), {}).setdefault((t, int(m.group(3))), []).append(float(m.group(4)))
    hw = _core.resolve_hardware(None, "H100_SXM", "")
    o = _core.ModelOptions("nv")
    o.split_k = True
    mhz = hw.get("sustained_clock_mhz")

    def pred_us(M, N, K, t, sk):
        c, kr = res[t]
        cfg = _core.TileConfig(t[0], t[1], t[2], group_size_m=8, stages=c["stages"], warps=c["warps"], family="simt")
        cfg = cfg.replace(split_k=sk) if sk > 1 else cfg
        return _core.predict(M, N, K, "float32", cfg, hw, o, kr, layout="nn")["total_cycles"] / mhz

    abf, taus = [], []
    for size, d in meas.items():
        M, N, K = SIZES[size]
        keys = sorted(k for k in d if k[0] in res)
        ms = [min(d[k]) for k in keys]
        ps = [pred_us(M, N, K, *k) for k in keys]
        best = min(every[size])
        pick = min(range(len(keys)), key=lambda i: ps[i])
        abf.append(best / ms[pick])
        taus.append(tau(ms, ps))
        print(f"{size:16s} {len(keys):3d} launches  pick {keys[pick][0]} sk{keys[pick][1]} {ms[pick]:9.1f} us   "
              f"best measured {best:9.1f} us   A/BF {abf[-1]:.3f}   tau {taus[-1]:+.2f}")
    g = math.exp(sum(map(math.log, abf)) / len(abf))
    print(f"A/BF geomean {g:.3f}, min {min(abf):.3f}; mean tau {sum(taus) / len(taus):.3f} ({args.table})")
    if args.with_bk32_table:
        ratios = []
        for size, d in meas.items():
            for (t, sk), v in sorted(d.items()):
                if t[2] == 32 and ((t[0], t[1], 16), sk) in d:
                    r = min(d[((t[0], t[1], 16), sk)]) / min(v)
                    ratios.append(r)
                    print(f"  {size:14s} {t} sk{sk}: BLOCK_K 32 {min(v):.1f} us, 16 {min(d[((t[0], t[1], 16), sk)]):.1f} us, 16/32 {r:.3f}")
        print(f"BLOCK_K 16 / 32 time, geomean {math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f}; "
              f"32 faster in {sum(r > 1 for r in ratios)} of {len(ratios)}")


if __name__ == "__main__":
    main()
