#!/bin/bash
# Call 5: where do the 2-CTA cluster kernel's warps stall? Nsight Compute warp-state sampling by source
# line for the 128x256 fp16 kk kernel with and without clusters at 4096^3.
set -o pipefail
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
bash cpp/kernels/wgmma/dev/device_run.sh '128x256x64_s4_w12_fp16_kk' 2>&1 | tail -2
B=/tmp/bench_wgmma
n=0
for k in "origami_wgmma_128x256x64_s4_w12_fp16_kk$" "origami_wgmma_128x256x64_s4_w12_fp16_kk_c2"; do
  n=$((n + 1))
  timeout 120 ncu --clock-control none -k "regex:$k" -s 2 -c 1 --section WarpStateStats --section SourceCounters \
    --section SpeedOfLight --print-details all $B bench 4096,4096,4096 '128x256x64_s4_w12_fp16_kk' 8 > "$OUT/ncu5_$n.txt" 2>&1
  echo "ncu $k rc=$?"
  grep -E "Stall|stall|Warp Cycles|Duration|SM Frequency|Compute \(SM\)" "$OUT/ncu5_$n.txt" | head -40
done
