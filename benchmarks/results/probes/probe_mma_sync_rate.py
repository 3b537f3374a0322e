"""Thirty-second session: the calibration's mma.sync throughput microbenchmark (cpp/calibrate/compute_bench.cu) for
fp16 (m16n8k16) and tf32 (m16n8k8), 16 warps x 8 independent chains per SM on every SM, medians of 5 repeats; the
mma_sync_flops_per_cycle and mma_sync_tf32_flops_per_cycle a calibration run would record."""
import statistics
import sys

import torch

from origami_nv import _calibrate

gpu = sys.argv[1] if len(sys.argv) > 1 else "?"
print(gpu, torch.cuda.get_device_name())
for dt in ("float16", "tfloat32"):
    r = _calibrate.mma_sync(dt, 16, 8, 5)
    s = r["samples"]
    print(f"mma.sync {dt}: {statistics.median(s['flops_per_cycle_per_sm']):.1f} flop/cycle/SM "
          f"(samples {', '.join(f'{v:.1f}' for v in s['flops_per_cycle_per_sm'])}), latency "
          f"{statistics.median(s['latency_cycles']):.1f} cycles, clock {statistics.median(s['clock_mhz']):.0f} MHz")
