#!/usr/bin/env bash
# Issue 13 (point 3), twenty-second session: the 192x192 wgmma tile (two consumer warpgroups splitting BLOCK_N, cuBLAS's
# "192x192 coopB" nvjet tile at these shapes: probe_cublas_kernels_weak_h100.txt) against the generated 128-row tiles
# and cuBLAS, fp16 and bf16, A K-major and M-major, B K-major (the dev harness cpp/kernels/wgmma/dev/bench_wgmma.cu:
# correctness against cuBLAS at edge sizes and batches, then cold rotated inputs, CUDA events, medians).
#   bash benchmarks/results/probes/probe_tile192.sh   (repo root, GPU machine; writes $OUT/tile192_*.txt)
# FILTER (kernels built), CHECK (kernels checked), BENCH_RE (kernels timed) and SIZES override the defaults: e.g. the
# 2-CTA cluster twins (_c2, B multicast) at rows off 128-byte lines (twenty-third session):
#   FILTER='^origami_wgmma_(192x192|128x192)x64_s[4-8]_w12_fp16_kk(_c2)?$' CHECK=_c2 BENCH_RE='fp16_kk(_c2)?$' ...
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source benchmarks/results/probes/device_lib.sh
device_start  # $name, $gpu (h100 / h200)
bash cpp/kernels/wgmma/dev/device_run.sh \
  "${FILTER:-^origami_wgmma_(192x192|128x192|128x256|256x128|128x128|128x144|128x96)x64_s[4-8]_w12_(fp16|bf16)_(kk|mk)$}" \
  2>&1 | grep -E "build:|error" | head -5
B=/tmp/bench_wgmma
timeout 120 $B check "${CHECK:-192x192}" > "$OUT/tile192_check_$gpu.txt" 2>&1
echo "check rc=$? pass $(grep -c PASS "$OUT/tile192_check_$gpu.txt") fail $(grep -c FAIL "$OUT/tile192_check_$gpu.txt")"
grep FAIL "$OUT/tile192_check_$gpu.txt" | head
SIZES=${SIZES:-'6304,768,3072;6304,768,768;6304,2304,768;6304,3072,768;3000,3000,3000;1200,4000,3000;577,4096,1024;4096,4096,4096;8192,8192,8192;1024,5120,5120;2048,5120,5120;159,19008,9792;16384,16384,256;2048,2048,2048;3072,3072,3072'}
timeout ${BENCH_S:-300} $B bench "$SIZES" "${BENCH_RE:-fp16_kk\$}" 8 > "$OUT/tile192_bench_$gpu.txt" 2>&1
echo "bench rc=$?"
grep -E "^(cublas|origami)" "$OUT/tile192_bench_$gpu.txt" | cut -c1-130
