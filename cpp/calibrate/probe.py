"""Runs every microbenchmark of origami_nv._calibrate once, separately, printing raw samples and
errors (a failing benchmark does not stop the others). A debugging aid for a new GPU:
    python3 cpp/calibrate/probe.py [out.json]
"""
import json
import sys
import time
import traceback

from origami_nv import _calibrate as c

dev = c.device_info()
l2 = int(dev["info"]["l2_bytes"])
n_sm = int(dev["info"]["sm_count"])
calls = [
    ("device_info", lambda: dev),
    ("clock", lambda: c.sustained_clock(50.0, 3)),
    ("l2_bw", lambda: c.read_bandwidth(l2 // 4 // 16 * 16, 64, 3)),
    ("dram_bw", lambda: c.read_bandwidth(8 * l2, 2, 3)),
    ("sweep", lambda: c.dram_bandwidth_vs_sms(8 * l2, [1, 2, 4, 8, 16, 32, 64, n_sm], 3)),
    ("lat_l2", lambda: c.pointer_chase(512, l2 // 4 // 512, 8192, False, 3)),
    ("lat_dram", lambda: c.pointer_chase(64 << 10, 8 * l2 // (64 << 10), 2048, True, 3)),
    ("smem", lambda: c.shared_memory([0, 1, 2, 4, 32], 3)),
    ("mma_f16", lambda: c.mma_sync("float16", 16, 8, 3)),
    ("mma_bf16", lambda: c.mma_sync("bfloat16", 16, 8, 3)),
    ("wgmma_64", lambda: c.wgmma("float16", 64, 3)),
    ("wgmma_256", lambda: c.wgmma("float16", 256, 3)),
    ("fp32", lambda: c.fp32_throughput(32, 8, 3)),
    ("fp32_half", lambda: c.fp32_throughput(16, 8, 3)),
]
out = {}
for name, fn in calls:
    t0 = time.perf_counter()
    try:
        r = fn()
        out[name] = r
        s = {k: [round(x, 3) for x in v] for k, v in r["samples"].items()}
        print(f"{name} ({time.perf_counter() - t0:.2f}s): {json.dumps(s)[:900]}", flush=True)
    except Exception as e:  # noqa: BLE001 - report and go on
        out[name] = {"error": repr(e)}
        print(f"{name}: ERROR {e!r}", flush=True)
        traceback.print_exc()
if len(sys.argv) > 1:
    with open(sys.argv[1], "w") as fh:
        json.dump(out, fh, indent=1)
