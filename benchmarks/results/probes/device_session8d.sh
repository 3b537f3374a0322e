#!/usr/bin/env bash
# One-off device job of 2026-11-25 (eighth session): build without simt 128x128x32, the pick against exact cuBLAS
# SGEMM on the fp32 sets (the model now chooses among the one-CTA 128x128x16 and the smaller tiles).
#   bash benchmarks/results/probes/device_session8d.sh
set -uo pipefail
t0=$(date +%s); r=$PWD
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
bash benchmarks/results/probes/device_build.sh || exit 1
echo "build $(( $(date +%s) - t0 )) s"
cd /tmp && timeout 60 python3 -m pytest "$r/tests/test_simt_gpu.py" -q -p no:cacheprovider -rfE -x 2>&1 | tail -1
l=$(( 480 - ($(date +%s) - t0) ))
timeout "$l" python3 "$r/benchmarks/vs_cublas.py" --sets squares seed --dtypes float32 --out "$OUT/vs_cublas_fp32" \
  > "$OUT/vs_cublas_fp32.log" 2>&1
echo "fp32 rc $?"; grep -E "^\| (squares|seed) \|" "$OUT/vs_cublas_fp32.md" 2>/dev/null | cut -c1-150
echo "total $(( $(date +%s) - t0 )) s"
