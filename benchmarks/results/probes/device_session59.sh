#!/usr/bin/env bash
# The fifty-ninth session's next device call (< 600 s, no origami_nv build): what that session could not measure for
# want of device time, on whichever Hopper GPU comes (run it on both):
#  1. the row-class GEMV (gemv_rowclass.cu) at the misaligned nn decode shapes, both forms (PIPE: not yet measured
#     anywhere; the H200 has no figure of this kernel at all): probe_gemv_rowclass.py;
#  2. its K split swept at fp16 M = 1 (quick build): probe_gemv_rowclass_sweep.py;
#  3. the deep-ring table of the fifty-eighth session's set (DEEP_SET=mid; the H100's is probe_deep_rings_s58_h100.txt).
#   bash benchmarks/results/probes/device_session59.sh
set -u
source benchmarks/results/probes/device_lib.sh
device_start
mkdir -p "$OUT"
(timeout 260 python3 benchmarks/results/probes/probe_gemv_rowclass.py "$gpu" > "$OUT/probe_gemv_rowclass_pipe_$gpu.txt" 2>&1)
echo "gemv probe rc=$? ($(( $(date +%s) - t0 )) s)"; cut -c1-220 "$OUT/probe_gemv_rowclass_pipe_$gpu.txt"
(timeout $(( 420 - ($(date +%s) - t0) )) python3 benchmarks/results/probes/probe_gemv_rowclass_sweep.py "$gpu" \
  > "$OUT/probe_gemv_rowclass_sweep_pipe_$gpu.txt" 2>&1)
echo "gemv sweep rc=$? ($(( $(date +%s) - t0 )) s)"; cut -c1-400 "$OUT/probe_gemv_rowclass_sweep_pipe_$gpu.txt"
left=$(( 585 - ($(date +%s) - t0) ))
if [ "$left" -gt 60 ]; then
  DEEP_SET=mid OUT=/tmp/deep timeout "$left" bash benchmarks/results/probes/probe_deep_rings.sh \
    > "$OUT/probe_deep_rings_$gpu.txt" 2>&1
  echo "deep-ring probe rc=$? ($(( $(date +%s) - t0 )) s)"; tail -25 "$OUT/probe_deep_rings_$gpu.txt"
  gzip -c /tmp/deep/probe_deep_rings.log > "$OUT/probe_deep_rings_${gpu}.log.gz" 2>/dev/null
fi
