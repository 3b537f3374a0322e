#!/usr/bin/env bash
# Thirty-second session, final check (H100): full build; the TF32 tests with the mma.sync ones merged in, the kernel
# table, the calibration and the op tests (the 16-bit mma.sync kernels share the changed header).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source benchmarks/results/probes/device_lib.sh
device_start
device_ensure_built
timeout 360 python3 -m pytest -q -p no:cacheprovider tests/test_tf32_gpu.py tests/test_kernels_registry.py \
  tests/test_calibrate_gpu.py tests/test_ops_gpu.py 2>&1 | tail -6 | tee "$OUT/tests_final_$gpu.txt"
echo "total $(( $(date +%s) - t0 )) s"
