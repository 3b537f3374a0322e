#!/usr/bin/env bash
# One-off device job of 2026-11-27 (twenty-fourth session): vs-gentest:S:SHARD (benchmarks/vs_cublas.py over the
# gen-test set, issue 11's third held-out set, with the model's 4 best-ranked launches timed too; SHARD = i/n),
# edge-ab:S (probe_edge_shift.py with ORIGAMI_NV_EDGE_SHIFT 0 / 1 alternated) and every item of device_session21.sh.
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
    edge-ab) for v in 0 1 0 1; do ORIGAMI_NV_EDGE_SHIFT=$v timeout $(( left / 4 )) python3 \
               benchmarks/results/probes/probe_edge_shift.py >>"$OUT/probe_edge_shift_$gpu.txt" 2>&1; done
             echo "edge-ab done"; grep -c " us " "$OUT/probe_edge_shift_$gpu.txt"; grep -c WRONG "$OUT/probe_edge_shift_$gpu.txt";;
    edge-tests) timeout "$left" python3 -m pytest tests/test_wgmma_gpu.py -q -p no:cacheprovider \
                  -k "edge_tiles or several_tiles or shorter_than or layouts_edges" > "$OUT/edge_tests_$gpu.log" 2>&1
                echo "edge-tests rc=$?"; tail -2 "$OUT/edge_tests_$gpu.log";;
    *) rest+=("$item");;
  esac
done
[ "${#rest[@]}" -gt 0 ] && bash benchmarks/results/probes/device_session21.sh "$target" \
  $(( deadline - ($(date +%s) - t0) )) "${rest[@]}"
echo "session24 total $(( $(date +%s) - t0 )) s"
