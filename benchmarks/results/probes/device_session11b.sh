#!/usr/bin/env bash
# One-off device job of 2026-11-26 (eleventh session), second call: the build with TFLOAT32 operand maps (TMA rounds to
# TF32) and the tiled transposing copy; the rounding probe, the GPU tests the change touches, TF32 vs cuBLAS TF32
# (squares nt and nn, the seed sizes nn: the op's copy of B), within one deadline.
#   bash benchmarks/results/probes/device_session11b.sh DEADLINE_S
set -uo pipefail
t0=$(date +%s); deadline=$1
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
bash benchmarks/results/probes/device_build.sh || exit 1
echo "build $(( $(date +%s) - t0 )) s"
python3 benchmarks/results/probes/probe_tf32_rounding.py 2>&1 | tee "$OUT/probe_tf32.txt"
timeout 240 python3 -m pytest tests/test_tf32_gpu.py tests/test_ops_gpu.py tests/test_simt_gpu.py tests/test_dispatch_cpu.py \
  -q -p no:cacheprovider > "$OUT/tests.txt" 2>&1; echo "tests rc=$?"; tail -3 "$OUT/tests.txt"
grep -E "^(FAILED|ERROR)" "$OUT/tests.txt" | head
echo "tests $(( $(date +%s) - t0 )) s"
left=$(( deadline - ($(date +%s) - t0) - 15 ))
[ $left -gt 60 ] && timeout $left python3 benchmarks/vs_cublas.py --sets squares-nt squares seed --dtypes tfloat32 \
  --rounds 2 --out "$OUT/vs_tf32" > "$OUT/vs_tf32.log" 2>&1
grep -E "^square|geomean" "$OUT/vs_tf32.log" | tail -8
echo "total $(( $(date +%s) - t0 )) s"
