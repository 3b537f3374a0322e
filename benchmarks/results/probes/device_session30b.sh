#!/usr/bin/env bash
# Thirtieth session: Nsight Compute of the pick and cuBLAS at small-M projections (probe_small_m_twins.py once).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source benchmarks/results/probes/device_lib.sh
device_start
python3 -c "from origami_nv.ops import load_op; load_op()" 2>/dev/null || device_build_filtered 'origami_wgmma_(64x[0-9]+|128x64|128x112|128x128|128x144|128x256)x64_'
echo "build $(( $(date +%s) - t0 )) s"
ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \
  --metrics dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,lts__t_sectors_srcunit_tex_lookup_hit.sum,sm__cycles_active.avg \
  python3 benchmarks/results/probes/probe_small_m_twins.py ncu once 128,5120,5120 128,2048,3072 > "$OUT/ncu_small_m_$gpu.txt" 2>&1
grep -E "^  [a-zA-Z_]|nvjet|origami|Duration|DRAM Throughput|Memory Throughput|L2 Hit|dram__|lts__|gpu__time|Grid Size|Block Size|Cluster|sm__cycles" "$OUT/ncu_small_m_$gpu.txt" | cut -c1-150 | head -150
echo "total $(( $(date +%s) - t0 )) s"
