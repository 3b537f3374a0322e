#!/usr/bin/env bash
# Thirty-third session (H200): full build with the 64 x 64 transposing copy (cpp/kernels/row_copy.cu); the op and
# TF32 GPU tests (every transposing copy path: TF32 a @ b above kSwappedTf32MaxM, column-major sources, batches,
# edges, sanitizer); then TF32 against cuBLAS TF32 on the squares (a @ b: B copied; x @ w.t(): read in place) and
# the seed sizes, the twentieth session's command (vs_cublas_tf32_h200_session20.md is the before).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source benchmarks/results/probes/device_lib.sh
device_start
device_require nvidia-h200
device_ensure_built
timeout 300 python3 -m pytest -q -p no:cacheprovider -x tests/test_tf32_gpu.py tests/test_ops_gpu.py 2>&1 | tail -4 \
  | tee "$OUT/tests_$gpu.txt"
echo "tests done $(( $(date +%s) - t0 )) s"
timeout 200 python3 benchmarks/vs_cublas.py --sets squares squares-nt seed --dtypes tfloat32 --rounds 2 \
  --out "$OUT/vs_cublas_tf32_${gpu}_session33" 2>&1 | tail -3
head -12 "$OUT/vs_cublas_tf32_${gpu}_session33.md"
echo "total $(( $(date +%s) - t0 )) s"
