#!/usr/bin/env bash
# One-off device job (issue 11): build unless the op already loads (a warm machine keeps it), optionally run the
# op-path probe, re-time the launches a kernel change made stale (bench run --retime-stale) for one suite within a
# deadline, and bring the new shards back as one tar (the device tool returns files two folders deep at most).
# Re-running on a warm machine resumes from /tmp/rep.
#   bash benchmarks/results/probes/device_retime.sh GPU_NAME SUITE DEADLINE_S [probe]
# BENCH_FLAGS (default --retime-stale) replaces the re-timing flag; BENCH_FLAGS= times only what the installed
# model adds (new picks, split candidates) to the resumed data.
set -uo pipefail
t0=$(date +%s)
gpu=$1; suite=$2; deadline=$3; probe=${4:-}
export PYTHONUNBUFFERED=1
# The machine must be the GPU whose data is resumed: a warm H100 is kept for a call that names the H200 (27 Nov 2026:
# an H200 re-timing ran on the H100 and was thrown away).
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu:$name" in nvidia-h200:*H200*|nvidia-h100:*H100*) ;; *) echo "asked for $gpu but this is $name: nothing timed"; exit 3;; esac
if ! python3 -c "from origami_nv.ops import load_op; load_op()" >/dev/null 2>&1; then
  bash benchmarks/results/probes/device_build.sh || exit 1
fi
echo "build/check: $(( $(date +%s) - t0 )) s"
if [ -n "$probe" ]; then timeout 200 python3 benchmarks/results/probes/probe_op_path.py 2>&1 | tee "$OUT/probe_op_path.txt"; fi
left=$(( deadline - ($(date +%s) - t0) - 30 ))
echo "bench budget: $left s"
python3 -m origami_nv bench run --suite "$suite" --out /tmp/rep --resume-from reports --gpu-name "$gpu" --no-seed \
  --no-plots --no-report ${BENCH_FLAGS---retime-stale} --time-budget "$left" 2>&1 | tail -4
# A stopped run leaves its shard as plain .jsonl (tens of MB): ship a gzip copy, leave the original for the resume.
rm -rf /tmp/ship && mkdir -p /tmp/ship
for f in /tmp/rep/*/raw/*/*/shard-*.jsonl; do
  [ -e "$f" ] || continue; d=/tmp/ship/${f#/tmp/}; mkdir -p "$(dirname "$d")"; gzip -c "$f" > "$d.gz"; done
for f in /tmp/rep/*/raw/*/*/shard-*.jsonl.gz; do
  [ -e "$f" ] || continue; d=/tmp/ship/${f#/tmp/}; mkdir -p "$(dirname "$d")"; cp "$f" "$d"; done
(cd /tmp/ship && tar cf "$OUT/shards.tar" rep && ls -la "$OUT/shards.tar")
# The tool returns files of at most 16 MiB: split a larger archive (cat shards.tar.part-* > shards.tar here).
if [ "$(stat -c %s "$OUT/shards.tar")" -gt 15000000 ]; then
  split -b 15000000 "$OUT/shards.tar" "$OUT/shards.tar.part-" && rm "$OUT/shards.tar"; fi
du -a /tmp/ship | sort -n | tail -5
