#!/usr/bin/env bash
# One-off device job of 2026-11-26 (eleventh session), issue 15 TF32: build with the wgmma tf32 kernels, the rounding
# probe (tensor-map type FLOAT32 and TFLOAT32), the TF32 GPU tests, TF32 vs cuBLAS TF32 at 4096^3 / 8192^3 (nt read in
# place, nn with the op's copy of B), then the seed-tf32 brute force in what is left of the deadline (shards.tar).
#   bash benchmarks/results/probes/device_session11.sh DEADLINE_S
set -uo pipefail
t0=$(date +%s); deadline=$1
export PYTHONUNBUFFERED=1
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "$name"
gpu=nvidia-h100; case "$name" in *H200*) gpu=nvidia-h200;; esac
bash benchmarks/results/probes/device_build.sh || exit 1
echo "build $(( $(date +%s) - t0 )) s"
{ python3 benchmarks/results/probes/probe_tf32_rounding.py; echo "-- tensor map TFLOAT32:";
  ORIGAMI_NV_PROBE_TF32_MAP=1 python3 benchmarks/results/probes/probe_tf32_rounding.py; } 2>&1 | tee "$OUT/probe_tf32.txt"
timeout 220 python3 -m pytest tests/test_tf32_gpu.py tests/test_simt_gpu.py tests/test_dispatch_cpu.py -q -p no:cacheprovider \
  > "$OUT/tests_tf32.txt" 2>&1; echo "tests rc=$?"; tail -4 "$OUT/tests_tf32.txt"; grep -E "^(FAILED|ERROR)" "$OUT/tests_tf32.txt" | head
echo "tests $(( $(date +%s) - t0 )) s"
left=$(( deadline - ($(date +%s) - t0) - 20 ))
[ $left -gt 60 ] && timeout $(( left < 150 ? left : 150 )) python3 benchmarks/vs_cublas.py --sets squares-nt squares \
  --dtypes tfloat32 --rounds 2 --out "$OUT/vs_tf32" > "$OUT/vs_tf32.log" 2>&1
grep -E "square|geomean" "$OUT/vs_tf32.log" | tail -6
left=$(( deadline - ($(date +%s) - t0) - 25 ))
if [ $left -gt 40 ]; then
  python3 -m origami_nv bench run --suite seed-tf32 --out /tmp/rep --gpu-name "$gpu" --no-seed --no-plots --no-report \
    --time-budget "$left" 2>&1 | tail -3
  rm -rf /tmp/ship && mkdir -p /tmp/ship
  for f in /tmp/rep/*/raw/*/*/shard-*.jsonl; do
    [ -e "$f" ] || continue; d=/tmp/ship/${f#/tmp/}; mkdir -p "$(dirname "$d")"; gzip -c "$f" > "$d.gz"; done
  for f in /tmp/rep/*/raw/*/*/shard-*.jsonl.gz; do
    [ -e "$f" ] || continue; d=/tmp/ship/${f#/tmp/}; mkdir -p "$(dirname "$d")"; cp "$f" "$d"; done
  (cd /tmp/ship && tar cf "$OUT/shards.tar" rep 2>/dev/null && ls -la "$OUT/shards.tar")
fi
echo "total $(( $(date +%s) - t0 )) s"
