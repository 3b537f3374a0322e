#!/usr/bin/env bash
# One-off device job of 2026-11-25 (ninth session), issue 15: fp32 through the op after the simt BLOCK_K 32 drop
# (vs_cublas squares + seed, float32), the simt GPU tests, then the seed-fp32 brute force (every compiled simt
# kernel, bench run) within the deadline, shards shipped (device_retime.sh).
#   bash benchmarks/results/probes/device_session9c.sh DEADLINE_S
set -uo pipefail
t0=$(date +%s); deadline=$1; r=$PWD
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "$name"
gpu=nvidia-h100; case "$name" in *H200*) gpu=nvidia-h200;; esac
bash benchmarks/results/probes/device_build.sh || exit 1
echo "build $(( $(date +%s) - t0 )) s"
timeout 150 python3 benchmarks/vs_cublas.py --sets squares seed --dtypes float32 --rounds 2 --out "$OUT/vs_fp32" > "$OUT/vs_fp32.log" 2>&1
grep -E "^\| (squares|seed) \| float32 \| [0-9]+ \|" "$OUT/vs_fp32.md"
(cd /tmp && timeout 90 python3 -m pytest "$r/tests/test_simt_gpu.py" -q -p no:cacheprovider 2>&1 | tail -2)
echo "tests $(( $(date +%s) - t0 )) s"
left=$(( deadline - ($(date +%s) - t0) ))
[ $left -gt 60 ] && BENCH_FLAGS= bash benchmarks/results/probes/device_retime.sh "$gpu" seed-fp32 "$left" | tail -3
echo "total $(( $(date +%s) - t0 )) s"
