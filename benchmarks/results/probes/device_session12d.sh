#!/usr/bin/env bash
# One-off device job of 2026-11-26 (twelfth session), issue 14: build, then the end-to-end Llama benchmark (as the
# README's table ran it) into $OUT/e2e_llama_<gpu>.
#   bash benchmarks/results/probes/device_session12d.sh BUDGET_S
set -uo pipefail
source benchmarks/results/probes/device_lib.sh
device_start
device_ensure_built
python3 benchmarks/e2e_llama.py --presets llama-3.2-1b --batches 1,8 --prefill 512,2048 --modes eager,graph \
  --variants cublas,switch,nn --out "$OUT/e2e_llama_$gpu" --budget-s "$1" > "$OUT/e2e.log" 2>&1
echo "e2e rc=$? $(( $(date +%s) - t0 )) s"; tail -3 "$OUT/e2e.log"
