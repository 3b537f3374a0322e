#!/usr/bin/env bash
# Session 8, round 2 of the simt probe (issue 15): build with the v3 kernel and size lists, run perf (from the repo root).
s=benchmarks/results/probes/simt
nvcc -arch=sm_90 -O3 -std=c++17 -I cpp -I cpp/kernels -I $s -DSIMT_KERNELS_INC='"simt_probe_kernels_v3.inc"' \
  -DSIMT_SIZES_INC='"simt_probe_sizes_v3.inc"' $s/simt_probe.cu -o /tmp/simt_probe3 -ldl || exit 1
SIMT_PROBE_BIN=/tmp/simt_probe3 timeout 400 bash $s/run.sh perf > "$OUT/simt_probe_v3.log" 2>&1
grep -E "^RESULT|^kernel" "$OUT/simt_probe_v3.log"; grep -E "^(4096|8192|2048)" "$OUT/simt_probe_v3.log" | cut -c1-90
