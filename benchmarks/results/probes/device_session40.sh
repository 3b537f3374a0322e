#!/usr/bin/env bash
# Fortieth session (H200), issue 13's mid-M gap: why a 2-CTA cluster that multicasts A (the `_n2` study variants,
# cpp/kernels/families/wgmma.py SHARE_A_STUDY_TILES) is slower than the 1-CTA kernel where cuBLAS's 1x2 cluster of the
# same 128x64 tile is the fastest launch (128 x 8192 x 8192 fp16: nvjet_sm90_hsh_128x64_64x8_1x2, probe_cublas_kernels_h200.txt).
# The dev harness (cpp/kernels/wgmma/dev) builds the 128x64 and 64x128 fp16 K-major kernels with their study variants,
# times them beside cuBLAS at four mid-M sizes, then Nsight Compute reads one launch of each (cuBLAS, 1-CTA, n2):
# throughput, memory traffic and the warp stall breakdown. One call, ~30 s:
#   bash benchmarks/results/probes/device_session40.sh
# With `counters`: instead of the timings and sections, the L2 sectors read per source (hits, misses), DRAM and
# crossbar bytes of the same three launches at 128x8192x8192 and of cuBLAS / 64x128 at 512x4096x4096:
#   bash benchmarks/results/probes/device_session40.sh counters
# With `counters2`: the same L2 counters for 64x128 and its B-sharing twin (64x128_c2) at 128x8192x8192.
# With `resident`: the timings (64x64 too, with its 2- and 4-CTA share-A variants) at five mid-M sizes whose W fits L2.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
GEN=/tmp/wg; rm -rf $GEN
FILTER='(128x64x64_s8_w12|64x128x64_s8_w8)_fp16_kk(_n2|_c2)?$'
[ "${1:-}" = resident ] && FILTER='(128x64x64_s8_w12|64x128x64_s8_w8|64x64x64_s8_w8)_fp16_kk(_n2|_n4|_c2)?$'
python3 cpp/kernels/families/wgmma.py --emit-dev $GEN --variants \
  --filter "$FILTER" || exit 1
ls $GEN/*.cu | wc -l
FLAGS="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I$GEN -I$PWD/cpp/kernels"
t0=$(date +%s)
ls $GEN/*.cu | xargs -P 16 -I{} sh -c "nvcc $FLAGS -c {} -o {}.o > {}.log 2>&1 || { cat {}.log; exit 1; }" || exit 1
nvcc $FLAGS -c cpp/kernels/wgmma/dev/bench_wgmma.cu -o $GEN/bench.o || exit 1
nvcc $FLAGS $GEN/*.o -lcublas -o /tmp/bench_wgmma || exit 1
echo "build $(( $(date +%s) - t0 )) s"
if [ "${1:-}" = resident ]; then
  # Mid-M launches whose W stays in L2 (N x K 2-20 MB): the per-SM TMA stage, not DRAM, bounds the small tiles there
  # (the model's TMA stage floor), the case where sharing a box across a cluster cuts what each SM's TMA issues.
  timeout 200 /tmp/bench_wgmma bench "256,2048,3072;256,2048,5120;256,1024,4096;512,1024,4096;320,1280,5120" \
    "fp16_kk" 12 2>&1 | tee "$OUT/bench_resident.txt" | cut -c1-120
  exit 0
fi
# ncu_runs METRICS "M,N,K KERNEL_REGEX"...: one launch of each under Nsight Compute (nvjet = cuBLAS's, timed beside
# 64x128), the metrics' lines printed per run.
ncu_runs() {
  local met=$1 run; shift
  for run in "$@"; do
    set -- $run
    timeout 60 ncu --clock-control none -k "regex:$2" --launch-skip 2 --launch-count 1 --metrics "$met" \
      /tmp/bench_wgmma bench "$1" "$([ "$2" = nvjet ] && echo 64x128x64_s8_w8_fp16_kk$ || echo "$2")" 12 > "$OUT/ncu.txt" 2>&1
    echo "== $1 $2"; grep -E "^ +(gpu__|sm__|dram__|lts__|l1tex__)" "$OUT/ncu.txt" | sed 's/  */ /g'
  done
}
if [ "${1:-}" = counters2 ]; then
  ncu_runs gpu__time_duration.sum,dram__bytes_read.sum,l1tex__m_xbar2l1tex_read_bytes.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum \
    "128,8192,8192 64x128x64_s8_w8_fp16_kk" "128,8192,8192 64x128x64_s8_w8_fp16_kk_c2"
  exit 0
fi
if [ "${1:-}" = counters ]; then
  MET=gpu__time_duration.sum,sm__cycles_active.avg,dram__bytes_read.sum,lts__t_bytes.sum,l1tex__m_xbar2l1tex_read_bytes.sum
  MET=$MET,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum
  MET=$MET,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,lts__t_requests_srcunit_tex_op_read.sum
  ncu_runs "$MET" "128,8192,8192 nvjet" "128,8192,8192 128x64x64_s8_w12_fp16_kk" \
    "128,8192,8192 128x64x64_s8_w12_fp16_kk_n2" "512,4096,4096 nvjet" "512,4096,4096 64x128x64_s8_w8_fp16_kk"
  exit 0
fi
SIZES="128,8192,8192;128,8192,4096;256,4096,4096;512,4096,4096"
timeout 200 /tmp/bench_wgmma bench "$SIZES" "fp16_kk" 12 2>&1 | tee "$OUT/bench.txt" | grep -v "^ *$" | cut -c1-120
S=128,8192,8192
SEC="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats"
for k in nvjet 128x64x64_s8_w12_fp16_kk 128x64x64_s8_w12_fp16_kk_n2; do
  timeout 90 ncu --clock-control none -k "regex:$k" --launch-skip 2 --launch-count 1 $SEC \
    /tmp/bench_wgmma bench "$S" "128x64x64_s8_w12_fp16_kk" 12 > "$OUT/ncu_$k.txt" 2>&1
  echo "== $k"; grep -E "Duration|Throughput|Busy|Stall|Warp Cycles|Issued|Eligible|Active Warps|Hit Rate|Bandwidth" \
    "$OUT/ncu_$k.txt" | head -40
done
