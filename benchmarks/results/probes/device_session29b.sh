#!/usr/bin/env bash
# Twenty-ninth session, second device call: build (with the experimental 64x128 / 128x64 / 128x128 multicast twins),
# the small off-line-rows probe in alternating multicast modes, and Nsight Compute on 1000^3 nn (the pick, cuBLAS).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source benchmarks/results/probes/device_lib.sh
device_start
device_ensure_built
P=benchmarks/results/probes/probe_small_odd.py
for v in 1 2 1 2; do ORIGAMI_NV_MULTICAST=$v python3 $P r$v 2>&1 | tee -a "$OUT/small_odd.txt" | cut -c1-260; done
ncu --clock-control none --section SpeedOfLight --section LaunchStats python3 $P ncu once > "$OUT/ncu_small_odd.txt" 2>&1
grep -E "^  [a-zA-Z_]|Duration|Grid Size|Cluster Size|SM Frequency|L2 Cache Throughput|DRAM Throughput|Compute \(SM\)" "$OUT/ncu_small_odd.txt" | head -60
echo "total $(( $(date +%s) - t0 )) s"
