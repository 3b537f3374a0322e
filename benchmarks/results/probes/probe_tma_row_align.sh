#!/bin/bash
# One-off device probe (issue 13, odd sizes): operands whose rows are 16-byte but not 128-byte aligned (ld = 3000,
# 1000 elements) run the wgmma kernels 36-47 % slower than 128-byte aligned rows (split_k_probes_h100.md). Does the
# TMA map's L2 promotion (the kernels use 256 B) change that? The dev harness built four times, each with a copy
# of the kernel header whose promotion is NONE / 64B / 128B / 256B (the product header is not touched).
#   bash benchmarks/results/probes/probe_tma_row_align.sh   (repo root, on the GPU machine)
set -o pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
GEN=/tmp/wg; rm -rf $GEN
python3 cpp/kernels/families/wgmma.py --emit-dev $GEN --filter "${FILTER:-(128x256x64_s4_w12|128x128x64_s6_w12|64x128x64_s8_w8)_fp16_kk}" || exit 1
SIZES=${SIZES:-"3000,3000,3000;3008,3008,3008;1000,1000,1000;1024,1024,1024;4000,4000,4000;8192,1000,4096;8192,1024,4096"}
for promo in NONE L2_64B L2_128B L2_256B; do
  C=/tmp/cpp_$promo; rm -rf $C; cp -r cpp $C; K=$C/kernels
  sed -i "s/CU_TENSOR_MAP_L2_PROMOTION_L2_256B/CU_TENSOR_MAP_L2_PROMOTION_$promo/" $K/wgmma/gemm_wgmma.cuh
  B=/tmp/b_$promo; rm -rf $B; mkdir -p $B; cp $GEN/* $B/
  FLAGS="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I$B -I$K"
  ls $B/*.cu | xargs -P 16 -I{} sh -c "nvcc $FLAGS -c {} -o {}.o || exit 1" || exit 1
  nvcc $FLAGS -c $K/wgmma/dev/bench_wgmma.cu -o $B/bench.o && nvcc $FLAGS $B/*.o -lcublas -o /tmp/bench_$promo || exit 1
done
for round in 1 2; do
  for promo in NONE L2_64B L2_128B L2_256B; do
    echo "== promotion $promo (round $round)"
    timeout 100 /tmp/bench_$promo bench "$SIZES" "_fp16_kk" 8 2>&1 | grep -v "^kernel"
  done
done | tee $OUT/probe_tma_row_align.txt
