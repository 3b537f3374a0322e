#!/usr/bin/env bash
# Thirty-second session: the H200 run after the H100's: full build, the calibration microbenchmark of the mma.sync
# fp16 / tf32 rates (probe_mma_sync_rate.py), the calibration GPU tests (quick calibration twice: every key, the
# new mma_sync_tf32_flops_per_cycle among them, within its bounds) and the mma.sync tf32 GPU tests.
# (The runs filed this session used tests/test_tf32_mma_sync_gpu.py, since merged into tests/test_tf32_gpu.py.)
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source benchmarks/results/probes/device_lib.sh
device_start
device_ensure_built
timeout 120 python3 benchmarks/results/probes/probe_mma_sync_rate.py "$gpu" 2>&1 | tee "$OUT/probe_mma_sync_rate_$gpu.txt"
timeout 330 python3 -m pytest -q -p no:cacheprovider tests/test_calibrate_gpu.py tests/test_tf32_gpu.py \
  2>&1 | tail -6 | tee "$OUT/tests_calibrate_$gpu.txt"
echo "total $(( $(date +%s) - t0 )) s"
