#!/usr/bin/env bash
# Fortieth session (H200): wgmma groups in flight per consumer warpgroup. Every kernel keeps one k-block's group in
# flight (wgmma.wait_group 1, then the previous stage is released); at mid M with W in L2 the small tiles run one
# k-block per ~410 cycles against ~130 of tensor work (benchmarks/results/probes/probe_share_a_ncu_h200.txt). Two dev
# harness binaries, ORIGAMI_WGMMA_GROUPS_IN_FLIGHT=1 (as built) and 2, the same tiles, alternated twice; the harness
# check of the 2-group binary (every layout, edges, batches). One call, ~1 min:
#   bash benchmarks/results/probes/device_session40_groups.sh
# (needs cpp/kernels/wgmma/gemm_wgmma.cuh of commit cd701c9, where both defines exist; the kernel keeps neither)
# The same for two k-blocks per stage hand-off (the ring's slots in pairs, one barrier wait and release per pair):
#   bash benchmarks/results/probes/device_session40_groups.sh ORIGAMI_WGMMA_KBLOCKS_PER_STAGE
set -uo pipefail
DEF=${1:-ORIGAMI_WGMMA_GROUPS_IN_FLIGHT}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
GEN=/tmp/wgg; rm -rf $GEN
python3 cpp/kernels/families/wgmma.py --emit-dev $GEN \
  --filter '(64x64x64_s8_w8|64x80x64_s8_w8|64x128x64_s8_w8|128x64x64_s8_w12|128x128x64_s6_w12|128x256x64_s4_w12)_fp16_(kk|kn)$' \
  || exit 1
t0=$(date +%s)
for g in 1 2; do
  FLAGS="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I$GEN -I$PWD/cpp/kernels -D$DEF=$g"
  mkdir -p $GEN/o$g
  ls $GEN/*.cu | xargs -P 16 -I{} sh -c "nvcc $FLAGS -c {} -o $GEN/o$g/\$(basename {}).o || exit 1" || exit 1
  nvcc $FLAGS -c cpp/kernels/wgmma/dev/bench_wgmma.cu -o $GEN/o$g/bench.o || exit 1
  nvcc $FLAGS $GEN/o$g/*.o -lcublas -o /tmp/bench_g$g || exit 1
done
echo "build $(( $(date +%s) - t0 )) s"
timeout 100 /tmp/bench_g2 check "_fp16_k" > "$OUT/check_${DEF}_2.txt" 2>&1; echo "check g2 rc=$?"
grep -E "FAIL|check:" "$OUT/check_${DEF}_2.txt" | head -10
SIZES="256,2048,3072;256,2048,5120;512,1024,4096;320,1280,5120;512,4096,4096;16,8192,4096;1,4096,4096;4096,4096,4096;8192,8192,256"
for r in 1 2; do
  for g in 1 2; do
    timeout 120 /tmp/bench_g$g bench "$SIZES" "fp16_kk" 12 2>&1 | grep -v "^kernel" | sed "s/^/r$r g$g /" | tee -a "$OUT/bench_${DEF}.txt" | cut -c1-110
  done
done
