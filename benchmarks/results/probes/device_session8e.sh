#!/usr/bin/env bash
# One-off device job of 2026-11-25 (eighth session): build with the split-K reduction kernel triggering the next
# launch right after its wait; the split-K GPU tests; where a split launch's time goes (probe_split_cost.py, to
# compare with probe_split_cost_h100.txt); the pick against cuBLAS on mid and long K. Deadline-guarded.
#   bash benchmarks/results/probes/device_session8e.sh
set -uo pipefail
t0=$(date +%s); r=$PWD
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
bash benchmarks/results/probes/device_build.sh || exit 1
echo "build $(( $(date +%s) - t0 )) s"
timeout 25 python3 "$r/benchmarks/results/probes/probe_split_cost.py" 2>&1 | grep -v -i warn > "$OUT/split_cost.txt"
grep -E "cublas|sk" "$OUT/split_cost.txt" | cut -c1-60
l=$(( 300 - ($(date +%s) - t0) )); [ $l -gt 10 ] && timeout $l python3 "$r/benchmarks/vs_cublas.py" --sets mid longk --dtypes float16 --rounds 1 --out "$OUT/vs_mid" > "$OUT/vs_mid.log" 2>&1
grep -E "^\| (mid|longk) \| float16 \| [0-9]+ \|" "$OUT/vs_mid.md" 2>/dev/null
l=$(( 330 - ($(date +%s) - t0) )); [ $l -gt 10 ] && (cd /tmp && timeout $l python3 -m pytest "$r/tests/test_split_k_gpu.py" -q -p no:cacheprovider -x -k "not memcheck" 2>&1 | tail -1)
echo "total $(( $(date +%s) - t0 )) s"
