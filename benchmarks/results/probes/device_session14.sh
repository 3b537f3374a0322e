#!/usr/bin/env bash
# One-off device job of 2026-11-26 (fourteenth session), issue 11: per suite, a resumed `bench run` within its share
# of the time; flag r adds --retime-picks (every pick timed again with its best launch right after it, so the report's
# A/BF is a ratio of one run); any run also times the kernels no record of the suite has timed (the thirteenth
# session's 128x96/112/144 tiles at gen-train). New shards as one tar.
#   bash benchmarks/results/probes/device_session14.sh GPU_NAME DEADLINE_S SUITE:SECONDS[:FLAGS] ...   (SECONDS 0: the rest;
#   FLAGS: r = --retime-picks, s = --retime-stale; the item tests:SECONDS runs the whole GPU test suite instead,
#   log in $OUT/tests.log, and dram-probe:SECONDS runs probe_dram_inflight.cu: seventeenth session; probe-cta:S,
#   probe-rs:S and pytest-FILE:S (one file of tests/): eighteenth session)
set -uo pipefail
source benchmarks/results/probes/device_lib.sh
target=$1; deadline=$2; shift 2
device_prepare "$target"
for item in "$@"; do
  IFS=: read -r suite share flags <<< "$item"
  left=$(( deadline - ($(date +%s) - t0) - 45 ))
  [ "$left" -gt 20 ] || { echo "$suite: no time left"; continue; }
  [ "${share:-0}" -gt 0 ] && [ "$share" -lt "$left" ] && left=$share
  if [ "$suite" = dram-probe ]; then  # probe_dram_inflight.cu (seventeenth session): DRAM rate by SMs and bytes in flight
    nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a benchmarks/results/probes/probe_dram_inflight.cu \
      -o /tmp/probe_dram && timeout "$left" /tmp/probe_dram >"$OUT/probe_dram_inflight.txt"; echo "dram-probe rc=$?"; continue
  fi
  if [ "$suite" = probe-cta ]; then  # probe_cta_sharing.py (eighteenth session): CTA count vs shared A rows vs empty N tile
    timeout "$left" python3 benchmarks/results/probes/probe_cta_sharing.py >"$OUT/probe_cta_sharing_$gpu.txt" 2>&1
    echo "probe-cta rc=$?"; tail -12 "$OUT/probe_cta_sharing_$gpu.txt"; continue
  fi
  if [ "$suite" = probe-rs ]; then  # probe_tf32_rs_swap.cu (eighteenth session): TF32 a @ b, B read in place
    nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a benchmarks/results/probes/probe_tf32_rs_swap.cu \
      -o /tmp/probe_rs && timeout "$left" /tmp/probe_rs >"$OUT/probe_tf32_rs_swap_$gpu.txt" 2>&1
    echo "probe-rs rc=$?"; timeout 60 python3 benchmarks/results/probes/probe_tf32_rs_swap_cublas.py \
      >>"$OUT/probe_tf32_rs_swap_$gpu.txt" 2>&1; cat "$OUT/probe_tf32_rs_swap_$gpu.txt"; continue
  fi
  if [[ "$suite" == pytest-* ]]; then  # one test file: pytest-test_dispatch_gpu runs tests/test_dispatch_gpu.py
    timeout "$left" python3 -m pytest "tests/${suite#pytest-}.py" -q -p no:cacheprovider >"$OUT/${suite}.log" 2>&1
    echo "$suite rc=$?"; tail -4 "$OUT/${suite}.log"; continue
  fi
  if [ "$suite" = tests ]; then
    timeout "$left" python3 -m pytest tests -q -p no:cacheprovider >"$OUT/tests.log" 2>&1; echo "tests rc=$?"
    tail -4 "$OUT/tests.log"; echo "tests done at $(( $(date +%s) - t0 )) s"; continue
  fi
  extra=()
  [[ "${flags:-}" == *r* ]] && extra+=(--retime-picks)
  [[ "${flags:-}" == *s* ]] && extra+=(--retime-stale)  # (fifteenth session: kernel change 10's stale launches)
  python3 -m origami_nv bench run --suite "$suite" --out /tmp/rep --resume-from reports --gpu-name "$target" --no-seed \
    --no-plots --no-report --time-budget "$left" "${extra[@]}" 2>&1 | tail -2
  echo "$suite done at $(( $(date +%s) - t0 )) s"
done
device_ship_shards
echo "total $(( $(date +%s) - t0 )) s"
