#!/usr/bin/env bash
# One-off device job of 2026-11-26 (twelfth session), issue 12: build, the split-K GPU tests, then re-time the
# launches kernel change 9 (split-K reduced in a cluster) made stale, suite after suite within the deadline
# (bench run --retime-stale, resumed from reports/), the new shards as one tar.
#   bash benchmarks/results/probes/device_session12c.sh GPU_NAME DEADLINE_S SUITE...
set -uo pipefail
t0=$(date +%s); gpu=$1; deadline=$2; shift 2
export PYTHONUNBUFFERED=1
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "$name"
# The device may lend the other Hopper GPU than the one asked for: never file one GPU's timings under the other's name.
case "$name" in *H200*) have=nvidia-h200;; *H100*) have=nvidia-h100;; *) have=unknown;; esac
[ "$have" = "$gpu" ] || { echo "asked to time $gpu but this is $name: nothing timed"; exit 3; }
if ! python3 -c "from origami_nv.ops import load_op; load_op()" >/dev/null 2>&1; then
  bash benchmarks/results/probes/device_build.sh || exit 1
fi
echo "build/check $(( $(date +%s) - t0 )) s"
timeout 120 python3 -m pytest tests/test_split_k_gpu.py -q -p no:cacheprovider -k "not memcheck" > "$OUT/tests.txt" 2>&1
echo "split tests rc=$? $(tail -1 "$OUT/tests.txt")"
for suite in "$@"; do
  left=$(( deadline - ($(date +%s) - t0) - 35 ))
  [ $left -lt 30 ] && break
  echo "== $suite budget $left s"
  python3 -m origami_nv bench run --suite "$suite" --out /tmp/rep --resume-from reports --gpu-name "$gpu" --no-seed \
    --no-plots --no-report --retime-stale --time-budget "$left" 2>&1 | tail -2
done
rm -rf /tmp/ship && mkdir -p /tmp/ship
for f in /tmp/rep/*/raw/*/*/shard-*.jsonl; do
  [ -e "$f" ] || continue; d=/tmp/ship/${f#/tmp/}; mkdir -p "$(dirname "$d")"; gzip -c "$f" > "$d.gz"; done
for f in /tmp/rep/*/raw/*/*/shard-*.jsonl.gz; do
  [ -e "$f" ] || continue; d=/tmp/ship/${f#/tmp/}; mkdir -p "$(dirname "$d")"; cp "$f" "$d"; done
(cd /tmp/ship && tar cf "$OUT/shards.tar" rep && ls -la "$OUT/shards.tar")
echo "total $(( $(date +%s) - t0 )) s"
