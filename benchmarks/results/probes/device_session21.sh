#!/usr/bin/env bash
# One-off device job of 2026-11-27 (twenty-first session): device_session20.sh's items plus streamk:S
# (probe_stream_k.py: stream-K against unsplit, split-K and cuBLAS on partial-last-wave shapes, issue 13) and
# wavefill:S (probe_wave_fill.py: the whole waves and the rest of C as two launches) and pitch:S (probe_pitch.py:
# rows on 128-byte lines or not) and pitch-ab:S (probe_pitch_ab.py with ORIGAMI_NV_PITCH_COPY 0 / 1 alternated);
# twenty-third session: mc-ab:S (probe_pitch_ab.py's multicast shapes with ORIGAMI_NV_MULTICAST 0 / 1 alternated) and
# mc-plans:S (probe_multicast_plans.py: the op's pick against each 1-CTA kernel and twin read in place).
#   bash benchmarks/results/probes/device_session21.sh GPU_NAME DEADLINE_S ITEM...
set -uo pipefail
source benchmarks/results/probes/device_lib.sh
target=$1; deadline=$2; shift 2
device_prepare "$target"
rest=()
for item in "$@"; do
  IFS=: read -r what share _ <<< "$item"
  left=$(( deadline - ($(date +%s) - t0) - 45 ))
  [ "$left" -gt 20 ] || { echo "$what: no time left"; continue; }
  [ "${share:-0}" -gt 0 ] && [ "$share" -lt "$left" ] && left=$share
  case "$what" in
    streamk) timeout "$left" python3 benchmarks/results/probes/probe_stream_k.py "$gpu" \
               >"$OUT/probe_stream_k_$gpu.txt" 2>&1; echo "streamk rc=$?"; grep -v "^$gpu .* cublas .* us;" \
               "$OUT/probe_stream_k_$gpu.txt" | tail -60 | cut -c1-200;;
    wavefill) timeout "$left" python3 benchmarks/results/probes/probe_wave_fill.py "$gpu" \
               >"$OUT/probe_wave_fill_$gpu.txt" 2>&1; echo "wavefill rc=$?"; grep -v "^$gpu   " \
               "$OUT/probe_wave_fill_$gpu.txt" | tail -40 | cut -c1-230;;
    pitch) timeout "$left" python3 benchmarks/results/probes/probe_pitch.py "$gpu" >"$OUT/probe_pitch_$gpu.txt" 2>&1
           echo "pitch rc=$?"; tail -25 "$OUT/probe_pitch_$gpu.txt" | cut -c1-600;;
    pitch-ab) for v in 0 1 0 1; do ORIGAMI_NV_PITCH_COPY=$v timeout $(( left / 4 )) python3 \
               benchmarks/results/probes/probe_pitch_ab.py "$gpu" >>"$OUT/probe_pitch_ab_$gpu.txt" 2>&1; done
               echo "pitch-ab done"; tail -3 "$OUT/probe_pitch_ab_$gpu.txt";;
    mc-ab) order=${MCAB_ORDER:-0 1 0 1}; n=$(wc -w <<< "$order")
           for v in $order; do ORIGAMI_NV_MULTICAST=$v timeout $(( left / n )) python3 \
             benchmarks/results/probes/probe_pitch_ab.py "$gpu" multicast >>"$OUT/probe_multicast_ab_$gpu.txt" 2>&1; done
           echo "mc-ab done"; grep -c ratio "$OUT/probe_multicast_ab_$gpu.txt";;
    mc-plans) for v in 1 2 1 2; do ORIGAMI_NV_MULTICAST=$v timeout $(( left / 4 )) python3 \
             benchmarks/results/probes/probe_multicast_plans.py "$gpu" >>"$OUT/probe_multicast_plans_$gpu.txt" 2>&1; done
           echo "mc-plans done"; cat "$OUT/probe_multicast_plans_$gpu.txt" | cut -c1-250;;
    pitch-diag) for v in 0 1; do ORIGAMI_NV_PITCH_COPY=$v timeout 60 python3 benchmarks/results/probes/probe_pitch_diag.py \
                 2>&1 | grep pitch_copy; done;;
    *) rest+=("$item");;
  esac
done
[ "${#rest[@]}" -gt 0 ] && bash benchmarks/results/probes/device_session20.sh "$target" \
  $(( deadline - ($(date +%s) - t0) )) "${rest[@]}"
echo "session21 total $(( $(date +%s) - t0 )) s"
