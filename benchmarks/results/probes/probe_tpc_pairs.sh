#!/usr/bin/env bash
# Forty-third session: DRAM streaming by TMA against the number and the placement of busy SMs (probe_tpc_pairs.cu);
# no package build. bash benchmarks/results/probes/probe_tpc_pairs.sh  (~1 min on the device)
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
nvcc -O3 -arch=sm_90a -o /tmp/probe_tpc_pairs benchmarks/results/probes/probe_tpc_pairs.cu 2>&1 | grep -v -i deprecat | grep -i error
specs="g33 g56 g64 g66 g67 g74 g80 g93 g100 g112 g120 g132 e33 p33 o33 e66 p66 o66 e74 p74 e100 p100"
for cfg in "256 128 4 7168" "256 128 4 32768" "64 128 8 32768" "128 128 6 32768"; do
  echo "== rows piece stages pitch: $cfg"; /tmp/probe_tpc_pairs $cfg $specs
done 2>&1 | tee "$OUT/probe_tpc_pairs.txt"
