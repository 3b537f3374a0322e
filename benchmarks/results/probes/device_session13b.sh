#!/usr/bin/env bash
# One-off device job of 2026-11-26 (thirteenth session), issue 14: build, the small-lm decode GEMMs vs cuBLAS, then
# the end-to-end Llama benchmark (as the README's table ran it) into $OUT/e2e_llama_<gpu>.
#   bash benchmarks/results/probes/device_session13b.sh BUDGET_S
set -uo pipefail
source benchmarks/results/probes/device_lib.sh
device_start
device_ensure_built
python3 benchmarks/vs_cublas.py --sets small-lm --dtypes float16 bfloat16 --rounds 2 \
  --out "$OUT/vs_cublas_small_lm_$gpu" > "$OUT/vs_cublas_small_lm_$gpu.log" 2>&1
grep -E "shapes  geomean" "$OUT/vs_cublas_small_lm_$gpu.log"
python3 benchmarks/e2e_llama.py --presets llama-3.2-1b --batches 1,8 --prefill 512,2048 --modes eager,graph \
  --variants cublas,switch,nn --out "$OUT/e2e_llama_$gpu" --budget-s "$1" > "$OUT/e2e.log" 2>&1
echo "e2e rc=$? $(( $(date +%s) - t0 )) s"; tail -3 "$OUT/e2e.log"
grep -E "^\| [a-z]+/(eager|graph)" "$OUT"/e2e_llama_$gpu*.md 2>/dev/null | head
# The H100 row's TF32 tensor rate (issue 15): the quick calibration, every key into $OUT (only the TF32 one is taken).
timeout 240 python3 -m origami_nv calibrate --quick --out "$OUT/calibration_quick_$gpu.json" > "$OUT/calibration_quick_$gpu.txt" 2>&1
echo "calibrate rc=$? $(( $(date +%s) - t0 )) s"; grep -i tf32 "$OUT/calibration_quick_$gpu.txt" | tail -2
