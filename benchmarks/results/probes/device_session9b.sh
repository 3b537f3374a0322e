#!/usr/bin/env bash
# One-off device job of 2026-11-25 (ninth session): time the kernels the build added (wgmma 64x{48..160}) at every
# size of the H100 reports (bench run --resume-from reports: a size is done only when every compiled kernel was
# timed), suite by suite within one deadline, and ship the shards (device_retime.sh).
#   bash benchmarks/results/probes/device_session9b.sh DEADLINE_S SUITE...
set -uo pipefail
t0=$(date +%s); deadline=$1; shift
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "$name"
gpu=nvidia-h100; case "$name" in *H200*) gpu=nvidia-h200;; esac
for s in "$@"; do
  left=$(( deadline - ($(date +%s) - t0) ))
  [ $left -gt 60 ] || break
  echo "== $s ($left s left)"
  BENCH_FLAGS= bash benchmarks/results/probes/device_retime.sh "$gpu" "$s" "$left" | grep -v "^[0-9]* */tmp" | tail -4
done
echo "total $(( $(date +%s) - t0 )) s"
