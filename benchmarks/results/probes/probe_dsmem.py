"""Distributed-shared-memory read rate (origami_nv._calibrate.dsmem_read) against the model's fitted constant.

The wgmma kernels' cluster split-K reduction reads the fp32 partial tiles over DSMEM. When this probe first ran
(fifty-fourth session, probe_dsmem_h100.txt) the model priced the peers' share of a tile at a rate fitted on stored GEMM
times (NvModelConstants::cluster_dsmem_bytes_per_cycle = 9.5, fifty-third session); its figures replaced that constant
by the GPU table's dsmem_bytes_per_cycle and dsmem_latency_cycles (benchmarks/results/model_dsmem_calibrated.md). It
measures the rate with the reduction's pattern at the cluster sizes the kernels use (2-4) and the thread counts of their
consumer warpgroups (1-3 x 128), plus a 64-row tile.

    python benchmarks/results/probes/probe_dsmem.py
"""
import statistics

from origami_nv import _calibrate as ext, _core

info = ext.device_info()
hw = _core.resolve_hardware(None, "", "")
print(info["notes"]["name"], "| GPU table row", hw.name, ": dsmem_bytes_per_cycle", hw.get("dsmem_bytes_per_cycle"),
      "dsmem_latency_cycles", hw.get("dsmem_latency_cycles"))
print("| cluster | tile | threads | every load B/cycle/SM | peers' share B/cycle/SM | clusters resident | SM MHz |")
print("|---:|---|---:|---:|---:|---:|---:|")
for cluster in (2, 3, 4):
    for rows, threads in ((128, 256), (128, 128), (128, 384), (64, 256)):
        r = ext.dsmem_read(cluster, rows, 128, threads, 64, 5)
        s = r["samples"]
        print(f"| {cluster} | {rows}x128 | {threads} | {statistics.median(s['bytes_per_cycle_per_sm']):.2f} | "
              f"{statistics.median(s['remote_bytes_per_cycle_per_sm']):.2f} | {int(r['info']['clusters'])} | "
              f"{statistics.median(s['clock_mhz']):.0f} |")
