#!/usr/bin/env bash
# One-off device job of 2026-11-26 (eighteenth session): build, then benchmarks/vs_cublas.py over the given sets
# (any Hopper GPU that comes; the output names it), results under $OUT/vs_<gpu>_<tag>.{json,md}.
#   bash benchmarks/results/probes/device_session18.sh DEADLINE_S TAG "SETS" "DTYPES" [ROUNDS]
set -uo pipefail
source benchmarks/results/probes/device_lib.sh
deadline=$1; tag=$2; sets=$3; dtypes=$4; rounds=${5:-2}
device_start
device_ensure_built
left=$(( deadline - ($(date +%s) - t0) - 20 ))
timeout "$left" python3 benchmarks/vs_cublas.py --sets $sets --dtypes $dtypes --rounds "$rounds" \
  --out "$OUT/vs_${gpu}_${tag}" 2>&1 | grep -v Warning
echo "total $(( $(date +%s) - t0 )) s"
