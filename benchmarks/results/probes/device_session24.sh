#!/usr/bin/env bash
# One-off device job of 2026-11-27 (twenty-fourth session): vs-gentest:S:SHARD (benchmarks/vs_cublas.py over the
# gen-test set, issue 11's third held-out set, with the model's 4 best-ranked launches timed too; SHARD = i/n) and
# every item of device_session21.sh.
#   bash benchmarks/results/probes/device_session24.sh GPU_NAME DEADLINE_S ITEM...
set -uo pipefail
source benchmarks/results/probes/device_lib.sh
target=$1; deadline=$2; shift 2
device_prepare "$target"
rest=()
for item in "$@"; do
  IFS=: read -r what share shard <<< "$item"
  left=$(( deadline - ($(date +%s) - t0) - 30 ))
  [ "$left" -gt 20 ] || { echo "$what: no time left"; continue; }
  [ "${share:-0}" -gt 0 ] && [ "$share" -lt "$left" ] && left=$share
  case "$what" in
    vs-gentest) tag=${shard//\//of}
                timeout "$left" python3 benchmarks/vs_cublas.py --sets gen-test --rounds 2 --top 4 --shard "$shard" \
                  --out "$OUT/vs_cublas_gentest_${gpu}_$tag" > "$OUT/vs_cublas_gentest_${gpu}_$tag.log" 2>&1
                echo "vs-gentest $shard rc=$?"; grep -c ratio "$OUT/vs_cublas_gentest_${gpu}_$tag.log"
                tail -4 "$OUT/vs_cublas_gentest_${gpu}_$tag.log" | cut -c1-250;;
    *) rest+=("$item");;
  esac
done
[ "${#rest[@]}" -gt 0 ] && bash benchmarks/results/probes/device_session21.sh "$target" \
  $(( deadline - ($(date +%s) - t0) )) "${rest[@]}"
echo "session24 total $(( $(date +%s) - t0 )) s"
