#!/usr/bin/env bash
# One-off device job of 2026-11-26 (eighteenth session): build, then a resumed brute force (`bench run`) of one
# suite on whichever Hopper GPU came (its name picks the reports/ folder), new shards as $OUT/shards.tar, and
# optionally benchmarks/vs_cublas.py over some sets after it.
#   bash benchmarks/results/probes/device_session18_bf.sh DEADLINE_S SUITE BF_SECONDS ["VS_SETS" "VS_DTYPES"]
set -uo pipefail
source benchmarks/results/probes/device_lib.sh
deadline=$1; suite=$2; share=$3; vs_sets=${4:-}; vs_dtypes=${5:-float16}
device_start
device_ensure_built
target=nvidia-$gpu
left=$(( deadline - ($(date +%s) - t0) - 45 ))
[ "$share" -lt "$left" ] && left=$share
python3 -m origami_nv bench run --suite "$suite" --out /tmp/rep --resume-from reports --gpu-name "$target" --no-seed \
  --no-plots --no-report --time-budget "$left" 2>&1 | tail -2
echo "$suite done at $(( $(date +%s) - t0 )) s"
device_ship_shards
if [ -n "$vs_sets" ]; then
  left=$(( deadline - ($(date +%s) - t0) - 15 ))
  timeout "$left" python3 benchmarks/vs_cublas.py --sets $vs_sets --dtypes $vs_dtypes --rounds 2 \
    --out "$OUT/vs_${gpu}_$(echo $vs_sets | tr ' ' _)" 2>&1 | grep -v Warning | tail -8
fi
echo "total $(( $(date +%s) - t0 )) s"
