#!/usr/bin/env bash
# One-off device job of 2026-11-27 (twentieth session): device_session14.sh's items (suites, tests:S, pytest-FILE:S)
# plus vs-tf32:S (benchmarks/vs_cublas.py, TF32 squares nn / nt and the seed sizes nn: the swapped kernels, issue 15),
# vs-tf32-swap:S (the same nn sets with ORIGAMI_NV_SWAPPED_TF32_MAX_M lifted: the swapped kernels at every M)
# and vs-unseen:S (the unseen set, fp16 and bf16); the build's kernel table is copied to $OUT first.
#   bash benchmarks/results/probes/device_session20.sh GPU_NAME DEADLINE_S ITEM...
set -uo pipefail
source benchmarks/results/probes/device_lib.sh
target=$1; deadline=$2; shift 2
device_prepare "$target"
cp "$(cd /tmp && python3 -c 'import origami_nv._kernels as k; print(k._DATA)')" "$OUT/kernel_resources_$gpu.json"
rest=()
for item in "$@"; do
  IFS=: read -r what share _ <<< "$item"
  left=$(( deadline - ($(date +%s) - t0) - 45 ))
  [ "$left" -gt 20 ] || { echo "$what: no time left"; continue; }
  [ "${share:-0}" -gt 0 ] && [ "$share" -lt "$left" ] && left=$share
  case "$what" in
    vs-tf32) timeout "$left" python3 benchmarks/vs_cublas.py --sets squares squares-nt seed --dtypes tfloat32 \
               --rounds 2 --out "$OUT/vs_cublas_tf32_$gpu" 2>&1 | tail -3; echo "vs-tf32 rc=$?";;
    vs-tf32-swap) ORIGAMI_NV_SWAPPED_TF32_MAX_M=1000000 timeout "$left" python3 benchmarks/vs_cublas.py --sets squares seed \
               --dtypes tfloat32 --rounds 2 --out "$OUT/vs_cublas_tf32_swapped_all_$gpu" 2>&1 | tail -3
               echo "vs-tf32-swap rc=$?";;  # the swapped kernels at every M (the op's diagnostic bound)
    vs-unseen) timeout "$left" python3 benchmarks/vs_cublas.py --sets unseen --dtypes float16 bfloat16 \
               --rounds 2 --out "$OUT/vs_cublas_unseen_$gpu" 2>&1 | tail -3; echo "vs-unseen rc=$?";;
    *) rest+=("$item");;
  esac
done
# the rest through device_session14.sh's loop (the package is built; its deadline counts from now)
[ "${#rest[@]}" -gt 0 ] && bash benchmarks/results/probes/device_session14.sh "$target" \
  $(( deadline - ($(date +%s) - t0) )) "${rest[@]}"
echo "session20 total $(( $(date +%s) - t0 )) s"
