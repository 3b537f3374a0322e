#!/usr/bin/env bash
# Issue 13 (point 3), 2026-11-26 thirteenth session: do 2-CTA clusters multicasting B (the `_c2` study kernels,
# cpp/kernels/wgmma/NOTES.md v3/v5) pay at mid M (32..512), where every cuBLAS kernel is a cluster kernel
# (probe_cublas_kernels_h*.txt)? Builds the dev harness for the fp16 nn.Linear-layout ("kk") tiles, 1 and 2 CTAs per
# cluster, checks the cluster kernels against cuBLAS, then times both against cuBLAS (cold rotated inputs, CUDA
# events, medians; cpp/kernels/wgmma/dev/bench_wgmma.cu) on the mid-M projections.
#   bash benchmarks/results/probes/probe_mid_clusters.sh   (repo root, GPU machine; writes $OUT/mid_clusters_*.txt)
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "$name"
gpu=h100; case "$name" in *H200*) gpu=h200;; esac
bash cpp/kernels/wgmma/dev/device_run.sh \
  '^origami_wgmma_(64x(48|64|96|128|256)|128x(64|128|192|256))x64_s[4-8]_w(8|12)_fp16_kk(_c2)?$' 2>&1 | grep -E "build:|error" | head -5
B=/tmp/bench_wgmma
/tmp/bench_wgmma info | grep _c2 > "$OUT/mid_clusters_info_$gpu.txt"
timeout 120 $B check '_c2$' > "$OUT/mid_clusters_check_$gpu.txt" 2>&1
echo "check c2 rc=$? pass $(grep -c PASS "$OUT/mid_clusters_check_$gpu.txt") fail $(grep -c FAIL "$OUT/mid_clusters_check_$gpu.txt")"
SIZES='128,8192,8192;128,8192,4096;64,4096,4096;128,2048,4096;256,2048,4096;512,2048,4096;256,1024,3584;512,1024,3584;128,3584,3584;256,18944,3584;512,3584,18944;256,9216,3072;512,3072,8192;128,14336,4096;256,4096,4096;512,4096,4096'
timeout 300 $B bench "$SIZES" '_kk(_c2)?$' 12 > "$OUT/mid_clusters_bench_$gpu.txt" 2>&1
echo "bench rc=$? rows $(grep -c -E '^origami' "$OUT/mid_clusters_bench_$gpu.txt")"
