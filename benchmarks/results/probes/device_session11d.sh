#!/usr/bin/env bash
# One-off device job of 2026-11-26 (eleventh session), issue 15 TF32 on either GPU: build (the tiled transposing copy
# without per-tile divisions), the kernel table, the TF32 GPU tests, TF32 vs cuBLAS TF32 (squares nt / nn, the seed
# sizes nn: the op's copy of B), then the seed-tf32 brute force (resumed from reports/ when this GPU has data) in what
# is left of the deadline, shards as shards.tar.
#   bash benchmarks/results/probes/device_session11d.sh DEADLINE_S
set -uo pipefail
t0=$(date +%s); deadline=$1
export PYTHONUNBUFFERED=1
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "$name"
gpu=nvidia-h100; case "$name" in *H200*) gpu=nvidia-h200;; esac
bash benchmarks/results/probes/device_build.sh || exit 1
echo "build $(( $(date +%s) - t0 )) s"
cp "$(python3 -c "import origami_nv,os;print(os.path.dirname(origami_nv.__file__))")/data/kernel_resources.json" "$OUT/"
timeout 200 python3 -m pytest tests/test_tf32_gpu.py -q -p no:cacheprovider > "$OUT/tests.txt" 2>&1
echo "tests rc=$?"; tail -2 "$OUT/tests.txt"; grep -E "^(FAILED|ERROR)" "$OUT/tests.txt" | head
left=$(( deadline - ($(date +%s) - t0) - 150 ))
[ $left -gt 60 ] && timeout $left python3 benchmarks/vs_cublas.py --sets squares-nt squares seed --dtypes tfloat32 \
  --rounds 2 --out "$OUT/vs_tf32" > "$OUT/vs_tf32.log" 2>&1
grep -E "^square|geomean" "$OUT/vs_tf32.log" | tail -8
left=$(( deadline - ($(date +%s) - t0) - 25 ))
if [ $left -gt 40 ]; then
  python3 -m origami_nv bench run --suite seed-tf32 --out /tmp/rep --resume-from reports --gpu-name "$gpu" --no-seed \
    --no-plots --no-report --time-budget "$left" 2>&1 | tail -2
  rm -rf /tmp/ship && mkdir -p /tmp/ship
  for f in /tmp/rep/*/raw/*/*/shard-*.jsonl; do
    [ -e "$f" ] || continue; d=/tmp/ship/${f#/tmp/}; mkdir -p "$(dirname "$d")"; gzip -c "$f" > "$d.gz"; done
  for f in /tmp/rep/*/raw/*/*/shard-*.jsonl.gz; do
    [ -e "$f" ] || continue; d=/tmp/ship/${f#/tmp/}; mkdir -p "$(dirname "$d")"; cp "$f" "$d"; done
  (cd /tmp/ship && tar cf "$OUT/shards.tar" rep 2>/dev/null && ls -la "$OUT/shards.tar")
fi
echo "total $(( $(date +%s) - t0 )) s"
