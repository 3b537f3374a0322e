#!/bin/bash
# Call 6: the 2-CTA cluster kernel after dropping .release.cluster from the remote arrive (v5):
# correctness (check), timing vs cuBLAS and the 1-CTA kernel, sustained clocks, warp stalls.
set -o pipefail
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
bash cpp/kernels/wgmma/dev/device_run.sh "${1:-128x(256|192)x64_s._w12}" 2>&1 | tail -2
B=/tmp/bench_wgmma
timeout 120 $B check '_c2$' > $OUT/check_c2.txt 2>&1; echo "check c2 rc=$? $(grep -c PASS $OUT/check_c2.txt) pass $(grep -c FAIL $OUT/check_c2.txt) fail"
grep FAIL $OUT/check_c2.txt | head -5
timeout 120 $B bench '4096,4096,4096;8192,8192,8192' '_kk(_c2)?$' 8 | tee $OUT/bench.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader -lms 200 > $OUT/smi.csv &
SMI=$!
timeout 90 $B soak 8192,8192,8192 '128x256.*_kk(_c2)?$' 3 | tee $OUT/soak.txt
kill $SMI
timeout 120 ncu --clock-control none -k "regex:origami_wgmma_128x256x64_s4_w12_fp16_kk_c2" -s 2 -c 1 --section WarpStateStats \
  --section SpeedOfLight $B bench 4096,4096,4096 '128x256x64_s4_w12_fp16_kk_c2' 8 > "$OUT/ncu6.txt" 2>&1
grep -E "Stall (Membar|Barrier|Long|Wait)|Warp Cycles Per Issued|Duration|SM Frequency" "$OUT/ncu6.txt" | head
