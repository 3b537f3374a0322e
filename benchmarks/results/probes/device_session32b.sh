#!/usr/bin/env bash
# Thirty-second session (issue 15): the mma.sync tf32 kernels on the other GPU: full build, their GPU tests, the
# calibration microbenchmark of the mma.sync fp16 / tf32 rates, probe_mma_sync_tf32.py.
# (The runs filed this session used tests/test_tf32_mma_sync_gpu.py, since merged into tests/test_tf32_gpu.py.)
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source benchmarks/results/probes/device_lib.sh
device_start
device_ensure_built
timeout 200 python3 -m pytest -q -x -p no:cacheprovider tests/test_tf32_gpu.py tests/test_kernels_registry.py \
  2>&1 | tail -4 | tee "$OUT/tests_$gpu.txt"
echo "tests $(( $(date +%s) - t0 )) s"
timeout 120 python3 benchmarks/results/probes/probe_mma_sync_rate.py "$gpu" 2>&1 | tee "$OUT/probe_mma_sync_rate_$gpu.txt"
timeout 200 python3 benchmarks/results/probes/probe_mma_sync_tf32.py "$gpu" 2>&1 | tee "$OUT/probe_mma_sync_tf32_$gpu.txt" | cut -c1-250
echo "total $(( $(date +%s) - t0 )) s"
