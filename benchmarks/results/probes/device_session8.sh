#!/usr/bin/env bash
# One-off device job of 2026-11-25 (eighth session). On an H200: build and re-time the stale gen-valid launches.
# On an H100: build the package in the background; meanwhile the simt probe's session-8 variants (register budget,
# CTAs per SM, BLOCK_K, warp grids of the 8x8 thread tiles) against cuBLAS SGEMM and an ncu profile of three of them;
# then where a split-K launch's time goes (probe_split_cost.py). Deadline-guarded (600 s per command).
#   bash benchmarks/results/probes/device_session8.sh
set -uo pipefail
t0=$(date +%s); r=$PWD
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "$gpu"
left() { echo $(( $1 - ($(date +%s) - t0) )); }
if echo "$gpu" | grep -q H200; then
  BENCH_FLAGS="--retime-stale --retime-noisy" bash benchmarks/results/probes/device_retime.sh nvidia-h200 gen-valid 560
  exit 0
fi
( bash benchmarks/results/probes/device_build.sh 12; echo "build rc $? at $(( $(date +%s) - t0 )) s" ) &
bp=$!
s=benchmarks/results/probes/simt
nvcc -arch=sm_90 -O3 -std=c++17 -I cpp -I cpp/kernels -I $s -DSIMT_KERNELS_INC='"simt_probe_kernels_v2.inc"' \
  -DSIMT_SIZES_INC='"simt_probe_sizes_v2.inc"' $s/simt_probe.cu -o /tmp/simt_probe2 -ldl || exit 1
echo "probe built at $(( $(date +%s) - t0 )) s"
SIMT_PROBE_BIN=/tmp/simt_probe2 timeout 200 bash $s/run.sh perf > "$OUT/simt_probe_v2.log" 2>&1
grep -E "^RESULT|^kernel|^4096\^3 " "$OUT/simt_probe_v2.log"
echo "probe done at $(( $(date +%s) - t0 )) s"
for k in s128x128x16_kn s128x128x16_kn_dbl_b1 s64x128x16_kn; do
  timeout 60 ncu --kernel-name "$k" --launch-skip 1 --launch-count 1 --section SpeedOfLight --section SchedulerStats \
    --section WarpStateStats --section ComputeWorkloadAnalysis --section InstructionStats --section LaunchStats \
    --section Occupancy --section MemoryWorkloadAnalysis_Tables /tmp/simt_probe2 one $k 4096 4096 4096 > "$OUT/ncu_$k.txt" 2>&1
  echo "ncu $k rc $?"
done
wait $bp
l=$(left 570); echo "split probe budget $l s"
cd /tmp && timeout "$l" python3 "$r/benchmarks/results/probes/probe_split_cost.py" > "$OUT/split_cost.txt" 2>&1; echo "split rc $?"
cat "$OUT/split_cost.txt" | cut -c1-400
echo "total $(( $(date +%s) - t0 )) s"
