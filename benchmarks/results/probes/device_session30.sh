#!/usr/bin/env bash
# Thirtieth session: B-sharing twins at small M (probe_small_m_twins.py), filtered build of the tiles it times.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source benchmarks/results/probes/device_lib.sh
device_start
F='origami_wgmma_(64x[0-9]+|128x64|128x112|128x128|128x144|128x256)x64_'
device_build_filtered "$F"
for v in 1 2 1 2; do ORIGAMI_NV_MULTICAST=$v python3 benchmarks/results/probes/probe_small_m_twins.py "$gpu-r$v" 2>&1 | tee -a "$OUT/small_m_twins_$gpu.txt" | cut -c1-250; done
echo "total $(( $(date +%s) - t0 )) s"
