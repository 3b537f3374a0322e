#!/usr/bin/env bash
# One-off device job of 2026-11-25 (ninth session): build with the operand-copy rule shared by the op and the
# model (a transposing copy counts 3x) and select_config's alignment flags; the op tests of them; the pick vs
# cuBLAS on the odd set. Deadline-guarded.
#   bash benchmarks/results/probes/device_session9d.sh DEADLINE_S
set -uo pipefail
t0=$(date +%s); deadline=$1; r=$PWD
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
bash benchmarks/results/probes/device_build.sh || exit 1
echo "build $(( $(date +%s) - t0 )) s"
l=$(( deadline - ($(date +%s) - t0) - 40 )); [ $l -gt 10 ] && (cd /tmp && timeout $l python3 -m pytest "$r/tests/test_ops_gpu.py" "$r/tests/test_ops_cpu.py" -q -p no:cacheprovider -k "select_config or schema" 2>&1 | tail -2)
l=$(( deadline - ($(date +%s) - t0) )); [ $l -gt 10 ] && timeout $l python3 benchmarks/vs_cublas.py --sets odd --rounds 1 --out "$OUT/vs_odd" > "$OUT/vs_odd.log" 2>&1
grep -E "^\| odd \| " "$OUT/vs_odd.md" 2>/dev/null | cut -c1-200
echo "total $(( $(date +%s) - t0 )) s"
