#!/usr/bin/env python3
"""Summarise bench_wgmma output: per size and dtype, cuBLAS vs the best wgmma kernel (optionally only
kernels matching a regex), and the geometric mean of best/cuBLAS. Regenerates the tables of NOTES.md:
    python3 cpp/kernels/wgmma/dev/summarise.py cpp/kernels/wgmma/dev/results/call3_v3_bench23.txt [REGEX]
--times: instead, one row per size and dtype with the time (us) of cuBLAS and of every kernel side by side (the
probes' tables, e.g. benchmarks/results/probes/probe_deep_rings.sh):
    python3 cpp/kernels/wgmma/dev/summarise.py --times LOG [REGEX]
"""
import collections
import math
import re
import sys


def main(path: str, pattern: str = ".") -> None:
    cublas, best = {}, collections.defaultdict(dict)
    for line in open(path):
        f = line.split()
        if len(f) < 9 or not f[0].startswith(("cublas", "origami_wgmma", "wgmma")):
            continue
        dt = "bf16" if "bf16" in f[0] else "fp16"
        key = (int(f[1]), int(f[2]), int(f[3]), dt)
        if f[0].startswith("cublas"):
            cublas[key] = float(f[7])
        elif re.search(pattern, f[0]):
            if f[-1] != "ok":
                raise SystemExit(f"{path}: a timed kernel failed its check: {line.strip()}")
            name = f[0].replace("origami_", "") + f" g{f[4]}"
            best[key][name] = float(f[6])
    print("| M | N | K | dtype | cuBLAS TFLOP/s | best wgmma TFLOP/s | ratio | kernel |")
    print("|---:|---:|---:|---|---:|---:|---:|---|")
    ratios = collections.defaultdict(list)
    for key in cublas:
        if not best[key]:
            continue
        name, tf = max(best[key].items(), key=lambda kv: kv[1])
        r = tf / cublas[key]
        ratios[key[3]].append(r)
        print(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {cublas[key]:.1f} | {tf:.1f} | {r:.3f} | {name} |")
    for dt, rs in ratios.items():
        g = math.exp(sum(map(math.log, rs)) / len(rs))
        print(f"\n{dt}: geometric mean of best/cuBLAS over {len(rs)} sizes = {g:.3f} (min {min(rs):.3f})")


def times(path: str, pattern: str = ".") -> None:
    rows = collections.OrderedDict()
    names = []
    for line in open(path):
        f = line.split()
        if len(f) < 9 or not f[0].startswith(("cublas", "origami_wgmma")) or not f[1].isdigit():
            continue
        if not f[0].startswith("cublas") and not re.search(pattern, f[0]):
            continue
        if not f[0].startswith("cublas") and f[-1] != "ok":
            raise SystemExit(f"{path}: a timed kernel failed its check: {line.strip()}")
        dt = "bf16" if "bf16" in f[0] else "fp16"
        name = "cublas" if f[0].startswith("cublas") else re.sub(r"^origami_wgmma_|_(fp16|bf16)", "", f[0])
        if name not in names:
            names.append(name)
        rows.setdefault((int(f[1]), int(f[2]), int(f[3]), dt), {})[name] = float(f[5])
    print("M,N,K,dtype " + " ".join(f"{n:>16s}" for n in names))
    for k, v in rows.items():
        print(f"{k} " + " ".join(f"{v[n]:16.2f}" if n in v else f"{'-':>16s}" for n in names))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--times"]:
        times(*sys.argv[2:])
    else:
        main(*sys.argv[1:])
