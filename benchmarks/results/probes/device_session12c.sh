#!/usr/bin/env bash
# One-off device job of 2026-11-26 (twelfth session), issue 12: build, the split-K GPU tests, then re-time the
# launches kernel change 9 (split-K reduced in a cluster) made stale, suite after suite within the deadline
# (bench run --retime-stale, resumed from reports/), the new shards as one tar.
#   bash benchmarks/results/probes/device_session12c.sh GPU_NAME DEADLINE_S SUITE...
set -uo pipefail
source benchmarks/results/probes/device_lib.sh
target=$1; deadline=$2; shift 2
device_prepare "$target"
timeout 120 python3 -m pytest tests/test_split_k_gpu.py -q -p no:cacheprovider -k "not memcheck" > "$OUT/tests.txt" 2>&1
echo "split tests rc=$? $(tail -1 "$OUT/tests.txt")"
for suite in "$@"; do
  left=$(( deadline - ($(date +%s) - t0) - 35 ))
  [ $left -lt 30 ] && break
  echo "== $suite budget $left s"
  python3 -m origami_nv bench run --suite "$suite" --out /tmp/rep --resume-from reports --gpu-name "$target" --no-seed \
    --no-plots --no-report --retime-stale --time-budget "$left" 2>&1 | tail -2
done
device_ship_shards
echo "total $(( $(date +%s) - t0 )) s"
