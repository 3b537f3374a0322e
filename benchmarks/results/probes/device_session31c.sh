#!/usr/bin/env bash
# Thirty-first session: the op's pick against its config launched explicitly (probe_pick_vs_explicit.py), on the full
# build (the product's kernel list), then on the filtered build of device_session31.sh.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source benchmarks/results/probes/device_lib.sh
device_start
device_ensure_built
timeout 200 python3 benchmarks/results/probes/probe_pick_vs_explicit.py "$gpu-full" 2>&1 | tee -a "$OUT/pick_vs_explicit_$gpu.txt" | cut -c1-250
echo "total $(( $(date +%s) - t0 )) s"
