#!/usr/bin/env bash
# Thirty-ninth session: the TMA streaming microbenchmark (calibration module only, no package build).
#   bash benchmarks/results/probes/device_session39.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
CALIB_BUILD_ONLY=1 SHIM=/tmp/shim BUILD=/tmp/cb bash cpp/calibrate/standalone_run.sh 2>&1 | tail -3
PYTHONPATH=/tmp/shim timeout 300 python3 benchmarks/results/probes/probe_tma_stream.py --out "$OUT/tma_stream.json" 2>&1 | tee "$OUT/tma_stream.txt"
