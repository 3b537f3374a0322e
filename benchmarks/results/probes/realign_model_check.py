#!/usr/bin/env python3
"""Offline check (no GPU) of the model's terms for the realigning kernels against a probe_realign.py result:
  1. log(measured / predicted) over every realigning launch the probe timed, and over the same configs through the
     copy path (ORIGAMI_NV_REALIGN=0), and their per-launch difference (does the model rank the two paths right?);
  2. the installed model's pick at each probe shape, with the kernel table's realign_layouts, beside what was measured.
    python benchmarks/results/probes/realign_model_check.py benchmarks/results/probes/probe_realign_h100.json H100_SXM \
        [NAME=VALUE,...]   (NvModelConstants overrides, e.g. realign_load_factor=1)
"""
import json
import math
import sys
from pathlib import Path

from origami_nv import _core
from origami_nv._kernels import merge_kernel_records
from origami_nv.bench.repredict import load_kernel_table

ROOT = Path(__file__).resolve().parents[3]


def main():
    probe = json.load(open(sys.argv[1]))
    row = sys.argv[2]
    consts = {k: float(v) for k, _, v in (x.partition("=") for x in (sys.argv[3] if len(sys.argv) > 3 else "").split(",") if x)}
    hw = _core.resolve_hardware(None, row, "")
    recs = merge_kernel_records(load_kernel_table(str(ROOT / "reports" / "kernel_resources_sm90.json")), "float16", "sm_90")

    def kr(r, realign_layouts):
        c = r["config"]
        tc = _core.TileConfig(c["block_m"], c["block_n"], c["block_k"], group_size_m=1, stages=c["stages"],
                              warps=c["warps"], family=c["family"])
        return _core.KernelResources(tc, dtype="float16", threads=r["threads"], registers_per_thread=r["registers_per_thread"],
                                     spill_store_bytes=r["spill_store_bytes"], spill_load_bytes=r["spill_load_bytes"],
                                     local_bytes=r["local_bytes"], smem_bytes=r["smem_bytes"], arch="sm_90", source="",
                                     layouts=r["layouts"], realign_layouts=realign_layouts)
    by_cfg = {(r["config"]["block_m"], r["config"]["block_n"], r["config"]["block_k"], r["config"]["stages"],
               r["config"]["warps"], r["config"]["family"]): r for r in recs}
    o = _core.ModelOptions("nv")
    nv = o.nv
    for k, v in consts.items():
        setattr(nv, k, v)
    o.nv = nv
    clock = hw.get("sustained_clock_mhz") * 1e6
    e_ra, e_cp = [], []
    for r in probe["realign"]:
        M, N, K = r["shape"]
        args = dict(layout=r["layout"], a_aligned="A" not in r["misaligned"], b_aligned="B" not in r["misaligned"])
        for launch in r["launches"]:
            if launch["path"] != "realign":
                continue
            parts = launch["config"].split()
            bm, bn, bk = map(int, parts[0].split("x"))
            key = (bm, bn, bk, int(parts[1][1:]), int(parts[2][1:]), "mma_sync")
            if key not in by_cfg:
                continue
            sk = int(parts[3][2:]) if len(parts) > 3 else 1
            tc = _core.TileConfig(bm, bn, bk, group_size_m=12, stages=key[3], warps=key[4], family="mma_sync", split_k=sk)
            pr = _core.predict(M, N, K, "float16", tc, hw, o, kr(by_cfg[key], by_cfg[key]["realign_layouts"]), **args)
            pc = _core.predict(M, N, K, "float16", tc, hw, o, kr(by_cfg[key], 0), **args)
            e_ra.append(math.log(launch["seconds"] / (pr["total_cycles"] / clock)))
            e_cp.append(math.log(launch["copy_path_seconds"] / (pc["total_cycles"] / clock)))

    def s(v):
        m = sum(v) / len(v)
        return f"mean {m:+.3f} sd {math.sqrt(sum((x - m) ** 2 for x in v) / len(v)):.3f} (n {len(v)})"
    print(f"log(measured / predicted): realigning launches {s(e_ra)}; the same configs via the copy path {s(e_cp)};"
          f" realign minus copy per launch {s([a - b for a, b in zip(e_ra, e_cp)])}")
    sel = _core.Selector(hw, [kr(r, r["realign_layouts"]) for r in recs], o)
    for r in probe["realign"]:
        M, N, K = r["shape"]
        mis = r["misaligned"]
        c, cyc = sel.rank(M, N, K, "float16", layout=r["layout"], a_aligned="A" not in mis, b_aligned="B" not in mis)[0]
        key = f"{c.block_m}x{c.block_n}x{c.block_k} s{c.stages} w{c.warps}" + (f" sk{c.split_k}" if c.split_k > 1 else "")
        m = {x["config"]: x for x in r["launches"]}.get(key)
        meas = m["seconds"] if m and m["path"] == "realign" else float("nan")
        best_ra = min((x["seconds"] for x in r["launches"] if x["path"] == "realign"), default=float("nan"))
        cp = [x for x in probe["copy_path"] if x["shape"] == r["shape"] and x["layout"] == r["layout"]]
        print(f"{M}x{N}x{K} {r['layout']} misaligned {mis or '-':2s}: pick {str(c.family).split('.')[-1]} {key} predicted"
              f" {cyc / clock * 1e6:.1f} us, measured {meas * 1e6:.1f} (realigning launch; nan: not one) | best realigning"
              f" launch {best_ra * 1e6:.1f} | copy-path pick {cp[0]['pick_s'] * 1e6 if cp else float('nan'):.1f} |"
              f" cuBLAS {r['cublas_s'] * 1e6:.1f}")


if __name__ == "__main__":
    main()
