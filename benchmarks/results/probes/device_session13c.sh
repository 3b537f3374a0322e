#!/usr/bin/env bash
# One-off device job of 2026-11-26 (thirteenth session), issue 13: the 128x96/112/144 wgmma tiles. Build, the build's
# kernel table into $OUT, the wgmma/tf32/split GPU tests (every tile, harness check vs cuBLAS, memcheck), the pick vs
# cuBLAS on every vs_cublas set, then time the new kernels in the gen-valid brute force (bench run resumes from
# reports/ and times only what no record has: runner._untimed_kernels) within DEADLINE_S, the new shards as one tar.
#   bash benchmarks/results/probes/device_session13c.sh GPU_NAME DEADLINE_S
set -uo pipefail
source benchmarks/results/probes/device_lib.sh
target=$1; deadline=$2
device_start
device_require "$target"
short=$gpu
device_ensure_built
cp "$(python3 -c 'import origami_nv._kernels as k; print(k._DATA)')" "$OUT/kernel_resources_$short.json"
echo "build/check $(( $(date +%s) - t0 )) s"
timeout 240 python3 -m pytest tests/test_wgmma_gpu.py tests/test_tf32_gpu.py tests/test_split_k_gpu.py -q -p no:cacheprovider \
  -k "not racecheck and not synccheck and not cluster_reduction_compute and not split_compute and not memcheck_tf32" \
  > "$OUT/tests_$short.txt" 2>&1
echo "tests rc=$? $(tail -1 "$OUT/tests_$short.txt") $(( $(date +%s) - t0 )) s"
python3 benchmarks/vs_cublas.py --sets decode mid longk seed shortk odd batched squares small-lm --dtypes float16 bfloat16 \
  --rounds 2 --out "$OUT/vs_cublas_${short}_tiles128" > "$OUT/vs_cublas_${short}_tiles128.log" 2>&1
echo "vs_cublas rc=$? $(( $(date +%s) - t0 )) s"
grep -E "shapes  geomean" "$OUT/vs_cublas_${short}_tiles128.log"
left=$(( deadline - ($(date +%s) - t0) - 30 ))
if [ $left -gt 30 ]; then
  python3 -m origami_nv bench run --suite gen-valid --out /tmp/rep --resume-from reports --gpu-name "$target" --no-seed \
    --no-plots --no-report --time-budget "$left" 2>&1 | tail -2
fi
device_ship_shards
echo "total $(( $(date +%s) - t0 )) s"
