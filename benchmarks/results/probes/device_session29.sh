#!/usr/bin/env bash
# Twenty-ninth session, one device call: build, the crossed split / consumer probe (cluster split on and off), and
# Nsight Compute's speed-of-light section for the two launches of the first case.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source benchmarks/results/probes/device_lib.sh
device_start
device_ensure_built
P=benchmarks/results/probes/probe_split_consumers.py
python3 $P --rounds 2 --out "$OUT/split_consumers.jsonl" > "$OUT/split_consumers.txt" 2>&1; tail -45 "$OUT/split_consumers.txt"
ORIGAMI_NV_CLUSTER_SPLIT=0 python3 $P --rounds 2 --out "$OUT/split_consumers_nocluster.jsonl" > "$OUT/split_consumers_nocluster.txt" 2>&1
echo "--- cluster split off"; grep -E "^[0-9]|sk" "$OUT/split_consumers_nocluster.txt" | head -40
for L in "128x128 s6 w12 sk6" "64x128 s8 w8 sk3"; do
  ncu --clock-control none --section SpeedOfLight --section LaunchStats --section MemoryWorkloadAnalysis -k regex:origami \
    python3 $P --once 0 "$L" > "$OUT/ncu_$(echo $L | tr ' ' '_').txt" 2>&1
done
grep -hE "origami|Duration|Throughput|Grid Size|Cluster|Hit Rate|DRAM|SM Frequency" "$OUT"/ncu_*.txt | head -80
echo "total $(( $(date +%s) - t0 )) s"
