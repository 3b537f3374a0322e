#!/usr/bin/env bash
# One-off device job of 2026-11-25 (eighth session): build (the one-CTA simt 128x128x16; the wgmma fix-up reverted),
# the pick against exact cuBLAS SGEMM on the fp32 sets, then the end-to-end Llama benchmark in what is left.
#   bash benchmarks/results/probes/device_session8c.sh
set -uo pipefail
t0=$(date +%s); r=$PWD
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
left() { echo $(( $1 - ($(date +%s) - t0) )); }
bash benchmarks/results/probes/device_build.sh || exit 1
echo "build $(( $(date +%s) - t0 )) s"
l=$(left 400)
timeout "$l" python3 "$r/benchmarks/vs_cublas.py" --sets squares seed --dtypes float32 --out "$OUT/vs_cublas_fp32" \
  > "$OUT/vs_cublas_fp32.log" 2>&1
echo "fp32 rc $?"; grep -E "^\| [a-z-]+ \| [a-z0-9]+ \| [0-9]+ \|" "$OUT/vs_cublas_fp32.md" 2>/dev/null; tail -1 "$OUT/vs_cublas_fp32.log"
l=$(left 590); echo "e2e budget $l s"
[ "$l" -gt 60 ] && timeout "$l" python3 "$r/benchmarks/e2e_llama.py" --presets llama-3.2-1b --batches 1,8 --prefill 512 \
  --modes graph --variants cublas,nn --out "$OUT/e2e" --budget-s $(( l - 15 )) > "$OUT/e2e.log" 2>&1
echo "e2e rc $?"; grep -E "^\| (nn|switch)/" "$OUT/e2e/e2e_llama.md" 2>/dev/null; tail -2 "$OUT/e2e.log"
echo "total $(( $(date +%s) - t0 )) s"
