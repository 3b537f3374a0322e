#!/usr/bin/env bash
# One-off device job of 2026-11-25 (seventh session; issue 11): on an H200, build and re-time the gen-valid launches
# that kernel change 7 (and earlier ones) made stale, plus the noisy records; on an H100, build, re-time the noisy
# records of the re-timed H100 sets, run the harness's GPU tests, and time the pick against cuBLAS on the decode
# sets. Every part is deadline-guarded (the device tool's 600 s per command).
#   bash benchmarks/results/probes/device_session7.sh
set -uo pipefail
t0=$(date +%s); r=$PWD
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "$gpu"
left() { echo $(( $1 - ($(date +%s) - t0) )); }
if echo "$gpu" | grep -q H200; then
  BENCH_FLAGS="--retime-stale --retime-noisy" bash benchmarks/results/probes/device_retime.sh nvidia-h200 gen-valid 560
  exit 0
fi
bash benchmarks/results/probes/device_build.sh || exit 1
echo "build $(( $(date +%s) - t0 )) s"
for s in small-lm gen-valid; do
  BENCH_FLAGS="--retime-noisy" bash benchmarks/results/probes/device_retime.sh nvidia-h100 $s 75 2>&1 | grep -E "shard" | tail -1
done
mv "$OUT/shards.tar" "$OUT/shards_noisy.tar" 2>/dev/null
echo "tests at $(( $(date +%s) - t0 )) s"
cd /tmp && timeout 130 python3 -m pytest "$r/tests/test_bench_gpu.py" -q -p no:cacheprovider -rfE > "$OUT/tests_bench.log" 2>&1
echo "bench tests rc $?"; tail -2 "$OUT/tests_bench.log"
l=$(left 560); echo "vs-cublas budget $l s"
timeout "$l" python3 "$r/benchmarks/vs_cublas.py" --sets small-lm decode --dtypes bfloat16 --out "$OUT/vs_cublas" \
  > "$OUT/vs_cublas.log" 2>&1
echo "vs-cublas rc $?"; grep -E "shapes  geomean|^\| (small-lm|decode) \| bfloat16 \| [0-9]+ \|" "$OUT/vs_cublas.md" 2>/dev/null; tail -3 "$OUT/vs_cublas.log"
echo "total $(( $(date +%s) - t0 )) s"
