#!/bin/bash
# Probe (thirtieth session, issue 13): swapped-operand tiles (C^T = B^T A^T, the problem's M on wgmma's N side) with
# 16..64 rows of M, where cuBLAS runs 32x64-class tiles at M = 128 (probe_cublas_kernels_h100.txt; ncu_small_m_h200.txt:
# 128x2048x3072 nvjet 64x32 16 stages, 128 CTAs), against the built 64- and 128-row tiles and cuBLAS. Dev harness
# (cpp/kernels/wgmma/dev, families/wgmma.py --variants: SWAP_AB_STUDY_TILES), fp16 nt, GROUP_SIZE_M 12, unsplit, cold
# rotating inputs, CUDA events per launch, median; every study kernel checked against cuBLAS first.
#   bash benchmarks/results/probes/probe_swap_small_m.sh
set -o pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
SIZES="128,5120,5120;128,2048,3072;128,8192,3072;128,4608,4096;128,6144,4096;96,3584,3584;64,4096,4096;64,14336,4096;32,5120,5120;32,2048,4096;16,4096,4096;16,14336,4096;128,1024,4096;64,2048,2048"
bash cpp/kernels/wgmma/dev/device_run.sh \
  '^origami_wgmma_(16|32|48|64)x(64|128)x64_s[0-9]+_w(8|12)_fp16_kk_ab$|^origami_wgmma_64x(64|80|128)x64_s8_w8_fp16_kk$|^origami_wgmma_128x64x64_s8_w12_fp16_kk$' \
  '_ab$' "$SIZES" 'fp16_kk(_ab)?$' 12 > "$OUT/probe_swap_small_m.log" 2>&1
echo "rc=$?"
grep -E "build:|check rc|FAIL|check:" "$OUT/probe_swap_small_m.log" | head
python3 cpp/kernels/wgmma/dev/summarise.py --times "$OUT/probe_swap_small_m.log"   # time (us) per size: cuBLAS, each kernel
