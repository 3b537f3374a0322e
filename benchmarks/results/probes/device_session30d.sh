#!/usr/bin/env bash
# Thirtieth session: Nsight Compute at 128x5120x5120 fp16 nt on the H200: the 64x128 tile alone and as its B-sharing
# twin (ORIGAMI_NV_MULTICAST=2), 64x80 (the pick), cuBLAS. Which resource binds: L2 reads, bytes delivered to the SMs,
# DRAM? (NOTES.md, probes not adopted, session 30.)
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source benchmarks/results/probes/device_lib.sh
device_start
F='origami_wgmma_(64x80|64x128)x64_'
device_build_filtered "$F"
M='dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_bytes.sum,l1tex__m_xbar2l1tex_read_bytes.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,sm__cycles_active.avg,lts__t_sector_hit_rate.pct,smsp__cycles_active.avg'
for v in 1 2; do
  ORIGAMI_NV_MULTICAST=$v ONCE_TILES=64x128 ncu --clock-control none -k regex:'origami|nvjet' --metrics "$M" \
    python3 benchmarks/results/probes/probe_small_m_twins.py ncu once 128,5120,5120 > "$OUT/ncu_mc$v.txt" 2>&1
  grep -E "^  [a-z]|dram__|lts__|l1tex__|gpu__time|sm__cycles|smsp__" "$OUT/ncu_mc$v.txt" | sed "s/^/mc$v /" | cut -c1-140
done
echo "total $(( $(date +%s) - t0 )) s"
