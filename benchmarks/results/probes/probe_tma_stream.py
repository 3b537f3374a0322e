#!/usr/bin/env python3
"""TMA streaming bandwidth against active SMs (the calibration's tma_stream_vs_sms) beside the load kernel's
(dram_bandwidth_vs_sms), for the ring shapes of the wgmma tiles' B operand at decode.

    CALIB_BUILD_ONLY=1 SHIM=/tmp/shim bash cpp/calibrate/standalone_run.sh
    PYTHONPATH=/tmp/shim python3 benchmarks/results/probes/probe_tma_stream.py --out $OUT/tma_stream.json
Prints one line per (walk, box rows, stage bytes, stages) with the rate at each SM count (TB/s).
"""
import argparse
import json
import statistics
import sys
import time

from origami_nv import _calibrate as ext

ap = argparse.ArgumentParser()
ap.add_argument("--out", required=True)
ap.add_argument("--repeats", type=int, default=3)
ap.add_argument("--bytes", type=int, default=1 << 30)
a = ap.parse_args()

info = ext.device_info()
n_sm = int(info["info"]["sm_count"])
counts = sorted({8, 16, 24, 33, 44, 55, 66, 77, 88, 99, 110, 121, n_sm})
counts = [k for k in counts if k <= n_sm]
# (walk, box_rows, stage_bytes, stages): the B part of a stage of the decode tiles (64 x BN: BN x 128 bytes per
# k-block), at their ring depths and others
configs = [("k_major", 64, 8192, 8), ("k_major", 64, 8192, 4), ("k_major", 64, 8192, 16),
           ("k_major", 128, 16384, 8), ("k_major", 256, 32768, 4), ("k_major", 256, 32768, 2),
           ("k_major", 256, 32768, 6), ("k_major", 64, 32768, 4),
           ("n_major", 64, 8192, 8), ("n_major", 64, 16384, 8), ("n_major", 64, 32768, 4),
           ("n_major", 64, 32768, 6)]
out = {"device": info, "counts": counts, "ldg": None, "tma": []}
t0 = time.time()
r = ext.dram_bandwidth_vs_sms(a.bytes, counts, a.repeats)
ldg = {k: statistics.median(r["samples"][f"bytes_per_s@{k}"]) for k in counts}
out["ldg"] = {"samples": r["samples"], "info": r["info"]}
print("counts          ", " ".join(f"{k:5d}" for k in counts))
print("ldg (1024 thr)  ", " ".join(f"{ldg[k]/1e12:5.2f}" for k in counts), flush=True)
for walk, rows, sb, st in configs:
    try:
        r = ext.tma_stream_vs_sms(a.bytes, counts, sb, st, rows, walk, a.repeats)
    except Exception as e:  # report and go on
        print(walk, rows, sb, st, "FAILED", e, flush=True)
        out["tma"].append({"walk": walk, "box_rows": rows, "stage_bytes": sb, "stages": st, "error": str(e)})
        continue
    med = {k: statistics.median(r["samples"][f"bytes_per_s@{k}"]) for k in counts}
    clk = statistics.median(r["samples"][f"clock_mhz@{counts[-1]}"])
    print(f"{walk[:1]} r{rows:3d} {sb//1024:2d}K s{st:2d} ", " ".join(f"{med[k]/1e12:5.2f}" for k in counts),
          f"| clk {clk:.0f}", flush=True)
    out["tma"].append({"walk": walk, "box_rows": rows, "stage_bytes": sb, "stages": st, "samples": r["samples"],
                       "info": r["info"], "notes": r["notes"]})
out["seconds"] = time.time() - t0
json.dump(out, open(a.out, "w"), indent=1)
print(f"{time.time() - t0:.0f} s", file=sys.stderr)
