#!/usr/bin/env bash
# Forty-seventh session (H100), issue 13's mid-M gap (M = 256-528 projections, best compiled kernel 0.86-0.95 of
# cuBLAS on the H100 gen-mid sets): what cuBLAS's launch does that ours does not, read by Nsight Compute, and whether
# one consumer warpgroup over 128 rows (two m64 slabs per k-step: the study tiles 128x64 .. 128x160 w8,
# cpp/kernels/families/wgmma.py STUDY_TILES) is the difference. One call, dev harness only (no package build):
#   bash benchmarks/results/probes/device_session47.sh          # timings, then ncu of cuBLAS and ours
#   bash benchmarks/results/probes/device_session47.sh tf32     # + cuBLAS's TF32 kernel names, a @ b vs x @ w.t()
# Writes $OUT/bench.txt (two rounds, harness medians: cold rotating inputs, events, every launch checked),
# $OUT/ncu_*.txt (one launch each: SpeedOfLight, LaunchStats, Occupancy, ComputeWorkloadAnalysis,
# MemoryWorkloadAnalysis, WarpStateStats, SchedulerStats) and $OUT/cublas_tf32.txt.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
if [ "${1:-}" = tf32 ]; then
  timeout 120 python3 benchmarks/results/probes/probe_cublas_kernels.py "$OUT/cublas_tf32.txt" \
    4096x4096x4096:nt:tf32 4096x4096x4096:nn:tf32 8192x8192x8192:nt:tf32 8192x8192x8192:nn:tf32 \
    4096x4096x4096:nn:fp32 8192x8192x8192:nn:fp32
  cat "$OUT/cublas_tf32.txt"
fi
GEN=/tmp/wg; rm -rf $GEN
FILTER='^origami_wgmma_(128x(64|80|96|112|128|144|160)x64_s[0-9]+_w(8|12)|64x(48|64|96|112|128|144|160)x64_s[0-9]+_w8)_fp16_kk$'
python3 cpp/kernels/families/wgmma.py --emit-dev $GEN --variants --filter "$FILTER" || exit 1
ls $GEN/*.cu | wc -l
FLAGS="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I$GEN -I$PWD/cpp/kernels"
t0=$(date +%s)
ls $GEN/*.cu | xargs -P 16 -I{} sh -c "nvcc $FLAGS -c {} -o {}.o > {}.log 2>&1 || { cat {}.log; exit 1; }" || exit 1
nvcc $FLAGS -c cpp/kernels/wgmma/dev/bench_wgmma.cu -o $GEN/bench.o || exit 1
nvcc $FLAGS $GEN/*.o -lcublas -o /tmp/bench_wgmma || exit 1
echo "build $(( $(date +%s) - t0 )) s"
/tmp/bench_wgmma info | grep -E "128x(96|128)x64_s[0-9]+_w8" | head -4
# The H100 gen-mid / mix sizes where the best compiled kernel trails cuBLAS most, and one large size (the w8 tiles'
# compute-bound rate).
SIZES="512,3072,3072;256,4608,4096;256,4096,4096;512,4096,4096;384,3584,3584;256,3072,8192;512,2048,8192"
SIZES="$SIZES;256,2048,4096;384,3584,14336;528,13952,5504;256,5120,5120;512,5120,5120;4096,4096,4096"
for round in 1 2; do
  timeout 240 /tmp/bench_wgmma bench "$SIZES" "fp16_kk" 12 2>&1 | grep -v "^kernel"
done > "$OUT/bench.txt"
grep -c ok "$OUT/bench.txt"; grep -c WRONG "$OUT/bench.txt"
SEC="--section SpeedOfLight --section LaunchStats --section Occupancy --section ComputeWorkloadAnalysis"
SEC="$SEC --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats"
# ncu_one SIZE KERNEL_REGEX TAG: one launch (the third of its kind) of KERNEL under Nsight Compute; "nvjet" profiles
# cuBLAS's launch, with one of ours (128x96 w12) the only other kernel run.
ncu_one() {
  local run=$3
  timeout 90 ncu --clock-control none -k "regex:$2" --launch-skip 2 --launch-count 1 $SEC \
    /tmp/bench_wgmma bench "$1" "$([ "$2" = nvjet ] && echo 128x96x64_s7_w12_fp16_kk$ || echo "$2")" 12 \
    > "$OUT/ncu_$run.txt" 2>&1
  echo "== $run"; grep -E "Duration|SM Frequency|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|DRAM Throughput|Block Size|Cluster Size|Registers Per|Shared Memory Config|Dynamic Shared|Grid Size|Issued Ipc|Executed Ipc|No Eligible|Warp Cycles Per Issued|L2 Hit Rate|Mem Busy|Max Bandwidth" \
    "$OUT/ncu_$run.txt" | sed 's/  */ /g' | head -40
}
ncu_one 512,3072,3072 nvjet 512_cublas
ncu_one 512,3072,3072 '128x96x64_s7_w12_fp16_kk$' 512_128x96w12
ncu_one 512,3072,3072 '128x96x64_s7_w8_fp16_kk$' 512_128x96w8
ncu_one 256,4608,4096 nvjet 256_cublas
ncu_one 256,4608,4096 '128x96x64_s7_w12_fp16_kk$' 256_128x96w12
(cd "$OUT" && tar czf ncu.tgz ncu_*.txt && rm -f ncu_*.txt)
