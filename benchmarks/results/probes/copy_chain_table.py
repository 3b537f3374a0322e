#!/usr/bin/env python3
"""The table of benchmarks/results/copy_chain_h100.md (fifty-seventh session) from its raw vs_cublas.py runs.

The runs (device_session.sh, one process each, in this order): `vs:cpoff1:misaligned,odd:float16:2:ORIGAMI_NV_COPY_PDL=0`,
`vs:cpon1:misaligned,odd:float16:2`, `vs:cpoff2:...:ORIGAMI_NV_COPY_PDL=0` (a fourth, cpon2, did not come back). The "on"
arm chained every operand copy (the build before the op's 16 GFLOP bound, kCopyChainMaxFlop); "off" chained none, the
copies as before. Each ratio is cuBLAS / ours in the same process; the gain is on / the geometric mean of the two off
runs. Which set a shape belongs to (gen-train fits the bound; the rest judge it) is read from the suites.
    python benchmarks/results/probes/copy_chain_table.py
"""
import json
import lzma
import math
from pathlib import Path

from origami_nv.bench.suites import SUITES

HERE = Path(__file__).resolve().parents[1] / "copy_chain_h100"
BOUND = 16e9  # cpp/ops/ops_cuda.cpp kCopyChainMaxFlop


def rows(name):
    with lzma.open(HERE / f"{name}_h100.json.xz", "rt") as f:
        return {(r["M"], r["N"], r["K"], r["layout"], r["dtype"]): r for r in json.load(f)["rows"]}


def main():
    off1, on, off2 = rows("cpoff1"), rows("cpon1"), rows("cpoff2")
    train = {(s.M, s.N, s.K, s.layout) for s in SUITES["gen-train"].sizes}
    valid = {(s.M, s.N, s.K, s.layout) for s in SUITES["gen-valid"].sizes}
    out = []
    for k, r in on.items():
        M, N, K, lay, dt = k
        off = math.sqrt(off1[k]["ratio"] * off2[k]["ratio"])
        gflop = 2 * r.get("batch", 1) * M * N * K / 1e9
        suite = "gen-train" if k[:4] in train else "gen-valid" if k[:4] in valid else "odd"
        out.append((gflop, suite, k, off1[k]["origami_us"], off2[k]["origami_us"], r["origami_us"], r["cublas_us"],
                    off, r["ratio"], r["ratio"] / off))
    print("| GFLOP | set | M x N x K layout dtype | off us (two runs) | on us | cuBLAS us | ours / cuBLAS off | on | gain |")
    print("|---:|---|---|---:|---:|---:|---:|---:|---:|")
    for g, s, k, a, b, c, cu, off, onr, gain in sorted(out):
        mark = "" if g <= BOUND / 1e9 else " (above the bound: not chained now)"
        print(f"| {g:.1f} | {s}{mark} | {k[0]}x{k[1]}x{k[2]} {k[3]} {k[4]} | {a:.1f} / {b:.1f} | {c:.1f} | {cu:.1f} | "
              f"{off:.3f} | {onr:.3f} | {gain:.3f} |")
    for label, sel in (("gen-train, <= bound", lambda g, s: s == "gen-train" and g <= 16),
                       ("gen-train, > bound", lambda g, s: s == "gen-train" and g > 16),
                       ("gen-valid and odd, <= bound", lambda g, s: s != "gen-train" and g <= 16),
                       ("gen-valid and odd, > bound", lambda g, s: s != "gen-train" and g > 16)):
        gains = [x[-1] for x in out if sel(x[0], x[1])]
        if gains:
            print(f"\n{label}: {len(gains)} shapes, gain geomean {math.exp(sum(map(math.log, gains)) / len(gains)):.3f}, "
                  f"min {min(gains):.3f}, max {max(gains):.3f}", end="")
    print()


if __name__ == "__main__":
    main()
