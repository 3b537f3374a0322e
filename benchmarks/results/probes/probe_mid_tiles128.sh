#!/usr/bin/env bash
# Issue 13 (point 3), 2026-11-26 thirteenth session: the 128-row wgmma tiles of the widths cuBLAS runs at mid M
# (BN 80..160, study variants of cpp/kernels/families/wgmma.py --variants) against the generated tiles and cuBLAS,
# fp16 nn.Linear layout ("kk"), on the mid-M projections (cold rotated inputs, CUDA events, medians; the dev harness
# cpp/kernels/wgmma/dev/bench_wgmma.cu), after checking the new tiles against cuBLAS.
#   bash benchmarks/results/probes/probe_mid_tiles128.sh   (repo root, GPU machine; writes $OUT/mid_tiles128_*.txt)
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "$name"
gpu=h100; case "$name" in *H200*) gpu=h200;; esac
bash cpp/kernels/wgmma/dev/device_run.sh \
  '^origami_wgmma_(64x(32|48|64|96|128|256)x64_s[4-8]|128x(64|80|96|112|128|144|160|192|256)x64_s[4-8])_w(8|12)_fp16_kk$' \
  2>&1 | grep -E "build:|error" | head -5
B=/tmp/bench_wgmma
timeout 120 $B check '128x(80|96|112|144|160)x64' > "$OUT/mid_tiles128_check_$gpu.txt" 2>&1
echo "check rc=$? pass $(grep -c PASS "$OUT/mid_tiles128_check_$gpu.txt") fail $(grep -c FAIL "$OUT/mid_tiles128_check_$gpu.txt")"
SIZES='128,8192,8192;128,8192,4096;64,4096,4096;128,2048,4096;256,2048,4096;512,2048,4096;256,1024,3584;512,1024,3584;128,3584,3584;256,18944,3584;512,3584,18944;256,9216,3072;512,3072,8192;512,2048,8192;128,14336,4096;256,4096,4096;512,4096,4096;256,14336,4096;512,14336,4096;1024,4096,4096'
timeout 300 $B bench "$SIZES" '_kk$' 12 > "$OUT/mid_tiles128_bench_$gpu.txt" 2>&1
echo "bench rc=$? rows $(grep -c -E '^origami' "$OUT/mid_tiles128_bench_$gpu.txt")"
