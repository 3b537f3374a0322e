#!/usr/bin/env bash
# One-off device job of 2026-11-25 (tenth session), issue 15: build with the fitted simt terms, time the picks the new
# model makes that the brute force never ran (bench run --resume-from reports with BENCH_FLAGS=, device_retime.sh)
# on gen-fp32-valid, seed-fp32 and gen-fp32-train, then fp32 through the op against cuBLAS (vs_cublas squares +
# seed), all within one deadline; shards shipped as shards.tar.
#   bash benchmarks/results/probes/device_session10.sh DEADLINE_S
set -uo pipefail
t0=$(date +%s); deadline=$1
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "$name"
gpu=nvidia-h100; case "$name" in *H200*) gpu=nvidia-h200;; esac
bash benchmarks/results/probes/device_build.sh || exit 1
echo "build $(( $(date +%s) - t0 )) s"
for s in gen-fp32-valid seed-fp32 gen-fp32-train; do
  left=$(( deadline - ($(date +%s) - t0) - 170 ))
  [ $left -gt 40 ] || break
  echo "== $s ($left s)"
  BENCH_FLAGS= bash benchmarks/results/probes/device_retime.sh "$gpu" "$s" "$left" | grep -E "^(bench|sizes|done|[0-9]+ sizes)|complete|budget" | tail -3
done
left=$(( deadline - ($(date +%s) - t0) - 10 ))
[ $left -gt 30 ] && timeout $left python3 benchmarks/vs_cublas.py --sets squares seed --dtypes float32 --rounds 2 \
  --out "$OUT/vs_fp32" > "$OUT/vs_fp32.log" 2>&1
grep -E "^\| (squares|seed) \| float32 \| [0-9]+ \|" "$OUT/vs_fp32.md"
echo "total $(( $(date +%s) - t0 )) s"
